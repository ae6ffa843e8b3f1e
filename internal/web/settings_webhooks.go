package web

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/api"
	"github.com/surveys-dev/surveys/internal/outbound"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/webhook"
)

// Webhooks keeps a tenant's webhook endpoints and queues their events
// (store.WebhookStore).
type Webhooks interface {
	List(ctx context.Context, tenant string) ([]*store.WebhookEndpoint, error)
	Get(ctx context.Context, tenant, id string) (*store.WebhookEndpoint, error)
	Add(ctx context.Context, tenant string, n store.NewWebhook, knownSurvey func(string) bool) (*store.WebhookEndpoint, error)
	Delete(ctx context.Context, tenant, id string) error
	Enable(ctx context.Context, tenant, id string) error
	Rotate(ctx context.Context, tenant, id string) (*store.WebhookEndpoint, error)
	SendTest(ctx context.Context, tenant, id string) error
	EmitSurvey(ctx context.Context, sv *survey.Survey) (int, error)
	// KeepsSecrets is false when the server has no key to seal the
	// endpoints' secrets: no endpoint can be added.
	KeepsSecrets() bool
	// TestLimit is how many test events an endpoint may be sent a minute.
	TestLimit() int
}

// webhookEvent is an event as the page offers it.
type webhookEvent struct{ Name, Label string }

var webhookEvents = []webhookEvent{
	{webhook.ResponseCreated, "A new answer"},
	{webhook.SurveyPublished, "A survey is published"},
	{webhook.SurveyClosed, "A survey is closed"},
}

// webhooksPage lists the tenant's endpoints with their last deliveries,
// and the form that adds one.
type webhooksPage struct {
	User      *store.Session
	Tenant    *survey.Tenant
	Endpoints []*store.WebhookEndpoint
	Events    []webhookEvent
	Surveys   []*survey.Survey
	// Kinds are the kinds of endpoint the form offers (webhook.Kinds).
	Kinds []webhook.Kind
	// The form: its values and problems.
	URL           string
	Kind          string
	Chosen        map[string]bool // events
	ChosenSurveys map[string]bool
	Errors        map[string]string
	Message       string
	Notice        string
	// Created is the endpoint just added, Rotated the one just given a
	// new secret: its secret shown this once.
	Created, Rotated *store.WebhookEndpoint
	// Disabled counts the endpoints that were disabled, for the banner.
	Disabled int
	// KeepsSecrets is false when the server has no secret key: the page
	// says so first, and offers no form.
	KeepsSecrets bool
	// TestsPerMinute is how many test events an endpoint may be sent a
	// minute (store.WebhookStore.SendTest).
	TestsPerMinute int
}

// KindLabel names what e receives, for people: its kind, and whether it
// is a subscription made through the REST-hook API.
func (webhooksPage) KindLabel(e *store.WebhookEndpoint) string {
	label := e.Format().Label()
	if e.Hook {
		label += " · a REST-hook subscription made through the API (Zapier, n8n …): a 410 Gone answer unsubscribes it"
	}
	return label
}

// Signed reports whether e's requests are signed: only then is its secret
// shown, and may it be rotated.
func (webhooksPage) Signed(e *store.WebhookEndpoint) bool { return e.Format().Signed() }

// Rotating reports whether e's requests carry its old secret's
// signature beside the new one's.
func (webhooksPage) Rotating(e *store.WebhookEndpoint) bool { return len(e.Secrets(time.Now())) > 1 }

func (s *Server) webhooksPage(r *http.Request) (webhooksPage, error) {
	ctx := r.Context()
	t, err := s.tenants.Get(ctx, chi.URLParam(r, "tenant"))
	if err != nil {
		return webhooksPage{}, err
	}
	page := webhooksPage{User: sessionFrom(ctx), Tenant: t, Events: webhookEvents, Kinds: webhook.Kinds, Kind: webhook.KindStandard, TestsPerMinute: s.webhooks.TestLimit(), Chosen: map[string]bool{webhook.ResponseCreated: true}, ChosenSurveys: map[string]bool{},
		KeepsSecrets: s.webhooks.KeepsSecrets()}
	if page.Endpoints, err = s.webhooks.List(ctx, t.Key); err != nil {
		return page, err
	}
	for _, e := range page.Endpoints {
		if e.Disabled {
			page.Disabled++
		}
	}
	list, err := s.surveys.List(ctx, t.Key)
	if err != nil {
		return page, err
	}
	for _, sv := range list {
		if sv.TrashedOn.IsZero() {
			page.Surveys = append(page.Surveys, sv)
		}
	}
	return page, nil
}

// showWebhooks shows the tenant's webhook endpoints.
func (s *Server) showWebhooks(w http.ResponseWriter, r *http.Request) error {
	if s.webhooks == nil {
		return notFound("Page not found.")
	}
	page, err := s.webhooksPage(r)
	if err != nil {
		return err
	}
	switch r.URL.Query().Get("done") {
	case "tested":
		page.Notice = "A test event is on its way; its delivery shows below in a few seconds (reload the page)."
	case "enabled":
		page.Notice = "The endpoint is enabled: it receives the events from now on."
	case "deleted":
		page.Notice = "The endpoint is deleted: it receives no more events."
	}
	s.render(w, r, http.StatusOK, "webhooks", page)
	return nil
}

