package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// SCIMTable is the directory a tenant's identity provider keeps here
// through SCIM 2.0 (package scim): PartitionKey the tenant; RowKeys
// "u_<id>" a user (a member), "e_<email>" the index of a user's e-mail
// address (userName) to its id, "g_<id>" a group, and "roles" which group
// gives which role.
const SCIMTable = "ScimDirectory"

// SCIMUser is a member as the identity provider sees it.
type SCIMUser struct {
	ID string
	// Email is the userName: the member's account.
	Email                                          string
	ExternalID, DisplayName, GivenName, FamilyName string
	// Active: false deactivates the member (UserStore.SetDisabled).
	Active            bool
	Created, Modified time.Time
}

// SCIMGroup is a group of the identity provider; a group that
// SCIMRoleGroups names gives its members a role.
type SCIMGroup struct {
	ID, DisplayName, ExternalID string
	// Members are the ids of its users, sorted, each once.
	Members           []string
	Created, Modified time.Time
}

// SCIMRoleGroups name the groups that give each role ("" is the role's
// own name: a group called "admin", "editor" or "viewer"), compared
// without regard to case.
type SCIMRoleGroups struct{ Admin, Editor, Viewer string }

// RoleOf is the role a group of that name gives ("" for none).
func (g SCIMRoleGroups) RoleOf(name string) survey.Role {
	name = strings.TrimSpace(name)
	for _, r := range []struct {
		role survey.Role
		name string
	}{{survey.Admin, g.Admin}, {survey.Editor, g.Editor}, {survey.Viewer, g.Viewer}} {
		if r.name == "" {
			r.name = string(r.role)
		}
		if strings.EqualFold(name, r.name) {
			return r.role
		}
	}
	return ""
}

// SCIMRoleChange is a member's role set by their groups; Kept says it was
// not (the tenant's last admin stays one).
type SCIMRoleChange struct {
	Email string
	Role  survey.Role
	Kept  bool
}

// SCIMStore keeps the tenants' SCIM directories, and makes the members'
// accounts follow them.
type SCIMStore struct {
	st    storage.Storage
	users *UserStore
	now   func() time.Time
}

// NewSCIMStore returns a SCIMStore over st.
func NewSCIMStore(st storage.Storage) *SCIMStore {
	return &SCIMStore{st: st, users: NewUserStore(st), now: time.Now}
}

// maxSCIMText bounds a user's or group's texts, in bytes.
const maxSCIMText = 256

func scimID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func validSCIMID(id string) bool {
	return len(id) == 32 && strings.Trim(id, "0123456789abcdef") == ""
}

func userOf(e storage.Entity) *SCIMUser {
	return &SCIMUser{ID: strings.TrimPrefix(e.RowKey, "u_"), Email: e.String("Email"), ExternalID: e.String("ExternalID"), DisplayName: e.String("DisplayName"),
		GivenName: e.String("GivenName"), FamilyName: e.String("FamilyName"), Active: !e.Bool("Inactive"), Created: e.Time("Created"), Modified: e.Time("Modified")}
}

func (u *SCIMUser) entity(tenant string) storage.Entity {
	return storage.Entity{PartitionKey: tenant, RowKey: "u_" + u.ID, Properties: map[string]any{"Email": u.Email, "ExternalID": u.ExternalID,
		"DisplayName": u.DisplayName, "GivenName": u.GivenName, "FamilyName": u.FamilyName, "Inactive": !u.Active, "Created": u.Created.UTC(), "Modified": u.Modified.UTC()}}
}

func groupOf(e storage.Entity) *SCIMGroup {
	g := &SCIMGroup{ID: strings.TrimPrefix(e.RowKey, "g_"), DisplayName: e.String("DisplayName"), ExternalID: e.String("ExternalID"), Created: e.Time("Created"), Modified: e.Time("Modified")}
	_ = json.Unmarshal([]byte(e.String("Members")), &g.Members)
	return g
}

func (g *SCIMGroup) entity(tenant string) storage.Entity {
	members, _ := json.Marshal(g.Members)
	return storage.Entity{PartitionKey: tenant, RowKey: "g_" + g.ID, Properties: map[string]any{"DisplayName": g.DisplayName, "ExternalID": g.ExternalID,
		"Members": string(members), "Created": g.Created.UTC(), "Modified": g.Modified.UTC()}}
}

