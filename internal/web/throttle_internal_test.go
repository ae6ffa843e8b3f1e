package web

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

func TestAddrThrottle(t *testing.T) {
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

func TestThrottleAddr(t *testing.T) {
	for _, tc := range []struct{ peer, xff, want string }{
		{"203.0.113.7:4000", "", "203.0.113.7"},
		{"203.0.113.7:4000", "198.51.100.1", "203.0.113.7"}, // not our proxy: its header is not believed
		{"127.0.0.1:4000", "", "127.0.0.1"},
		{"127.0.0.1:4000", "198.51.100.1", "198.51.100.1"},
		{"127.0.0.1:4000", "10.0.0.1, 198.51.100.1", "198.51.100.1"}, // the proxy appends the last
		{"[::1]:4000", "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:3:4:5:6]:4000", "", "2001:db8:1:2::/64"},
		{"127.0.0.1:4000", "not an address", "127.0.0.1"},
	} {
		r := httptest.NewRequest("POST", "/login", nil)
		r.RemoteAddr = tc.peer
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := throttleAddr(r); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %q, want %q", tc.peer, tc.xff, got, tc.want)
		}
	}
}
