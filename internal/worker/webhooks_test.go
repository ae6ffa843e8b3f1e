package worker_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/outbound"
	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/webhook"
	"github.com/surveys-dev/surveys/internal/worker"
)

// webhookConfig is the default schedule compressed: 3 retries a few
// milliseconds apart, a timeout of 300 ms.
var webhookConfig = worker.WebhookConfig{Timeout: 300 * time.Millisecond, Visibility: 5 * time.Second,
	Schedule: []time.Duration{5 * time.Millisecond, 5 * time.Millisecond, 5 * time.Millisecond}, DisableAfter: time.Hour, Parallel: 8, Share: 4, MaxIdle: 20 * time.Millisecond}

// received is one request a receiver got.
type received struct {
	header http.Header
	body   []byte
	at     time.Time
}

// receiver is a real HTTP server on loopback whose answer a test sets:
// a status, or a stall beyond the worker's timeout; it can die (its port
// closed) and come back on the same port.
type receiver struct {
	t      testing.TB
	addr   string
	srv    *httptest.Server
	status atomic.Int64 // 0: stall
	stall  time.Duration
	mu     sync.Mutex
	got    []received
}

func newReceiver(t testing.TB) *receiver {
	r := &receiver{t: t, stall: time.Second}
	r.status.Store(200)
	r.start("127.0.0.1:0")
	t.Cleanup(func() { r.srv.Close() })
	return r
}

func (r *receiver) start(addr string) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{header: req.Header.Clone(), body: body, at: time.Now()})
		r.mu.Unlock()
		status := int(r.status.Load())
		if status == 0 {
			select {
			case <-time.After(r.stall):
			case <-req.Context().Done():
			}
			return
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "secret internals of the receiver")
	}))
	r.srv.Listener.Close()
	r.srv.Listener = l
	r.srv.Start()
	r.addr = l.Addr().String()
}

func (r *receiver) url() string { return "http://" + r.addr + "/hooks" }

// die closes the port; revive opens it again.
func (r *receiver) die()    { r.srv.Close() }
func (r *receiver) revive() { r.start(r.addr) }

func (r *receiver) requests() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

type webhookFixture struct {
	st     storage.Storage
	client *http.Client
	hooks  *store.WebhookStore
	w      *worker.Webhooks
	alert  *alerts
}

type alerts struct {
	mu  sync.Mutex
	got []*store.WebhookEndpoint
}

func (a *alerts) Disabled(_ context.Context, e *store.WebhookEndpoint) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.got = append(a.got, e)
}

func (a *alerts) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.got)
}

// newWebhookFixture: the operator allows 127.0.0.1 (allow is true) or
// nothing.
func newWebhookFixture(t *testing.T, allow bool, cfg worker.WebhookConfig) *webhookFixture {
	t.Helper()
	ctx := context.Background()
	st := backends.Local(t)
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	box, _ := secret.New(make([]byte, secret.KeySize))
	hooks := store.NewWebhookStore(st).WithSecrets(box)
	oc := outbound.Config{Timeout: cfg.Timeout, MaxRedirects: -1}
	if allow {
		oc.Allow = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	}
	f := &webhookFixture{st: st, hooks: hooks, alert: &alerts{}}
	f.client = outbound.New(oc).HTTP()
	f.w = worker.NewWebhooks(st, hooks, f.client, cfg, quiet)
	f.w.Alert = f.alert
	hooks.Queued = f.w.Wake
	return f
}

func (f *webhookFixture) w2client() *http.Client { return f.client }

// outboundClient is the guarded client with 127.0.0.1 allowed.
func outboundClient() *http.Client {
	return outbound.New(outbound.Config{Timeout: webhookConfig.Timeout, MaxRedirects: -1, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}).HTTP()
}