// rows reads the tenant's rows whose keys start with prefix.
func (ss *SCIMStore) rows(ctx context.Context, tenant, prefix string) ([]storage.Entity, error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return nil, err
	}
	var out []storage.Entity
	q := storage.Query{RowKeyFrom: prefix, RowKeyTo: prefix + "~"}
	for {
		page, err := ss.st.QueryPartition(ctx, SCIMTable, tenant, q)
		if isNotFound(err) {
			return out, nil
		}
		if err != nil {
			return nil, mapErr(err, "Directory")
		}
		out = append(out, page.Entities...)
		if page.Continuation == "" {
			return out, nil
		}
		q.Continuation = page.Continuation
	}
}

// Users returns the tenant's SCIM users, by e-mail address.
func (ss *SCIMStore) Users(ctx context.Context, tenant string) ([]*SCIMUser, error) {
	rows, err := ss.rows(ctx, tenant, "u_")
	if err != nil {
		return nil, err
	}
	out := make([]*SCIMUser, 0, len(rows))
	for _, e := range rows {
		out = append(out, userOf(e))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Email < out[j].Email })
	return out, nil
}

var errNoSCIMUser = survey.Errorf(survey.ENOTFOUND, "No such user.")

// User returns the tenant's user of that id; ENOTFOUND when there is none.
func (ss *SCIMStore) User(ctx context.Context, tenant, id string) (*SCIMUser, error) {
	e, err := ss.userRow(ctx, tenant, id)
	if err != nil {
		return nil, err
	}
	return userOf(e), nil
}

func (ss *SCIMStore) userRow(ctx context.Context, tenant, id string) (storage.Entity, error) {
	if survey.ValidateTenantKey(tenant) != nil || !validSCIMID(id) {
		return storage.Entity{}, errNoSCIMUser
	}
	e, err := ss.st.GetEntity(ctx, SCIMTable, tenant, "u_"+id)
	if isNotFound(err) {
		return e, errNoSCIMUser
	}
	return e, mapErr(err, "Directory")
}

// UserByEmail returns the tenant's user whose userName is email;
// ENOTFOUND when there is none.
func (ss *SCIMStore) UserByEmail(ctx context.Context, tenant, email string) (*SCIMUser, error) {
	email = survey.NormalizeEmail(email)
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidEmail(email) {
		return nil, errNoSCIMUser
	}
	ix, err := ss.st.GetEntity(ctx, SCIMTable, tenant, "e_"+email)
	if isNotFound(err) {
		return nil, errNoSCIMUser
	}
	if err != nil {
		return nil, mapErr(err, "Directory")
	}
	return ss.User(ctx, tenant, ix.String("ID"))
}

// checkUser validates a user's fields, and normalises its e-mail.
func checkUser(u *SCIMUser) error {
	u.Email = survey.NormalizeEmail(u.Email)
	if !survey.ValidEmail(u.Email) {
		return survey.Errorf(survey.EINVALID, "userName must be the person's e-mail address (such as ana@example.com): it is their account here.")
	}
	for _, s := range []string{u.ExternalID, u.DisplayName, u.GivenName, u.FamilyName} {
		if len(s) > maxSCIMText {
			return survey.Errorf(survey.EINVALID, "A name or externalId is longer than %d bytes.", maxSCIMText)
		}
	}
	return nil
}

// CreateUser adds a user, and makes its member: a new account without a
// password (it signs in through the tenant's identity provider, or by a
// reset link), a viewer until a group gives it a role; or, when the
// address is already a member's account, that account, which keeps its
// role. An inactive user's account is deactivated at once. ECONFLICT when
// the tenant has a user of that userName.
func (ss *SCIMStore) CreateUser(ctx context.Context, tenant string, u SCIMUser) (*SCIMUser, error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return nil, err
	}
	if err := checkUser(&u); err != nil {
		return nil, err
	}
	u.ID = scimID()
	u.Created = ss.now().UTC()
	u.Modified = u.Created
	// The address's index first: of two creates at once, one wins.
	if err := ss.claimEmail(ctx, tenant, u.Email, u.ID); err != nil {
		return nil, err
	}
	_, err := ss.users.AddExternalMember(ctx, tenant, u.Email, survey.Viewer)
	if err != nil && survey.ErrorCode(err) != survey.ECONFLICT {
		_ = ss.st.DeleteEntity(ctx, SCIMTable, tenant, "e_"+u.Email, "")
		return nil, err
	}
	if _, err := ss.st.InsertEntity(ctx, SCIMTable, u.entity(tenant)); err != nil {
		return nil, mapErr(err, "Directory")
	}
	if err := ss.users.SetDisabled(ctx, tenant, u.Email, !u.Active); err != nil {
		return nil, err
	}
	return &u, nil
}

