package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/webhook"
)

// TestWebhookKindsPage: the endpoint form offers the kinds; a Slack or
// Teams endpoint takes an https URL only, an unknown kind is refused
// beside its field (422, nothing added); a Slack endpoint added shows no
// secret (its requests are not signed) and is listed as Slack.
func TestWebhookKindsPage(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	const path = "/adatum/settings/webhooks"
	code, _, body := app.do(t, "GET", path, nil, ana)
	for _, want := range []string{`<select id="kind" name="kind"`, `value="standard" selected`, `value="slack"`, `value="teams"`, "Microsoft Teams (a card in a channel)"} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("GET %s = %d, without %s", path, code, want)
		}
	}
	for _, c := range []struct {
		name  string
		form  url.Values
		field string
		want  string
	}{
		{"Slack over http", url.Values{"url": {"http://hooks.slack.com/services/T/B/x"}, "kind": {"slack"}, "events": {webhook.ResponseCreated}}, "url", "A Slack endpoint takes an https URL only"},
		{"Teams over http", url.Values{"url": {"http://example.webhook.office.com/x"}, "kind": {"teams"}, "events": {webhook.ResponseCreated}}, "url", "A Microsoft Teams endpoint takes an https URL only"},
		{"unknown kind", url.Values{"url": {"https://discord.com/api/webhooks/x"}, "kind": {"discord"}, "events": {webhook.ResponseCreated}}, "kind", "Choose among the kinds listed"},
	} {
		code, _, body := app.do(t, "POST", path, c.form, ana)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, c.want) || !strings.Contains(body, `id="`+c.field+`-error"`) {
			t.Errorf("%s = %d, want 422 with %q beside %s", c.name, code, c.want, c.field)
		}
	}
	code, _, body = app.do(t, "POST", path, url.Values{"url": {"https://hooks.slack.com/services/T/B/x"}, "kind": {"slack"}, "events": {webhook.ResponseCreated}}, ana)
	if code != 200 || strings.Contains(body, "whsec_") || !strings.Contains(body, "The endpoint is added: Slack (a message in a channel)") {
		t.Fatalf("adding a Slack endpoint = %d:\n%s", code, body)
	}
	if strings.Contains(body, "/rotate") {
		t.Error("a Slack endpoint is offered a new secret (its requests are not signed)")
	}
	// A REST-hook subscription made through the API is named so.
	if _, err := store.NewWebhookStore(app.st).WithSecrets(testBox).Add(context.Background(), "adatum",
		store.NewWebhook{URL: "https://hooks.zapier.com/hooks/x", Hook: true, Events: []string{webhook.ResponseCreated}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, body := app.do(t, "GET", path, nil, ana); !strings.Contains(body, "a REST-hook subscription made through the API") {
		t.Error("the page does not name the REST-hook subscription")
	}
}

// TestAnswerLink: the link of a chat message, an answer's page by its ID,
// shows that answer to its tenant; an ID that is none is not found.
func TestAnswerLink(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	if code, _, _ := app.do(t, "POST", app.path(), app.complete(app.token(t, app.path())), nil); code != 303 {
		t.Fatal("answer refused")
	}
	stored := app.storedAnswers(t, app.adatum.Slug)
	if len(stored) != 1 {
		t.Fatalf("%d answers stored", len(stored))
	}
	link := strings.TrimPrefix(webhook.AnswerLink("", "adatum", app.adatum.Slug, stored[0].ID), "")
	code, _, body := app.do(t, "GET", link, nil, ana)
	if code != 200 || !strings.Contains(body, "One answer") || !strings.Contains(body, "Browse all the answers") || !strings.Contains(body, "Faster pages, please") {
		t.Fatalf("GET %s = %d:\n%s", link, code, body)
	}
	if code, _, _ := app.do(t, "GET", "/adatum/surveys/"+app.adatum.Slug+"/answers/0639319281967095294-57ffb6", nil, ana); code != http.StatusNotFound {
		t.Errorf("an answer that is none = %d, want 404", code)
	}
}
