package web

import "time"

// SetSignInThrottleClock sets the clock of the server's per-address
// sign-in throttle, for the tests.
func SetSignInThrottleClock(s *Server, now func() time.Time) {
	s.signInThrottle.mu.Lock()
	defer s.signInThrottle.mu.Unlock()
	s.signInThrottle.now = now
}