// claimEmail writes the index row of email to id; ECONFLICT when a user
// has it. An index row whose user never came (a create cut short, a
// minute ago or more) is taken.
func (ss *SCIMStore) claimEmail(ctx context.Context, tenant, email, id string) error {
	now := ss.now().UTC()
	for range 5 {
		_, err := ss.st.InsertEntity(ctx, SCIMTable, storage.Entity{PartitionKey: tenant, RowKey: "e_" + email, Properties: map[string]any{"ID": id, "At": now}})
		if !errors.Is(err, storage.ErrExists) {
			return mapErr(err, "Directory")
		}
		ix, err := ss.st.GetEntity(ctx, SCIMTable, tenant, "e_"+email)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return mapErr(err, "Directory")
		}
		_, err = ss.userRow(ctx, tenant, ix.String("ID"))
		if err == nil || survey.ErrorCode(err) == survey.ENOTFOUND && now.Sub(ix.Time("At")) < time.Minute {
			return survey.Errorf(survey.ECONFLICT, "A user with userName %s exists.", email)
		}
		if survey.ErrorCode(err) != survey.ENOTFOUND {
			return err
		}
		ix.Properties["ID"], ix.Properties["At"] = id, now
		if _, err := ss.st.UpdateEntity(ctx, SCIMTable, ix, ix.ETag); err == nil || !isPrecondition(err) {
			return mapErr(err, "Directory")
		}
	}
	return survey.Errorf(survey.ECONFLICT, "A user with userName %s is being made.", email)
}

// UpdateUser changes the user of that id by change, under its ETag (again
// when it changed meanwhile), and makes its member follow: deactivated
// (sessions ended) or active again. Its userName may not change: it is the
// member's account.
func (ss *SCIMStore) UpdateUser(ctx context.Context, tenant, id string, change func(*SCIMUser) error) (*SCIMUser, error) {
	for range 10 {
		e, err := ss.userRow(ctx, tenant, id)
		if err != nil {
			return nil, err
		}
		u := userOf(e)
		if err := change(u); err != nil {
			return nil, err
		}
		if err := checkUser(u); err != nil {
			return nil, err
		}
		if old := userOf(e); u.Email != old.Email {
			return nil, survey.Errorf(survey.EINVALID, "userName cannot change from %s: it is the member's account here. Remove the user and provision the new address.", old.Email)
		}
		u.ID, u.Modified = id, ss.now().UTC()
		if _, err := ss.st.UpdateEntity(ctx, SCIMTable, u.entity(tenant), e.ETag); isPrecondition(err) {
			continue
		} else if err != nil {
			return nil, mapErr(err, "Directory")
		}
		// Always, not only on a change: a call again mends what a failed
		// one left.
		if err := ss.users.SetDisabled(ctx, tenant, u.Email, !u.Active); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
			return nil, err
		}
		return u, nil
	}
	return nil, survey.Errorf(survey.ECONFLICT, "The user is being changed by another request; try again.")
}

