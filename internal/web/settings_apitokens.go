package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Tokens checks API tokens (for the API: api.Tokens), and makes, lists
// and revokes them (the tokens page).
type Tokens interface {
	Check(ctx context.Context, token string) (*store.TokenAuth, error)
	CreateWithRole(ctx context.Context, tenant, name string, role survey.Role, ttl time.Duration) (string, error)
	List(ctx context.Context, tenant string) ([]store.TokenInfo, error)
	Revoke(ctx context.Context, tenant, id string) error
}

// tokenLifetimes are the expiries a token may be given, in days (0:
// never), in the order the form offers them.
var tokenLifetimes = []int{30, 90, 365, 0}

// tokensPage lists the tenant's API tokens, with the form that makes one.
type tokensPage struct {
	Tenant    *survey.Tenant
	Tokens    []store.TokenInfo
	Roles     []survey.Role
	Lifetimes []int
	// The form: its values and problems.
	Name    string
	Role    survey.Role
	Days    int
	Errors  map[string]string
	Message string
	Notice  string
	// Created is the token just made, shown this once; CreatedName its
	// name.
	Created, CreatedName string
	// Noted is how often a token's last use is written, for the page to
	// say.
	Noted time.Duration
	Now   time.Time
}

func (s *Server) tokensPage(r *http.Request) (tokensPage, error) {
	t, err := s.tenants.Get(r.Context(), chi.URLParam(r, "tenant"))
	if err != nil {
		return tokensPage{}, err
	}
	page := tokensPage{Tenant: t, Roles: survey.Roles, Lifetimes: tokenLifetimes, Role: survey.Viewer, Days: 90, Noted: store.TokenUseNoted, Now: time.Now()}
	page.Tokens, err = s.tokens.List(r.Context(), t.Key)
	return page, err
}

// showTokens shows the tenant's API tokens.
func (s *Server) showTokens(w http.ResponseWriter, r *http.Request) error {
	page, err := s.tokensPage(r)
	if err != nil {
		return err
	}
	if r.URL.Query().Get("done") == "revoked" {
		page.Notice = "The token is revoked: calls with it are refused from now on."
	}
	s.render(w, r, http.StatusOK, "tokens", page)
	return nil
}

// maxTokenName bounds a token's name.
const maxTokenName = 100

// createToken makes a token and shows it once. An invalid form (422)
// makes nothing.
func (s *Server) createToken(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	page, err := s.tokensPage(r)
	if err != nil {
		return err
	}
	page.Errors = map[string]string{}
	page.Name = strings.TrimSpace(survey.CleanLine(r.PostForm.Get("name")))
	switch n := utf8.RuneCountInString(page.Name); {
	case n == 0:
		page.Errors["name"] = "Give the token a name that says where it is used, such as “Reports job”."
	case n > maxTokenName:
		page.Errors["name"] = "Use at most 100 characters."
	}
	role, err := survey.ParseRole(r.PostForm.Get("role"))
	if err != nil {
		page.Errors["role"] = "Choose admin, editor or viewer."
	} else {
		page.Role = role
	}
	days, ok := -1, false
	for _, d := range tokenLifetimes {
		if r.PostForm.Get("expires") == strconv.Itoa(d) {
			days, ok = d, true
		}
	}
	if !ok {
		page.Errors["expires"] = "Choose when the token expires."
	} else {
		page.Days = days
	}
	if len(page.Errors) > 0 {
		page.Message = "No token was made; see the fields below."
		s.render(w, r, http.StatusUnprocessableEntity, "tokens", page)
		return nil
	}
	token, err := s.tokens.CreateWithRole(r.Context(), page.Tenant.Key, page.Name, role, time.Duration(days)*24*time.Hour)
	if err != nil {
		return err
	}
	page.Created, page.CreatedName = token, page.Name
	s.audit(r, survey.AuditTokenCreated, page.Name, role.Label()+" token")
	if page.Tokens, err = s.tokens.List(r.Context(), page.Tenant.Key); err != nil {
		return err
	}
	page.Name, page.Errors = "", nil
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, http.StatusOK, "tokens", page)
	return nil
}

// revokeToken deletes a token of the tenant.
func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) error {
	tenant := chi.URLParam(r, "tenant")
	if err := s.tokens.Revoke(r.Context(), tenant, chi.URLParam(r, "id")); err != nil {
		return err
	}
	s.audit(r, survey.AuditTokenRevoked, chi.URLParam(r, "id"), "")
	http.Redirect(w, r, "/"+tenant+"/settings/tokens?done=revoked", http.StatusSeeOther)
	return nil
}