func (f *webhookFixture) add(t *testing.T, tenant, url string, events ...string) *store.WebhookEndpoint {
	t.Helper()
	e, err := f.hooks.Add(context.Background(), tenant, store.NewWebhook{URL: url, Events: events}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (f *webhookFixture) emit(t *testing.T, tenant, event, subject string) {
	t.Helper()
	body, _ := webhook.Body(webhook.Event{Type: event, Timestamp: time.Now(), Data: webhook.Survey{Slug: "csat", Title: "CSAT", State: "Closed", PublicURL: "https://surveys.example/survey/" + tenant + "/csat"}})
	if n, err := f.hooks.Emit(context.Background(), tenant, event, "csat", subject, func() ([]byte, error) { return body, nil }); err != nil || n == 0 {
		t.Fatalf("Emit = %d, %v", n, err)
	}
}

// attempt runs the worker until it takes a message (the schedule's waits
// are milliseconds).
func (f *webhookFixture) attempt(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		n, err := f.w.RunOnce(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatal("no message came back")
}

func (f *webhookFixture) queued(t *testing.T, queue string) []storage.Message {
	t.Helper()
	msgs, err := f.st.PeekMessages(context.Background(), queue, 32)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// TestWebhooksRetriesThenDelivers: a receiver that refuses (500), then
// stalls beyond the timeout, then is dead (its port closed), then
// recovers: the event is tried four times, always with the same
// webhook-id, each signature verifies with the spec's algorithm, every
// attempt is recorded, and the receiver's answer is never kept.
func TestWebhooksRetriesThenDelivers(t *testing.T) {
	f := newWebhookFixture(t, true, webhookConfig)
	r := newReceiver(t)
	e := f.add(t, "adatum", r.url(), webhook.SurveyClosed)
	f.emit(t, "adatum", webhook.SurveyClosed, "csat/closed")

	r.status.Store(500)
	f.attempt(t)
	r.status.Store(0) // stalls 1 s; the timeout is 300 ms
	f.attempt(t)
	r.die()
	f.attempt(t)
	r.revive()
	r.status.Store(204)
	f.attempt(t)

	got := r.requests()
	if len(got) != 3 { // the dead port got nothing
		t.Fatalf("the receiver got %d requests, want 3", len(got))
	}
	id := got[0].header.Get("webhook-id")
	for i, g := range got {
		if g.header.Get("webhook-id") != id || !strings.HasPrefix(id, "msg_") {
			t.Fatalf("request %d has webhook-id %q, the first %q", i, g.header.Get("webhook-id"), id)
		}
		if err := webhook.Verify(e.Secret, g.header, g.body, time.Now()); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if ct := g.header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("Content-Type %q", ct)
		}
	}
	if id != webhook.MessageID(e.ID, webhook.SurveyClosed, "csat/closed") {
		t.Fatalf("webhook-id %q is not the event's stable id", id)
	}
	var ev struct {
		Type string
		Data webhook.Survey
	}
	if err := json.Unmarshal(got[2].body, &ev); err != nil || ev.Type != webhook.SurveyClosed || ev.Data.Slug != "csat" || ev.Data.State != "Closed" {
		t.Fatalf("body %s: %v", got[2].body, err)
	}
	if n := len(f.queued(t, store.WebhooksQueue)); n != 0 {
		t.Fatalf("%d messages left", n)
	}
	ep, _ := f.hooks.Get(context.Background(), "adatum", e.ID)
	if len(ep.Deliveries) != 4 || ep.Failures != 0 || ep.Disabled {
		t.Fatalf("endpoint after: %d deliveries, %d failures, disabled %v", len(ep.Deliveries), ep.Failures, ep.Disabled)
	}
	wantProblems := []string{"", "the connection or TLS failed", "it did not answer in time", "it answered 500 Internal Server Error"}
	for i, d := range ep.Deliveries {
		if d.Attempt != 4-i || d.Error != wantProblems[i] || d.ID != id {
			t.Errorf("delivery %d: %+v, want attempt %d and %q", i, d, 4-i, wantProblems[i])
		}
		if strings.Contains(d.Error, "secret internals") {
			t.Fatal("the receiver's answer was kept")
		}
	}
	if ep.Deliveries[0].Status != 204 || ep.Deliveries[2].Duration < 250*time.Millisecond {
		t.Fatalf("deliveries %+v", ep.Deliveries)
	}
}

// TestWebhooksPoisonAndDisable: a receiver that always refuses gets the
// event len(Schedule)+1 times; then it goes to the poison queue with the
// reason, the endpoint is disabled and the admins told once; the next
// event of the disabled endpoint is poisoned without a request; enabled
// again, the endpoint receives the events that follow.
func TestWebhooksPoisonAndDisable(t *testing.T) {
	f := newWebhookFixture(t, true, webhookConfig)
	r := newReceiver(t)
	r.status.Store(503)
	e := f.add(t, "adatum", r.url(), webhook.SurveyClosed)
	f.emit(t, "adatum", webhook.SurveyClosed, "one")
	for range len(webhookConfig.Schedule) + 1 {
		f.attempt(t)
	}
	if n := len(r.requests()); n != 4 {
		t.Fatalf("%d requests, want 4", n)
	}
	poisoned := f.queued(t, store.WebhooksPoisonQueue)
	if len(poisoned) != 1 || len(f.queued(t, store.WebhooksQueue)) != 0 {
		t.Fatalf("poison %d, queue %d", len(poisoned), len(f.queued(t, store.WebhooksQueue)))
	}
	var pm worker.PoisonMessage
	_ = json.Unmarshal(poisoned[0].Data, &pm)
	if !strings.Contains(pm.Reason, "failed 4 attempts; last: it answered 503") {
		t.Fatalf("poison reason %q", pm.Reason)
	}
	ep, _ := f.hooks.Get(context.Background(), "adatum", e.ID)
	if !ep.Disabled || !strings.Contains(ep.DisabledReason, "failed 4 attempts") || f.alert.count() != 1 {
		t.Fatalf("endpoint %+v, %d alerts", ep, f.alert.count())
	}
	// The tenant's audit log says so, once, by the system.
	if list, _, err := store.NewAuditStore(f.st).List(context.Background(), "adatum", survey.AuditFilter{Action: survey.AuditWebhookDisabled}, "", 10); err != nil ||
		len(list) != 1 || list[0].Actor != survey.AuditSystem || list[0].Target != e.ID || !strings.Contains(list[0].Detail, "failed 4 attempts") {
		t.Fatalf("the audit log: %+v, %v", list, err)
	}
	// A disabled endpoint gets no new events (Emit skips it) ...
	if n, _ := f.hooks.Emit(context.Background(), "adatum", webhook.SurveyClosed, "csat", "two", func() ([]byte, error) { return []byte("{}"), nil }); n != 0 {
		t.Fatalf("emitted %d to a disabled endpoint", n)
	}
	// ... and one queued before is poisoned without a request.
	r.status.Store(200)
	ep.Disabled = false
	if err := f.hooks.Enable(context.Background(), "adatum", e.ID); err != nil {
		t.Fatal(err)
	}
	f.emit(t, "adatum", webhook.SurveyClosed, "three")
	if _, err := f.hooks.Disable(context.Background(), "adatum", e.ID, "by the test"); err != nil {
		t.Fatal(err)
	}
	f.attempt(t)
	if n := len(r.requests()); n != 4 || len(f.queued(t, store.WebhooksPoisonQueue)) != 2 {
		t.Fatalf("%d requests, %d poisoned", n, len(f.queued(t, store.WebhooksPoisonQueue)))
	}
	// Enabled again: delivered.
	if err := f.hooks.Enable(context.Background(), "adatum", e.ID); err != nil {
		t.Fatal(err)
	}
	f.emit(t, "adatum", webhook.SurveyClosed, "four")
	f.attempt(t)
	if n := len(r.requests()); n != 5 || f.alert.count() != 1 {
		t.Fatalf("%d requests, %d alerts", n, f.alert.count())
	}
}

// TestWebhooksDisableAfterFailingLong: an endpoint whose every delivery
// failed for DisableAfter is disabled before any one event is poisoned.
func TestWebhooksDisableAfterFailingLong(t *testing.T) {
	cfg := webhookConfig
	cfg.DisableAfter = 50 * time.Millisecond
	f := newWebhookFixture(t, true, cfg)
	r := newReceiver(t)
	r.status.Store(500)
	var later atomic.Int64 // how far the worker's clock is ahead of the wall's
	worker.SetWebhooksClock(f.w, func() time.Time { return time.Now().Add(time.Duration(later.Load())) })
	e := f.add(t, "adatum", r.url(), webhook.SurveyClosed)
	f.emit(t, "adatum", webhook.SurveyClosed, "one")
	f.attempt(t)
	later.Store(int64(time.Minute)) // the next try fails a minute after the first
	f.attempt(t)
	ep, _ := f.hooks.Get(context.Background(), "adatum", e.ID)
	if !ep.Disabled || !strings.Contains(ep.DisabledReason, "every delivery failed for") || f.alert.count() != 1 {
		t.Fatalf("endpoint %+v, %d alerts", ep, f.alert.count())
	}
}

// TestWebhooksGuard: without the operator's allowance, a private or
// loopback target is refused before any request, and plain http too; the
// refusal is recorded in plain words.
func TestWebhooksGuard(t *testing.T) {
	f := newWebhookFixture(t, false, webhookConfig)
	r := newReceiver(t)
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		t.Error("the guard let a request reach loopback")
	}))
	defer tls.Close()
	for _, tc := range []struct{ url, problem string }{
		{tls.URL + "/hooks", "this server does not connect to private or local addresses"},
		{"https://169.254.169.254/latest/meta-data", "this server does not connect to private or local addresses"},
		{r.url(), "this server calls such URLs over https only"},
	} {
		e := f.add(t, "adatum", tc.url, webhook.SurveyClosed)
		f.emit(t, "adatum", webhook.SurveyClosed, tc.url)
		f.attempt(t)
		ep, _ := f.hooks.Get(context.Background(), "adatum", e.ID)
		if len(ep.Deliveries) != 1 || ep.Deliveries[0].Error != tc.problem {
			t.Fatalf("%s: deliveries %+v", tc.url, ep.Deliveries)
		}
		_ = f.hooks.Delete(context.Background(), "adatum", e.ID)
	}
	if n := len(r.requests()); n != 0 {
		t.Fatalf("the plain-http receiver got %d requests", n)
	}
}

