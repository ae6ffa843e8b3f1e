package web_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/webhook"
)

// webhookMessages returns the events queued, and takes them off the queue.
func webhookMessages(t *testing.T, app *testApp) []store.WebhookMessage {
	t.Helper()
	ctx := context.Background()
	var out []store.WebhookMessage
	for {
		msgs, err := app.st.Dequeue(ctx, store.WebhooksQueue, 32, 60e9)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			return out
		}
		for _, m := range msgs {
			var wm store.WebhookMessage
			if err := json.Unmarshal(m.Data, &wm); err != nil {
				t.Fatal(err)
			}
			out = append(out, wm)
			_ = app.st.DeleteMessage(ctx, store.WebhooksQueue, m.ID, m.PopReceipt)
		}
	}
}

var secretShown = regexp.MustCompile(`value="(whsec_[^"]+)"`)

// TestWebhooksPage: an admin adds an endpoint (bad input: 422 beside the
// field, nothing added), sees its secret once, sends a test event, gets
// survey.closed when a survey is closed, and deletes it after a
// confirmation. Another tenant's admin neither sees nor triggers it.
func TestWebhooksPage(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	fred := app.signedIn(t, "fabrikam", "fred@fabrikam.example")
	const path = "/adatum/settings/webhooks"

	code, _, body := app.do(t, "GET", path, nil, ana)
	if code != 200 || !strings.Contains(body, `name="url"`) || !strings.Contains(body, "No endpoint yet") || !strings.Contains(body, app.adatum.Title) {
		t.Fatalf("GET %s = %d:\n%s", path, code, body)
	}
	if _, _, body := app.do(t, "GET", "/adatum/settings", nil, ana); !strings.Contains(body, `href="/adatum/settings/webhooks"`) {
		t.Error("the settings page does not link the webhooks page")
	}

	for _, c := range []struct {
		name  string
		form  url.Values
		field string
		want  string
	}{
		{"no URL", url.Values{"events": {webhook.ResponseCreated}}, "url", "Give the URL"},
		{"not a URL", url.Values{"url": {"hooks.example.com"}, "events": {webhook.ResponseCreated}}, "url", "Give an https URL"},
		{"plain http", url.Values{"url": {"http://hooks.example.com/x"}, "events": {webhook.ResponseCreated}}, "url", "Give an https URL"},
		{"credentials", url.Values{"url": {"https://u:p@hooks.example.com/x"}, "events": {webhook.ResponseCreated}}, "url", "without a user name"},
		{"private address", url.Values{"url": {"https://10.0.0.7/hooks"}, "events": {webhook.ResponseCreated}}, "url", "private or local addresses"},
		{"metadata", url.Values{"url": {"https://169.254.169.254/"}, "events": {webhook.ResponseCreated}}, "url", "private or local addresses"},
		{"no event", url.Values{"url": {"https://hooks.example.com/x"}}, "events", "Choose at least one event"},
		{"unknown event", url.Values{"url": {"https://hooks.example.com/x"}, "events": {"answer.deleted"}}, "events", "Choose among the events"},
		{"another tenant's survey", url.Values{"url": {"https://hooks.example.com/x"}, "events": {webhook.ResponseCreated}, "surveys": {"fabrikam-survey"}}, "surveys", "Choose among your surveys"},
	} {
		code, _, body := app.do(t, "POST", path, c.form, ana)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, c.want) || !strings.Contains(body, `id="`+c.field+`-error"`) {
			t.Errorf("%s = %d, want 422 with %q beside %s", c.name, code, c.want, c.field)
		}
	}
	if eps, _ := store.NewWebhookStore(app.st).WithSecrets(testBox).List(context.Background(), "adatum"); len(eps) != 0 {
		t.Fatalf("bad input added %d endpoints", len(eps))
	}

	// Added: the secret shown this once.
	code, _, body = app.do(t, "POST", path, url.Values{"url": {"https://hooks.example.com/in"}, "events": {webhook.ResponseCreated, webhook.SurveyClosed}, "surveys": {app.adatum.Slug}}, ana)
	var secret string
	if m := secretShown.FindStringSubmatch(body); m != nil {
		secret = html.UnescapeString(m[1])
	}
	if code != 200 || secret == "" || !strings.Contains(body, "shown this once") {
		t.Fatalf("add = %d:\n%s", code, body)
	}
	eps, _ := store.NewWebhookStore(app.st).WithSecrets(testBox).List(context.Background(), "adatum")
	if len(eps) != 1 || eps[0].Secret != secret {
		t.Fatalf("endpoints %v; shown %s", eps, secret)
	}
	id := eps[0].ID
	if _, _, body := app.do(t, "GET", path, nil, ana); secretShown.MatchString(body) || !strings.Contains(body, "https://hooks.example.com/in") || !strings.Contains(body, "No delivery yet") {
		t.Fatalf("the secret is shown again, or the endpoint is not listed:\n%s", body)
	}

	// Fabrikam's admin sees nothing of it and cannot act on it.
	if _, _, body := app.do(t, "GET", "/fabrikam/settings/webhooks", nil, fred); strings.Contains(body, "hooks.example.com") {
		t.Fatal("Fabrikam sees Adatum's endpoint")
	}
	for _, p := range []string{"/fabrikam/settings/webhooks/" + id + "/test", "/fabrikam/settings/webhooks/" + id + "/delete", "/fabrikam/settings/webhooks/" + id + "/enable", "/fabrikam/settings/webhooks/" + id + "/rotate"} {
		if code, _, _ := app.do(t, "POST", p, url.Values{}, fred); code != 404 {
			t.Errorf("POST %s by Fabrikam = %d, want 404", p, code)
		}
	}
	for _, p := range []string{path + "/" + id + "/test", path + "/" + id + "/delete", path + "/" + id + "/rotate"} {
		if code, _, _ := app.do(t, "POST", p, url.Values{}, fred); code != 403 {
			t.Errorf("POST %s by Fabrikam = %d, want 403", p, code)
		}
	}
	if code, _, _ := app.do(t, "GET", "/fabrikam/settings/webhooks/"+id+"/delete", nil, fred); code != 404 {
		t.Errorf("Fabrikam's confirmation page for Adatum's endpoint = %d", code)
	}
	if msgs := webhookMessages(t, app); len(msgs) != 0 {
		t.Fatalf("Fabrikam triggered %d events", len(msgs))
	}

	// A new secret, shown once; the old one still signs for a day.
	code, _, body = app.do(t, "POST", path+"/"+id+"/rotate", url.Values{}, ana)
	var rotated string
	if m := secretShown.FindStringSubmatch(body); m != nil {
		rotated = html.UnescapeString(m[1])
	}
	if code != 200 || rotated == "" || rotated == secret || !strings.Contains(body, "two signatures") {
		t.Fatalf("rotate = %d:\n%s", code, body)
	}
	eps, _ = store.NewWebhookStore(app.st).WithSecrets(testBox).List(context.Background(), "adatum")
	if eps[0].Secret != rotated || eps[0].PreviousSecret != secret {
		t.Fatalf("after the rotation: secret %q (shown %q), previous %q (was %q)", eps[0].Secret, rotated, eps[0].PreviousSecret, secret)
	}
	if _, _, body := app.do(t, "GET", path, nil, ana); secretShown.MatchString(body) || !strings.Contains(body, "the old one too") {
		t.Fatalf("after the rotation the page shows the secret, or not the overlap:\n%s", body)
	}

	// A test event, through the queue.
	if code, h, _ := app.do(t, "POST", path+"/"+id+"/test", url.Values{}, ana); code != 303 || h.Get("Location") != path+"?done=tested" {
		t.Fatalf("test = %d %s", code, h.Get("Location"))
	}
	if msgs := webhookMessages(t, app); len(msgs) != 1 || msgs[0].Event != webhook.Test || msgs[0].Endpoint != id || msgs[0].Tenant != "adatum" {
		t.Fatalf("queued %+v", msgs)
	}

	// Closing the survey (the designer's action) queues survey.closed.
	if code, _, _ := app.do(t, "POST", "/adatum/surveys/"+app.adatum.Slug+"/close", url.Values{}, ana); code != 303 {
		t.Fatalf("close = %d", code)
	}
	msgs := webhookMessages(t, app)
	if len(msgs) != 1 || msgs[0].Event != webhook.SurveyClosed {
		t.Fatalf("after close: %+v", msgs)
	}
	var ev struct {
		Type string
		Data webhook.Survey
	}
	if err := json.Unmarshal(msgs[0].Body, &ev); err != nil || ev.Data.Slug != app.adatum.Slug || ev.Data.State == "" || !strings.HasSuffix(ev.Data.PublicURL, "/survey/adatum/"+app.adatum.Slug) {
		t.Fatalf("survey.closed body %s: %v", msgs[0].Body, err)
	}

	// Delete: a confirmation first.
	if code, _, body := app.do(t, "GET", path+"/"+id+"/delete", nil, ana); code != 200 || !strings.Contains(body, "https://hooks.example.com/in") || !strings.Contains(body, "Delete the endpoint") {
		t.Fatalf("confirmation = %d", code)
	}
	if code, h, _ := app.do(t, "POST", path+"/"+id+"/delete", url.Values{}, ana); code != 303 || h.Get("Location") != path+"?done=deleted" {
		t.Fatalf("delete = %d", code)
	}
	if _, _, body := app.do(t, "GET", path, nil, ana); strings.Contains(body, "hooks.example.com/in") {
		t.Fatal("still listed after delete")
	}
}

