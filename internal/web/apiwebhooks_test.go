package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/webhook"
)

// TestAPIWebhooks: an admin's token adds an endpoint (bad input: 422
// naming the field, nothing added), gets its secret once, lists and gets
// it without the secret, rotates the secret (the old one kept a day),
// sends a test event, and deletes it. An editor's token may not; every
// answer is checked against openapi.json.
func TestAPIWebhooks(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	tokens := store.NewTokenStore(app.st)
	admin, err := tokens.CreateWithRole(ctx, "adatum", "hooks", survey.Admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	editor, err := tokens.CreateWithRole(ctx, "adatum", "editing", survey.Editor, 0)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, _ := app.api(t, "GET", "/api/v1/webhooks", editor, ""); code != http.StatusForbidden {
		t.Fatalf("an editor's list = %d", code)
	}
	for _, c := range []struct{ name, body, field string }{
		{"private address", `{"url":"https://10.1.2.3/in","events":["response.created"]}`, "url"},
		{"plain http", `{"url":"http://hooks.example.com/in","events":["response.created"]}`, "url"},
		{"no event", `{"url":"https://hooks.example.com/in","events":[]}`, "events"},
		{"unknown event", `{"url":"https://hooks.example.com/in","events":["answer.deleted"]}`, "events"},
		{"another tenant's survey", `{"url":"https://hooks.example.com/in","events":["response.created"],"surveys":["fabrikam-survey"]}`, "surveys"},
	} {
		code, v, raw := app.api(t, "POST", "/api/v1/webhooks", admin, c.body)
		fields, _ := v["fields"].(map[string]any)
		if code != http.StatusUnprocessableEntity || fields[c.field] == nil {
			t.Errorf("%s = %d, want 422 naming %s: %s", c.name, code, c.field, raw)
		}
	}
	if code, _, raw := app.api(t, "POST", "/api/v1/webhooks", admin, `{"url":"https://hooks.example.com/in","events":["response.created"],"extra":1}`); code != http.StatusUnprocessableEntity {
		t.Errorf("an unknown field = %d: %s", code, raw)
	}
	if _, v, _ := app.api(t, "GET", "/api/v1/webhooks", admin, ""); len(v["webhooks"].([]any)) != 0 {
		t.Fatalf("bad input added endpoints: %v", v)
	}

	code, v, raw := app.api(t, "POST", "/api/v1/webhooks", admin, `{"url":"https://hooks.example.com/in","events":["response.created","survey.closed"],"surveys":["`+app.adatum.Slug+`"]}`)
	secret, _ := v["secret"].(string)
	id, _ := v["id"].(string)
	if code != http.StatusCreated || !strings.HasPrefix(secret, "whsec_") || id == "" {
		t.Fatalf("add = %d: %s", code, raw)
	}
	for _, path := range []string{"/api/v1/webhooks", "/api/v1/webhooks/" + id} {
		if code, _, raw := app.api(t, "GET", path, admin, ""); code != 200 || strings.Contains(raw, "whsec_") || !strings.Contains(raw, "hooks.example.com/in") {
			t.Fatalf("GET %s = %d: %s", path, code, raw)
		}
	}

	code, v, raw = app.api(t, "POST", "/api/v1/webhooks/"+id+"/rotate", admin, "")
	rotated, _ := v["secret"].(string)
	if code != 200 || rotated == secret || !strings.HasPrefix(rotated, "whsec_") || v["previousSecretUntil"] == nil {
		t.Fatalf("rotate = %d: %s", code, raw)
	}
	e, _ := store.NewWebhookStore(app.st).WithSecrets(testBox).Get(ctx, "adatum", id)
	if e.Secret != rotated || e.PreviousSecret != secret {
		t.Fatalf("stored after the rotation: %q, previous %q", e.Secret, e.PreviousSecret)
	}

	if code, _, raw := app.api(t, "POST", "/api/v1/webhooks/"+id+"/test", admin, ""); code != http.StatusAccepted {
		t.Fatalf("test = %d: %s", code, raw)
	}
	if msgs := webhookMessages(t, app); len(msgs) != 1 || msgs[0].Event != webhook.Test || msgs[0].Endpoint != id {
		t.Fatalf("queued %+v", msgs)
	}
	if code, _, raw := app.api(t, "POST", "/api/v1/webhooks/"+id+"/enable", admin, ""); code != 200 {
		t.Fatalf("enable = %d: %s", code, raw)
	}
	if code, _, raw := app.api(t, "DELETE", "/api/v1/webhooks/"+id, admin, ""); code != http.StatusNoContent {
		t.Fatalf("delete = %d: %s", code, raw)
	}
	if code, _, _ := app.api(t, "GET", "/api/v1/webhooks/"+id, admin, ""); code != http.StatusNotFound {
		t.Fatalf("get after delete = %d", code)
	}
}
