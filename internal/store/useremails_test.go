package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestEmailIndex: an account is found from its email alone, in every
// organisation it belongs to; removing it or its tenant unindexes it; a
// store made before the index is indexed once at start-up; a password set
// by a reset link works and ends the account's sessions.
func TestEmailIndex(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		us := store.NewUserStore(st)
		store.SetUserCost(us)
		other := newTenant()
		email := "ana-" + tenant + "@example.com"
		for _, tk := range []string{tenant, other} {
			if _, err := us.Add(ctx, tk, email, "correct horse battery"); err != nil {
				t.Fatal(err)
			}
		}
		want := []string{tenant, other}
		slices.Sort(want)
		if got, err := us.TenantsOf(ctx, " Ana-"+tenant+"@Example.com "); err != nil || !slices.Equal(got, want) {
			t.Fatalf("TenantsOf = %v, %v; want %v", got, err, want)
		}
		for _, bad := range []string{"", "not an email", "nobody@example.com"} {
			if got, err := us.TenantsOf(ctx, bad); err != nil || len(got) != 0 {
				t.Fatalf("TenantsOf(%q) = %v, %v", bad, got, err)
			}
		}
		if err := us.Remove(ctx, other, email); err != nil {
			t.Fatal(err)
		}
		if got, _ := us.TenantsOf(ctx, email); !slices.Equal(got, []string{tenant}) {
			t.Fatalf("after removal: %v", got)
		}

		// SetPassword: the new password works, the old does not, sessions end.
		u, err := us.Authenticate(ctx, tenant, email, "correct horse battery")
		if err != nil {
			t.Fatal(err)
		}
		token, err := us.NewSession(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if err := us.SetPassword(ctx, tenant, email, "short"); survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("a short password: %v", err)
		}
		if err := us.SetPassword(ctx, tenant, email, "a brand new passphrase"); err != nil {
			t.Fatal(err)
		}
		if _, err := us.Session(ctx, token); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("a session outlived the reset: %v", err)
		}
		if _, err := us.Authenticate(ctx, tenant, email, "correct horse battery"); err == nil {
			t.Fatal("the old password still works")
		}
		if _, err := us.Authenticate(ctx, tenant, email, "a brand new passphrase"); err != nil {
			t.Fatalf("the new password: %v", err)
		}
		if err := us.SetPassword(ctx, other, email, "a brand new passphrase"); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("SetPassword of a removed account: %v", err)
		}

		// An account of a store made before the index: indexed once.
		old := "old-" + tenant + "@example.com"
		if _, err := st.InsertEntity(ctx, store.UsersTable, storage.Entity{PartitionKey: tenant, RowKey: old, Properties: map[string]any{"CreatedOn": time.Now().UTC()}}); err != nil {
			t.Fatal(err)
		}
		if err := st.DeleteBlob(ctx, store.SystemContainer, "user-emails-indexed", ""); err != nil && !errors.Is(err, storage.ErrNotFound) {
			t.Fatal(err)
		}
		if n, err := store.IndexEmails(ctx, st); err != nil || n < 2 {
			t.Fatalf("IndexEmails = %d, %v", n, err)
		}
		if got, _ := us.TenantsOf(ctx, old); !slices.Equal(got, []string{tenant}) {
			t.Fatalf("an old account after IndexEmails: %v", got)
		}
		if n, err := store.IndexEmails(ctx, st); err != nil || n != 0 {
			t.Fatalf("IndexEmails again = %d, %v; want 0 (it ran once)", n, err)
		}
	})
}
