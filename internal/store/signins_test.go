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

func TestSignInStates(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ss := store.NewSignInStore(st)
		state, si, err := ss.Begin(ctx, tenant, "the-verifier", "/"+tenant+"/surveys/x/edit")
		if err != nil || len(state) < 45 || len(si.Nonce) != 43 || strings.Contains(state, si.Nonce) {
			t.Fatalf("Begin = %q %+v %v", state, si, err)
		}
		// Another tenant cannot take it; its own tenant takes it once.
		_, err = ss.Take(ctx, newTenant(), state)
		wantCode(t, "another tenant's Take", err, survey.EINVALID)
		got, err := ss.Take(ctx, tenant, state)
		if err != nil || got.Nonce != si.Nonce || got.Verifier != "the-verifier" || got.Next != "/"+tenant+"/surveys/x/edit" {
			t.Fatalf("Take = %+v %v", got, err)
		}
		_, err = ss.Take(ctx, tenant, state)
		wantCode(t, "second Take", err, survey.EINVALID)
		_, err = ss.Take(ctx, tenant, "short")
		wantCode(t, "malformed state", err, survey.EINVALID)
		// A state whose expiry is edited does not open the sign-in.
		live, _, err := ss.Begin(ctx, tenant, "v", "")
		if err != nil {
			t.Fatal(err)
		}
		ts, rest, _ := strings.Cut(live, ".")
		_, err = ss.Take(ctx, tenant, ts+"9."+rest)
		wantCode(t, "edited expiry", err, survey.EINVALID)
		// The state itself is not stored: only its hash.
		page, err := st.QueryPartition(ctx, store.SignInsTable, tenant, storage.Query{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			if strings.Contains(e.RowKey, rest) || strings.Contains(e.String("Nonce"), rest) {
				t.Fatal("a state is stored in the clear")
			}
		}
		// An expired sign-in is refused; abandoned ones are pruned by the
		// next Begin.
		for range 3 {
			if _, _, err := ss.Begin(ctx, tenant, "v", ""); err != nil {
				t.Fatal(err)
			}
		}
		later := store.NewSignInStore(st)
		store.SetSignInClock(later, func() time.Time { return time.Now().Add(store.SignInTTL + time.Minute) })
		_, err = later.Take(ctx, tenant, live)
		wantCode(t, "expired Take", err, survey.EINVALID)
		if _, _, err := later.Begin(ctx, tenant, "v", ""); err != nil {
			t.Fatal(err)
		}
		page, err = st.QueryPartition(ctx, store.SignInsTable, tenant, storage.Query{})
		if err != nil || len(page.Entities) != 1 {
			t.Fatalf("after pruning: %d sign-ins left, %v", len(page.Entities), err)
		}
	})
}

func TestSignInExternal(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		us := store.NewUserStore(st)
		// A new account, without a password.
		u, err := us.SignInExternal(ctx, tenant, "Ola@Example.COM", "https://idp.example", "sub-1")
		if err != nil || u.Email != "ola@example.com" || u.Tenant != tenant {
			t.Fatalf("SignInExternal = %+v %v", u, err)
		}
		_, err = us.Authenticate(ctx, tenant, "ola@example.com", "")
		wantCode(t, "password sign-in of an external account", err, survey.EFORBIDDEN)
		again, err := us.SignInExternal(ctx, tenant, "ola@example.com", "https://idp.example", "sub-1")
		if err != nil || again.CreatedOn.Sub(u.CreatedOn).Abs() > time.Millisecond { // Azure keeps 100 ns
			t.Fatalf("second sign-in = %+v %v", again, err)
		}
		// An account with a password keeps it.
		if _, err := us.Add(ctx, tenant, "ana@example.com", "correct horse battery"); err != nil {
			t.Fatal(err)
		}
		if _, err := us.SignInExternal(ctx, tenant, "ana@example.com", "https://idp.example", "sub-2"); err != nil {
			t.Fatal(err)
		}
		if _, err := us.Authenticate(ctx, tenant, "ana@example.com", "correct horse battery"); err != nil {
			t.Fatalf("the password after an external sign-in: %v", err)
		}
		// No usable email: refused.
		for _, bad := range []string{"", "not an email", "a/b@example.com"} {
			_, err := us.SignInExternal(ctx, tenant, bad, "https://idp.example", "sub-3")
			wantCode(t, "email "+bad, err, survey.EFORBIDDEN)
		}
	})
}
