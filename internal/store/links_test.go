package store_test

import (
	"context"
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
		store.SetLinkClock(ls, func() time.Time { return now })

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
