package web

import (
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/surveys-dev/surveys/internal/survey"
)

// Throttling of sign-ins per client address, in this process's memory.
const (
	// addrFreeSignInFailures is how many failed sign-ins an address makes
	// (on any accounts) before each further attempt must wait
	// survey.ThrottleDelay after its last one. It is higher than an
	// account's, for offices behind one address.
	addrFreeSignInFailures = 10
	// addrThrottleEntries bounds the addresses remembered (least recently
	// used forgotten first): about 10 MB at most.
	addrThrottleEntries = 65536
	// addrForget is how long after its wait an address's count is kept.
	addrForget = time.Hour
)

// addrThrottle counts sign-in attempts per client address. An attempt is
// counted before its password is checked, and given back when the
// password was right (so parallel guesses are counted, and signing in to
// an account of one's own does not wipe a count of guesses).
type addrThrottle struct {
	mu   sync.Mutex
	seen *lru.Cache[string, addrAttempts]
	now  func() time.Time
}

type addrAttempts struct {
	n    int64
	last time.Time
}

func newAddrThrottle() *addrThrottle {
	c, err := lru.New[string, addrAttempts](addrThrottleEntries)
	if err != nil {
		panic(err) // only for a size ≤ 0
	}
	return &addrThrottle{seen: c, now: time.Now}
}

// begin counts an attempt from addr, or returns false when the address
// must wait.
func (t *addrThrottle) begin(addr string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	a, _ := t.seen.Get(addr)
	wait := survey.ThrottleDelay(a.n, addrFreeSignInFailures)
	if now.After(a.last.Add(wait + addrForget)) {
		a = addrAttempts{}
	} else if now.Before(a.last.Add(wait)) {
		return false
	}
	a.n++
	a.last = now
	t.seen.Add(addr, a)
	return true
}

// succeeded gives back the attempt that begin counted, after a right
// password.
func (t *addrThrottle) succeeded(addr string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a, ok := t.seen.Get(addr); ok && a.n > 0 {
		a.n--
		t.seen.Add(addr, a)
	}
}
