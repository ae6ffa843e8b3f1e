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

	"github.com/surveys-dev/surveys/internal/webhook"
)

// TestRESTHookEndToEnd runs a REST-hook subscription through the real
// server over HTTP, as Zapier makes one: a new tenant's admin makes an API
// token on the tokens page and publishes a survey; the token subscribes a
// receiver (on loopback, which the operator allows) to response.created;
// a respondent answers; the receiver gets the signed answer, verifies it
// with the subscription's secret, and answers 410 Gone; the subscription
// is gone from GET /api/v1/hooks, and the next answer is not sent.
func TestRESTHookEndToEnd(t *testing.T) {
	var mu sync.Mutex
	type delivery struct {
		header http.Header
		body   []byte
	}
	var got []delivery
	arrived := make(chan struct{}, 8)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, delivery{r.Header.Clone(), b})
		mu.Unlock()
		w.WriteHeader(http.StatusGone) // the Zap was turned off
		arrived <- struct{}{}
	}))
	defer receiver.Close()

	m := NewMain(loopbackConfig(t), io.Discard)
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	base := "http://" + m.Addr()
	dora := newSubscriber(t, base)
	if code, _, _ := dora.post("/onboarding", url.Values{"name": {"Zapped"}, "email": {"dora@zapped.example"}, "password": {"a long enough password"}, "plan": {"Standard"}}); code != http.StatusSeeOther {
		t.Fatalf("sign-up = %d", code)
	}
	code, _, page := dora.post("/zapped/settings/tokens", url.Values{"name": {"Zapier"}, "role": {"admin"}, "expires": {"0"}})
	tok := regexp.MustCompile(`id="new-token" value="([^"]+)"`).FindStringSubmatch(page)
	if code != http.StatusOK || tok == nil {
		t.Fatalf("make a token = %d", code)
	}
	token := html.UnescapeString(tok[1])
	form := url.Values{"title": {"Tea survey"}, "n": {"1"}, "action": {"save"}, "q.0.text": {"Which tea?"}, "q.0.type": {"SimpleText"}}
	if code, _, _ := dora.post("/zapped/surveys/new", form); code != http.StatusSeeOther {
		t.Fatalf("create = %d", code)
	}
	form.Set("action", "publish")
	if code, _, _ := dora.post("/zapped/surveys/tea-survey/edit", form); code != http.StatusSeeOther {
		t.Fatalf("publish = %d", code)
	}

	api := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&v)
		return resp.StatusCode, v
	}
	code, sub := api("POST", "/api/v1/hooks", `{"target_url":"`+receiver.URL+`/zap","event":"response.created"}`)
	secret, _ := sub["secret"].(string)
	if code != http.StatusCreated || sub["id"] == nil || secret == "" {
		t.Fatalf("subscribe = %d %v", code, sub)
	}

	answer := func(text string) {
		t.Helper()
		r := newSubscriber(t, base)
		code, page := r.get("/survey/zapped/tea-survey")
		ftok, q := formTokenRE.FindStringSubmatch(page), questionRE.FindStringSubmatch(page)
		if code != 200 || ftok == nil || q == nil {
			t.Fatalf("survey page = %d", code)
		}
		if code, _, _ := r.post("/survey/zapped/tea-survey", url.Values{"token": {ftok[1]}, "q-" + q[1]: {text}}); code != http.StatusSeeOther {
			t.Fatalf("answer = %d", code)
		}
	}
	answer("Earl Grey")
	select {
	case <-arrived:
	case <-time.After(2 * time.Minute):
		t.Fatal("the answer never reached the subscription")
	}
	mu.Lock()
	first := got[0]
	mu.Unlock()
	if err := webhook.Verify(secret, first.header, first.body, time.Now()); err != nil || !strings.Contains(string(first.body), `"type":"response.created"`) || !strings.Contains(string(first.body), "Earl Grey") {
		t.Fatalf("the delivery: %v, %s", err, first.body)
	}
	// The 410 unsubscribes it (the worker deletes it once the answer came).
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, v := api("GET", "/api/v1/hooks", "")
		if hooks, _ := v["hooks"].([]any); len(hooks) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still subscribed after its 410: %v", v)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, _ := api("DELETE", "/api/v1/hooks/"+sub["id"].(string), ""); code != http.StatusNotFound {
		t.Errorf("unsubscribe after the 410 = %d, want 404", code)
	}
	// The next answer goes nowhere: once the answers worker has taken it
	// (it queues an answer's events before counting it), nothing was
	// queued for the subscription, which is gone.
	answer("Assam")
	deadline = time.Now().Add(time.Minute)
	for {
		_, v := api("GET", "/api/v1/surveys/tea-survey/answers", "")
		if total, _ := v["total"].(float64); total == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second answer was never counted")
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case <-arrived:
		t.Fatal("an unsubscribed hook received the next answer")
	default:
	}
}
