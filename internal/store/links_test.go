package store_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestLinksSingleUse: a link works once, for its purpose, until it
// expires; two requests racing with one token get it once; invitations
// are listed and revoked per tenant only.
func TestLinksSingleUse(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ls := store.NewLinkStore(st)
		now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		ls.WithClock(func() time.Time { return now })

		reset, err := ls.Create(ctx, store.Link{Purpose: store.LinkReset, Tenant: tenant, Email: "ana@example.com"}, store.ResetLinkTTL)
		if err != nil || !survey.ValidLinkToken(reset) {
			t.Fatalf("Create = %q, %v", reset, err)
		}
		if _, err := ls.Peek(ctx, store.LinkInvite, reset); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("a reset link used as an invitation: %v", err)
		}
		l, err := ls.Peek(ctx, store.LinkReset, reset)
		if err != nil || l.Tenant != tenant || l.Email != "ana@example.com" || !l.Expires.Equal(now.Add(store.ResetLinkTTL)) {
			t.Fatalf("Peek = %+v, %v", l, err)
		}
		// Two uses at once: one wins.
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := ls.Use(ctx, store.LinkReset, reset); err == nil {
					mu.Lock()
					won++
					mu.Unlock()
				} else if survey.ErrorCode(err) != survey.ENOTFOUND {
					t.Errorf("Use: %v", err)
				}
			}()
		}
		wg.Wait()
		if won != 1 {
			t.Fatalf("%d uses of one link succeeded", won)
		}
		if _, err := ls.Use(ctx, store.LinkReset, reset); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("a used link: %v", err)
		}

		// Expiry.
		late, err := ls.Create(ctx, store.Link{Purpose: store.LinkReset, Tenant: tenant, Email: "ana@example.com"}, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		now = now.Add(time.Hour)
		if _, err := ls.Use(ctx, store.LinkReset, late); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("an expired link: %v", err)
		}

		// Invitations: listed per tenant, revoked by ID from their tenant only.
		other := newTenant()
		inv, err := ls.Create(ctx, store.Link{Purpose: store.LinkInvite, Tenant: tenant, Email: "bo@example.com", Role: "editor", By: "ana@example.com"}, store.InviteLinkTTL)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ls.Create(ctx, store.Link{Purpose: store.LinkInvite, Tenant: other, Email: "cy@example.com", Role: "viewer"}, store.InviteLinkTTL); err != nil {
			t.Fatal(err)
		}
		list, err := ls.List(ctx, tenant, store.LinkInvite)
		if err != nil || len(list) != 1 || list[0].Email != "bo@example.com" || list[0].Role != "editor" || list[0].By != "ana@example.com" {
			t.Fatalf("List = %+v, %v", list, err)
		}
		wantCode(t, "revoke from another tenant", ls.Revoke(ctx, other, store.LinkInvite, list[0].ID), survey.ENOTFOUND)
		wantCode(t, "revoke a bad ID", ls.Revoke(ctx, tenant, store.LinkInvite, "zz"), survey.ENOTFOUND)
		if err := ls.Revoke(ctx, tenant, store.LinkInvite, list[0].ID); err != nil {
			t.Fatal(err)
		}
		if _, err := ls.Use(ctx, store.LinkInvite, inv); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("a revoked invitation: %v", err)
		}

		// RevokeFor ends one person's links of a purpose.
		r1, _ := ls.Create(ctx, store.Link{Purpose: store.LinkReset, Tenant: tenant, Email: "dee@example.com"}, time.Hour)
		r2, _ := ls.Create(ctx, store.Link{Purpose: store.LinkReset, Tenant: tenant, Email: "eve@example.com"}, time.Hour)
		if err := ls.RevokeFor(ctx, tenant, store.LinkReset, "dee@example.com"); err != nil {
			t.Fatal(err)
		}
		if _, err := ls.Peek(ctx, store.LinkReset, r1); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("a link after RevokeFor: %v", err)
		}
		if _, err := ls.Peek(ctx, store.LinkReset, r2); err != nil {
			t.Fatalf("another person's link after RevokeFor: %v", err)
		}

		// Bad tokens never reach storage.
		for _, bad := range []string{"", "lnk_", "svy_x", reset + "x"} {
			if _, err := ls.Use(ctx, store.LinkReset, bad); survey.ErrorCode(err) != survey.ENOTFOUND {
				t.Fatalf("Use(%q): %v", bad, err)
			}
		}
	})
}