// DeleteUser removes the user of that id and its member's account (which
// ends their sessions), and takes it out of its groups. The tenant's last
// admin is not removed (EINVALID), as on the members page.
func (ss *SCIMStore) DeleteUser(ctx context.Context, tenant, id string) (*SCIMUser, error) {
	e, err := ss.userRow(ctx, tenant, id)
	if err != nil {
		return nil, err
	}
	u := userOf(e)
	if err := ss.users.RemoveMember(ctx, tenant, u.Email); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		return nil, err
	}
	groups, err := ss.Groups(ctx, tenant)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		if !slices.Contains(g.Members, id) {
			continue
		}
		if _, _, err := ss.UpdateGroup(ctx, tenant, g.ID, func(g *SCIMGroup) error {
			g.Members = slices.DeleteFunc(g.Members, func(m string) bool { return m == id })
			return nil
		}); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
			return nil, err
		}
	}
	if err := ss.st.DeleteEntity(ctx, SCIMTable, tenant, e.RowKey, ""); err != nil && !isNotFound(err) {
		return nil, mapErr(err, "Directory")
	}
	if err := ss.st.DeleteEntity(ctx, SCIMTable, tenant, "e_"+u.Email, ""); err != nil && !isNotFound(err) {
		return nil, mapErr(err, "Directory")
	}
	return u, nil
}

// Groups returns the tenant's groups, by name.
func (ss *SCIMStore) Groups(ctx context.Context, tenant string) ([]*SCIMGroup, error) {
	rows, err := ss.rows(ctx, tenant, "g_")
	if err != nil {
		return nil, err
	}
	out := make([]*SCIMGroup, 0, len(rows))
	for _, e := range rows {
		out = append(out, groupOf(e))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].DisplayName < out[j].DisplayName })
	return out, nil
}

var errNoSCIMGroup = survey.Errorf(survey.ENOTFOUND, "No such group.")

// Group returns the tenant's group of that id; ENOTFOUND when there is
// none.
func (ss *SCIMStore) Group(ctx context.Context, tenant, id string) (*SCIMGroup, error) {
	e, err := ss.groupRow(ctx, tenant, id)
	if err != nil {
		return nil, err
	}
	return groupOf(e), nil
}

func (ss *SCIMStore) groupRow(ctx context.Context, tenant, id string) (storage.Entity, error) {
	if survey.ValidateTenantKey(tenant) != nil || !validSCIMID(id) {
		return storage.Entity{}, errNoSCIMGroup
	}
	e, err := ss.st.GetEntity(ctx, SCIMTable, tenant, "g_"+id)
	if isNotFound(err) {
		return e, errNoSCIMGroup
	}
	return e, mapErr(err, "Directory")
}

// maxGroupMembers bounds a group's members (a row keeps them all).
const maxGroupMembers = 5000

// checkGroup validates a group: a name, members that are users of the
// tenant (each once, sorted). Those of old (the group's members before)
// are not looked up again; a few new ones are read one by one (Entra ID
// adds one member a request), many by reading the users.
func (ss *SCIMStore) checkGroup(ctx context.Context, tenant string, g *SCIMGroup, old []string) error {
	g.DisplayName = strings.TrimSpace(g.DisplayName)
	if g.DisplayName == "" || len(g.DisplayName) > maxSCIMText || len(g.ExternalID) > maxSCIMText {
		return survey.Errorf(survey.EINVALID, "A group needs a displayName of 1 to %d bytes.", maxSCIMText)
	}
	slices.Sort(g.Members)
	g.Members = slices.Compact(g.Members)
	if len(g.Members) > maxGroupMembers {
		return survey.Errorf(survey.EINVALID, "A group has at most %d members here.", maxGroupMembers)
	}
	had := make(map[string]bool, len(old))
	for _, m := range old {
		had[m] = true
	}
	var fresh []string
	for _, m := range g.Members {
		if !had[m] {
			fresh = append(fresh, m)
		}
	}
	notUser := func(m string) error {
		return survey.Errorf(survey.EINVALID, "The member %q is not a user here: provision the user first.", m)
	}
	if len(fresh) <= 20 {
		for _, m := range fresh {
			if _, err := ss.userRow(ctx, tenant, m); survey.ErrorCode(err) == survey.ENOTFOUND {
				return notUser(m)
			} else if err != nil {
				return err
			}
		}
		return nil
	}
	users, err := ss.Users(ctx, tenant)
	if err != nil {
		return err
	}
	known := map[string]bool{}
	for _, u := range users {
		known[u.ID] = true
	}
	for _, m := range fresh {
		if !known[m] {
			return notUser(m)
		}
	}
	return nil
}

