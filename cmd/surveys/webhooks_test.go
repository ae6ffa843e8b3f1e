package main

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/webhook"
)

// TestWebhookEndToEnd runs through the real server over HTTP: a new
// tenant's admin adds a webhook endpoint on the settings page (a receiver
// on loopback, which the operator allows) and copies its secret, then
// publishes a survey; a respondent answers; the receiver gets
// survey.published and then response.created with the answer's typed
// values, each signed as the Standard Webhooks specification says, which
// it verifies with the secret.
func TestWebhookEndToEnd(t *testing.T) {
	var mu sync.Mutex
	type delivery struct {
		header http.Header
		body   []byte
	}
	var got []delivery
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, delivery{r.Header.Clone(), b})
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	cfg := loopbackConfig(t)
	cfg.WebhookTestsPerMinute = 1 // the operator's limit (--webhook-tests-per-minute)
	m := NewMain(cfg, io.Discard)
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	base := "http://" + m.Addr()
	carol := newSubscriber(t, base)
	if code, _, _ := carol.post("/onboarding", url.Values{"name": {"Hooked"}, "email": {"carol@hooked.example"}, "password": {"a long enough password"}, "plan": {"Standard"}}); code != http.StatusSeeOther {
		t.Fatalf("sign-up = %d", code)
	}

	// The endpoint: a bad URL first (422 beside the field), then the
	// receiver's.
	if code, _, page := carol.post("/hooked/settings/webhooks", url.Values{"url": {"ftp://example.com"}, "events": {webhook.ResponseCreated}}); code != http.StatusUnprocessableEntity || !strings.Contains(page, `id="url-error"`) {
		t.Fatalf("bad URL = %d", code)
	}
	code, _, page := carol.post("/hooked/settings/webhooks", url.Values{"url": {receiver.URL + "/hooks"}, "events": {webhook.ResponseCreated, webhook.SurveyPublished}})
	m1 := regexp.MustCompile(`id="new-secret" value="([^"]+)"`).FindStringSubmatch(page)
	if code != 200 || m1 == nil {
		t.Fatalf("add endpoint = %d", code)
	}
	secret := html.UnescapeString(m1[1])
	// The operator's limit of test events: the page says it, the second
	// is refused.
	_, page = carol.get("/hooked/settings/webhooks")
	test := regexp.MustCompile(`action="(/hooked/settings/webhooks/[^/"]+/test)"`).FindStringSubmatch(page)
	if test == nil || !strings.Contains(page, "Each endpoint may be sent 1 test event a minute.") {
		t.Fatalf("the webhooks page does not say the operator's limit of test events:\n%s", page)
	}
	if code, _, _ := carol.post(test[1], url.Values{}); code != http.StatusSeeOther {
		t.Fatalf("the first test event = %d", code)
	}
	if code, _, page := carol.post(test[1], url.Values{}); code != http.StatusTooManyRequests || !strings.Contains(page, "may be sent 1 test event a minute") {
		t.Fatalf("the second test event in a minute = %d, want 429:\n%s", code, page)
	}

	// A survey, published.
	form := url.Values{"title": {"Coffee survey"}, "n": {"3"}, "action": {"save"},
		"q.0.text": {"What do you drink?"}, "q.0.type": {"SimpleText"},
		"q.1.text": {"Which size?"}, "q.1.type": {"MultipleChoice"}, "q.1.choices": {"Small\r\nLarge"},
		"q.2.text": {"How good?"}, "q.2.type": {"FiveStars"}}
	if code, _, _ := carol.post("/hooked/surveys/new", form); code != http.StatusSeeOther {
		t.Fatalf("create = %d", code)
	}
	form.Set("action", "publish")
	if code, _, _ := carol.post("/hooked/surveys/coffee-survey/edit", form); code != http.StatusSeeOther {
		t.Fatalf("publish = %d", code)
	}
	// A respondent.
	r := newSubscriber(t, base)
	code, page = r.get("/survey/hooked/coffee-survey")
	tok := formTokenRE.FindStringSubmatch(page)
	if code != 200 || tok == nil {
		t.Fatalf("survey page = %d", code)
	}
	var ids []string
	for _, q := range questionRE.FindAllStringSubmatch(page, -1) {
		if len(ids) == 0 || ids[len(ids)-1] != q[1] {
			ids = append(ids, q[1])
		}
	}
	if code, _, _ := r.post("/survey/hooked/coffee-survey", url.Values{"token": {tok[1]}, "q-" + ids[0]: {"flat white"}, "q-" + ids[1]: {"Large"}, "q-" + ids[2]: {"5"}}); code != http.StatusSeeOther {
		t.Fatalf("answer = %d", code)
	}

	// The three events arrive (the test event too), signed.
	deadline := time.Now().Add(2 * time.Minute)
	events := map[string]delivery{}
	for events[webhook.ResponseCreated].body == nil || events[webhook.SurveyPublished].body == nil || events[webhook.Test].body == nil {
		if time.Now().After(deadline) {
			t.Fatalf("events received: %v", events)
		}
		time.Sleep(50 * time.Millisecond)
		mu.Lock()
		for _, d := range got {
			var ev struct{ Type string }
			_ = json.Unmarshal(d.body, &ev)
			events[ev.Type] = d
		}
		mu.Unlock()
	}
	for typ, d := range events {
		if err := webhook.Verify(secret, d.header, d.body, time.Now()); err != nil {
			t.Fatalf("%s: the signature does not verify: %v", typ, err)
		}
	}
	var created struct {
		Type      string
		Timestamp time.Time
		Data      survey.ExportedAnswer
	}
	if err := json.Unmarshal(events[webhook.ResponseCreated].body, &created); err != nil {
		t.Fatal(err)
	}
	a := created.Data.Answers
	if created.Data.Slug != "coffee-survey" || created.Data.Tenant != "hooked" || len(a) != 3 || a[0].Value != "flat white" || a[1].Value != "Large" || a[2].Value != float64(5) {
		t.Fatalf("response.created: %s", events[webhook.ResponseCreated].body)
	}
	var published struct{ Data webhook.Survey }
	_ = json.Unmarshal(events[webhook.SurveyPublished].body, &published)
	if published.Data.Slug != "coffee-survey" || !strings.HasSuffix(published.Data.PublicURL, "/survey/hooked/coffee-survey") {
		t.Fatalf("survey.published: %s", events[webhook.SurveyPublished].body)
	}
	// The settings page shows the deliveries.
	if _, page := carol.get("/hooked/settings/webhooks"); !strings.Contains(page, "204 ✓") {
		t.Fatal("the page shows no delivery")
	}
}
