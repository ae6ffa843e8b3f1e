package web

import (
	"fmt"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

func TestAddrThrottle(t *testing.T) {
	t.Parallel()
	th := newAddrThrottle()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	th.now = func() time.Time { return now }
	for i := range addrFreeSignInFailures {
		if !th.begin("a") {
			t.Fatalf("free attempt %d refused", i)
		}
	}
	// A right password gives its attempt back; a count of guesses stays.
	th.succeeded("a")
	if !th.begin("a") {
		t.Fatal("attempt after a success refused")
	}
	for n := int64(addrFreeSignInFailures); n < addrFreeSignInFailures+12; n++ {
		wait := survey.ThrottleDelay(n, addrFreeSignInFailures)
		now = now.Add(wait - time.Millisecond)
		if th.begin("a") {
			t.Fatalf("after %d failures, allowed before %v", n, wait)
		}
		if !th.begin("b") {
			t.Fatal("another address refused")
		}
		th.succeeded("b")
		now = now.Add(time.Millisecond)
		if !th.begin("a") {
			t.Fatalf("after %d failures, refused after %v", n, wait)
		}
	}
	// Quiet long enough, an address starts afresh.
	now = now.Add(survey.MaxThrottleDelay + addrForget + time.Second)
	for i := range addrFreeSignInFailures {
		if !th.begin("a") {
			t.Fatalf("after a quiet hour, attempt %d refused", i)
		}
	}
	// Bounded: the least recently used addresses are forgotten.
	for i := range addrThrottleEntries + 100 {
		th.begin(fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
	}
	if n := th.seen.Len(); n > addrThrottleEntries {
		t.Fatalf("%d addresses kept, at most %d", n, addrThrottleEntries)
	}
}
