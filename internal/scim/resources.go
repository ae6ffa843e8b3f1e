package scim

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	filter "github.com/scim2/filter-parser/v2"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// maxCount bounds a page of a list (ServiceProviderConfig says so).
const maxCount = 1000

// paging reads startIndex (1-based; below 1 is 1) and count (default and
// most maxCount; below 0 is 0).
func paging(q url.Values) (start, count int, err error) {
	start, count = 1, maxCount
	if v := q.Get("startIndex"); v != "" {
		if start, err = strconv.Atoi(v); err != nil {
			return 0, 0, badRequest("invalidValue", "startIndex must be a whole number.")
		}
		start = max(start, 1)
	}
	if v := q.Get("count"); v != "" {
		if count, err = strconv.Atoi(v); err != nil {
			return 0, 0, badRequest("invalidValue", "count must be a whole number.")
		}
		count = min(max(count, 0), maxCount)
	}
	return start, count, nil
}

// listResponse is a page of resources (RFC 7644 §3.4.2).
func listResponse(all []map[string]any, start, count int) map[string]any {
	page := []map[string]any{}
	if start-1 < len(all) {
		page = all[start-1 : min(len(all), start-1+count)]
	}
	return map[string]any{"schemas": []string{schemaList}, "totalResults": len(all), "startIndex": start, "itemsPerPage": len(page), "Resources": page}
}

// excluded reports whether the request's excludedAttributes names attr.
func excluded(r *http.Request, attr string) bool {
	for a := range strings.SplitSeq(r.URL.Query().Get("excludedAttributes"), ",") {
		if n, _ := attrName(a); n == attr {
			return true
		}
	}
	return false
}

// userNameEq is the address of a filter `userName eq "…"`, which the
// index answers without reading every user.
func userNameEq(e filter.Expression) (string, bool) {
	x, ok := e.(*filter.AttributeExpression)
	if !ok || x.Operator != filter.EQ || x.AttributePath.SubAttribute != nil {
		return "", false
	}
	name, ext := attrName(x.AttributePath.String())
	v, isText := x.CompareValue.(string)
	return v, !ext && name == "username" && isText
}

func (s *server) listUsers(r *http.Request) (int, any, error) {
	ctx, tenant := r.Context(), tenantOf(r)
	start, count, err := paging(r.URL.Query())
	if err != nil {
		return 0, nil, err
	}
	var expr filter.Expression
	if f := r.URL.Query().Get("filter"); f != "" {
		if expr, err = parseFilter(f); err != nil {
			return 0, nil, err
		}
	}
	var users []*store.SCIMUser
	if email, ok := userNameEq(expr); ok {
		u, err := s.Directory.UserByEmail(ctx, tenant, email)
		if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
			return 0, nil, err
		}
		if u != nil {
			users = append(users, u)
		}
	} else if users, err = s.Directory.Users(ctx, tenant); err != nil {
		return 0, nil, err
	}
	groups, err := s.Directory.Groups(ctx, tenant)
	if err != nil {
		return 0, nil, err
	}
	var out []map[string]any
	for _, u := range users {
		if expr != nil {
			ok, err := matches(expr, userAttrs(u))
			if err != nil {
				return 0, nil, err
			}
			if !ok {
				continue
			}
		}
		out = append(out, s.userResource(u, groups))
	}
	return http.StatusOK, listResponse(out, start, count), nil
}

func (s *server) getUser(r *http.Request) (int, any, error) {
	u, err := s.Directory.User(r.Context(), tenantOf(r), chi.URLParam(r, "id"))
	if err != nil {
		return 0, nil, err
	}
	return s.userOK(r, http.StatusOK, u)
}

// userOK is u, with its groups, and the status.
func (s *server) userOK(r *http.Request, status int, u *store.SCIMUser) (int, any, error) {
	groups, err := s.Directory.Groups(r.Context(), tenantOf(r))
	if err != nil {
		return 0, nil, err
	}
	return status, s.userResource(u, groups), nil
}

// userFromBody is a user as a POST or PUT gives it (active unless it
// says otherwise).
func userFromBody(body map[string]any, active bool) (store.SCIMUser, error) {
	u := store.SCIMUser{Active: active}
	if err := applyObject(opReplace, body, setUser(&u)); err != nil {
		return u, err
	}
	if u.Email == "" {
		return u, badRequest("invalidValue", "userName is required: the person's e-mail address.")
	}
	return u, nil
}

