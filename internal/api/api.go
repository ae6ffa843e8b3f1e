// Package api is the JSON API under /api/v1, described by openapi.json:
// a tenant's surveys, answers and webhook endpoints, for the bearer of one
// of its tokens. Its dependencies are explicit (Deps); the web package
// mounts its handler, and it imports nothing of web.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/theme"
)

// Surveys reads a tenant's surveys.
type Surveys interface {
	List(ctx context.Context, tenant string) ([]*survey.Survey, error)
	Get(ctx context.Context, tenant, slug string) (*survey.Survey, error)
}

// Editor changes surveys (the web server's editor: it forgets cached
// definitions and queues webhook events as the pages' changes do).
type Editor interface {
	Create(ctx context.Context, s *survey.Survey) error
	SetState(ctx context.Context, tenant, slug string, state survey.State) (*survey.Survey, error)
	Trash(ctx context.Context, tenant, slug string) error
	Restore(ctx context.Context, tenant, slug string) error
	Delete(ctx context.Context, tenant, slug string) error
}

// Summaries reads survey summaries.
type Summaries interface {
	Get(ctx context.Context, tenant, slug string) (*store.StoredSummary, string, error)
}

// Tokens checks API tokens.
type Tokens interface {
	Check(ctx context.Context, token string) (*store.TokenAuth, error)
}

// Webhooks keeps a tenant's webhook endpoints (store.WebhookStore).
type Webhooks interface {
	List(ctx context.Context, tenant string) ([]*store.WebhookEndpoint, error)
	Get(ctx context.Context, tenant, id string) (*store.WebhookEndpoint, error)
	Add(ctx context.Context, tenant string, n store.NewWebhook, knownSurvey func(string) bool) (*store.WebhookEndpoint, error)
	Delete(ctx context.Context, tenant, id string) error
	Enable(ctx context.Context, tenant, id string) error
	Rotate(ctx context.Context, tenant, id string) (*store.WebhookEndpoint, error)
	SendTest(ctx context.Context, tenant, id string) error
}

// Deps are the API's dependencies. The functions are the operations it
// shares with the web pages, so that both answer alike.
type Deps struct {
	Logger    *slog.Logger
	Surveys   Surveys
	Editor    Editor
	Summaries Summaries
	Tokens    Tokens
	// Webhooks is nil on a server that sends no webhooks: its endpoints
	// answer 404.
	Webhooks Webhooks
	// Pictures keeps picture choices' images; nil: POST /pictures
	// answers 404.
	Pictures Pictures
	// Segments are the surveys' saved segments; nil: none.
	Segments Segments
	// Contacts and Campaigns are the tenants' contact lists and
	// campaigns; CampaignReport is a campaign of a survey with its totals,
	// counted as its page counts them. Any nil: their endpoints answer
	// 404.
	Contacts       Contacts
	Campaigns      Campaigns
	CampaignReport func(ctx context.Context, tenant, slug, id string) (*store.Campaign, CampaignTotals, error)
	// SurveyBase is what starts the publicUrl of a tenant's surveys:
	// https:// and its verified custom domain, else "" (a path on this
	// server); nil: always a path.
	SurveyBase func(ctx context.Context, tenant string) string
	// TenantTheme is a tenant's theme (nil: the usual look);
	// SetTenantTheme saves one the API checked (nil: the usual look).
	// Either nil: GET and PUT /theme answer 404.
	TenantTheme    func(ctx context.Context, tenant string) (*theme.Theme, error)
	SetTenantTheme func(ctx context.Context, tenant string, t *theme.Theme) error

	// TenantUsable says why a token's tenant may not be used now
	// (suspended, deleted): an EFORBIDDEN error.
	TenantUsable func(ctx context.Context, tenant string) error
	// Export writes a survey's answers as format (csv, json, xlsx, spss, r),
	// filtered by the request's query, as the export page does.
	Export func(w http.ResponseWriter, r *http.Request, tenant, slug, format string) error
	// Report writes a survey's results as a PDF document, filtered by
	// the request's query, as the analysis page's report.pdf does.
	Report func(w http.ResponseWriter, r *http.Request, tenant, slug string) error
	// AnswersPicked is a page of the answers filter f picks, from offset:
	// the answers, how many f picks and how many there are.
	AnswersPicked func(ctx context.Context, tenant, slug string, f survey.AnswerFilter, offset, limit int) ([]*survey.SurveyAnswer, int, int, error)
	// Crosstab is the cross-tabulation a query asks of a survey (row,
	// col and the filter), as the cross-tabulation page counts it; a bad
	// query is an EINVALID error with its problems by field.
	Crosstab func(ctx context.Context, tenant, slug string, q url.Values) (*survey.CrossTable, error)
	// WebhookURLProblem says what is wrong with an endpoint's URL ("":
	// nothing), as the webhooks page does.
	WebhookURLProblem func(raw string) string
	// Audit is a page of a tenant's audit log through the filter of a
	// query (action, actor, from, to), newest first, from cursor, and
	// the next page's cursor; nil: GET /audit answers 404.
	Audit func(ctx context.Context, tenant string, q url.Values, cursor string, limit int) ([]survey.AuditEvent, string, error)
	// Note adds an event of actor to tenant's audit log, from r's client
	// address; it logs a failure and never fails the call (nil: nothing
	// is audited).
	Note func(r *http.Request, tenant, actor, action, target, detail string)
}

