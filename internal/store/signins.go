package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// SignInsTable holds the sign-ins through a tenant's identity provider that
// are under way: PartitionKey the tenant, RowKey the SHA-256 of the state
// (the state itself travels in the browser only).
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

func signInKey(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:])
}

func randomToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("store: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// Begin records a new sign-in for tenant and returns its state and nonce,
// for the redirect to the provider.
func (ss *SignInStore) Begin(ctx context.Context, tenant, verifier, next string) (state string, s *SignIn, err error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return "", nil, err
	}
	if state, err = randomToken(); err != nil {
		return "", nil, err
	}
	nonce, err := randomToken()
	if err != nil {
		return "", nil, err
	}
	s = &SignIn{Tenant: tenant, Nonce: nonce, Verifier: verifier, Next: next, Expires: ss.now().Add(SignInTTL).UTC()}
	_, err = ss.st.InsertEntity(ctx, SignInsTable, storage.Entity{PartitionKey: tenant, RowKey: signInKey(state), Properties: map[string]any{
		"Nonce": s.Nonce, "Verifier": verifier, "Next": next, "Expires": s.Expires,
	}})
	if err != nil {
		return "", nil, mapErr(err, "Sign-in")
	}
	return state, s, nil
}

// errBadState is the answer to any state that does not open a sign-in of
// the tenant: unknown, used, expired, or another tenant's.
var errBadState = survey.Errorf(survey.EINVALID, "This sign-in link is not valid (expired, used, or not started here). Start again from the sign-in page.")

// Take returns the tenant's sign-in for state and removes it, so that a
// state serves once; EINVALID when there is none.
func (ss *SignInStore) Take(ctx context.Context, tenant, state string) (*SignIn, error) {
	if survey.ValidateTenantKey(tenant) != nil || len(state) != 43 {
		return nil, errBadState
	}
	rk := signInKey(state)
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
	s := &SignIn{Tenant: tenant, Nonce: e.String("Nonce"), Verifier: e.String("Verifier"), Next: e.String("Next"), Expires: e.Time("Expires")}
	if ss.now().After(s.Expires) {
		return nil, errBadState
	}
	return s, nil
}
