// Package scim is the SCIM 2.0 service provider (RFC 7643, RFC 7644) under
// /scim/v2: a tenant's identity provider (Entra ID, Okta …) creates,
// updates, deactivates and deletes its members as Users, and sets their
// roles through Groups, with a SCIM token of the tenant. Its dependencies
// are explicit (Deps); the web package mounts its handler.
package scim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/httprate"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Directory keeps the tenants' SCIM users and groups (store.SCIMStore),
// and makes the members' accounts follow them.
type Directory interface {
	Users(ctx context.Context, tenant string) ([]*store.SCIMUser, error)
	User(ctx context.Context, tenant, id string) (*store.SCIMUser, error)
	UserByEmail(ctx context.Context, tenant, email string) (*store.SCIMUser, error)
	CreateUser(ctx context.Context, tenant string, u store.SCIMUser) (*store.SCIMUser, error)
	UpdateUser(ctx context.Context, tenant, id string, change func(*store.SCIMUser) error) (*store.SCIMUser, error)
	DeleteUser(ctx context.Context, tenant, id string) (*store.SCIMUser, error)
	Groups(ctx context.Context, tenant string) ([]*store.SCIMGroup, error)
	Group(ctx context.Context, tenant, id string) (*store.SCIMGroup, error)
	CreateGroup(ctx context.Context, tenant string, g store.SCIMGroup) (*store.SCIMGroup, []store.SCIMRoleChange, error)
	UpdateGroup(ctx context.Context, tenant, id string, change func(*store.SCIMGroup) error) (*store.SCIMGroup, []store.SCIMRoleChange, error)
	DeleteGroup(ctx context.Context, tenant, id string) (*store.SCIMGroup, []store.SCIMRoleChange, error)
}

// Tokens checks SCIM tokens (store.SCIMTokenStore).
type Tokens interface {
	Check(ctx context.Context, token string) (*store.TokenAuth, error)
}

// DefaultPerMinute is how many requests one SCIM token may make a minute
// unless Deps say otherwise: an identity provider's first sync of a few
// thousand people runs at a few hundred a minute.
const DefaultPerMinute = 600

// Deps are the SCIM service's dependencies.
type Deps struct {
	Logger    *slog.Logger
	Directory Directory
	Tokens    Tokens
	// TenantUsable says why a token's tenant may not be used now
	// (suspended, deleted): an EFORBIDDEN error.
	TenantUsable func(ctx context.Context, tenant string) error
	// Note adds an event to tenant's audit log, from r's client address
	// (nil: nothing is audited).
	Note func(r *http.Request, tenant, actor, action, target, detail string)
	// BaseURL is the service's address as the site's configured public
	// URL gives it (meta.location); "" writes paths from /scim/v2.
	BaseURL string
	// PerMinute bounds the requests of each token (0: DefaultPerMinute;
	// below 0: no bound).
	PerMinute int
}

type server struct {
	Deps
	limit *httprate.RateLimiter
}

// New returns the SCIM service's router, to mount at /scim/v2.
func New(d Deps) http.Handler {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.BaseURL == "" {
		d.BaseURL = "/scim/v2"
	}
	d.BaseURL = strings.TrimSuffix(d.BaseURL, "/")
	if d.PerMinute == 0 {
		d.PerMinute = DefaultPerMinute
	}
	s := &server{Deps: d}
	if d.PerMinute > 0 {
		// Keyed by the token's ID, once it is checked: its memory is
		// bounded by the tokens that exist.
		s.limit = httprate.NewRateLimiter(d.PerMinute, time.Minute, httprate.WithResponseHeaders(httprate.ResponseHeaders{RetryAfter: "Retry-After"}))
	}
	return s.routes()
}

// The SCIM schemas' URNs.
const (
	schemaUser         = "urn:ietf:params:scim:schemas:core:2.0:User"
	schemaGroup        = "urn:ietf:params:scim:schemas:core:2.0:Group"
	schemaList         = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
	schemaError        = "urn:ietf:params:scim:api:messages:2.0:Error"
	schemaPatch        = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
	schemaSPConfig     = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"
	schemaResourceType = "urn:ietf:params:scim:schemas:core:2.0:ResourceType"
	schemaSchema       = "urn:ietf:params:scim:schemas:core:2.0:Schema"
)

func (s *server) routes() *chi.Mux {
	r := chi.NewRouter()
	r.Use(s.requireToken)
	r.Get("/ServiceProviderConfig", s.handle(s.serviceProviderConfig))
	r.Get("/ResourceTypes", s.handle(s.resourceTypes))
	r.Get("/ResourceTypes/{name}", s.handle(s.resourceType))
	r.Get("/Schemas", s.handle(s.schemas))
	r.Get("/Schemas/{id}", s.handle(s.schema))
	r.Get("/Users", s.handle(s.listUsers))
	r.Post("/Users", s.handle(s.createUser))
	r.Get("/Users/{id}", s.handle(s.getUser))
	r.Put("/Users/{id}", s.handle(s.replaceUser))
	r.Patch("/Users/{id}", s.handle(s.patchUser))
	r.Delete("/Users/{id}", s.handle(s.deleteUser))
	r.Get("/Groups", s.handle(s.listGroups))
	r.Post("/Groups", s.handle(s.createGroup))
	r.Get("/Groups/{id}", s.handle(s.getGroup))
	r.Put("/Groups/{id}", s.handle(s.replaceGroup))
	r.Patch("/Groups/{id}", s.handle(s.patchGroup))
	r.Delete("/Groups/{id}", s.handle(s.deleteGroup))
	r.NotFound(s.handle(func(*http.Request) (int, any, error) {
		return 0, nil, &Error{Status: http.StatusNotFound, Detail: "No such SCIM endpoint."}
	}))
	r.MethodNotAllowed(s.handle(func(*http.Request) (int, any, error) {
		return 0, nil, &Error{Status: http.StatusMethodNotAllowed, Detail: "This endpoint does not take that method."}
	}))
	return r
}