// server serves the API from its dependencies.
type server struct{ Deps }

// New returns the API's router, to mount at /api/v1 (its description,
// openapi.json, needs no token: OpenAPI serves it).
func New(d Deps) http.Handler {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	s := &server{d}
	return s.routes()
}

// routes are the API's routes, each behind the token and the role it needs.
func (s *server) routes() *chi.Mux {
	r := chi.NewRouter()
	r.Use(s.requireToken)
	r.Group(func(r chi.Router) {
		r.Use(s.requireTokenRole(survey.ReadResults))
		r.Get("/surveys", s.handle(s.listSurveys))
		r.Get("/surveys/{slug}", s.handle(s.getSurvey))
		r.Get("/surveys/{slug}/summary", s.handle(s.getSummary))
		r.With(s.withSegment).Get("/surveys/{slug}/answers", s.handle(s.listAnswers))
		r.With(s.withSegment).Get("/surveys/{slug}/crosstab", s.handle(s.getCrosstab))
		r.With(s.withSegment).Get("/surveys/{slug}/export", s.exportAnswers)
		r.Get("/surveys/{slug}/segments", s.handle(s.listSegments))
		r.With(s.withSegment).Get("/surveys/{slug}/report.pdf", s.report)
		r.Get("/surveys/{slug}/definition", s.handle(s.getDefinition))
	})
	r.Group(func(r chi.Router) {
		r.Use(s.requireTokenRole(survey.EditSurveys))
		r.Post("/surveys", s.handle(s.createSurvey))
		r.Post("/surveys/import", s.handle(s.importSurvey))
		r.Delete("/surveys/{slug}", s.handle(s.deleteSurvey))
		r.Post("/surveys/{slug}/restore", s.handle(s.restoreSurvey))
		r.Post("/surveys/{slug}/publish", s.handle(s.setState(survey.Published)))
		r.Post("/surveys/{slug}/close", s.handle(s.setState(survey.Closed)))
		r.Post("/surveys/{slug}/duplicate", s.handle(s.duplicateSurvey))
		r.Post("/pictures", s.handle(s.uploadPicture))
		r.Get("/contacts/lists", s.handle(s.listContactLists))
		r.Post("/contacts/lists", s.handle(s.createContactList))
		r.Post("/contacts/lists/{list}/contacts", s.handle(s.importContacts))
		r.Get("/surveys/{slug}/campaigns", s.handle(s.listCampaigns))
		r.Get("/surveys/{slug}/campaigns/{id}", s.handle(s.getCampaign))
	})
	r.Group(func(r chi.Router) {
		r.Use(s.requireTokenRole(survey.ManageTenant))
		r.Get("/webhooks", s.handle(s.listWebhooks))
		r.Post("/webhooks", s.handle(s.addWebhook))
		r.Get("/webhooks/{id}", s.handle(s.getWebhook))
		r.Delete("/webhooks/{id}", s.handle(s.deleteWebhook))
		r.Post("/webhooks/{id}/rotate", s.handle(s.webhookAction("rotate")))
		r.Post("/webhooks/{id}/test", s.handle(s.webhookAction("test")))
		r.Post("/webhooks/{id}/enable", s.handle(s.webhookAction("enable")))
		r.Get("/audit", s.handle(s.listAudit))
		r.Get("/theme", s.handle(s.getTheme))
		r.Put("/theme", s.handle(s.putTheme))
		r.Get("/hooks", s.handle(s.listHooks))
		r.Post("/hooks", s.handle(s.subscribeHook))
		r.Delete("/hooks/{id}", s.handle(s.unsubscribeHook))
	})
	r.NotFound(s.handle(func(http.ResponseWriter, *http.Request) (int, any, error) {
		return 0, nil, notFound("No such API endpoint.")
	}))
	return r
}

