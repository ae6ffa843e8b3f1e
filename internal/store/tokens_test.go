package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestTokensListExpireRevoke: a tenant's tokens are listed by ID, name,
// creation and expiry, never their secret; an expired or revoked token is
// refused; another tenant cannot revoke a token by its ID.
func TestTokensListExpireRevoke(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ts := store.NewTokenStore(st)
		now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		store.SetTokenClock(ts, func() time.Time { return now })
		forever, err := ts.Create(ctx, tenant, "reports")
		if err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Minute)
		short, err := ts.CreateFor(ctx, tenant, "ci", 90*24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		other := newTenant()
		if _, err := ts.Create(ctx, other, "theirs"); err != nil {
			t.Fatal(err)
		}
		list, err := ts.List(ctx, tenant)
		if err != nil || len(list) != 2 {
			t.Fatalf("List = %+v, %v", list, err)
		}
		if list[0].Name != "reports" || !list[0].Expires.IsZero() || list[1].Name != "ci" || !list[1].Expires.Equal(now.Add(90*24*time.Hour)) {
			t.Fatalf("List = %+v", list)
		}
		for _, tok := range []string{forever, short} {
			for _, info := range list {
				if len(info.ID) != store.TokenIDLength || strings.Contains(tok, info.ID) {
					t.Fatalf("ID %q tells the secret", info.ID)
				}
			}
		}
		now = now.Add(90*24*time.Hour - time.Second)
		if got, err := ts.Tenant(ctx, short); err != nil || got != tenant {
			t.Fatalf("a token before its expiry: %q, %v", got, err)
		}
		now = now.Add(time.Second)
		_, err = ts.Tenant(ctx, short)
		wantCode(t, "an expired token", err, survey.EFORBIDDEN)

		wantCode(t, "revoke from another tenant", ts.Revoke(ctx, other, list[0].ID), survey.ENOTFOUND)
		wantCode(t, "revoke a bad ID", ts.Revoke(ctx, tenant, "nope"), survey.ENOTFOUND)
		if err := ts.Revoke(ctx, tenant, list[0].ID); err != nil {
			t.Fatal(err)
		}
		_, err = ts.Tenant(ctx, forever)
		wantCode(t, "a revoked token", err, survey.EFORBIDDEN)
		if list, err := ts.List(ctx, tenant); err != nil || len(list) != 1 || list[0].Name != "ci" {
			t.Fatalf("List after a revocation = %+v, %v", list, err)
		}
	})
}
