package web

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/survey"
)

// A sign-in through a tenant's provider must remember, between the
// redirect to the provider and the callback, its state, nonce, PKCE
// verifier and the page to go to. They travel in the browser, in a cookie
// sealed with AES-256-GCM (secret.Box) and bound to the tenant, so that
// starting a sign-in, which anyone may do, writes nothing to storage. The
// key is derived from SURVEYS_SECRET_KEY when there is one (every instance
// then opens every other's cookies); without it each process draws its
// own, and a sign-in must finish on the instance that started it.

// signInTTL is how long a browser has to come back from the provider.
const signInTTL = 10 * time.Minute

// signInState is what the cookie holds.
type signInState struct {
	Tenant   string `json:"t"`
	State    string `json:"s"` // also in the provider's redirect
	Nonce    string `json:"n"` // bound into the ID token
	Verifier string `json:"v"` // the PKCE code verifier
	Next     string `json:"x,omitempty"`
	Expires  int64  `json:"e"` // Unix seconds
}

// maxStateNext bounds the page to go to afterwards kept in the cookie.
const maxStateNext = 512

// signInCookies seals and opens sign-in states, and remembers (in this
// process, bounded) the states already used, so that a callback serves
// once. (Across instances the provider's one-time code and PKCE serve that
// purpose.)
type signInCookies struct {
	box *secret.Box
	now func() time.Time

	mu   sync.Mutex
	used map[[32]byte]int64 // the state's hash: its expiry
}

// maxUsed bounds the used states remembered (about 100 bytes each).
const maxUsed = 50_000

func newSignInCookies(box *secret.Box) (*signInCookies, error) {
	if box == nil {
		var err error
		if box, err = secret.Random(); err != nil {
			return nil, err
		}
	}
	return &signInCookies{box: box, now: time.Now, used: map[[32]byte]int64{}}, nil
}

func randomString() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("web: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

func signInAD(tenant string) string { return "oidc-sign-in:" + tenant }

// begin makes a new sign-in's state for tenant and returns the cookie's
// value with it.
func (c *signInCookies) begin(tenant, verifier, next string) (string, signInState, error) {
	if len(next) > maxStateNext {
		next = ""
	}
	st := signInState{Tenant: tenant, Verifier: verifier, Next: next, Expires: c.now().Add(signInTTL).Unix()}
	var err error
	if st.State, err = randomString(); err != nil {
		return "", st, err
	}
	if st.Nonce, err = randomString(); err != nil {
		return "", st, err
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return "", st, err
	}
	v, err := c.box.Seal(string(raw), signInAD(tenant))
	return v, st, err
}

// errBadSignIn answers any cookie and state that do not make a sign-in of
// the tenant under way: none, forged, tampered, expired, used, another
// tenant's or another browser's.
var errBadSignIn = survey.Errorf(survey.EINVALID, "This sign-in was not started in this browser, or it has expired. Start again from the sign-in page.")

// take opens the cookie's value for tenant, checks that the provider sent
// back its state, and marks the state used.
func (c *signInCookies) take(tenant, cookie, state string) (signInState, error) {
	var st signInState
	if cookie == "" || state == "" || len(cookie) > 4096 {
		return st, errBadSignIn
	}
	raw, err := c.box.Open(cookie, signInAD(tenant))
	if err != nil || json.Unmarshal([]byte(raw), &st) != nil {
		return signInState{}, errBadSignIn
	}
	now := c.now().Unix()
	if st.Tenant != tenant || st.State == "" || now > st.Expires || subtle.ConstantTimeCompare([]byte(st.State), []byte(state)) != 1 {
		return signInState{}, errBadSignIn
	}
	if !c.use(st.State, st.Expires, now) {
		return signInState{}, errBadSignIn
	}
	return st, nil
}

// use records a state as used; false when it already was.
func (c *signInCookies) use(state string, expires, now int64) bool {
	h := sha256.Sum256([]byte(state))
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.used[h]; ok {
		return false
	}
	if len(c.used) >= maxUsed {
		for k, e := range c.used {
			if e < now {
				delete(c.used, k)
			}
		}
		for k := range c.used { // still full: forget some (their codes are spent at the provider)
			if len(c.used) < maxUsed*9/10 {
				break
			}
			delete(c.used, k)
		}
	}
	c.used[h] = expires
	return true
}