func (s *server) createUser(r *http.Request) (int, any, error) {
	body, err := decode(r)
	if err != nil {
		return 0, nil, err
	}
	u, err := userFromBody(body, true)
	if err != nil {
		return 0, nil, err
	}
	made, err := s.Directory.CreateUser(r.Context(), tenantOf(r), u)
	if err != nil {
		return 0, nil, err
	}
	detail := "active"
	if !made.Active {
		detail = "inactive"
	}
	s.note(r, survey.AuditSCIMUserCreated, made.Email, detail)
	return s.userOK(r, http.StatusCreated, made)
}

// changeUser changes the user of the URL by change, and audits what
// changed.
func (s *server) changeUser(r *http.Request, change func(*store.SCIMUser) error) (int, any, error) {
	var before store.SCIMUser
	u, err := s.Directory.UpdateUser(r.Context(), tenantOf(r), chi.URLParam(r, "id"), func(u *store.SCIMUser) error {
		before = *u
		return change(u)
	})
	if err != nil {
		return 0, nil, err
	}
	switch {
	case before.Active && !u.Active:
		s.note(r, survey.AuditSCIMUserDeactivated, u.Email, "sessions ended")
	case !before.Active && u.Active:
		s.note(r, survey.AuditSCIMUserReactivated, u.Email, "")
	}
	var changed []string
	for _, f := range []struct {
		name     string
		old, new string
	}{{"externalId", before.ExternalID, u.ExternalID}, {"displayName", before.DisplayName, u.DisplayName},
		{"name.givenName", before.GivenName, u.GivenName}, {"name.familyName", before.FamilyName, u.FamilyName}} {
		if f.old != f.new {
			changed = append(changed, f.name)
		}
	}
	if len(changed) > 0 {
		s.note(r, survey.AuditSCIMUserUpdated, u.Email, strings.Join(changed, ", "))
	}
	return s.userOK(r, http.StatusOK, u)
}

func (s *server) replaceUser(r *http.Request) (int, any, error) {
	body, err := decode(r)
	if err != nil {
		return 0, nil, err
	}
	return s.changeUser(r, func(u *store.SCIMUser) error {
		// A PUT without active keeps it (Okta sends it; others may not).
		next, err := userFromBody(body, u.Active)
		if err != nil {
			return err
		}
		next.ID, next.Created, next.Modified = u.ID, u.Created, u.Modified
		*u = next
		return nil
	})
}

func (s *server) patchUser(r *http.Request) (int, any, error) {
	body, err := decode(r)
	if err != nil {
		return 0, nil, err
	}
	ops, err := readPatch(body)
	if err != nil {
		return 0, nil, err
	}
	return s.changeUser(r, func(u *store.SCIMUser) error { return applyPatch(ops, setUser(u), nil) })
}

func (s *server) deleteUser(r *http.Request) (int, any, error) {
	u, err := s.Directory.DeleteUser(r.Context(), tenantOf(r), chi.URLParam(r, "id"))
	if err != nil {
		return 0, nil, err
	}
	s.note(r, survey.AuditSCIMUserDeleted, u.Email, "")
	return http.StatusNoContent, nil, nil
}

// emails are the tenant's users' addresses by id (a group's members'
// display).
func (s *server) emails(r *http.Request) (map[string]string, error) {
	users, err := s.Directory.Users(r.Context(), tenantOf(r))
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(users))
	for _, u := range users {
		out[u.ID] = u.Email
	}
	return out, nil
}

func (s *server) listGroups(r *http.Request) (int, any, error) {
	start, count, err := paging(r.URL.Query())
	if err != nil {
		return 0, nil, err
	}
	var expr filter.Expression
	if f := r.URL.Query().Get("filter"); f != "" {
		if expr, err = parseFilter(f); err != nil {
			return 0, nil, err
		}
	}
	groups, err := s.Directory.Groups(r.Context(), tenantOf(r))
	if err != nil {
		return 0, nil, err
	}
	withMembers := !excluded(r, "members")
	var emails map[string]string
	if withMembers {
		if emails, err = s.emails(r); err != nil {
			return 0, nil, err
		}
	}
	var out []map[string]any
	for _, g := range groups {
		if expr != nil {
			ok, err := matches(expr, groupAttrs(g))
			if err != nil {
				return 0, nil, err
			}
			if !ok {
				continue
			}
		}
		out = append(out, s.groupResource(g, emails, withMembers))
	}
	return http.StatusOK, listResponse(out, start, count), nil
}

