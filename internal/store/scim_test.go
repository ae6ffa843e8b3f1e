package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestSCIMTokens: a SCIM token is shown once, listed without its secret,
// checked to its tenant and revoked; it is not an API token, nor an API
// token a SCIM token; another tenant cannot revoke it.
func TestSCIMTokens(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		scim, api := store.NewSCIMTokenStore(st), store.NewTokenStore(st)
		tok, err := scim.Create(ctx, tenant, "Entra ID")
		if err != nil || !strings.HasPrefix(tok, "scim_") {
			t.Fatalf("Create = %q, %v", tok, err)
		}
		apiTok, err := api.Create(ctx, tenant, "reports")
		if err != nil {
			t.Fatal(err)
		}
		if a, err := scim.Check(ctx, tok); err != nil || a.Tenant != tenant {
			t.Fatalf("Check = %+v, %v", a, err)
		}
		_, err = api.Check(ctx, tok)
		wantCode(t, "a SCIM token as an API token", err, survey.EFORBIDDEN)
		_, err = scim.Check(ctx, apiTok)
		wantCode(t, "an API token as a SCIM token", err, survey.EFORBIDDEN)
		list, err := scim.List(ctx, tenant)
		if err != nil || len(list) != 1 || list[0].Name != "Entra ID" || strings.Contains(tok, list[0].ID) {
			t.Fatalf("List = %+v, %v", list, err)
		}
		if l, err := api.List(ctx, tenant); err != nil || len(l) != 1 || l[0].Name != "reports" {
			t.Fatalf("the API tokens' list = %+v, %v", l, err)
		}
		wantCode(t, "revoke from another tenant", scim.Revoke(ctx, newTenant(), list[0].ID), survey.ENOTFOUND)
		if err := scim.Revoke(ctx, tenant, list[0].ID); err != nil {
			t.Fatal(err)
		}
		_, err = scim.Check(ctx, tok)
		wantCode(t, "a revoked SCIM token", err, survey.EFORBIDDEN)
	})
}

