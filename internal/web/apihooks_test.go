package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestAPIHooks: REST-hook subscriptions (as Zapier and n8n make them): an
// admin's token subscribes a URL to an event (bad input: 422 naming the
// field, nothing subscribed) and gets its id and secret once; the
// subscription is listed under /hooks and, marked, under /webhooks; the
// tenant's limit of endpoints holds (409); DELETE /hooks/{id} takes
// subscriptions only. An editor's token may not. Every answer is checked
// against openapi.json.
func TestAPIHooks(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	tokens := store.NewTokenStore(app.st)
	admin, err := tokens.CreateWithRole(ctx, "adatum", "zapier", survey.Admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	editor, err := tokens.CreateWithRole(ctx, "adatum", "editing", survey.Editor, 0)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, _ := app.api(t, "POST", "/api/v1/hooks", editor, `{"target_url":"https://hooks.zapier.com/x","event":"response.created"}`); code != http.StatusForbidden {
		t.Fatalf("an editor's subscription = %d", code)
	}
	for _, c := range []struct{ name, body, field, want string }{
		{"no target", `{"event":"response.created"}`, "target_url", "Give the URL"},
		{"plain http", `{"target_url":"http://hooks.zapier.com/x","event":"response.created"}`, "target_url", "https"},
		{"private address", `{"target_url":"https://10.1.2.3/x","event":"response.created"}`, "target_url", "private or local"},
		{"no event", `{"target_url":"https://hooks.zapier.com/x"}`, "event", "Choose at least one event"},
		{"unknown event", `{"target_url":"https://hooks.zapier.com/x","event":"answer.deleted"}`, "event", "Choose among the events"},
		{"another tenant's survey", `{"target_url":"https://hooks.zapier.com/x","event":"response.created","survey":"fabrikam-survey"}`, "survey", "Choose among your surveys"},
	} {
		code, v, raw := app.api(t, "POST", "/api/v1/hooks", admin, c.body)
		fields, _ := v["fields"].(map[string]any)
		if msg, _ := fields[c.field].(string); code != http.StatusUnprocessableEntity || !strings.Contains(msg, c.want) {
			t.Errorf("%s = %d, want 422 naming %s (%q): %s", c.name, code, c.field, c.want, raw)
		}
	}
	if code, _, raw := app.api(t, "POST", "/api/v1/hooks", admin, `{"target_url":"https://hooks.zapier.com/x","event":"response.created","url":"x"}`); code != http.StatusUnprocessableEntity {
		t.Errorf("an unknown field = %d: %s", code, raw)
	}
	if _, v, _ := app.api(t, "GET", "/api/v1/hooks", admin, ""); len(v["hooks"].([]any)) != 0 {
		t.Fatalf("bad input subscribed: %v", v)
	}

	code, v, raw := app.api(t, "POST", "/api/v1/hooks", admin, `{"target_url":"https://hooks.zapier.com/hooks/standard/1/abc","event":"response.created","survey":"`+app.adatum.Slug+`"}`)
	id, _ := v["id"].(string)
	if secret, _ := v["secret"].(string); code != http.StatusCreated || id == "" || !strings.HasPrefix(secret, "whsec_") || v["event"] != "response.created" || v["survey"] != app.adatum.Slug {
		t.Fatalf("subscribe = %d: %s", code, raw)
	}
	if code, v, raw := app.api(t, "GET", "/api/v1/hooks", admin, ""); code != 200 || len(v["hooks"].([]any)) != 1 || strings.Contains(raw, "whsec_") || !strings.Contains(raw, `"id":"`+id+`"`) {
		t.Fatalf("list = %d: %s", code, raw)
	}
	if code, _, raw := app.api(t, "GET", "/api/v1/webhooks/"+id, admin, ""); code != 200 || !strings.Contains(raw, `"hook":true`) || !strings.Contains(raw, `"kind":"standard"`) {
		t.Fatalf("the subscription as an endpoint = %d: %s", code, raw)
	}

	// An endpoint added otherwise is not a subscription: not listed under
	// /hooks, not deleted there.
	code, v, raw = app.api(t, "POST", "/api/v1/webhooks", admin, `{"url":"https://hooks.example.com/in","events":["response.created"]}`)
	plain, _ := v["id"].(string)
	if code != http.StatusCreated || v["hook"] != nil {
		t.Fatalf("add endpoint = %d: %s", code, raw)
	}
	if code, _, _ := app.api(t, "DELETE", "/api/v1/hooks/"+plain, admin, ""); code != http.StatusNotFound {
		t.Errorf("DELETE /hooks/ of an endpoint = %d, want 404", code)
	}
	if _, v, _ := app.api(t, "GET", "/api/v1/hooks", admin, ""); len(v["hooks"].([]any)) != 1 {
		t.Errorf("the endpoint is listed as a subscription: %v", v)
	}

	// The tenant's limit of endpoints: subscriptions count.
	for i := 2; i < store.MaxWebhookEndpoints; i++ {
		if code, _, raw := app.api(t, "POST", "/api/v1/hooks", admin, fmt.Sprintf(`{"target_url":"https://hooks.zapier.com/%d","event":"survey.closed"}`, i)); code != http.StatusCreated {
			t.Fatalf("subscription %d = %d: %s", i, code, raw)
		}
	}
	if code, _, raw := app.api(t, "POST", "/api/v1/hooks", admin, `{"target_url":"https://hooks.zapier.com/one-too-many","event":"survey.closed"}`); code != http.StatusConflict || !strings.Contains(raw, "at most 10 endpoints") {
		t.Errorf("beyond the limit = %d, want 409: %s", code, raw)
	}

	if code, _, raw := app.api(t, "DELETE", "/api/v1/hooks/"+id, admin, ""); code != http.StatusNoContent {
		t.Fatalf("unsubscribe = %d: %s", code, raw)
	}
	if code, _, _ := app.api(t, "DELETE", "/api/v1/hooks/"+id, admin, ""); code != http.StatusNotFound {
		t.Errorf("unsubscribe again = %d, want 404", code)
	}
}

// TestAPIWebhookKinds: the API's endpoints have a kind; a Slack or Teams
// one takes an https URL only (422 naming url, saying why), an unknown
// kind is a 422 naming kind; a Slack endpoint is added without a secret
// (its requests are not signed).
func TestAPIWebhookKinds(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	admin, err := store.NewTokenStore(app.st).CreateWithRole(context.Background(), "adatum", "hooks", survey.Admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, body, field, want string }{
		{"Slack over http", `{"url":"http://hooks.slack.com/services/T/B/x","kind":"slack","events":["response.created"]}`, "url", "A Slack endpoint takes an https URL only"},
		{"Teams over http", `{"url":"http://x.webhook.office.com/x","kind":"teams","events":["response.created"]}`, "url", "A Microsoft Teams endpoint takes an https URL only"},
		{"unknown kind", `{"url":"https://discord.com/api/webhooks/x","kind":"discord","events":["response.created"]}`, "kind", "Choose among the kinds"},
	} {
		code, v, raw := app.api(t, "POST", "/api/v1/webhooks", admin, c.body)
		fields, _ := v["fields"].(map[string]any)
		if msg, _ := fields[c.field].(string); code != http.StatusUnprocessableEntity || !strings.Contains(msg, c.want) {
			t.Errorf("%s = %d, want 422 naming %s (%q): %s", c.name, code, c.field, c.want, raw)
		}
	}
	code, v, raw := app.api(t, "POST", "/api/v1/webhooks", admin, `{"url":"https://hooks.slack.com/services/T/B/x","kind":"slack","events":["response.created"]}`)
	if code != http.StatusCreated || v["kind"] != "slack" || v["secret"] != nil {
		t.Fatalf("add a Slack endpoint = %d: %s", code, raw)
	}
	if code, v, raw := app.api(t, "GET", "/api/v1/webhooks", admin, ""); code != 200 || !strings.Contains(raw, `"kind":"slack"`) || len(v["webhooks"].([]any)) != 1 {
		t.Fatalf("list = %d: %s", code, raw)
	}
}
