package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// SignInsTable holds the sign-ins through a tenant's identity provider that
// are under way: PartitionKey the tenant, RowKey the expiry (zero-padded
// Unix seconds, so that the expired rows come first) and the SHA-256 of the
// state. The state itself travels in the browser only.
const SignInsTable = "SignIns"

// SignInTTL is how long a browser has to come back from the provider.
const SignInTTL = 10 * time.Minute

// SignIn is what a sign-in through an identity provider must remember
// between the redirect to the provider and the callback.
type SignIn struct {
	Tenant   string
	Nonce    string // bound into the ID token
	Verifier string // the PKCE code verifier
	Next     string // the page to go to afterwards
	Expires  time.Time
}

// SignInStore keeps sign-ins under way, server-side, so that any instance
// serves the callback, each state is used once, and a state is bound to the
// tenant that started it.
type SignInStore struct {
	st  storage.Storage
	now func() time.Time
}

// NewSignInStore returns a SignInStore over st.
func NewSignInStore(st storage.Storage) *SignInStore {
	return &SignInStore{st: st, now: time.Now}
}

// A state is "<expiry in Unix seconds>.<32 random bytes, base64url>".
func newState(expires time.Time) (string, error) {
	r, err := randomToken()
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(expires.Unix(), 10) + "." + r, nil
}

// parseState returns the expiry a state names, and false for a string that
// is not a state.
func parseState(state string) (time.Time, bool) {
	ts, r, ok := strings.Cut(state, ".")
	if !ok || len(ts) == 0 || len(ts) > 12 || len(r) != 43 {
		return time.Time{}, false
	}
	for _, c := range ts {
		if c < '0' || c > '9' {
			return time.Time{}, false
		}
	}
	if _, err := base64.RawURLEncoding.Strict().DecodeString(r); err != nil {
		return time.Time{}, false
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(sec, 0), true
}

func expiryKey(t time.Time) string { return fmt.Sprintf("%012d", t.Unix()) }

func signInKey(expires time.Time, state string) string {
	sum := sha256.Sum256([]byte(state))
	return expiryKey(expires) + "_" + hex.EncodeToString(sum[:])
}

func randomToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("store: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// Begin records a new sign-in for tenant and returns its state and nonce,
// for the redirect to the provider. It also removes a few of the tenant's
// expired sign-ins (those abandoned at the provider), so that they do not
// pile up.
func (ss *SignInStore) Begin(ctx context.Context, tenant, verifier, next string) (state string, s *SignIn, err error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return "", nil, err
	}
	now := ss.now()
	expires := now.Add(SignInTTL).Truncate(time.Second)
	if state, err = newState(expires); err != nil {
		return "", nil, err
	}
	nonce, err := randomToken()
	if err != nil {
		return "", nil, err
	}
	s = &SignIn{Tenant: tenant, Nonce: nonce, Verifier: verifier, Next: next, Expires: expires.UTC()}
	_, err = ss.st.InsertEntity(ctx, SignInsTable, storage.Entity{PartitionKey: tenant, RowKey: signInKey(expires, state), Properties: map[string]any{
		"Nonce": s.Nonce, "Verifier": verifier, "Next": next, "Expires": s.Expires,
	}})
	if err != nil {
		return "", nil, mapErr(err, "Sign-in")
	}
	ss.prune(ctx, tenant, now)
	return state, s, nil
}

// prune deletes up to pruneBatch of the tenant's expired sign-ins. It is
// best effort: a failure leaves them for the next one.
func (ss *SignInStore) prune(ctx context.Context, tenant string, now time.Time) {
	page, err := ss.st.QueryPartition(ctx, SignInsTable, tenant, storage.Query{RowKeyTo: expiryKey(now), Top: pruneBatch})
	if err != nil {
		return
	}
	for _, e := range page.Entities {
		_ = ss.st.DeleteEntity(ctx, SignInsTable, tenant, e.RowKey, "")
	}
}

// pruneBatch is how many expired sign-ins a Begin removes at most: more
// than one, so that abandoned ones cannot outrun the new.
const pruneBatch = 5

// errBadState is the answer to any state that does not open a sign-in of
// the tenant: unknown, used, expired, or another tenant's.
var errBadState = survey.Errorf(survey.EINVALID, "This sign-in link is not valid (expired, used, or not started here). Start again from the sign-in page.")

// Take returns the tenant's sign-in for state and removes it, so that a
// state serves once; EINVALID when there is none.
func (ss *SignInStore) Take(ctx context.Context, tenant, state string) (*SignIn, error) {
	expires, ok := parseState(state)
	if survey.ValidateTenantKey(tenant) != nil || !ok || ss.now().After(expires) {
		return nil, errBadState
	}
	rk := signInKey(expires, state)
	e, err := ss.st.GetEntity(ctx, SignInsTable, tenant, rk)
	if isNotFound(err) {
		return nil, errBadState
	}
	if err != nil {
		return nil, mapErr(err, "Sign-in")
	}
	// Delete with the ETag: of two callbacks racing with one state, one wins.
	if err := ss.st.DeleteEntity(ctx, SignInsTable, tenant, rk, e.ETag); err != nil {
		if isNotFound(err) || isPrecondition(err) {
			return nil, errBadState
		}
		return nil, mapErr(err, "Sign-in")
	}
	return &SignIn{Tenant: tenant, Nonce: e.String("Nonce"), Verifier: e.String("Verifier"), Next: e.String("Next"), Expires: e.Time("Expires")}, nil
}
