package web

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/scim"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// SCIMTokens makes, lists and revokes a tenant's SCIM tokens (the SCIM
// page), and checks them (the SCIM service): store.SCIMTokenStore.
type SCIMTokens interface {
	Check(ctx context.Context, token string) (*store.TokenAuth, error)
	Create(ctx context.Context, tenant, name string) (string, error)
	List(ctx context.Context, tenant string) ([]store.TokenInfo, error)
	Revoke(ctx context.Context, tenant, id string) error
}

// SCIMDirectory keeps the tenants' SCIM directories (store.SCIMStore):
// the SCIM service's users and groups, and which groups give which role
// (the SCIM page).
type SCIMDirectory interface {
	scim.Directory
	RoleGroups(ctx context.Context, tenant string) (store.SCIMRoleGroups, error)
	SetRoleGroups(ctx context.Context, tenant string, g store.SCIMRoleGroups) ([]store.SCIMRoleChange, error)
}

// scimPath is where the SCIM service is mounted.
const scimPath = "/scim/v2"

// scimHandler is the SCIM service, for the router to mount.
func (s *Server) scimHandler() http.Handler {
	base := scimPath
	if s.publicURL != "" {
		base = s.publicURL + scimPath
	}
	perMinute := s.scimPerToken
	if perMinute <= 0 {
		perMinute = -1 // no limit, as every zero of Limits
	}
	return scim.New(scim.Deps{Logger: s.log, Directory: s.scimDir, Tokens: s.scimTokens, TenantUsable: s.tenantUsable, Note: s.auditAs, BaseURL: base, PerMinute: perMinute})
}

// scimPage is the tenant's SCIM settings: the service's address, its
// tokens, and which groups give which role.
type scimPage struct {
	Tenant  *survey.Tenant
	BaseURL string
	Tokens  []store.TokenInfo
	Groups  store.SCIMRoleGroups
	// The token form's name, and the forms' problems.
	Name    string
	Errors  map[string]string
	Message string
	Notice  string
	// Created is the token just made, shown this once; CreatedName its
	// name.
	Created, CreatedName string
}

func (s *Server) scimPage(r *http.Request) (scimPage, error) {
	t, err := s.tenants.Get(r.Context(), chi.URLParam(r, "tenant"))
	if err != nil {
		return scimPage{}, err
	}
	base, err := s.baseURL(r)
	if err != nil {
		return scimPage{}, err
	}
	page := scimPage{Tenant: t, BaseURL: base + scimPath}
	if page.Tokens, err = s.scimTokens.List(r.Context(), t.Key); err != nil {
		return page, err
	}
	page.Groups, err = s.scimDir.RoleGroups(r.Context(), t.Key)
	return page, err
}

// showSCIM shows the tenant's SCIM settings.
func (s *Server) showSCIM(w http.ResponseWriter, r *http.Request) error {
	page, err := s.scimPage(r)
	if err != nil {
		return err
	}
	switch r.URL.Query().Get("done") {
	case "revoked":
		page.Notice = "The SCIM token is revoked: the identity provider's calls with it are refused from now on."
	case "groups":
		page.Notice = "The groups of the roles are saved; the members of those groups have their roles."
	}
	s.render(w, r, http.StatusOK, "scim", page)
	return nil
}

// createSCIMToken makes a SCIM token and shows it once. An invalid form
// (422) makes nothing.
func (s *Server) createSCIMToken(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	page, err := s.scimPage(r)
	if err != nil {
		return err
	}
	page.Name = strings.TrimSpace(survey.CleanLine(r.PostForm.Get("name")))
	switch n := utf8.RuneCountInString(page.Name); {
	case n == 0:
		page.Errors = map[string]string{"name": "Give the token a name that says which identity provider uses it, such as “Entra ID”."}
	case n > maxTokenName:
		page.Errors = map[string]string{"name": "Use at most 100 characters."}
	}
	if page.Errors != nil {
		page.Message = "No token was made; see the field below."
		s.render(w, r, http.StatusUnprocessableEntity, "scim", page)
		return nil
	}
	token, err := s.scimTokens.Create(r.Context(), page.Tenant.Key, page.Name)
	if err != nil {
		return err
	}
	s.audit(r, survey.AuditSCIMTokenCreated, page.Name, "")
	page.Created, page.CreatedName, page.Name = token, page.Name, ""
	if page.Tokens, err = s.scimTokens.List(r.Context(), page.Tenant.Key); err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, http.StatusOK, "scim", page)
	return nil
}

// revokeSCIMToken deletes a SCIM token of the tenant.
func (s *Server) revokeSCIMToken(w http.ResponseWriter, r *http.Request) error {
	tenant := chi.URLParam(r, "tenant")
	if err := s.scimTokens.Revoke(r.Context(), tenant, chi.URLParam(r, "id")); err != nil {
		return err
	}
	s.audit(r, survey.AuditSCIMTokenRevoked, chi.URLParam(r, "id"), "")
	http.Redirect(w, r, "/"+tenant+"/settings/scim?done=revoked", http.StatusSeeOther)
	return nil
}

// saveSCIMGroups names the groups that give each role, and gives their
// members those roles. An invalid form (422) changes nothing.
func (s *Server) saveSCIMGroups(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	page, err := s.scimPage(r)
	if err != nil {
		return err
	}
	page.Groups = store.SCIMRoleGroups{Admin: survey.CleanLine(r.PostForm.Get("admin")), Editor: survey.CleanLine(r.PostForm.Get("editor")),
		Viewer: survey.CleanLine(r.PostForm.Get("viewer"))}
	changes, err := s.scimDir.SetRoleGroups(r.Context(), page.Tenant.Key, page.Groups)
	var se *survey.Error
	if errors.As(err, &se) && se.Code == survey.EINVALID {
		page.Errors, page.Message = se.Fields, "Nothing was saved: "+se.Message
		s.render(w, r, http.StatusUnprocessableEntity, "scim", page)
		return nil
	}
	if err != nil {
		return err
	}
	g := page.Groups
	s.audit(r, survey.AuditSCIMRoleGroups, "", "admin: "+orRole(g.Admin, survey.Admin)+"; editor: "+orRole(g.Editor, survey.Editor)+"; viewer: "+orRole(g.Viewer, survey.Viewer))
	for _, c := range changes {
		detail := c.Role.Label() + " (by a SCIM group)"
		if c.Kept {
			detail = "stays " + c.Role.Label() + ": the last admin"
		}
		s.auditAs(r, page.Tenant.Key, survey.AuditSCIM, survey.AuditMemberRole, c.Email, detail)
	}
	http.Redirect(w, r, "/"+page.Tenant.Key+"/settings/scim?done=groups", http.StatusSeeOther)
	return nil
}

// orRole is a group's name, or the role's own when none is set.
func orRole(name string, r survey.Role) string {
	if name == "" {
		return string(r)
	}
	return name
}
