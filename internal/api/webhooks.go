package api

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// jsonWebhook is an endpoint as the API shows it. Secret is there only in
// the answer that made it (a new endpoint, a rotation): it is shown once.
type jsonWebhook struct {
	ID                  string         `json:"id"`
	URL                 string         `json:"url"`
	Kind                string         `json:"kind"`
	Hook                bool           `json:"hook,omitempty"`
	Events              []string       `json:"events"`
	Surveys             []string       `json:"surveys"`
	CreatedOn           time.Time      `json:"createdOn"`
	Disabled            bool           `json:"disabled"`
	DisabledReason      string         `json:"disabledReason,omitempty"`
	Failures            int            `json:"failures"`
	PreviousSecretUntil *time.Time     `json:"previousSecretUntil,omitempty"`
	Secret              string         `json:"secret,omitempty"`
	Deliveries          []jsonDelivery `json:"deliveries"`
}

type jsonDelivery struct {
	At         time.Time `json:"at"`
	Event      string    `json:"event"`
	ID         string    `json:"id"`
	Attempt    int       `json:"attempt"`
	Status     int       `json:"status,omitempty"`
	Error      string    `json:"error,omitempty"`
	DurationMS int64     `json:"durationMs"`
}

func webhookJSON(e *store.WebhookEndpoint, withSecret bool) jsonWebhook {
	out := jsonWebhook{ID: e.ID, URL: e.URL, Kind: e.Format().Name(), Hook: e.Hook, Events: e.Events, Surveys: e.Surveys, CreatedOn: e.CreatedOn, Disabled: e.Disabled,
		DisabledReason: e.DisabledReason, Failures: e.Failures, Deliveries: []jsonDelivery{}}
	if out.Surveys == nil {
		out.Surveys = []string{}
	}
	if len(e.Secrets(time.Now())) > 1 {
		until := e.PreviousUntil
		out.PreviousSecretUntil = &until
	}
	if withSecret && e.Format().Signed() {
		out.Secret = e.Secret
	}
	for _, d := range e.Deliveries {
		out.Deliveries = append(out.Deliveries, jsonDelivery{At: d.At, Event: d.Event, ID: d.ID, Attempt: d.Attempt,
			Status: d.Status, Error: d.Error, DurationMS: d.Duration.Milliseconds()})
	}
	return out
}

// webhooksOn is the check of every webhook endpoint of the API: a
// server without webhooks has none.
func (s *server) webhooksOn() error {
	if s.Webhooks == nil {
		return notFound("This server sends no webhooks.")
	}
	return nil
}

// listWebhooks lists the token's tenant's endpoints, oldest first.
func (s *server) listWebhooks(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if err := s.webhooksOn(); err != nil {
		return 0, nil, err
	}
	eps, err := s.Webhooks.List(r.Context(), tenantOf(r))
	if err != nil {
		return 0, nil, err
	}
	out := make([]jsonWebhook, 0, len(eps))
	for _, e := range eps {
		out = append(out, webhookJSON(e, false))
	}
	return http.StatusOK, map[string]any{"webhooks": out}, nil
}

// addWebhook adds an endpoint, {"url", "kind", "events", "surveys"},
// and answers 201 with its secret (of a signed kind), shown this once. Bad input is a 422 naming
// each field, and adds nothing.
func (s *server) addWebhook(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if err := s.webhooksOn(); err != nil {
		return 0, nil, err
	}
	var in struct {
		URL     string   `json:"url"`
		Kind    string   `json:"kind"`
		Events  []string `json:"events"`
		Surveys []string `json:"surveys"`
	}
	if err := readBody(w, r, 64<<10, &in, "an endpoint"); err != nil {
		return 0, nil, err
	}
	e, err := s.add(r, store.NewWebhook{URL: strings.TrimSpace(in.URL), Kind: in.Kind, Events: in.Events, Surveys: in.Surveys}, nil)
	if err != nil {
		return 0, nil, err
	}
	s.audit(r, survey.AuditWebhookAdded, e.ID, e.URL)
	return http.StatusCreated, webhookJSON(e, true), nil
}