// TestSCIMUsersAndGroups: users become members (a viewer, or an existing
// member who keeps the role); a duplicate userName is ECONFLICT; groups
// that the tenant's roles name set the role, joining and leaving; a group
// that names no role changes none; the last admin keeps the role; a
// deleted user leaves the member list and its groups; another tenant
// sees none of it.
func TestSCIMUsersAndGroups(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		dir, users := store.NewSCIMStore(st), store.NewUserStore(st).WithCost(4)
		roleOf := func(email string) survey.Role {
			t.Helper()
			ms, err := users.Members(ctx, tenant)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				if m.Email == email {
					return m.Role
				}
			}
			return ""
		}
		if _, err := users.AddMember(ctx, tenant, "boss@example.com", "a long enough password", survey.Admin); err != nil {
			t.Fatal(err)
		}
		ana, err := dir.CreateUser(ctx, tenant, store.SCIMUser{Email: " Ana@Example.com", GivenName: "Ana", FamilyName: "Lima", ExternalID: "ext-1", Active: true})
		if err != nil {
			t.Fatal(err)
		}
		if ana.Email != "ana@example.com" || roleOf("ana@example.com") != survey.Viewer {
			t.Fatalf("created %+v, role %q", ana, roleOf("ana@example.com"))
		}
		_, err = dir.CreateUser(ctx, tenant, store.SCIMUser{Email: "ANA@example.com", Active: true})
		wantCode(t, "the same userName again", err, survey.ECONFLICT)
		_, err = dir.CreateUser(ctx, tenant, store.SCIMUser{Email: "not an address", Active: true})
		wantCode(t, "a userName that is no address", err, survey.EINVALID)
		if got, err := dir.UserByEmail(ctx, tenant, "ana@example.com"); err != nil || got.ID != ana.ID || got.GivenName != "Ana" {
			t.Fatalf("UserByEmail = %+v, %v", got, err)
		}
		// The existing admin, provisioned: adopted, still an admin.
		boss, err := dir.CreateUser(ctx, tenant, store.SCIMUser{Email: "boss@example.com", Active: true})
		if err != nil || roleOf("boss@example.com") != survey.Admin {
			t.Fatalf("adopting a member: %+v, %v, role %q", boss, err, roleOf("boss@example.com"))
		}
		// An unmapped group changes no role; the editors' group does.
		if _, err := dir.SetRoleGroups(ctx, tenant, store.SCIMRoleGroups{Editor: "Survey Editors"}); err != nil {
			t.Fatal(err)
		}
		if _, ch, err := dir.CreateGroup(ctx, tenant, store.SCIMGroup{DisplayName: "Marketing", Members: []string{ana.ID, boss.ID}}); err != nil || len(ch) != 0 {
			t.Fatalf("an unmapped group: %v, %v", ch, err)
		}
		if roleOf("boss@example.com") != survey.Admin || roleOf("ana@example.com") != survey.Viewer {
			t.Fatal("an unmapped group changed a role")
		}
		eds, ch, err := dir.CreateGroup(ctx, tenant, store.SCIMGroup{DisplayName: "survey editors", Members: []string{ana.ID}})
		if err != nil || len(ch) != 1 || ch[0].Role != survey.Editor || roleOf("ana@example.com") != survey.Editor {
			t.Fatalf("joining the editors: %v, %v, role %q", ch, err, roleOf("ana@example.com"))
		}
		_, _, err = dir.CreateGroup(ctx, tenant, store.SCIMGroup{DisplayName: "Survey Editors"})
		wantCode(t, "a second group of that name", err, survey.ECONFLICT)
		_, _, err = dir.CreateGroup(ctx, tenant, store.SCIMGroup{DisplayName: "Ghosts", Members: []string{"0123456789abcdef0123456789abcdef"}})
		wantCode(t, "a member who is no user", err, survey.EINVALID)
		many := []string{ana.ID}
		for i := range 21 {
			many = append(many, fmt.Sprintf("%032x", i))
		}
		_, _, err = dir.CreateGroup(ctx, tenant, store.SCIMGroup{DisplayName: "Crowd", Members: many})
		wantCode(t, "many members who are no users", err, survey.EINVALID)
		// The admins' group by its default name: Ana joins it.
		admins, _, err := dir.CreateGroup(ctx, tenant, store.SCIMGroup{DisplayName: "Admin", Members: []string{ana.ID}})
		if err != nil || roleOf("ana@example.com") != survey.Admin {
			t.Fatalf("joining the admins: %v, role %q", err, roleOf("ana@example.com"))
		}
		// Leaving it: an editor again (the editors' group).
		if _, _, err := dir.UpdateGroup(ctx, tenant, admins.ID, func(g *store.SCIMGroup) error { g.Members = nil; return nil }); err != nil || roleOf("ana@example.com") != survey.Editor {
			t.Fatalf("leaving the admins: %v, role %q", err, roleOf("ana@example.com"))
		}
		// Leaving the editors: a viewer.
		if _, _, err := dir.UpdateGroup(ctx, tenant, eds.ID, func(g *store.SCIMGroup) error { g.Members = nil; return nil }); err != nil || roleOf("ana@example.com") != survey.Viewer {
			t.Fatalf("leaving the editors: %v, role %q", err, roleOf("ana@example.com"))
		}
		// The last admin put in the editors' group keeps the admin role.
		_, ch, err = dir.UpdateGroup(ctx, tenant, eds.ID, func(g *store.SCIMGroup) error { g.Members = []string{boss.ID}; return nil })
		if err != nil || len(ch) != 1 || !ch[0].Kept || roleOf("boss@example.com") != survey.Admin {
			t.Fatalf("demoting the last admin: %+v, %v, role %q", ch, err, roleOf("boss@example.com"))
		}
		// Another tenant sees nothing.
		other := newTenant()
		_, err = dir.User(ctx, other, ana.ID)
		wantCode(t, "another tenant's user", err, survey.ENOTFOUND)
		_, err = dir.Group(ctx, other, eds.ID)
		wantCode(t, "another tenant's group", err, survey.ENOTFOUND)
		if l, err := dir.Users(ctx, other); err != nil || len(l) != 0 {
			t.Fatalf("another tenant's users: %v, %v", l, err)
		}
		_, err = dir.DeleteUser(ctx, other, ana.ID)
		wantCode(t, "deleting another tenant's user", err, survey.ENOTFOUND)
		// Deleting Ana: no member, in no group, her address free again.
		if _, _, err := dir.UpdateGroup(ctx, tenant, eds.ID, func(g *store.SCIMGroup) error { g.Members = append(g.Members, ana.ID); return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := dir.DeleteUser(ctx, tenant, ana.ID); err != nil {
			t.Fatal(err)
		}
		if roleOf("ana@example.com") != "" {
			t.Fatal("a deleted user is still a member")
		}
		if g, err := dir.Group(ctx, tenant, eds.ID); err != nil || len(g.Members) != 1 || g.Members[0] != boss.ID {
			t.Fatalf("the group after the deletion: %+v, %v", g, err)
		}
		_, err = dir.User(ctx, tenant, ana.ID)
		wantCode(t, "a deleted user", err, survey.ENOTFOUND)
		if _, err := dir.CreateUser(ctx, tenant, store.SCIMUser{Email: "ana@example.com", Active: true}); err != nil {
			t.Fatalf("provisioning a deleted user again: %v", err)
		}
		// A group's deletion sets its members' roles.
		if _, _, err := dir.DeleteGroup(ctx, tenant, admins.ID); err != nil {
			t.Fatal(err)
		}
		// Renamed to a role's group: its members get the role.
		cy, err := dir.CreateUser(ctx, tenant, store.SCIMUser{Email: "cy@example.com", Active: true})
		if err != nil {
			t.Fatal(err)
		}
		groups, err := dir.Groups(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		var marketing string
		for _, g := range groups {
			if g.DisplayName == "Marketing" {
				marketing = g.ID
			}
		}
		if _, _, err := dir.UpdateGroup(ctx, tenant, marketing, func(g *store.SCIMGroup) error { g.Members = append(g.Members, cy.ID); return nil }); err != nil || roleOf("cy@example.com") != survey.Viewer {
			t.Fatalf("into an unmapped group: %v, role %q", err, roleOf("cy@example.com"))
		}
		_, _, err = dir.UpdateGroup(ctx, tenant, marketing, func(g *store.SCIMGroup) error { g.DisplayName = "SURVEY EDITORS"; return nil })
		wantCode(t, "a rename to a name taken", err, survey.ECONFLICT)
		if _, _, err := dir.UpdateGroup(ctx, tenant, marketing, func(g *store.SCIMGroup) error { g.DisplayName = "Viewer"; return nil }); err != nil {
			t.Fatal(err)
		}
		if _, _, err := dir.UpdateGroup(ctx, tenant, marketing, func(g *store.SCIMGroup) error { g.DisplayName = "Admin"; return nil }); err != nil || roleOf("cy@example.com") != survey.Admin {
			t.Fatalf("renamed to the admins' group: %v, role %q", err, roleOf("cy@example.com"))
		}
		if l, err := dir.Groups(ctx, tenant); err != nil || len(l) != 2 || roleOf("cy@example.com") != survey.Admin {
			t.Fatalf("groups after a deletion: %d, %v", len(l), err)
		}
	})
}