// CreateGroup adds a group, and gives its members the role it names (the
// role changes made).
func (ss *SCIMStore) CreateGroup(ctx context.Context, tenant string, g SCIMGroup) (*SCIMGroup, []SCIMRoleChange, error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return nil, nil, err
	}
	if err := ss.checkGroup(ctx, tenant, &g, nil); err != nil {
		return nil, nil, err
	}
	if err := ss.nameFree(ctx, tenant, g.DisplayName); err != nil {
		return nil, nil, err
	}
	g.ID, g.Created = scimID(), ss.now().UTC()
	g.Modified = g.Created
	if _, err := ss.st.InsertEntity(ctx, SCIMTable, g.entity(tenant)); err != nil {
		return nil, nil, mapErr(err, "Directory")
	}
	changes, err := ss.syncRoles(ctx, tenant, []*SCIMGroup{&g}, g.Members)
	return &g, changes, err
}

// nameFree is ECONFLICT when a group of the tenant has that name (case
// aside): a name gives a role, so it names one group.
func (ss *SCIMStore) nameFree(ctx context.Context, tenant, name string) error {
	groups, err := ss.Groups(ctx, tenant)
	if err != nil {
		return err
	}
	for _, o := range groups {
		if strings.EqualFold(o.DisplayName, name) {
			return survey.Errorf(survey.ECONFLICT, "A group named %s exists.", o.DisplayName)
		}
	}
	return nil
}

// UpdateGroup changes the group of that id by change, under its ETag
// (again when it changed meanwhile), and sets the roles of the members it
// gained or lost when it gives a role (before or after).
func (ss *SCIMStore) UpdateGroup(ctx context.Context, tenant, id string, change func(*SCIMGroup) error) (*SCIMGroup, []SCIMRoleChange, error) {
	for range 10 {
		e, err := ss.groupRow(ctx, tenant, id)
		if err != nil {
			return nil, nil, err
		}
		old, g := groupOf(e), groupOf(e)
		if err := change(g); err != nil {
			return nil, nil, err
		}
		if err := ss.checkGroup(ctx, tenant, g, old.Members); err != nil {
			return nil, nil, err
		}
		if !strings.EqualFold(old.DisplayName, g.DisplayName) {
			if err := ss.nameFree(ctx, tenant, g.DisplayName); err != nil {
				return nil, nil, err
			}
		}
		g.ID, g.Created, g.Modified = id, old.Created, ss.now().UTC()
		if _, err := ss.st.UpdateEntity(ctx, SCIMTable, g.entity(tenant), e.ETag); isPrecondition(err) {
			continue
		} else if err != nil {
			return nil, nil, mapErr(err, "Directory")
		}
		touched := symmetricDiff(old.Members, g.Members)
		if !strings.EqualFold(old.DisplayName, g.DisplayName) {
			touched = append(slices.Clone(old.Members), g.Members...) // renamed: its role may be another
		}
		changes, err := ss.syncRoles(ctx, tenant, []*SCIMGroup{old, g}, touched)
		return g, changes, err
	}
	return nil, nil, survey.Errorf(survey.ECONFLICT, "The group is being changed by another request; try again.")
}

func symmetricDiff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			out = append(out, x)
		}
	}
	return out
}

// DeleteGroup removes the group of that id, and sets the roles of its
// members when it gave one.
func (ss *SCIMStore) DeleteGroup(ctx context.Context, tenant, id string) (*SCIMGroup, []SCIMRoleChange, error) {
	e, err := ss.groupRow(ctx, tenant, id)
	if err != nil {
		return nil, nil, err
	}
	if err := ss.st.DeleteEntity(ctx, SCIMTable, tenant, e.RowKey, ""); err != nil && !isNotFound(err) {
		return nil, nil, mapErr(err, "Directory")
	}
	g := groupOf(e)
	changes, err := ss.syncRoles(ctx, tenant, []*SCIMGroup{g}, g.Members)
	return g, changes, err
}

// RoleGroups returns which groups give which role in the tenant.
func (ss *SCIMStore) RoleGroups(ctx context.Context, tenant string) (SCIMRoleGroups, error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return SCIMRoleGroups{}, err
	}
	e, err := ss.st.GetEntity(ctx, SCIMTable, tenant, "roles")
	if isNotFound(err) {
		return SCIMRoleGroups{}, nil
	}
	if err != nil {
		return SCIMRoleGroups{}, mapErr(err, "Directory")
	}
	return SCIMRoleGroups{Admin: e.String("Admin"), Editor: e.String("Editor"), Viewer: e.String("Viewer")}, nil
}