// add adds an endpoint of the token's tenant, or says what is wrong with
// each field (EINVALID, fields named by rename when it names them);
// ECONFLICT at the tenant's limit of endpoints.
func (s *server) add(r *http.Request, n store.NewWebhook, rename map[string]string) (*store.WebhookEndpoint, error) {
	tenant := tenantOf(r)
	list, err := s.Surveys.List(r.Context(), tenant)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, sv := range list {
		if sv.TrashedOn.IsZero() {
			known[sv.Slug] = true
		}
	}
	isKnown := func(slug string) bool { return known[slug] }
	fields := n.Problems(isKnown)
	if problem := s.WebhookURLProblem(n.URL); problem != "" && fields["url"] == "" {
		fields["url"] = problem
	}
	if len(fields) > 0 {
		named := map[string]string{}
		for k, v := range fields {
			if rename[k] != "" {
				k = rename[k]
			}
			named[k] = v
		}
		return nil, &survey.Error{Code: survey.EINVALID, Message: "The endpoint was not added; see each field.", Fields: named}
	}
	return s.Webhooks.Add(r.Context(), tenant, n, isKnown)
}

// getWebhook is one endpoint with its last deliveries.
func (s *server) getWebhook(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if err := s.webhooksOn(); err != nil {
		return 0, nil, err
	}
	e, err := s.Webhooks.Get(r.Context(), tenantOf(r), chi.URLParam(r, "id"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, webhookJSON(e, false), nil
}

// deleteWebhook deletes an endpoint: it receives no more events.
func (s *server) deleteWebhook(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if err := s.webhooksOn(); err != nil {
		return 0, nil, err
	}
	if err := s.Webhooks.Delete(r.Context(), tenantOf(r), chi.URLParam(r, "id")); err != nil {
		return 0, nil, err
	}
	s.audit(r, survey.AuditWebhookDeleted, chi.URLParam(r, "id"), "")
	return http.StatusNoContent, nil, nil
}

// webhookAction rotates an endpoint's secret (200, the endpoint with
// its new secret, shown once), sends it a test event (202) or enables it
// again (200).
func (s *server) webhookAction(action string) func(http.ResponseWriter, *http.Request) (int, any, error) {
	return func(w http.ResponseWriter, r *http.Request) (int, any, error) {
		if err := s.webhooksOn(); err != nil {
			return 0, nil, err
		}
		return s.doWebhookAction(w, r, action)
	}
}

func (s *server) doWebhookAction(w http.ResponseWriter, r *http.Request, action string) (int, any, error) {
	ctx, tenant, id := r.Context(), tenantOf(r), chi.URLParam(r, "id")
	switch action {
	case "rotate":
		e, err := s.Webhooks.Rotate(ctx, tenant, id)
		if err != nil {
			return 0, nil, err
		}
		s.audit(r, survey.AuditWebhookRotated, id, "")
		return http.StatusOK, webhookJSON(e, true), nil
	case "test":
		err := s.Webhooks.SendTest(ctx, tenant, id)
		if limited, ok := errors.AsType[*store.TestLimitError](err); ok {
			w.Header().Set("Retry-After", RetryAfter(limited.RetryAfter))
			return http.StatusTooManyRequests, errorBody{Error: limited.Error()}, nil
		}
		if err != nil {
			return 0, nil, err
		}
		s.audit(r, survey.AuditWebhookTested, id, "")
		return http.StatusAccepted, map[string]string{"status": "queued"}, nil
	case "enable":
		if err := s.Webhooks.Enable(ctx, tenant, id); err != nil {
			return 0, nil, err
		}
		s.audit(r, survey.AuditWebhookEnabled, id, "")
		return s.getWebhook(w, r)
	}
	return 0, nil, notFound("No such API endpoint.")
}