// TestSCIMDeactivation: an inactive user's member is refused by every way
// of signing in (password, a new session from a link or an identity
// provider), and their live sessions end at once; active again, they sign
// in.
func TestSCIMDeactivation(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		dir, users := store.NewSCIMStore(st), store.NewUserStore(st).WithCost(4)
		if _, err := users.AddMember(ctx, tenant, "eve@example.com", "a long enough password", survey.Editor); err != nil {
			t.Fatal(err)
		}
		eve, err := dir.CreateUser(ctx, tenant, store.SCIMUser{Email: "eve@example.com", Active: true})
		if err != nil {
			t.Fatal(err)
		}
		u, err := users.Authenticate(ctx, tenant, "eve@example.com", "a long enough password")
		if err != nil {
			t.Fatal(err)
		}
		live, err := users.NewSession(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := dir.UpdateUser(ctx, tenant, eve.ID, func(u *store.SCIMUser) error { u.Active = false; return nil }); err != nil {
			t.Fatal(err)
		}
		_, err = users.Session(ctx, live)
		wantCode(t, "a deactivated member's session", err, survey.ENOTFOUND)
		_, err = users.Authenticate(ctx, tenant, "eve@example.com", "a long enough password")
		wantCode(t, "a deactivated member's password", err, survey.EFORBIDDEN)
		_, err = users.NewSession(ctx, &survey.User{Tenant: tenant, Email: "eve@example.com"})
		wantCode(t, "a deactivated member's link", err, survey.EFORBIDDEN)
		_, err = users.SignInExternal(ctx, tenant, "eve@example.com", "https://idp.example", "sub-1")
		wantCode(t, "a deactivated member's identity provider", err, survey.EFORBIDDEN)
		if ms, err := users.Members(ctx, tenant); err != nil || len(ms) != 1 || !ms[0].Disabled || ms[0].Role != survey.Editor {
			t.Fatalf("the members list: %+v, %v", ms, err)
		}
		if got, err := dir.User(ctx, tenant, eve.ID); err != nil || got.Active {
			t.Fatalf("the user: %+v, %v", got, err)
		}
		if _, err := dir.UpdateUser(ctx, tenant, eve.ID, func(u *store.SCIMUser) error { u.Active = true; return nil }); err != nil {
			t.Fatal(err)
		}
		u, err = users.Authenticate(ctx, tenant, "eve@example.com", "a long enough password")
		if err != nil || u.Role != survey.Editor {
			t.Fatalf("reactivated: %+v, %v", u, err)
		}
		if _, err := users.NewSession(ctx, u); err != nil {
			t.Fatal(err)
		}
		// userName is the account: it does not change.
		_, err = dir.UpdateUser(ctx, tenant, eve.ID, func(u *store.SCIMUser) error { u.Email = "eve2@example.com"; return nil })
		wantCode(t, "a new userName", err, survey.EINVALID)
		// Created inactive: deactivated from the start.
		if _, err := dir.CreateUser(ctx, tenant, store.SCIMUser{Email: "later@example.com"}); err != nil {
			t.Fatal(err)
		}
		_, err = users.NewSession(ctx, &survey.User{Tenant: tenant, Email: "later@example.com"})
		wantCode(t, "a member created inactive", err, survey.EFORBIDDEN)
	})
}