// addWebhook adds an endpoint and shows its secret once. An invalid form
// (422) adds nothing.
func (s *Server) addWebhook(w http.ResponseWriter, r *http.Request) error {
	if s.webhooks == nil {
		return notFound("Page not found.")
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	page, err := s.webhooksPage(r)
	if err != nil {
		return err
	}
	if !page.KeepsSecrets {
		// The page offers no form; a form sent anyway adds nothing.
		page.Message = noWebhookKeyMessage
		s.render(w, r, http.StatusUnprocessableEntity, "webhooks", page)
		return nil
	}
	f := r.PostForm
	page.URL = strings.TrimSpace(f.Get("url"))
	page.Kind = f.Get("kind")
	page.Chosen = map[string]bool{}
	for _, e := range f["events"] {
		page.Chosen[e] = true
	}
	known := map[string]bool{}
	for _, sv := range page.Surveys {
		known[sv.Slug] = true
	}
	for _, slug := range f["surveys"] {
		page.ChosenSurveys[slug] = true
	}
	n := store.NewWebhook{URL: page.URL, Kind: page.Kind, Events: f["events"], Surveys: f["surveys"]}
	isKnown := func(slug string) bool { return known[slug] }
	// Every field's problem at once; nothing is added while there is one.
	page.Errors = n.Problems(isKnown)
	if problem := s.webhookURLProblem(page.URL); problem != "" && page.Errors["url"] == "" {
		page.Errors["url"] = problem
	}
	var e *store.WebhookEndpoint
	if len(page.Errors) == 0 {
		e, err = s.webhooks.Add(r.Context(), page.Tenant.Key, n, isKnown)
		if se, ok := err.(*survey.Error); ok && (se.Code == survey.EINVALID || se.Code == survey.ECONFLICT) {
			page.Message, err = se.Message, nil
			for k, v := range se.Fields {
				page.Errors[k] = v
			}
		}
		if err != nil {
			return err
		}
	}
	if len(page.Errors) > 0 || page.Message != "" {
		if page.Message == "" || len(page.Errors) > 0 {
			page.Message = "The endpoint was not added; see each field."
		}
		s.render(w, r, http.StatusUnprocessableEntity, "webhooks", page)
		return nil
	}
	page.Created = e
	s.audit(r, survey.AuditWebhookAdded, e.ID, e.URL)
	if page.Endpoints, err = s.webhooks.List(r.Context(), page.Tenant.Key); err != nil {
		return err
	}
	page.URL, page.Kind, page.Chosen, page.ChosenSurveys = "", webhook.KindStandard, map[string]bool{webhook.ResponseCreated: true}, map[string]bool{}
	s.render(w, r, http.StatusOK, "webhooks", page)
	return nil
}

// noWebhookKeyMessage says why no endpoint was added without a key (the
// page's note above says what the operator must set).
const noWebhookKeyMessage = "The endpoint was not added: webhooks are off on this server (see above)."

// webhookURLProblem says what is wrong with a URL for an endpoint, in
// plain words ("" when nothing): an absolute https URL (plain http only to
// the operator's ranges), whose host, when it is an address, is one the
// server may reach. (A name is checked on every delivery, on the address
// it resolves to.)
func (s *Server) webhookURLProblem(raw string) string {
	if raw == "" {
		return "Give the URL that receives the events, such as https://example.com/hooks/surveys."
	}
	err := s.hooksClient.CheckURL(raw)
	if errors.Is(err, outbound.ErrNumericHost) {
		return "Write an address as four numbers from 0 to 255, such as 203.0.113.7, or give the host's name."
	}
	if err != nil {
		return "Give an https URL, such as https://example.com/hooks/surveys (without a user name or password)."
	}
	u, _ := url.Parse(raw)
	if u.Fragment != "" {
		return "Leave out the part after #."
	}
	if a, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && !s.hooksClient.Guard().Allowed(a) {
		return "This server does not send to private or local addresses; give a public address."
	}
	if h := strings.ToLower(u.Hostname()); h == "localhost" || strings.HasSuffix(h, ".localhost") {
		if a := netip.MustParseAddr("127.0.0.1"); !s.hooksClient.Guard().Allowed(a) {
			return "This server does not send to private or local addresses; give a public address."
		}
	}
	return ""
}

// webhookAction sends a test event to an endpoint, enables it again,
// gives it a new secret (shown once) or deletes it; an endpoint of another
// tenant is not found.
func (s *Server) webhookAction(w http.ResponseWriter, r *http.Request) error {
	if s.webhooks == nil {
		return notFound("Page not found.")
	}
	tenant, id := chi.URLParam(r, "tenant"), chi.URLParam(r, "id")
	var err error
	done := ""
	switch chi.URLParam(r, "action") {
	case "rotate":
		return s.rotateWebhook(w, r, tenant, id)
	case "test":
		err, done = s.webhooks.SendTest(r.Context(), tenant, id), "tested"
		if limited, ok := errors.AsType[*store.TestLimitError](err); ok {
			return s.testLimited(w, r, limited)
		}
	case "enable":
		err, done = s.webhooks.Enable(r.Context(), tenant, id), "enabled"
	case "delete":
		err, done = s.webhooks.Delete(r.Context(), tenant, id), "deleted"
	default:
		return notFound("Page not found.")
	}
	if err != nil {
		return err
	}
	s.audit(r, map[string]string{"tested": survey.AuditWebhookTested, "enabled": survey.AuditWebhookEnabled, "deleted": survey.AuditWebhookDeleted}[done], id, "")
	http.Redirect(w, r, "/"+tenant+"/settings/webhooks?done="+done, http.StatusSeeOther)
	return nil
}

// testLimited answers a test refused by the endpoint's limit: the page
// again, 429, saying when the next may be sent.
func (s *Server) testLimited(w http.ResponseWriter, r *http.Request, limited *store.TestLimitError) error {
	page, err := s.webhooksPage(r)
	if err != nil {
		return err
	}
	page.Message = limited.Error()
	w.Header().Set("Retry-After", api.RetryAfter(limited.RetryAfter))
	s.render(w, r, http.StatusTooManyRequests, "webhooks", page)
	return nil
}

// rotateWebhook gives an endpoint a new secret and shows it once; the old
// one signs beside it for store.RotationOverlap.
func (s *Server) rotateWebhook(w http.ResponseWriter, r *http.Request, tenant, id string) error {
	e, err := s.webhooks.Rotate(r.Context(), tenant, id)
	if err != nil {
		return err
	}
	s.audit(r, survey.AuditWebhookRotated, id, "")
	page, err := s.webhooksPage(r)
	if err != nil {
		return err
	}
	page.Rotated = e
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, http.StatusOK, "webhooks", page)
	return nil
}

