package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestMembersAndRoles: an account made before roles is an admin; an
// invited one has its role; a role change reaches the member's live
// session at once; the last admin can be neither demoted nor removed
// (EINVALID), and removing a member ends their sessions.
func TestMembersAndRoles(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		us := store.NewUserStore(st)
		store.SetUserCost(us) // what is tested is who may do what, not the hash
		if _, err := us.Add(ctx, tenant, "ana@example.com", "correct horse battery"); err != nil {
			t.Fatal(err)
		}
		ed, err := us.AddMember(ctx, tenant, "Eve@Example.com", "another long password", survey.Editor)
		if err != nil || ed.Role != survey.Editor || ed.Email != "eve@example.com" {
			t.Fatalf("AddMember = %+v, %v", ed, err)
		}
		if _, err := us.AddMember(ctx, tenant, "eve@example.com", "another long password", survey.Viewer); survey.ErrorCode(err) != survey.ECONFLICT {
			t.Errorf("a second account of eve: %v", err)
		}
		if _, err := us.AddMember(ctx, tenant, "vic@example.com", "short", survey.Viewer); survey.ErrorCode(err) != survey.EINVALID {
			t.Errorf("a short password: %v", err)
		}
		if _, err := us.AddExternalMember(ctx, tenant, "oli@example.com", survey.Viewer); err != nil {
			t.Fatal(err)
		}
		// The identity provider's sign-in keeps the role an invitation gave.
		if u, err := us.SignInExternal(ctx, tenant, "oli@example.com", "https://idp.example", "oli"); err != nil || u.Role != survey.Viewer {
			t.Errorf("SignInExternal of an invited viewer = %+v, %v", u, err)
		}
		// Without one, it makes an editor.
		if u, err := us.SignInExternal(ctx, tenant, "new@example.com", "https://idp.example", "new"); err != nil || u.Role != survey.ExternalRole {
			t.Errorf("SignInExternal of a stranger = %+v, %v", u, err)
		}
		list, err := us.Members(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]survey.Role{"ana@example.com": survey.Admin, "eve@example.com": survey.Editor, "oli@example.com": survey.Viewer, "new@example.com": survey.Editor}
		if len(list) != len(want) {
			t.Fatalf("Members = %+v", list)
		}
		for _, m := range list {
			if want[m.Email] != m.Role || m.CreatedOn.IsZero() {
				t.Errorf("member %+v, want role %q", m, want[m.Email])
			}
		}

		// Eve's session follows her role.
		u, err := us.Authenticate(ctx, tenant, "eve@example.com", "another long password")
		if err != nil || u.Role != survey.Editor {
			t.Fatalf("Authenticate eve = %+v, %v", u, err)
		}
		token, err := us.NewSession(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if s, err := us.Session(ctx, token); err != nil || s.Role != survey.Editor {
			t.Fatalf("eve's session = %+v, %v", s, err)
		}
		if err := us.SetRole(ctx, tenant, "eve@example.com", survey.Viewer); err != nil {
			t.Fatal(err)
		}
		if s, err := us.Session(ctx, token); err != nil || s.Role != survey.Viewer {
			t.Errorf("eve's session after the change = %+v, %v", s, err)
		}
		if err := us.SetRole(ctx, tenant, "eve@example.com", "owner"); survey.ErrorCode(err) != survey.EINVALID {
			t.Errorf("SetRole owner: %v", err)
		}
		if err := us.SetRole(ctx, tenant, "nobody@example.com", survey.Viewer); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Errorf("SetRole of no one: %v", err)
		}

		// Ana is the only admin.
		for what, err := range map[string]error{
			"demote": us.SetRole(ctx, tenant, "ana@example.com", survey.Editor),
			"remove": us.RemoveMember(ctx, tenant, "ana@example.com"),
		} {
			if survey.ErrorCode(err) != survey.EINVALID {
				t.Errorf("%s the last admin: %v", what, err)
			}
		}
		if err := us.SetRole(ctx, tenant, "ana@example.com", survey.Admin); err != nil {
			t.Errorf("the last admin stays admin: %v", err)
		}
		// With a second admin, the first may go; her sessions end.
		if err := us.SetRole(ctx, tenant, "eve@example.com", survey.Admin); err != nil {
			t.Fatal(err)
		}
		anaUser, err := us.Authenticate(ctx, tenant, "ana@example.com", "correct horse battery")
		if err != nil || anaUser.Role != survey.Admin {
			t.Fatalf("Authenticate ana = %+v, %v", anaUser, err)
		}
		anaToken, err := us.NewSession(ctx, anaUser)
		if err != nil {
			t.Fatal(err)
		}
		if err := us.RemoveMember(ctx, tenant, "ana@example.com"); err != nil {
			t.Fatal(err)
		}
		if _, err := us.Session(ctx, anaToken); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Errorf("ana's session after her removal: %v", err)
		}
		if err := us.RemoveMember(ctx, tenant, "ana@example.com"); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Errorf("removing ana twice: %v", err)
		}
	})
}