type authKey struct{}

func tenantOf(r *http.Request) string {
	a, _ := r.Context().Value(authKey{}).(*store.TokenAuth)
	if a == nil {
		return ""
	}
	return a.Tenant
}

// Error is a SCIM error (RFC 7644 §3.12): an HTTP status, a scimType for
// a 400 or 409, and a detail for people.
type Error struct {
	Status   int
	ScimType string
	Detail   string
}

func (e *Error) Error() string { return e.Detail }

// errorOf is err as a SCIM error: the store's codes by their statuses;
// an internal one says no more than "Internal error.".
func errorOf(err error) *Error {
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	msg := survey.ErrorMessage(err)
	switch survey.ErrorCode(err) {
	case survey.EINVALID:
		return &Error{Status: http.StatusBadRequest, ScimType: "invalidValue", Detail: msg}
	case survey.ENOTFOUND:
		return &Error{Status: http.StatusNotFound, Detail: msg}
	case survey.ECONFLICT:
		return &Error{Status: http.StatusConflict, ScimType: "uniqueness", Detail: msg}
	case survey.EFORBIDDEN:
		return &Error{Status: http.StatusForbidden, Detail: msg}
	}
	return &Error{Status: http.StatusInternalServerError, Detail: "Internal error."}
}

func badRequest(scimType, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, ScimType: scimType, Detail: sprintf(format, args...)}
}

// handlerFunc returns the resource to write with its status, or an error.
type handlerFunc func(r *http.Request) (int, any, error)

// handle writes h's value as application/scim+json, or its error in the
// SCIM error schema.
func (s *server) handle(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		status, v, err := h(r)
		if err != nil {
			e := errorOf(err)
			if e.Status == http.StatusInternalServerError {
				s.Logger.Error("scim request failed", "method", r.Method, "path", r.URL.Path, "err", err)
			}
			s.writeError(w, e)
			return
		}
		if v == nil {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "application/scim+json")
		if res, ok := v.(map[string]any); ok && status == http.StatusCreated {
			if m, ok := res["meta"].(map[string]any); ok {
				w.Header().Set("Location", fmt.Sprint(m["location"]))
			}
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
}

func (s *server) writeError(w http.ResponseWriter, e *Error) {
	body := map[string]any{"schemas": []string{schemaError}, "status": strconv.Itoa(e.Status), "detail": e.Detail}
	if e.ScimType != "" {
		body["scimType"] = e.ScimType
	}
	w.Header().Set("Content-Type", "application/scim+json")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(body)
}

// requireToken takes the tenant from the request's SCIM token (never an
// API token, never a session): every call works on that tenant's
// directory only. Each token's calls are bounded per minute.
func (s *server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		var auth *store.TokenAuth
		var err error
		if !ok {
			err = survey.Errorf(survey.EFORBIDDEN, "Send the SCIM token the tenant's admin made: Authorization: Bearer <token>.")
		} else {
			auth, err = s.Tokens.Check(r.Context(), strings.TrimSpace(token))
		}
		if survey.ErrorCode(err) == survey.EFORBIDDEN {
			w.Header().Set("WWW-Authenticate", `Bearer realm="surveys-scim"`)
			s.writeError(w, &Error{Status: http.StatusUnauthorized, Detail: survey.ErrorMessage(err)})
			return
		}
		if err == nil && s.TenantUsable != nil {
			err = s.TenantUsable(r.Context(), auth.Tenant)
		}
		if err != nil {
			s.handle(func(*http.Request) (int, any, error) { return 0, nil, err })(w, r)
			return
		}
		if s.limit != nil && s.limit.OnLimit(w, r, auth.ID) {
			s.writeError(w, &Error{Status: http.StatusTooManyRequests, Detail: "Too many requests with this SCIM token; wait a minute and try again."})
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), authKey{}, auth)))
	})
}

// maxBody bounds a request's body (a group of thousands of members fits).
const maxBody = 4 << 20

// decode reads r's JSON body into an object.
func decode(r *http.Request) (map[string]any, error) {
	var v map[string]any
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxBody))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || v == nil {
		return nil, badRequest("invalidSyntax", "The body is not a JSON object.")
	}
	return v, nil
}

// note adds an event of the identity provider to the tenant's audit log.
func (s *server) note(r *http.Request, action, target, detail string) {
	if s.Note != nil {
		s.Note(r, tenantOf(r), survey.AuditSCIM, action, target, detail)
	}
}

// noteRoles audits the role changes a group made.
func (s *server) noteRoles(r *http.Request, changes []store.SCIMRoleChange) {
	for _, c := range changes {
		detail := c.Role.Label() + " (by a SCIM group)"
		if c.Kept {
			detail = "stays " + c.Role.Label() + ": the last admin (a SCIM group would change it)"
		}
		s.note(r, survey.AuditMemberRole, c.Email, detail)
	}
}