// TestResetLinksRevokedOnPasswordChange: setting a password (a reset
// link's holder, the operator's CLI) or changing it (the account page)
// revokes every outstanding reset link of that account, and only those:
// another person's, another organisation's and invitations stay.
func TestResetLinksRevokedOnPasswordChange(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ls, us := store.NewLinkStore(st), store.NewUserStore(st)
		store.SetUserCost(us)
		other := newTenant()
		for _, a := range []struct{ tenant, email string }{{tenant, "ana@example.com"}, {tenant, "bo@example.com"}, {other, "ana@example.com"}} {
			if _, err := us.Add(ctx, a.tenant, a.email, "correct horse battery"); err != nil {
				t.Fatal(err)
			}
		}
		mk := func(purpose, tenant, email string) string {
			t.Helper()
			token, err := ls.Create(ctx, store.Link{Purpose: purpose, Tenant: tenant, Email: email}, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			return token
		}
		for _, tc := range []struct {
			name   string
			change func() error
		}{
			{"set", func() error { return us.SetPassword(ctx, tenant, "ana@example.com", "a brand new passphrase") }},
			{"change", func() error {
				return us.ChangePassword(ctx, tenant, "ana@example.com", "a brand new passphrase", "yet another passphrase")
			}},
		} {
			older, newer := mk(store.LinkReset, tenant, "ana@example.com"), mk(store.LinkReset, tenant, "ana@example.com")
			kept := map[string]string{
				"another person's reset link":       mk(store.LinkReset, tenant, "bo@example.com"),
				"another organisation's reset link": mk(store.LinkReset, other, "ana@example.com"),
			}
			invite := mk(store.LinkInvite, tenant, "ana@example.com")
			if err := tc.change(); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			for _, token := range []string{older, newer} {
				if _, err := ls.Peek(ctx, store.LinkReset, token); survey.ErrorCode(err) != survey.ENOTFOUND {
					t.Fatalf("%s: a reset link of the account survives the new password: %v", tc.name, err)
				}
			}
			for what, token := range kept {
				if _, err := ls.Peek(ctx, store.LinkReset, token); err != nil {
					t.Fatalf("%s: %s was revoked: %v", tc.name, what, err)
				}
			}
			if _, err := ls.Peek(ctx, store.LinkInvite, invite); err != nil {
				t.Fatalf("%s: an invitation was revoked: %v", tc.name, err)
			}
		}
	})
}

// TestTakeResetMail: at most store.ResetMailsPerAddress (3) reset mails
// to one address in an hour, counted whatever the case of the address;
// another address has its own count; an hour after the first, the count
// starts again. Racing takes never exceed the limit.
func TestTakeResetMail(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ls := store.NewLinkStore(st)
		now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		ls.WithClock(func() time.Time { return now })
		ana, bo := "ana@"+tenant+".example", "bo@"+tenant+".example"
		take := func(email string) bool {
			t.Helper()
			ok, err := ls.TakeResetMail(ctx, email)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		for i, want := range []bool{true, true, true, false, false} {
			addr := ana
			if i%2 == 1 {
				addr = strings.ToUpper(ana)
			}
			if got := take(addr); got != want {
				t.Fatalf("take #%d = %v, want %v", i+1, got, want)
			}
		}
		if !take(bo) {
			t.Fatal("another address is refused")
		}
		now = now.Add(59 * time.Minute)
		if take(ana) {
			t.Fatal("taken again within the hour")
		}
		now = now.Add(time.Minute)
		if !take(ana) {
			t.Fatal("refused an hour after the first")
		}

		// Racing takes for a fresh address: exactly 3 win.
		cy := "cy@" + tenant + ".example"
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := ls.TakeResetMail(ctx, cy)
				if err != nil {
					t.Errorf("TakeResetMail: %v", err)
				}
				if ok {
					mu.Lock()
					won++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if won != 3 {
			t.Fatalf("%d racing takes won, want 3", won)
		}
	})
}
