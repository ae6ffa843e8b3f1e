package store

import (
	"context"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// SCIMTokensTable holds the tokens a tenant's identity provider sends to
// the SCIM API, kept as API tokens are (by their SHA-256; shown once): a
// kind of their own, which the JSON API refuses and which reaches only
// /scim/v2.
const SCIMTokensTable = "ScimTokens"

// scimTokenPrefix marks a SCIM token.
const scimTokenPrefix = "scim_"

// SCIMTokenStore makes, lists, revokes and checks SCIM tokens.
type SCIMTokenStore struct{ ts *TokenStore }

// NewSCIMTokenStore returns a SCIMTokenStore over st.
func NewSCIMTokenStore(st storage.Storage) *SCIMTokenStore {
	return &SCIMTokenStore{ts: &TokenStore{st: st, now: time.Now, table: SCIMTokensTable, prefix: scimTokenPrefix, noun: "SCIM token"}}
}

// Create makes a SCIM token for tenant, without an expiry (identity
// providers keep one for years; it is revoked when replaced), and returns
// it.
func (s *SCIMTokenStore) Create(ctx context.Context, tenant, name string) (string, error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return "", err
	}
	return s.ts.create(ctx, tenant, name, "", 0)
}

// List returns the tenant's SCIM tokens, oldest first.
func (s *SCIMTokenStore) List(ctx context.Context, tenant string) ([]TokenInfo, error) {
	return s.ts.List(ctx, tenant)
}

// Revoke deletes the tenant's SCIM token of that ID; ENOTFOUND when it
// has none.
func (s *SCIMTokenStore) Revoke(ctx context.Context, tenant, id string) error {
	return s.ts.Revoke(ctx, tenant, id)
}

// Check returns the tenant of a SCIM token (and notes its use);
// EFORBIDDEN for an unknown or revoked one, or an API token.
func (s *SCIMTokenStore) Check(ctx context.Context, token string) (*TokenAuth, error) {
	return s.ts.Check(ctx, token)
}
