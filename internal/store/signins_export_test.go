package store

import "time"

// SetSignInClock sets the clock of a SignInStore, for the tests.
func SetSignInClock(ss *SignInStore, now func() time.Time) { ss.now = now }
