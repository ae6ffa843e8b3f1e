package store_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestPersonalLinks: links are made by count and by address, listed from
// the survey's partition, used once; a link of another survey or tenant
// and a malformed token are refused and change nothing.
func TestPersonalLinks(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ps := store.NewPersonalLinkStore(st)
		made, err := ps.Create(ctx, tenant, "poll", 130, nil) // two transactions
		if err != nil || len(made) != 130 {
			t.Fatalf("Create 130: %d, %v", len(made), err)
		}
		byMail, err := ps.Create(ctx, tenant, "poll", 0, []string{"ana@example.com", "bo@example.com"})
		if err != nil || len(byMail) != 2 || byMail[1].Email != "bo@example.com" || !survey.ValidPersonalToken(byMail[1].Token) {
			t.Fatalf("Create by mail: %+v, %v", byMail, err)
		}
		other, err := ps.Create(ctx, tenant, "other", 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		list, err := ps.List(ctx, tenant, "poll")
		if err != nil || len(list) != 132 {
			t.Fatalf("List: %d, %v", len(list), err)
		}
		for _, l := range list {
			if l.Token != "" || l.Used() {
				t.Fatalf("listed %+v", l)
			}
		}
		tok := made[0].Token
		l, err := ps.Use(ctx, tenant, "poll", tok, "a1", false)
		if err != nil || l.Answer != "a1" || l.UsedOn.IsZero() {
			t.Fatalf("Use: %+v, %v", l, err)
		}
		if _, err := ps.Use(ctx, tenant, "poll", tok, "a1", false); err != nil {
			t.Fatalf("the same answer again: %v", err)
		}
		if _, err := ps.Use(ctx, tenant, "poll", tok, "a2", false); err != store.ErrAnswered {
			t.Fatalf("second answer: %v", err)
		}
		for _, tc := range []struct{ tenant, slug, token string }{
			{tenant, "poll", other[0].Token},         // another survey's
			{newTenant(), "poll", tok},               // another tenant's
			{tenant, "poll", tok[:len(tok)-1] + "x"}, // malformed
			{tenant, "poll", "plk_"},
			{tenant, "poll", strings.Replace(tok, "plk_", "lnk_", 1)},
		} {
			if _, err := ps.Use(ctx, tc.tenant, tc.slug, tc.token, "a3", false); err != store.ErrNotInvited {
				t.Errorf("Use(%s, %s, %.10s…): %v", tc.tenant, tc.slug, tc.token, err)
			}
		}
		if l, _ := ps.Get(ctx, tenant, "other", other[0].Token); l == nil || l.Used() {
			t.Fatalf("the other survey's link was touched: %+v", l)
		}
		// Release undoes a use that was not acknowledged.
		if err := ps.Release(ctx, tenant, "poll", tok, "a1"); err != nil {
			t.Fatal(err)
		}
		if l, _ := ps.Get(ctx, tenant, "poll", tok); l.Used() {
			t.Fatalf("released: %+v", l)
		}
		// Bad counts.
		for _, n := range []int{0, -1, survey.MaxPersonalLinks + 1} {
			if _, err := ps.Create(ctx, tenant, "poll", n, nil); survey.ErrorCode(err) != survey.EINVALID {
				t.Errorf("Create(%d): %v", n, err)
			}
		}
		if _, err := ps.Create(ctx, tenant, "poll", 0, []string{"not an address"}); survey.ErrorCode(err) != survey.EINVALID {
			t.Errorf("Create(bad address): %v", err)
		}
		if list, _ := ps.List(ctx, tenant, "poll"); len(list) != 132 {
			t.Fatalf("bad requests stored links: %d", len(list))
		}
	})
}

// TestPersonalLinkChange: with changes allowed, a later answer replaces
// the earlier (kept in Replaced until settled), and an answer replaced
// may not come back.
func TestPersonalLinkChange(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ps := store.NewPersonalLinkStore(st)
		made, err := ps.Create(ctx, tenant, "poll", 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		tok := made[0].Token
		if _, err := ps.Use(ctx, tenant, "poll", tok, "a1", true); err != nil {
			t.Fatal(err)
		}
		l, err := ps.Use(ctx, tenant, "poll", tok, "a2", true)
		if err != nil || l.Answer != "a2" || !slices.Equal(l.Replaced, []string{"a1"}) || !slices.Equal(l.Pending, []string{"a1"}) {
			t.Fatalf("change: %+v, %v", l, err)
		}
		if _, err := ps.Use(ctx, tenant, "poll", tok, "a1", true); err != store.ErrAnswered {
			t.Fatalf("the replaced answer again: %v", err)
		}
		if err := ps.Settled(ctx, tenant, "poll", l.ID, []string{"a1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := ps.Use(ctx, tenant, "poll", tok, "a1", true); err != store.ErrAnswered {
			t.Fatalf("the replaced answer again, once settled: %v", err)
		}
		if l, _ := ps.Get(ctx, tenant, "poll", tok); l.Answer != "a2" || len(l.Pending) != 0 || len(l.Replaced) != 1 {
			t.Fatalf("settled: %+v", l)
		}
	})
}

// TestPersonalLinkConcurrentUse: answers sent at once with one link, from
// stores that share nothing but the storage (instances), mark it once.
func TestPersonalLinkConcurrentUse(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		made, err := store.NewPersonalLinkStore(st).Create(ctx, tenant, "poll", 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		const n = 8
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := []string{}
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id := "answer" + string(rune('a'+i))
				_, err := store.NewPersonalLinkStore(st).Use(ctx, tenant, "poll", made[0].Token, id, false)
				switch err {
				case nil:
					mu.Lock()
					won = append(won, id)
					mu.Unlock()
				case store.ErrAnswered:
				default:
					t.Errorf("Use: %v", err)
				}
			}()
		}
		wg.Wait()
		l, _ := store.NewPersonalLinkStore(st).Get(ctx, tenant, "poll", made[0].Token)
		if len(won) != 1 || l.Answer != won[0] {
			t.Fatalf("%d of %d submits used the link (%v); it holds %q", len(won), n, won, l.Answer)
		}
	})
}
