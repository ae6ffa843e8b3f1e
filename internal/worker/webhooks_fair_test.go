package worker_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/webhook"
	"github.com/surveys-dev/surveys/internal/worker"
)

// tarpit is a receiver that holds every request until released (or until
// the worker gives up on it): the slowest endpoint a tenant can name.
type tarpit struct {
	srv     *httptest.Server
	release chan struct{}
	arrived chan struct{} // one per request, as it arrives
	mu      sync.Mutex
	now     int // requests held now
	most    int // the most held at once
}

func newTarpit(t *testing.T) *tarpit {
	tp := &tarpit{release: make(chan struct{}), arrived: make(chan struct{}, 1000)}
	tp.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tp.mu.Lock()
		tp.now++
		tp.most = max(tp.most, tp.now)
		tp.mu.Unlock()
		tp.arrived <- struct{}{}
		select {
		case <-tp.release:
		case <-r.Context().Done():
		}
		tp.mu.Lock()
		tp.now--
		tp.mu.Unlock()
	}))
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(tp.release) }); tp.srv.Close() })
	return tp
}

func (tp *tarpit) held() (now, most int) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return tp.now, tp.most
}

// TestWebhooksTarpitTenantHoldsNoOneBack: tenant A's endpoint is a
// tarpit and A queues 80 test events; tenant B's event, queued after them,
// arrives within 2 s, while A holds no more than its share of the slots
// (today's default, 16 slots held up to 10 s each: B waited 10 s and more).
func TestWebhooksTarpitTenantHoldsNoOneBack(t *testing.T) {
	const share, bound = 4, 2 * time.Second
	cfg := webhookConfig
	cfg.Timeout, cfg.Parallel, cfg.Share, cfg.Defer = 10*time.Second, 16, share, 50*time.Millisecond
	f := newWebhookFixture(t, true, cfg)
	f.hooks.TestsPerMinute = 0 // the worker's fairness alone is under test
	tp := newTarpit(t)
	got := make(chan time.Time, 10)
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- time.Now()
	}))
	defer fast.Close()
	a := f.add(t, "tarpitco", tp.srv.URL+"/hooks", webhook.SurveyClosed)
	f.add(t, "adatum", fast.URL+"/hooks", webhook.SurveyClosed)
	for range 80 {
		if err := f.hooks.SendTest(context.Background(), "tarpitco", a.ID); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.w.Run(ctx) }()
	defer func() { cancel(); <-done }()
	// A's share of the slots is held by the tarpit.
	for range share {
		select {
		case <-tp.arrived:
		case <-time.After(time.Minute):
			t.Fatal("the tarpit got no request")
		}
	}
	queued := time.Now()
	f.emit(t, "adatum", webhook.SurveyClosed, "csat/closed")
	select {
	case at := <-got:
		waited := at.Sub(queued)
		t.Logf("B's event arrived %v after it was queued", waited)
		if waited > bound {
			t.Errorf("B's event arrived %v after it was queued, want under %v", waited, bound)
		}
	case <-time.After(time.Minute):
		t.Fatal("B's event never arrived")
	}
	if now, most := tp.held(); now == 0 || most > share {
		t.Errorf("the tarpit holds %d requests, at most %d at once; want 1..%d", now, most, share)
	}
}

// TestWebhooksPutBackKeepsAttempts: events put back because their tenant
// held its share are still tried exactly len(Schedule)+1 times each, with
// attempts numbered 1, 2, 3, 4, then poisoned: a put-back is no attempt.
func TestWebhooksPutBackKeepsAttempts(t *testing.T) {
	cfg := webhookConfig
	cfg.Parallel, cfg.Share, cfg.Defer = 4, 1, 5*time.Millisecond
	f := newWebhookFixture(t, true, cfg)
	r := newReceiver(t)
	r.status.Store(500)
	// Three endpoints (the poison of one event disables its endpoint
	// only), one event each.
	const events = 3
	for range events {
		f.add(t, "adatum", r.url(), webhook.SurveyClosed)
	}
	f.emit(t, "adatum", webhook.SurveyClosed, "csat/closed")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.w.Run(ctx) }()
	deadline := time.Now().Add(time.Minute)
	for len(f.queued(t, store.WebhooksPoisonQueue)) < events {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events poisoned", len(f.queued(t, store.WebhooksPoisonQueue)), events)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	want := events * (len(cfg.Schedule) + 1)
	if n := len(r.requests()); n != want {
		t.Fatalf("the receiver got %d requests, want %d", n, want)
	}
	eps, _ := f.hooks.List(context.Background(), "adatum")
	for _, ep := range eps {
		var attempts []int
		for _, d := range ep.Deliveries {
			attempts = append([]int{d.Attempt}, attempts...)
		}
		if len(attempts) != len(cfg.Schedule)+1 || attempts[0] != 1 || attempts[len(attempts)-1] != len(cfg.Schedule)+1 {
			t.Errorf("endpoint %s: attempts %v, want 1 to %d", ep.ID, attempts, len(cfg.Schedule)+1)
		}
	}
	for _, m := range f.queued(t, store.WebhooksPoisonQueue) {
		var pm worker.PoisonMessage
		_ = json.Unmarshal(m.Data, &pm)
		if want := "failed " + strconv.Itoa(len(cfg.Schedule)+1) + " attempts"; len(pm.Reason) < len(want) || pm.Reason[:len(want)] != want {
			t.Errorf("poison reason %q", pm.Reason)
		}
	}
}