// TestTwoAdminsDemoteEachOther: two admins demoting each other at once
// leave one admin, never none.
func TestTwoAdminsDemoteEachOther(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		us := store.NewUserStore(st)
		store.SetUserCost(us) // what is tested is who may do what, not the hash
		for _, e := range []string{"a@example.com", "b@example.com"} {
			if _, err := us.AddMember(ctx, tenant, e, "correct horse battery", survey.Admin); err != nil {
				t.Fatal(err)
			}
		}
		for range 5 {
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, e := range []string{"a@example.com", "b@example.com"} {
				wg.Add(1)
				go func() { defer wg.Done(); errs[i] = us.SetRole(ctx, tenant, e, survey.Viewer) }()
			}
			wg.Wait()
			list, err := us.Members(ctx, tenant)
			if err != nil {
				t.Fatal(err)
			}
			admins := 0
			for _, m := range list {
				if m.Role == survey.Admin {
					admins++
				}
			}
			if admins != 1 || (errs[0] == nil) == (errs[1] == nil) {
				t.Fatalf("after both demotions: %d admins, errors %v", admins, errs)
			}
			// Both admins again for the next round.
			for _, e := range []string{"a@example.com", "b@example.com"} {
				if err := us.SetRole(ctx, tenant, e, survey.Admin); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// TestTokenRolesAndLastUse: a token has its role (none stored: admin);
// its last use is noted at most every TokenUseNoted.
func TestTokenRolesAndLastUse(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		ts := store.NewTokenStore(st)
		now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		store.SetTokenClock(ts, func() time.Time { return now })
		viewer, err := ts.CreateWithRole(ctx, tenant, "reports", survey.Viewer, 30*24*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ts.CreateWithRole(ctx, tenant, "bad", "owner", 0); survey.ErrorCode(err) != survey.EINVALID {
			t.Errorf("a token with no real role: %v", err)
		}
		old, err := ts.Create(ctx, tenant, "cli")
		if err != nil {
			t.Fatal(err)
		}
		// A token made before roles: no Role property at all.
		pk, rk := tokenKeyOf(old)
		e, err := st.GetEntity(ctx, store.TokensTable, pk, rk)
		if err != nil {
			t.Fatal(err)
		}
		delete(e.Properties, "Role")
		if _, err := st.UpdateEntity(ctx, store.TokensTable, e, ""); err != nil {
			t.Fatal(err)
		}
		for tok, want := range map[string]survey.Role{viewer: survey.Viewer, old: survey.Admin} {
			a, err := ts.Check(ctx, tok)
			if err != nil || a.Role != want || a.Tenant != tenant {
				t.Errorf("Check = %+v, %v; want %s", a, err, want)
			}
		}
		used := func() time.Time {
			list, err := ts.List(ctx, tenant)
			if err != nil || len(list) != 2 {
				t.Fatalf("List = %+v, %v", list, err)
			}
			for _, ti := range list {
				if ti.Name == "reports" {
					if ti.Role != survey.Viewer || ti.Expires.IsZero() {
						t.Errorf("the viewer token's listing: %+v", ti)
					}
					return ti.LastUsed
				}
			}
			t.Fatal("the viewer token is not listed")
			return time.Time{}
		}
		if got := used(); !got.Equal(now) {
			t.Errorf("last used %v, want %v", got, now)
		}
		first := now
		now = now.Add(time.Minute)
		if _, err := ts.Check(ctx, viewer); err != nil {
			t.Fatal(err)
		}
		if got := used(); !got.Equal(first) {
			t.Errorf("a use a minute later wrote the last use: %v", got)
		}
		now = now.Add(store.TokenUseNoted)
		if _, err := ts.Check(ctx, viewer); err != nil {
			t.Fatal(err)
		}
		if got := used(); !got.Equal(now) {
			t.Errorf("last used %v, want %v", got, now)
		}
		now = now.Add(31 * 24 * time.Hour)
		if _, err := ts.Check(ctx, viewer); survey.ErrorCode(err) != survey.EFORBIDDEN {
			t.Errorf("an expired token: %v", err)
		}
	})
}

// tokenKeyOf is the row of a token (the SHA-256 of it).
func tokenKeyOf(token string) (string, string) {
	sum := sha256.Sum256([]byte(token))
	h := hex.EncodeToString(sum[:])
	return h[:2], h
}

// TestSessionTakesTheAccountsRole: a session gets the role stored on the
// account, not the one its caller says (a sign-in by link knows none).
func TestSessionTakesTheAccountsRole(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		us := store.NewUserStore(st)
		store.SetUserCost(us) // what is tested is who may do what, not the hash
		if _, err := us.AddMember(ctx, tenant, "vic@example.com", "correct horse battery", survey.Viewer); err != nil {
			t.Fatal(err)
		}
		for _, said := range []survey.Role{"", survey.Admin} {
			token, err := us.NewSession(ctx, &survey.User{Tenant: tenant, Email: "vic@example.com", Role: said})
			if err != nil {
				t.Fatal(err)
			}
			if s, err := us.Session(ctx, token); err != nil || s.Role != survey.Viewer {
				t.Errorf("a session said %q: %+v, %v; want a viewer", said, s, err)
			}
		}
	})
}