// TestWebhooksSlowReceiverHoldsNoOneBack: while one receiver stalls, the
// running worker delivers another tenant's events: the fast receiver gets
// its event while the slow one still holds all of its own, before any of
// them could time out and free a slot (the receivers note when each
// request arrived, so a busy machine slows the test, not its verdict).
func TestWebhooksSlowReceiverHoldsNoOneBack(t *testing.T) {
	cfg := webhookConfig
	cfg.Timeout = 10 * time.Second
	f := newWebhookFixture(t, true, cfg)
	slow, fast := newReceiver(t), newReceiver(t)
	slow.status.Store(0)
	slow.stall = time.Minute
	f.add(t, "slowco", slow.url(), webhook.SurveyClosed)
	f.add(t, "adatum", fast.url(), webhook.SurveyClosed)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	for i := range 3 {
		f.emit(t, "slowco", webhook.SurveyClosed, "s"+string(rune('0'+i)))
	}
	// The slow ones are under way: the receiver holds all three.
	waitFor(t, "the slow receiver to hold three requests", func() bool { return len(slow.requests()) == 3 })
	f.emit(t, "adatum", webhook.SurveyClosed, "f")
	waitFor(t, "the fast receiver's event", func() bool { return len(fast.requests()) == 1 })
	got, held := fast.requests()[0].at, slow.requests()
	if n := len(held); n != 3 {
		t.Fatalf("the slow receiver got %d requests, want 3", n)
	}
	if free := held[0].at.Add(cfg.Timeout); !got.Before(free) {
		t.Fatalf("the fast receiver got its event at %s, after the slow ones could time out (%s)", got.Format(time.StampMilli), free.Format(time.StampMilli))
	}
}

