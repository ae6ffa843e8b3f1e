package store

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Member is an account of a tenant as its members page lists it.
type Member struct {
	Email     string
	Role      survey.Role
	CreatedOn time.Time
	// External: the account was made by a sign-in through the tenant's
	// identity provider, or for one; it has no password here.
	External bool
	// TwoFactor: the member signs in in two steps (twofactor.go), with
	// an authenticator app's code or a passkey (passkeys.go).
	TwoFactor bool
	// Disabled: the tenant's identity provider deactivated the account
	// (SCIM); it cannot sign in.
	Disabled bool
}

// errLastAdmin refuses to leave a tenant without an admin.
var errLastAdmin = &survey.Error{Code: survey.EINVALID, Message: "A tenant keeps at least one admin: make someone else an admin first.",
	Fields: map[string]string{"role": "The last admin stays an admin: make someone else an admin first."}}

// Members returns the tenant's accounts, by email.
func (us *UserStore) Members(ctx context.Context, tenant string) ([]Member, error) {
	rows, err := us.memberRows(ctx, tenant)
	if err != nil {
		return nil, err
	}
	holders, err := us.passkeyHolders(ctx, tenant)
	if err != nil {
		return nil, err
	}
	out := make([]Member, 0, len(rows))
	for _, e := range rows {
		m := memberOf(e)
		m.TwoFactor = m.TwoFactor || holders[m.Email] > 0
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Email < out[j].Email })
	return out, nil
}

func memberOf(e storage.Entity) Member {
	return Member{Email: e.RowKey, Role: survey.StoredRole(e.String("Role")), CreatedOn: e.Time("CreatedOn"), External: e.String("PasswordHash") == "", TwoFactor: e.String("TOTPSecret") != "", Disabled: e.Bool("Disabled")}
}

func (us *UserStore) memberRows(ctx context.Context, tenant string) ([]storage.Entity, error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return nil, err
	}
	var rows []storage.Entity
	q := storage.Query{}
	for {
		page, err := us.st.QueryPartition(ctx, UsersTable, tenant, q)
		if isNotFound(err) {
			return rows, nil
		}
		if err != nil {
			return nil, mapErr(err, "Account")
		}
		rows = append(rows, page.Entities...)
		if page.Continuation == "" {
			return rows, nil
		}
		q.Continuation = page.Continuation
	}
}

// AddMember creates an account with a password and a role (an accepted
// invitation); ECONFLICT when the email is taken in the tenant.
func (us *UserStore) AddMember(ctx context.Context, tenant, email, password string, role survey.Role) (*survey.User, error) {
	if !role.Valid() {
		return nil, survey.Errorf(survey.EINVALID, "Choose a role.")
	}
	return us.add(ctx, tenant, email, password, role)
}

// AddExternalMember creates an account without a password, with a role: an
// invitation accepted in a tenant that signs in through its own identity
// provider, whose sign-in (SignInExternal) then finds the account and keeps
// its role. ECONFLICT when the email is taken in the tenant.
func (us *UserStore) AddExternalMember(ctx context.Context, tenant, email string, role survey.Role) (*survey.User, error) {
	email = survey.NormalizeEmail(email)
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return nil, err
	}
	if !survey.ValidEmail(email) || !role.Valid() {
		return nil, survey.Errorf(survey.EINVALID, "The invitation names no valid email address or role.")
	}
	u := &survey.User{Tenant: tenant, Email: email, CreatedOn: us.now().UTC(), Role: role}
	// Indexed first, as every account (useremails.go).
	if err := us.indexEmail(ctx, tenant, email); err != nil {
		return nil, err
	}
	_, err := us.st.InsertEntity(ctx, UsersTable, storage.Entity{PartitionKey: tenant, RowKey: email, Properties: map[string]any{
		"CreatedOn": u.CreatedOn, "FailCount": int64(0), "Role": string(role),
	}})
	if errors.Is(err, storage.ErrExists) {
		return nil, survey.Errorf(survey.ECONFLICT, "%s already has an account.", email)
	}
	return u, mapErr(err, "Account")
}

// SetRole changes a member's role, and the role of their live sessions. A
// tenant keeps at least one admin: demoting the last one is EINVALID. The
// check holds under concurrent changes: the change is one transaction with
// the rows of the other admins, each under its ETag, so that two admins
// demoting each other at once cannot both succeed.
func (us *UserStore) SetRole(ctx context.Context, tenant, email string, role survey.Role) error {
	if !role.Valid() {
		_, err := survey.ParseRole(string(role))
		return err
	}
	email = survey.NormalizeEmail(email)
	err := us.changeMember(ctx, tenant, email, role != survey.Admin, func(e *storage.Entity) storage.TableOp {
		e.Properties["Role"] = string(role)
		return storage.TableOp{Kind: storage.OpUpdate, Entity: *e, IfMatch: e.ETag}
	})
	if err != nil {
		return err
	}
	return us.setSessionsRole(ctx, tenant, email, role)
}

// RemoveMember deletes a member's account and ends their sessions. A
// tenant keeps at least one admin: removing the last one is EINVALID (as
// SetRole).
func (us *UserStore) RemoveMember(ctx context.Context, tenant, email string) error {
	email = survey.NormalizeEmail(email)
	err := us.changeMember(ctx, tenant, email, true, func(e *storage.Entity) storage.TableOp {
		return storage.TableOp{Kind: storage.OpDelete, Entity: *e, IfMatch: e.ETag}
	})
	if err != nil {
		return err
	}
	if err := us.unindexEmail(ctx, tenant, email); err != nil {
		return err
	}
	// No more e-mail of the tenant's answers.
	if err := forgetMember(ctx, us.st, tenant, email); err != nil {
		return err
	}
	return us.EndSessions(ctx, tenant, email, "")
}

