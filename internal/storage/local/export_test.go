package local

import "time"

// SetClock sets the store's clock; call it before any operation that
// reads it.
func SetClock(s *Store, now func() time.Time) { s.now = now }

// Commits is the number of batches s committed; call it after Close.
func Commits(s *Store) int64 { return s.commits }