type authKey struct{}

// authOf is the request's token's tenant and role, set by requireToken.
func authOf(r *http.Request) *store.TokenAuth {
	a, _ := r.Context().Value(authKey{}).(*store.TokenAuth)
	if a == nil {
		return &store.TokenAuth{}
	}
	return a
}

func tenantOf(r *http.Request) string { return authOf(r).Tenant }

// handlerFunc is a JSON handler: it returns the value to write (with
// its status) or an error, written as JSON by handle.
type handlerFunc func(w http.ResponseWriter, r *http.Request) (int, any, error)

// errorBody is an error as the API writes it: its message and, for bad
// input, the problems by field.
type errorBody struct {
	Error  string            `json:"error"`
	Fields map[string]string `json:"fields,omitempty"`
}

// handle writes h's value as JSON with its status, or its error as an
// errorBody with the error's status (ErrorStatus); an internal error is
// logged, and its answer says no more than "Internal error.".
func (s *server) handle(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		status, v, err := h(w, r)
		if err != nil {
			status = ErrorStatus(err)
			e := errorBody{Error: survey.ErrorMessage(err)}
			var se *survey.Error
			if errors.As(err, &se) {
				e.Fields = se.Fields
			}
			if status == http.StatusInternalServerError {
				s.Logger.Error("api request failed", "method", r.Method, "path", r.URL.Path, "err", err)
				e.Error = "Internal error."
			}
			v = e
		}
		if v == nil {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
}

// requireToken takes the tenant from the request's bearer token: every
// API call works on that tenant's data only.
func (s *server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		var auth *store.TokenAuth
		var err error
		if !ok {
			err = survey.Errorf(survey.EFORBIDDEN, "Send an API token: Authorization: Bearer <token>.")
		} else {
			auth, err = s.Tokens.Check(r.Context(), strings.TrimSpace(token))
		}
		if survey.ErrorCode(err) == survey.EFORBIDDEN {
			// No token, or an unknown, revoked or expired one: 401.
			w.Header().Set("WWW-Authenticate", `Bearer realm="surveys"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(errorBody{Error: survey.ErrorMessage(err)})
			return
		}
		if err == nil {
			err = s.TenantUsable(r.Context(), auth.Tenant)
		}
		if err != nil {
			s.handle(func(http.ResponseWriter, *http.Request) (int, any, error) { return 0, nil, err })(w, r)
			return
		}
		// Answers carry a tenant's data, some a secret shown once (a new
		// endpoint, a rotation): no cache keeps them.
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), authKey{}, auth)))
	})
}

// requireTokenRole lets through a token whose role may do a, or the
// answer is a JSON 403. It follows requireToken.
func (s *server) requireTokenRole(a survey.Action) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if role := authOf(r).Role; !role.May(a) {
				s.handle(func(http.ResponseWriter, *http.Request) (int, any, error) {
					return 0, nil, survey.Errorf(survey.EFORBIDDEN, "This API token's role (%s) may not %s.", role.Label(), a)
				})(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// statuses maps error codes to HTTP statuses, for the API and the web
// pages alike (ErrorStatus).
var statuses = map[string]int{
	survey.EINVALID:   http.StatusUnprocessableEntity,
	survey.ENOTFOUND:  http.StatusNotFound,
	survey.ECONFLICT:  http.StatusConflict,
	survey.EFORBIDDEN: http.StatusForbidden,
	survey.EINTERNAL:  http.StatusInternalServerError,
}

// ErrorStatus returns the HTTP status for err, by its survey error code:
// one mapping for the API and the web pages.
func ErrorStatus(err error) int {
	if st, ok := statuses[survey.ErrorCode(err)]; ok {
		return st
	}
	return http.StatusInternalServerError
}

// readBody decodes r's JSON body, of at most limit bytes, into v
// (decodeJSON).
func readBody(w http.ResponseWriter, r *http.Request, limit int64, v any, what string) error {
	return decodeJSON(http.MaxBytesReader(w, r.Body, limit), v, what)
}

// decodeJSON decodes one JSON value with no field v lacks from body into
// v; one that is not is EINVALID: "The body is not <what>: <why>.", what
// saying what to send.
func decodeJSON(body io.Reader, v any, what string) error {
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return survey.Errorf(survey.EINVALID, "The body is not %s: %v.", what, err)
	}
	return nil
}

func notFound(msg string) error { return survey.Errorf(survey.ENOTFOUND, "%s", msg) }

// RetryAfter is a Retry-After header's seconds, rounded up.
func RetryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int((d+time.Second-1)/time.Second)))
}