// changeMember applies op to the member's row. When the change takes
// admin away (losesAdmin) from an admin, the tenant's other admins' rows
// are rewritten unchanged in the same transaction, under their ETags: it
// commits only if they are still admins then.
func (us *UserStore) changeMember(ctx context.Context, tenant, email string, losesAdmin bool, op func(*storage.Entity) storage.TableOp) error {
	notFound := survey.Errorf(survey.ENOTFOUND, "%s is not a member.", email)
	if storage.ValidateKey("email", email) != nil {
		return notFound
	}
	for range 20 {
		rows, err := us.memberRows(ctx, tenant)
		if err != nil {
			return err
		}
		var target *storage.Entity
		var others []storage.TableOp
		for i := range rows {
			e := &rows[i]
			switch {
			case e.RowKey == email:
				target = e
			case survey.StoredRole(e.String("Role")) == survey.Admin && len(others) < storage.MaxTransactionOps-1:
				others = append(others, storage.TableOp{Kind: storage.OpUpdate, Entity: *e, IfMatch: e.ETag})
			}
		}
		if target == nil {
			return notFound
		}
		wasAdmin := survey.StoredRole(target.String("Role")) == survey.Admin
		ops := []storage.TableOp{op(target)}
		if losesAdmin && wasAdmin {
			if len(others) == 0 {
				return errLastAdmin
			}
			ops = append(ops, others...)
		}
		err = us.st.Transact(ctx, UsersTable, tenant, ops)
		if isPrecondition(err) || isNotFound(err) {
			continue // changed meanwhile (a sign-in counts on the row, too): read again
		}
		return mapErr(err, "Account")
	}
	return survey.Errorf(survey.ECONFLICT, "The members were changed by someone else meanwhile; try again.")
}

// accountState is the role a new session of u gets: the one stored on the
// account, whatever u says (a sign-in path that builds its User from a
// link knows no role); u's own for an account not stored (tests). And
// whether the account is deactivated (SetDisabled): it gets none.
func (us *UserStore) accountState(ctx context.Context, u *survey.User) (survey.Role, bool, error) {
	e, err := us.st.GetEntity(ctx, UsersTable, u.Tenant, u.Email)
	if isNotFound(err) {
		return survey.StoredRole(string(u.Role)), false, nil
	}
	if err != nil {
		return "", false, mapErr(err, "Account")
	}
	return survey.StoredRole(e.String("Role")), e.Bool("Disabled"), nil
}

// SetDisabled deactivates a member's account (their organisation's
// identity provider said so, through SCIM), or activates it again. A
// deactivated account keeps its row, role and data, and is refused by
// every sign-in (password, link, identity provider: newSession checks);
// its live sessions end at once. ENOTFOUND when there is no such member.
func (us *UserStore) SetDisabled(ctx context.Context, tenant, email string, disabled bool) error {
	email = survey.NormalizeEmail(email)
	if survey.ValidateTenantKey(tenant) != nil || storage.ValidateKey("email", email) != nil {
		return survey.Errorf(survey.ENOTFOUND, "%s is not a member.", email)
	}
	for range 20 {
		e, err := us.st.GetEntity(ctx, UsersTable, tenant, email)
		if isNotFound(err) {
			return survey.Errorf(survey.ENOTFOUND, "%s is not a member.", email)
		}
		if err != nil {
			return mapErr(err, "Account")
		}
		if e.Bool("Disabled") != disabled {
			if disabled {
				e.Properties["Disabled"] = true
			} else {
				delete(e.Properties, "Disabled")
			}
			if _, err := us.st.UpdateEntity(ctx, UsersTable, e, e.ETag); isPrecondition(err) {
				continue
			} else if err != nil {
				return mapErr(err, "Account")
			}
		}
		if disabled {
			// Every time, not only on the change: a call again (the
			// provider retries) ends what a failed one left.
			return us.EndSessions(ctx, tenant, email, "")
		}
		return nil
	}
	return survey.Errorf(survey.ECONFLICT, "The account is being changed; try again.")
}

// setSessionsRole gives the member's live sessions their new role, so that
// it holds from their next request. A session that cannot be changed is
// ended instead: a demoted member never keeps more power.
func (us *UserStore) setSessionsRole(ctx context.Context, tenant, email string, role survey.Role) error {
	rows, err := us.userSessions(ctx, tenant, email)
	if err != nil {
		return us.EndSessions(ctx, tenant, email, "")
	}
	for _, row := range rows {
		rk := strings.TrimPrefix(row.RowKey, email+"|")
		if len(rk) < 2 {
			continue
		}
		e, err := us.st.GetEntity(ctx, SessionsTable, rk[:2], rk)
		if isNotFound(err) {
			continue
		}
		if err == nil {
			e.Properties["Role"] = string(role)
			_, err = us.st.UpdateEntity(ctx, SessionsTable, e, e.ETag)
		}
		if err != nil && !isNotFound(err) {
			if err := us.st.DeleteEntity(ctx, SessionsTable, rk[:2], rk, ""); err != nil && !isNotFound(err) {
				return mapErr(err, "Session")
			}
		}
	}
	return nil
}
