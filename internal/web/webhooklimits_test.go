package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/webhook"
)

// TestWebhookTestEventLimit: an endpoint may be sent 3 test events a
// minute, from the page or the API together; the 4th is refused with 429,
// a Retry-After and words saying the limit, and queues nothing. Another
// endpoint has its own 3.
func TestWebhookTestEventLimit(t *testing.T) {
	const limit = 3 // the limit a user is told; store.DefaultTestsPerMinute
	app := newTestApp(t)
	ctx := context.Background()
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	admin, err := store.NewTokenStore(app.st).CreateWithRole(ctx, "adatum", "hooks", survey.Admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	hooks := store.NewWebhookStore(app.st).WithSecrets(testBox)
	var ids []string
	for range 2 {
		e, err := hooks.Add(ctx, "adatum", store.NewWebhook{URL: "https://hooks.example.com/in", Events: []string{webhook.SurveyClosed}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	const path = "/adatum/settings/webhooks"
	if _, _, body := app.do(t, "GET", path, nil, ana); !strings.Contains(body, "Each endpoint may be sent 3 test events a minute.") {
		t.Error("the page does not say the limit up front")
	}
	page := func(id string) (int, http.Header, string) {
		return app.do(t, "POST", path+"/"+id+"/test", url.Values{}, ana)
	}
	api := func(id string) (int, map[string]any, string) {
		return app.api(t, "POST", "/api/v1/webhooks/"+id+"/test", admin, "")
	}
	// The first endpoint: 2 from the page, 1 from the API, then both refuse.
	for i := range limit {
		if i < limit-1 {
			if code, _, _ := page(ids[0]); code != http.StatusSeeOther {
				t.Fatalf("test %d from the page = %d", i+1, code)
			}
		} else if code, _, raw := api(ids[0]); code != http.StatusAccepted {
			t.Fatalf("test %d from the API = %d: %s", i+1, code, raw)
		}
	}
	code, h, body := page(ids[0])
	if code != http.StatusTooManyRequests || !strings.Contains(body, "may be sent 3 test events a minute") || !strings.Contains(body, `role="alert"`) {
		t.Errorf("test 4 from the page = %d, want 429 saying the limit:\n%s", code, body)
	}
	if s, err := strconv.Atoi(h.Get("Retry-After")); err != nil || s < 1 || s > 60 {
		t.Errorf("the page's Retry-After %q", h.Get("Retry-After"))
	}
	code, v, raw := api(ids[0])
	if msg, _ := v["error"].(string); code != http.StatusTooManyRequests || !strings.Contains(msg, "may be sent 3 test events a minute") {
		t.Errorf("test 4 from the API = %d, want 429 saying the limit: %s", code, raw)
	}
	// The second endpoint has its own limit.
	for i := range limit {
		if code, _, _ := page(ids[1]); code != http.StatusSeeOther {
			t.Fatalf("test %d of the second endpoint = %d", i+1, code)
		}
	}
	if code, _, _ := page(ids[1]); code != http.StatusTooManyRequests {
		t.Errorf("test 4 of the second endpoint = %d, want 429", code)
	}
	per := map[string]int{}
	for _, m := range webhookMessages(t, app) {
		per[m.Endpoint]++
	}
	if per[ids[0]] != limit || per[ids[1]] != limit || len(per) != 2 {
		t.Errorf("queued per endpoint %v, want %d each", per, limit)
	}
}

// TestWebhookNumericHostRefused: a URL whose host is an IPv4 address
// written other than as four decimal numbers is refused when saved, 422
// beside the URL field (page) or naming it (API); nothing is added.
func TestWebhookNumericHostRefused(t *testing.T) {
	app := newTestApp(t)
	ctx := context.Background()
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	admin, err := store.NewTokenStore(app.st).CreateWithRole(ctx, "adatum", "hooks", survey.Admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	const want = "four numbers from 0 to 255"
	for _, u := range []string{"https://2130706433/", "https://0x7f.1/", "https://0177.0.0.1/", "https://127.1/", "https://0x5db8d70e/in", "https://1572395790/in"} {
		code, _, body := app.do(t, "POST", "/adatum/settings/webhooks", url.Values{"url": {u}, "events": {webhook.ResponseCreated}}, ana)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, want) || !strings.Contains(body, `id="url-error"`) {
			t.Errorf("page: %s = %d, want 422 beside the URL", u, code)
		}
		code, v, raw := app.api(t, "POST", "/api/v1/webhooks", admin, `{"url":"`+u+`","events":["response.created"]}`)
		fields, _ := v["fields"].(map[string]any)
		if f, _ := fields["url"].(string); code != http.StatusUnprocessableEntity || !strings.Contains(f, want) {
			t.Errorf("API: %s = %d, want 422 naming url: %s", u, code, raw)
		}
	}
	if eps, _ := store.NewWebhookStore(app.st).WithSecrets(testBox).List(ctx, "adatum"); len(eps) != 0 {
		t.Fatalf("%d endpoints added", len(eps))
	}
}

// TestAPIWebhookSecretNotCached: the API's answers that carry an
// endpoint's secret (add, rotate), and every other answer of a token,
// say Cache-Control: no-store.
func TestAPIWebhookSecretNotCached(t *testing.T) {
	app := newTestApp(t)
	ctx := context.Background()
	admin, err := store.NewTokenStore(app.st).CreateWithRole(ctx, "adatum", "hooks", survey.Admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	auth := map[string]string{"Authorization": "Bearer " + admin, "Content-Type": "application/json"}
	code, h, body := app.send(t, "POST", "/api/v1/webhooks", strings.NewReader(`{"url":"https://hooks.example.com/in","events":["response.created"]}`), auth)
	if code != http.StatusCreated || !strings.Contains(body, "whsec_") || h.Get("Cache-Control") != "no-store" {
		t.Fatalf("add = %d, Cache-Control %q", code, h.Get("Cache-Control"))
	}
	eps, _ := store.NewWebhookStore(app.st).WithSecrets(testBox).List(ctx, "adatum")
	if len(eps) != 1 {
		t.Fatalf("%d endpoints", len(eps))
	}
	for _, c := range []struct{ method, path string }{
		{"POST", "/api/v1/webhooks/" + eps[0].ID + "/rotate"},
		{"GET", "/api/v1/webhooks"},
		{"GET", "/api/v1/surveys"},
	} {
		if code, h, _ := app.send(t, c.method, c.path, nil, auth); code != http.StatusOK || h.Get("Cache-Control") != "no-store" {
			t.Errorf("%s %s = %d, Cache-Control %q", c.method, c.path, code, h.Get("Cache-Control"))
		}
	}
}