// beforeSession runs hook before each Sessions row is written.
type beforeSession struct {
	storage.Storage
	hook func()
}

func (b beforeSession) InsertEntity(ctx context.Context, table string, e storage.Entity) (string, error) {
	if table == store.SessionsTable && b.hook != nil {
		b.hook()
	}
	return b.Storage.InsertEntity(ctx, table, e)
}

// TestDeactivationRacesSignIn: an account deactivated while a sign-in of
// it writes its session (after the account was read) gets no session.
func TestDeactivationRacesSignIn(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		plain := store.NewUserStore(st).WithCost(4)
		if _, err := plain.AddMember(ctx, tenant, "eve@example.com", "a long enough password", survey.Editor); err != nil {
			t.Fatal(err)
		}
		raced := 0
		racing := store.NewUserStore(beforeSession{Storage: st, hook: func() {
			raced++
			if err := plain.SetDisabled(ctx, tenant, "eve@example.com", true); err != nil {
				t.Error(err)
			}
		}}).WithCost(4)
		_, err := racing.NewSession(ctx, &survey.User{Tenant: tenant, Email: "eve@example.com"})
		wantCode(t, "a session made as the account is deactivated", err, survey.EFORBIDDEN)
		if raced != 1 {
			t.Fatalf("the race ran %d times", raced)
		}
		// Nothing of it is left: no session listed for the account.
		if err := plain.SetDisabled(ctx, tenant, "eve@example.com", false); err != nil {
			t.Fatal(err)
		}
		page, err := st.QueryPartition(ctx, store.UserSessionsTable, tenant, storage.Query{})
		if err != nil && !strings.Contains(err.Error(), "not found") {
			t.Fatal(err)
		}
		if len(page.Entities) != 0 {
			t.Fatalf("sessions left: %d", len(page.Entities))
		}
	})
}