// TestWebhooksRotation: after a rotation each request carries two
// signatures, the new secret's and the old one's, so that a receiver
// verifies it with either while it changes its secret.
func TestWebhooksRotation(t *testing.T) {
	f := newWebhookFixture(t, true, webhookConfig)
	r := newReceiver(t)
	old := f.add(t, "adatum", r.url(), webhook.SurveyClosed)
	rotated, err := f.hooks.Rotate(context.Background(), "adatum", old.ID)
	if err != nil {
		t.Fatal(err)
	}
	f.emit(t, "adatum", webhook.SurveyClosed, "csat/closed")
	f.attempt(t)
	got := r.requests()
	if len(got) != 1 {
		t.Fatalf("the receiver got %d requests", len(got))
	}
	if sigs := strings.Fields(got[0].header.Get("webhook-signature")); len(sigs) != 2 {
		t.Fatalf("webhook-signature %q: want two", sigs)
	}
	for name, secret := range map[string]string{"new": rotated.Secret, "old": old.Secret} {
		if err := webhook.Verify(secret, got[0].header, got[0].body, time.Now()); err != nil {
			t.Errorf("with the %s secret: %v", name, err)
		}
	}
	if err := webhook.Verify(webhook.NewSecret(), got[0].header, got[0].body, time.Now()); err == nil {
		t.Error("another secret verifies it")
	}
}