// TestWebhooksDisabledBanner: a disabled endpoint shows as a banner on
// the settings page and the webhooks page, with its reason, and can be
// enabled again.
func TestWebhooksDisabledBanner(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	ws := store.NewWebhookStore(app.st).WithSecrets(testBox)
	e, err := ws.Add(context.Background(), "adatum", store.NewWebhook{URL: "https://hooks.example.com/in", Events: []string{webhook.ResponseCreated}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Disable(context.Background(), "adatum", e.ID, "failed 7 attempts; last: it answered 500 Internal Server Error"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/adatum/settings", "/adatum/settings/webhooks"} {
		if _, _, body := app.do(t, "GET", p, nil, ana); !strings.Contains(body, "endpoint was disabled") {
			t.Errorf("%s shows no banner", p)
		}
	}
	if _, _, body := app.do(t, "GET", "/adatum/settings/webhooks", nil, ana); !strings.Contains(body, "it answered 500") || !strings.Contains(body, ">Enable<") {
		t.Fatalf("the reason or the Enable button is missing:\n%s", body)
	}
	if code, _, _ := app.do(t, "POST", "/adatum/settings/webhooks/"+e.ID+"/enable", url.Values{}, ana); code != 303 {
		t.Fatalf("enable = %d", code)
	}
	if _, _, body := app.do(t, "GET", "/adatum/settings", nil, ana); strings.Contains(body, "endpoint was disabled") {
		t.Fatal("the banner stays after Enable")
	}
}
