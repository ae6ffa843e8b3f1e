package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"sort"
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
	// table, prefix and noun tell API tokens (TokensTable, "svy_") from
	// SCIM tokens (scimtokens.go), kept alike in a table of their own.
	table, prefix, noun string
}

// NewTokenStore returns a TokenStore over st.
func NewTokenStore(st storage.Storage) *TokenStore {
	return &TokenStore{st: st, now: time.Now, table: TokensTable, prefix: tokenPrefix, noun: "API token"}
}

func tokenKey(token string) (string, string) {
	sum := sha256.Sum256([]byte(token))
	h := hex.EncodeToString(sum[:])
	return h[:2], h
}

// Create makes a token for tenant, without an expiry, and returns it.
func (ts *TokenStore) Create(ctx context.Context, tenant, name string) (string, error) {
	return ts.CreateFor(ctx, tenant, name, 0)
}

// CreateFor makes a token for tenant that expires after ttl (never when
// ttl is 0), and returns it. It may do everything (an admin's token).
func (ts *TokenStore) CreateFor(ctx context.Context, tenant, name string, ttl time.Duration) (string, error) {
	return ts.CreateWithRole(ctx, tenant, name, survey.Admin, ttl)
}

// CreateWithRole makes a token for tenant with a role, that expires after
// ttl (never when ttl is 0), and returns it.
func (ts *TokenStore) CreateWithRole(ctx context.Context, tenant, name string, role survey.Role, ttl time.Duration) (string, error) {
	if !role.Valid() {
		_, err := survey.ParseRole(string(role))
		return "", err
	}
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return "", err
	}
	if ttl < 0 {
		return "", survey.Errorf(survey.EINVALID, "A token's lifetime must be positive.")
	}
	return ts.create(ctx, tenant, name, role, ttl)
}

// create makes and stores a token (role "" for a SCIM token, which has
// none).
func (ts *TokenStore) create(ctx context.Context, tenant, name string, role survey.Role, ttl time.Duration) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("store: token: %w", err)
	}
	token := ts.prefix + base64.RawURLEncoding.EncodeToString(b[:])
	pk, rk := tokenKey(token)
	now := ts.now().UTC()
	props := map[string]any{"Tenant": tenant, "Name": name, "CreatedOn": now, "Role": string(role)}
	if ttl > 0 {
		props["Expires"] = now.Add(ttl)
	}
	_, err := ts.st.InsertEntity(ctx, ts.table, storage.Entity{PartitionKey: pk, RowKey: rk, Properties: props})
	if err != nil {
		return "", mapErr(err, ts.noun)
	}
	return token, nil
}

// TokenIDLength is the length of a token's ID: the start of the SHA-256
// of the token, which names it in lists and revocations (never the
// secret).
const TokenIDLength = 16

// TokenInfo describes a token, without its secret.
type TokenInfo struct {
	ID        string
	Name      string
	CreatedOn time.Time
	Expires   time.Time // zero: never
	// Role is what the token may do (none stored: admin); LastUsed when it
	// was last used, to within TokenUseNoted (zero: never).
	Role     survey.Role
	LastUsed time.Time
}

// List returns the tenant's tokens, oldest first. It reads the whole
// table (tokens are few; this is an operator's command).
func (ts *TokenStore) List(ctx context.Context, tenant string) ([]TokenInfo, error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return nil, err
	}
	var out []TokenInfo
	q := storage.TableQuery{}
	for {
		page, err := ts.st.QueryTable(ctx, ts.table, q)
		if err != nil {
			return nil, mapErr(err, ts.noun)
		}
		for _, e := range page.Entities {
			if e.String("Tenant") == tenant && len(e.RowKey) >= TokenIDLength {
				out = append(out, TokenInfo{ID: e.RowKey[:TokenIDLength], Name: e.String("Name"), CreatedOn: e.Time("CreatedOn"), Expires: e.Time("Expires"),
					Role: survey.StoredRole(e.String("Role")), LastUsed: e.Time("LastUsed")})
			}
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedOn.Before(out[j].CreatedOn) })
	return out, nil
}

// Revoke deletes the tenant's token of that ID; ENOTFOUND when the tenant
// has none.
func (ts *TokenStore) Revoke(ctx context.Context, tenant, id string) error {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return err
	}
	id = strings.ToLower(strings.TrimSpace(id))
	notFound := survey.Errorf(survey.ENOTFOUND, "%s has no %s %q.", tenant, ts.noun, id)
	if len(id) != TokenIDLength || strings.Trim(id, "0123456789abcdef") != "" {
		return notFound
	}
	page, err := ts.st.QueryPartition(ctx, ts.table, id[:2], storage.Query{RowKeyFrom: id, RowKeyTo: id + "~"})
	if err != nil {
		return mapErr(err, ts.noun)
	}
	n := 0
	for _, e := range page.Entities {
		if e.String("Tenant") != tenant {
			continue
		}
		if err := ts.st.DeleteEntity(ctx, ts.table, e.PartitionKey, e.RowKey, ""); err != nil && !isNotFound(err) {
			return mapErr(err, ts.noun)
		}
		n++
	}
	if n == 0 {
		return notFound
	}
	return nil
}

// Tenant returns the tenant of a token; EFORBIDDEN for an unknown, revoked
// or expired one.
func (ts *TokenStore) Tenant(ctx context.Context, token string) (string, error) {
	a, err := ts.Check(ctx, token)
	if err != nil {
		return "", err
	}
	return a.Tenant, nil
}

// TokenUseNoted is how often a token's last use is written: at most once
// in this time, not on every request, so that a busy token costs one
// storage read a call, not a read and a write.
const TokenUseNoted = 5 * time.Minute

// TokenAuth is what a valid token lets its holder do.
type TokenAuth struct {
	Tenant string
	Role   survey.Role
	ID     string
	// Name is the token's name (the audit log's actor "token:<name>").
	Name string
}

// Check returns the tenant and role of a token, and notes its use (at most
// every TokenUseNoted); EFORBIDDEN for an unknown, revoked or expired one.
func (ts *TokenStore) Check(ctx context.Context, token string) (*TokenAuth, error) {
	if !strings.HasPrefix(token, ts.prefix) || len(token) != len(ts.prefix)+43 {
		return nil, survey.Errorf(survey.EFORBIDDEN, "The %s is not valid.", ts.noun)
	}
	pk, rk := tokenKey(token)
	e, err := ts.st.GetEntity(ctx, ts.table, pk, rk)
	if isNotFound(err) {
		return nil, survey.Errorf(survey.EFORBIDDEN, "The %s is not valid.", ts.noun)
	}
	if err != nil {
		return nil, mapErr(err, ts.noun)
	}
	now := ts.now()
	if exp := e.Time("Expires"); !exp.IsZero() && !now.Before(exp) {
		return nil, survey.Errorf(survey.EFORBIDDEN, "The %s has expired.", ts.noun)
	}
	if now.Sub(e.Time("LastUsed")) >= TokenUseNoted {
		// Best effort, under the ETag: a revoked token is not brought back,
		// and of parallel calls one writes.
		e.Properties["LastUsed"] = now.UTC()
		_, _ = ts.st.UpdateEntity(ctx, ts.table, e, e.ETag)
	}
	return &TokenAuth{Tenant: e.String("Tenant"), Role: survey.StoredRole(e.String("Role")), ID: rk[:TokenIDLength], Name: e.String("Name")}, nil
}
