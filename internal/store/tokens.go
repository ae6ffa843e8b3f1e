package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TokensTable holds API tokens, by the SHA-256 of the token: the token
// itself is shown once, when made, and never stored.
const TokensTable = "ApiTokens"

// tokenPrefix marks a Surveys API token.
const tokenPrefix = "svy_"

// TokenStore makes and checks per-tenant API tokens.
type TokenStore struct {
	st  storage.Storage
	now func() time.Time
}

// NewTokenStore returns a TokenStore over st.
func NewTokenStore(st storage.Storage) *TokenStore { return &TokenStore{st: st, now: time.Now} }

func tokenKey(token string) (string, string) {
	sum := sha256.Sum256([]byte(token))
	h := hex.EncodeToString(sum[:])
	return h[:2], h
}

// Create makes a token for tenant and returns it.
func (ts *TokenStore) Create(ctx context.Context, tenant, name string) (string, error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return "", err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("store: token: %w", err)
	}
	token := tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	pk, rk := tokenKey(token)
	_, err := ts.st.InsertEntity(ctx, TokensTable, storage.Entity{PartitionKey: pk, RowKey: rk, Properties: map[string]any{
		"Tenant": tenant, "Name": name, "CreatedOn": ts.now().UTC(),
	}})
	if err != nil {
		return "", mapErr(err, "API token")
	}
	return token, nil
}

// Tenant returns the tenant of a token; EFORBIDDEN for an unknown one.
func (ts *TokenStore) Tenant(ctx context.Context, token string) (string, error) {
	if !strings.HasPrefix(token, tokenPrefix) || len(token) != len(tokenPrefix)+43 {
		return "", survey.Errorf(survey.EFORBIDDEN, "The API token is not valid.")
	}
	pk, rk := tokenKey(token)
	e, err := ts.st.GetEntity(ctx, TokensTable, pk, rk)
	if isNotFound(err) {
		return "", survey.Errorf(survey.EFORBIDDEN, "The API token is not valid.")
	}
	if err != nil {
		return "", mapErr(err, "API token")
	}
	return e.String("Tenant"), nil
}