// SetRoleGroups names the groups that give each role, and sets the roles
// of the members of the groups that gave or now give one.
func (ss *SCIMStore) SetRoleGroups(ctx context.Context, tenant string, rg SCIMRoleGroups) ([]SCIMRoleChange, error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, n := range []*string{&rg.Admin, &rg.Editor, &rg.Viewer} {
		*n = strings.TrimSpace(*n)
		if len(*n) > maxSCIMText {
			return nil, &survey.Error{Code: survey.EINVALID, Message: "A group's name is too long.", Fields: map[string]string{"groups": "Use at most 256 bytes per name."}}
		}
	}
	for _, r := range survey.Roles {
		n := strings.ToLower(map[survey.Role]string{survey.Admin: rg.Admin, survey.Editor: rg.Editor, survey.Viewer: rg.Viewer}[r])
		if n == "" {
			n = string(r)
		}
		if names[n] {
			return nil, &survey.Error{Code: survey.EINVALID, Message: "Two roles name the same group.", Fields: map[string]string{"groups": "Name a different group for each role."}}
		}
		names[n] = true
	}
	old, err := ss.RoleGroups(ctx, tenant)
	if err != nil {
		return nil, err
	}
	_, err = ss.st.UpsertEntity(ctx, SCIMTable, storage.Entity{PartitionKey: tenant, RowKey: "roles", Properties: map[string]any{"Admin": rg.Admin, "Editor": rg.Editor, "Viewer": rg.Viewer}})
	if err != nil {
		return nil, mapErr(err, "Directory")
	}
	groups, err := ss.Groups(ctx, tenant)
	if err != nil {
		return nil, err
	}
	var touched []string
	for _, g := range groups {
		if old.RoleOf(g.DisplayName) != rg.RoleOf(g.DisplayName) {
			touched = append(touched, g.Members...)
		}
	}
	return ss.syncRoles(ctx, tenant, nil, touched)
}

// syncRoles sets the role of the users ids to the highest their groups
// give (a viewer's when none does), when one of the groups changed gives
// a role. The tenant's last admin keeps the role (Kept).
func (ss *SCIMStore) syncRoles(ctx context.Context, tenant string, changed []*SCIMGroup, ids []string) ([]SCIMRoleChange, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	rg, err := ss.RoleGroups(ctx, tenant)
	if err != nil {
		return nil, err
	}
	if changed != nil && !slices.ContainsFunc(changed, func(g *SCIMGroup) bool { return rg.RoleOf(g.DisplayName) != "" }) {
		return nil, nil // a group that gives no role
	}
	groups, err := ss.Groups(ctx, tenant)
	if err != nil {
		return nil, err
	}
	members, err := ss.users.Members(ctx, tenant)
	if err != nil {
		return nil, err
	}
	current := map[string]survey.Role{}
	for _, m := range members {
		current[m.Email] = m.Role
	}
	rank := map[survey.Role]int{"": 0, survey.Viewer: 1, survey.Editor: 2, survey.Admin: 3}
	slices.Sort(ids)
	var out []SCIMRoleChange
	for _, id := range slices.Compact(ids) {
		u, err := ss.User(ctx, tenant, id)
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			continue
		}
		if err != nil {
			return out, err
		}
		role := survey.Viewer
		for _, g := range groups {
			if r := rg.RoleOf(g.DisplayName); slices.Contains(g.Members, id) && rank[r] > rank[role] {
				role = r
			}
		}
		have, ok := current[u.Email]
		if !ok || have == role {
			continue
		}
		err = ss.users.SetRole(ctx, tenant, u.Email, role)
		if err == errLastAdmin {
			out = append(out, SCIMRoleChange{Email: u.Email, Role: have, Kept: true})
			continue
		}
		if err != nil {
			return out, err
		}
		out = append(out, SCIMRoleChange{Email: u.Email, Role: role})
	}
	return out, nil
}