// webhookDeletePage confirms the deletion of an endpoint.
type webhookDeletePage struct {
	User     *store.Session
	Tenant   *survey.Tenant
	Endpoint *store.WebhookEndpoint
}

// confirmDeleteWebhook asks before an endpoint is deleted.
func (s *Server) confirmDeleteWebhook(w http.ResponseWriter, r *http.Request) error {
	if s.webhooks == nil {
		return notFound("Page not found.")
	}
	t, err := s.tenants.Get(r.Context(), chi.URLParam(r, "tenant"))
	if err != nil {
		return err
	}
	e, err := s.webhooks.Get(r.Context(), t.Key, chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "webhook_delete", webhookDeletePage{User: sessionFrom(r.Context()), Tenant: t, Endpoint: e})
	return nil
}

// disabledWebhooks counts the tenant's disabled endpoints (0 when
// webhooks are off or cannot be read: a banner, not a page of its own).
func (s *Server) disabledWebhooks(ctx context.Context, tenant string) int {
	if s.webhooks == nil {
		return 0
	}
	eps, err := s.webhooks.List(ctx, tenant)
	if err != nil {
		s.log.Warn("webhooks: list for the settings banner", "tenant", tenant, "err", err)
		return 0
	}
	n := 0
	for _, e := range eps {
		if e.Disabled {
			n++
		}
	}
	return n
}

// eventLabel is an event's name for people.
func eventLabel(name string) string {
	for _, e := range webhookEvents {
		if e.Name == name {
			return e.Label
		}
	}
	if name == webhook.Test {
		return "A test event"
	}
	return name
}

// shortDuration writes a delivery's duration: "85 ms", "1.2 s".
func shortDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

// eventEmitter wraps the editor: a survey published or closed  queues its
// survey.* webhooks: one place for the designer and the API. The change is made
// first; an event that cannot be queued is logged, and the change stands.
type eventEmitter struct {
	SurveyEditor
	hooks Webhooks
	log   interface {
		Warn(msg string, args ...any)
	}
}

func (e eventEmitter) SetState(ctx context.Context, tenant, slug string, state survey.State) (*survey.Survey, error) {
	sv, err := e.SurveyEditor.SetState(ctx, tenant, slug, state)
	if err == nil && sv != nil {
		if _, qerr := e.hooks.EmitSurvey(ctx, sv); qerr != nil {
			e.log.Warn("webhooks: queue a survey's event", "tenant", tenant, "survey", slug, "err", qerr)
		}
	}
	return sv, err
}

// withEvents wraps e when webhooks are on; otherwise e is returned.
func withEvents(e SurveyEditor, hooks Webhooks, log interface{ Warn(string, ...any) }) SurveyEditor {
	if e == nil || hooks == nil {
		return e
	}
	return eventEmitter{SurveyEditor: e, hooks: hooks, log: log}
}
