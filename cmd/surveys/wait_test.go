package main

import (
	"testing"
	"time"
)

// waitUntil waits until cond holds, checking it every 20 ms, for at most
// limit: a bound on a stuck test (generous, for a loaded machine), not a
// speed.
func waitUntil(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
