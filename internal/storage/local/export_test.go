package local

import "time"

// SetClock sets the store's clock; call it before any operation that
// reads it.
func SetClock(s *Store, now func() time.Time) { s.now = now }
