package web

import (
	"errors"
	"testing"
	"time"

	"github.com/crewjam/saml"
)

// TestReplayCache: an assertion ID is accepted once until it expires;
// full of live IDs the cache refuses more rather than forget one, and
// it makes room by dropping the expired.
func TestReplayCache(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	c := newReplayCache()
	c.now = func() time.Time { return now }
	c.max = 3
	if err := c.Consume("id-a", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := c.Consume("id-a", now.Add(time.Minute)); !errors.Is(err, saml.ErrAssertionReplayed) {
		t.Fatalf("second use: %v", err)
	}
	if err := c.Consume("id-b", now.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := c.Consume("id-c", now.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := c.Consume("id-d", now.Add(time.Minute)); !errors.Is(err, errReplayFull) {
		t.Fatalf("full of live IDs: %v", err)
	}
	if err := c.Consume("id-a", now.Add(time.Minute)); !errors.Is(err, saml.ErrAssertionReplayed) {
		t.Fatalf("a full cache forgot id-a: %v", err)
	}
	now = now.Add(90 * time.Second) // id-a expired
	if err := c.Consume("id-d", now.Add(time.Minute)); err != nil {
		t.Fatalf("after id-a expired: %v", err)
	}
	if len(c.seen) != 3 {
		t.Fatalf("%d IDs kept, bound 3", len(c.seen))
	}
	if err := c.Consume("id-b", now.Add(time.Minute)); !errors.Is(err, saml.ErrAssertionReplayed) {
		t.Fatalf("id-b, still live: %v", err)
	}
}
