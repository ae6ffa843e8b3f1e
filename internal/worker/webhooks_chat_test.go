package worker_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/outbound"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/webhook"
	"github.com/surveys-dev/surveys/internal/worker"
)

// tlsReceiver is a real https server on loopback that keeps what each
// path received and answers a path's status (200 unless set).
type tlsReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    map[string][]received
	status map[string]int
}

func newTLSReceiver(t *testing.T) *tlsReceiver {
	r := &tlsReceiver{got: map[string][]received{}, status: map[string]int{}}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got[req.URL.Path] = append(r.got[req.URL.Path], received{header: req.Header.Clone(), body: body, at: time.Now()})
		status := r.status[req.URL.Path]
		r.mu.Unlock()
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *tlsReceiver) requests(path string) []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got[path]...)
}

// client is the guarded outbound client that trusts the receiver's
// certificate, with 127.0.0.1 allowed (as an operator's range).
func (r *tlsReceiver) client() *http.Client {
	roots := x509.NewCertPool()
	roots.AddCert(r.srv.Certificate())
	return outbound.New(outbound.Config{Timeout: webhookConfig.Timeout, MaxRedirects: -1, RootCAs: roots,
		Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}).HTTP()
}

// TestChatAndHookDeliveries: an answer reaches a Slack endpoint as a
// Slack message, a Teams endpoint as an Adaptive Card (both unsigned,
// through the guarded client, to a real https receiver), and a REST-hook
// subscription as the signed JSON a standard endpoint gets; the
// subscription's receiver answers 410 Gone, and the subscription is gone:
// the next answer queues nothing for it.
func TestChatAndHookDeliveries(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := worker.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	hooks := webhookStore(st)
	hooks.PublicURL = "https://surveys.example/"
	tenant := newTenant()
	sv := typedSurvey(t, st, tenant)
	rcv := newTLSReceiver(t)
	rcv.status["/zap"] = http.StatusGone
	add := func(path, kind string, hook bool) *store.WebhookEndpoint {
		e, err := hooks.Add(ctx, tenant, store.NewWebhook{URL: rcv.srv.URL + path, Kind: kind, Hook: hook, Events: []string{webhook.ResponseCreated}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	add("/slack", webhook.KindSlack, false)
	add("/teams", webhook.KindTeams, false)
	zap := add("/zap", "", true)

	answers := worker.New(st, worker.DefaultConfig, quiet, nil)
	answers.Webhooks = hooks
	sent := queueAnswers(t, st, sv, 1)
	drain(t, st, answers)
	dw := worker.NewWebhooks(st, hooks, rcv.client(), webhookConfig, quiet)
	deliverAll := func() {
		t.Helper()
		for {
			n, err := dw.RunOnce(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return
			}
		}
	}
	deliverAll()
	link := "https://surveys.example/" + tenant + "/surveys/" + sv.Slug + "/answers/" + sent[0].ID

	// Slack: {"text", "blocks"}, a header, the answers as mrkdwn, the link.
	got := rcv.requests("/slack")
	if len(got) != 1 {
		t.Fatalf("Slack got %d requests", len(got))
	}
	var slack struct {
		Text   string `json:"text"`
		Blocks []struct {
			Type string `json:"type"`
			Text struct{ Type, Text string }
		} `json:"blocks"`
	}
	if err := json.Unmarshal(got[0].body, &slack); err != nil || len(slack.Blocks) < 3 || slack.Blocks[0].Type != "header" || slack.Blocks[0].Text.Text != "New answer: CSAT" {
		t.Fatalf("Slack body %s (%v)", got[0].body, err)
	}
	var sections []string
	for _, b := range slack.Blocks {
		if b.Type == "section" {
			sections = append(sections, b.Text.Text)
		}
	}
	all := strings.Join(sections, "\n")
	for _, want := range []string{"*Rate us*\n4", "*Pick one*\nGreen", "*Why?*\nbecause 0", "<" + link + "|Open the answer>"} {
		if !strings.Contains(all, want) {
			t.Errorf("Slack sections lack %q:\n%s", want, all)
		}
	}
	if got[0].header.Get(webhook.HeaderSignature) != "" || !strings.HasPrefix(got[0].header.Get("Content-Type"), "application/json") {
		t.Errorf("Slack headers %v", got[0].header)
	}

	// Teams: the Adaptive Card envelope, an OpenUrl action to the answer.
	got = rcv.requests("/teams")
	if len(got) != 1 {
		t.Fatalf("Teams got %d requests", len(got))
	}
	var card struct {
		Type        string `json:"type"`
		Attachments []struct {
			ContentType string `json:"contentType"`
			Content     struct {
				Type, Version string
				Body          []json.RawMessage
				Actions       []struct{ Type, URL string }
			} `json:"content"`
		} `json:"attachments"`
	}
	if err := json.Unmarshal(got[0].body, &card); err != nil || card.Type != "message" || len(card.Attachments) != 1 ||
		card.Attachments[0].ContentType != "application/vnd.microsoft.card.adaptive" || card.Attachments[0].Content.Type != "AdaptiveCard" ||
		card.Attachments[0].Content.Version != "1.4" || len(card.Attachments[0].Content.Actions) != 1 || card.Attachments[0].Content.Actions[0].URL != link {
		t.Fatalf("Teams body %s (%v)", got[0].body, err)
	}
	for _, want := range []string{`"text":"Rate us"`, `"text":"Green"`, `"text":"because 0"`} {
		if !strings.Contains(string(got[0].body), want) {
			t.Errorf("Teams card lacks %s", want)
		}
	}
	if got[0].header.Get(webhook.HeaderSignature) != "" {
		t.Errorf("Teams request signed: %v", got[0].header)
	}

	// The REST hook: signed JSON, answered 410, unsubscribed.
	got = rcv.requests("/zap")
	if len(got) != 1 {
		t.Fatalf("the hook got %d requests", len(got))
	}
	if err := webhook.Verify(zap.Secret, got[0].header, got[0].body, time.Now()); err != nil || !strings.Contains(string(got[0].body), `"type":"response.created"`) {
		t.Errorf("the hook's request: %v, %s", err, got[0].body)
	}
	eps, err := hooks.List(ctx, tenant)
	if err != nil || len(eps) != 2 {
		t.Fatalf("after the 410: %d endpoints, %v; want the 2 chat ones", len(eps), err)
	}
	for _, e := range eps {
		if e.ID == zap.ID {
			t.Fatal("the hook answered 410 and is still subscribed")
		}
	}
	queueAnswers(t, st, sv, 1)
	drain(t, st, answers)
	deliverAll()
	if n := len(rcv.requests("/zap")); n != 1 {
		t.Errorf("the unsubscribed hook got %d requests in all, want 1", n)
	}
	if n := len(rcv.requests("/slack")); n != 2 {
		t.Errorf("Slack got %d requests in all, want 2", n)
	}
	if msgs, _ := st.PeekMessages(ctx, store.WebhooksPoisonQueue, 8); len(msgs) != 0 {
		t.Errorf("%d poisoned messages", len(msgs))
	}
}