func (s *server) getGroup(r *http.Request) (int, any, error) {
	g, err := s.Directory.Group(r.Context(), tenantOf(r), chi.URLParam(r, "id"))
	if err != nil {
		return 0, nil, err
	}
	return s.groupOK(r, http.StatusOK, g)
}

func (s *server) groupOK(r *http.Request, status int, g *store.SCIMGroup) (int, any, error) {
	withMembers := !excluded(r, "members")
	var emails map[string]string
	if withMembers {
		var err error
		if emails, err = s.emails(r); err != nil {
			return 0, nil, err
		}
	}
	return status, s.groupResource(g, emails, withMembers), nil
}

// groupFromBody is a group as a POST or PUT gives it.
func groupFromBody(body map[string]any) (store.SCIMGroup, error) {
	var g store.SCIMGroup
	if err := applyObject(opReplace, body, setGroup(&g)); err != nil {
		return g, err
	}
	if g.DisplayName == "" {
		return g, badRequest("invalidValue", "displayName is required.")
	}
	return g, nil
}

func (s *server) createGroup(r *http.Request) (int, any, error) {
	body, err := decode(r)
	if err != nil {
		return 0, nil, err
	}
	g, err := groupFromBody(body)
	if err != nil {
		return 0, nil, err
	}
	made, changes, err := s.Directory.CreateGroup(r.Context(), tenantOf(r), g)
	if err != nil {
		return 0, nil, err
	}
	s.note(r, survey.AuditSCIMGroupCreated, made.DisplayName, sprintf("%d members", len(made.Members)))
	s.noteRoles(r, changes)
	return s.groupOK(r, http.StatusCreated, made)
}

// changeGroup changes the group of the URL by change, audits what
// changed and the roles it set, and answers 204 (for a PATCH) or the
// group.
func (s *server) changeGroup(r *http.Request, status int, change func(*store.SCIMGroup) error) (int, any, error) {
	var before store.SCIMGroup
	g, changes, err := s.Directory.UpdateGroup(r.Context(), tenantOf(r), chi.URLParam(r, "id"), func(g *store.SCIMGroup) error {
		before = *g
		before.Members = slices.Clone(g.Members)
		return change(g)
	})
	if err != nil {
		return 0, nil, err
	}
	added, removed := 0, 0
	for _, m := range g.Members {
		if !slices.Contains(before.Members, m) {
			added++
		}
	}
	for _, m := range before.Members {
		if !slices.Contains(g.Members, m) {
			removed++
		}
	}
	var what []string
	if before.DisplayName != g.DisplayName {
		what = append(what, "renamed from "+before.DisplayName)
	}
	if before.ExternalID != g.ExternalID {
		what = append(what, "externalId")
	}
	if added > 0 {
		what = append(what, sprintf("%d members added", added))
	}
	if removed > 0 {
		what = append(what, sprintf("%d members removed", removed))
	}
	if len(what) > 0 {
		s.note(r, survey.AuditSCIMGroupUpdated, g.DisplayName, strings.Join(what, "; "))
	}
	s.noteRoles(r, changes)
	if status == http.StatusNoContent {
		return status, nil, nil
	}
	return s.groupOK(r, status, g)
}

func (s *server) replaceGroup(r *http.Request) (int, any, error) {
	body, err := decode(r)
	if err != nil {
		return 0, nil, err
	}
	return s.changeGroup(r, http.StatusOK, func(g *store.SCIMGroup) error {
		next, err := groupFromBody(body)
		if err != nil {
			return err
		}
		g.DisplayName, g.ExternalID, g.Members = next.DisplayName, next.ExternalID, next.Members
		return nil
	})
}

func (s *server) patchGroup(r *http.Request) (int, any, error) {
	body, err := decode(r)
	if err != nil {
		return 0, nil, err
	}
	ops, err := readPatch(body)
	if err != nil {
		return 0, nil, err
	}
	return s.changeGroup(r, http.StatusNoContent, func(g *store.SCIMGroup) error { return applyPatch(ops, setGroup(g), &g.Members) })
}

func (s *server) deleteGroup(r *http.Request) (int, any, error) {
	g, changes, err := s.Directory.DeleteGroup(r.Context(), tenantOf(r), chi.URLParam(r, "id"))
	if err != nil {
		return 0, nil, err
	}
	s.note(r, survey.AuditSCIMGroupDeleted, g.DisplayName, sprintf("%d members", len(g.Members)))
	s.noteRoles(r, changes)
	return http.StatusNoContent, nil, nil
}
