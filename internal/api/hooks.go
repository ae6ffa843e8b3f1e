package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// REST hooks, as Zapier and n8n subscribe: POST /hooks {target_url,
// event} subscribes (201 with its id), DELETE /hooks/{id} unsubscribes,
// GET /hooks lists the token's tenant's subscriptions. A subscription is a
// webhook endpoint marked Hook: it receives the same signed payloads,
// counts in the tenant's limit of endpoints, and is unsubscribed when its
// receiver answers 410 Gone.

// jsonHook is a subscription as the API shows it. Secret, which signs its
// requests, is there only in the answer that made it.
type jsonHook struct {
	ID        string    `json:"id"`
	TargetURL string    `json:"target_url"`
	Event     string    `json:"event"`
	Survey    string    `json:"survey,omitempty"`
	CreatedOn time.Time `json:"created_on"`
	Disabled  bool      `json:"disabled"`
	Secret    string    `json:"secret,omitempty"`
}

func hookJSON(e *store.WebhookEndpoint, withSecret bool) jsonHook {
	out := jsonHook{ID: e.ID, TargetURL: e.URL, CreatedOn: e.CreatedOn, Disabled: e.Disabled}
	if len(e.Events) > 0 {
		out.Event = e.Events[0]
	}
	if len(e.Surveys) > 0 {
		out.Survey = e.Surveys[0]
	}
	if withSecret {
		out.Secret = e.Secret
	}
	return out
}

// listHooks lists the token's tenant's REST-hook subscriptions, oldest
// first (the endpoints added otherwise are under /webhooks).
func (s *server) listHooks(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if err := s.webhooksOn(); err != nil {
		return 0, nil, err
	}
	eps, err := s.Webhooks.List(r.Context(), tenantOf(r))
	if err != nil {
		return 0, nil, err
	}
	out := []jsonHook{}
	for _, e := range eps {
		if e.Hook {
			out = append(out, hookJSON(e, false))
		}
	}
	return http.StatusOK, map[string]any{"hooks": out}, nil
}

// subscribeHook subscribes target_url to event (of the survey survey, or
// of all): 201 with its id and secret. Bad input is a 422 naming each
// field; a tenant at its limit of endpoints gets 409.
func (s *server) subscribeHook(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if err := s.webhooksOn(); err != nil {
		return 0, nil, err
	}
	var in struct {
		TargetURL string `json:"target_url"`
		Event     string `json:"event"`
		Survey    string `json:"survey"`
	}
	if err := readBody(w, r, 16<<10, &in, `a subscription, {"target_url": …, "event": …}`); err != nil {
		return 0, nil, err
	}
	n := store.NewWebhook{URL: strings.TrimSpace(in.TargetURL), Hook: true}
	if in.Event != "" {
		n.Events = []string{in.Event}
	}
	if in.Survey != "" {
		n.Surveys = []string{in.Survey}
	}
	e, err := s.add(r, n, map[string]string{"url": "target_url", "events": "event", "surveys": "survey"})
	if err != nil {
		return 0, nil, err
	}
	s.audit(r, survey.AuditWebhookAdded, e.ID, e.URL+" (REST hook)")
	return http.StatusCreated, hookJSON(e, true), nil
}

// unsubscribeHook deletes a subscription (204); an endpoint that is not
// one (added on the settings page or under /webhooks) is not found here.
func (s *server) unsubscribeHook(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if err := s.webhooksOn(); err != nil {
		return 0, nil, err
	}
	tenant, id := tenantOf(r), chi.URLParam(r, "id")
	e, err := s.Webhooks.Get(r.Context(), tenant, id)
	if err == nil && !e.Hook {
		err = notFound("No such subscription.")
	}
	if err == nil {
		err = s.Webhooks.Delete(r.Context(), tenant, id)
	}
	if err != nil {
		return 0, nil, err
	}
	s.audit(r, survey.AuditWebhookDeleted, id, "REST hook")
	return http.StatusNoContent, nil, nil
}
