package worker_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
	"github.com/surveys-dev/surveys/internal/webhook"
	"github.com/surveys-dev/surveys/internal/worker"
)

// typedSurvey creates a published survey of three kinds for tenant.
func typedSurvey(t *testing.T, st storage.Storage, tenant string) *survey.Survey {
	t.Helper()
	s := &survey.Survey{Tenant: tenant, Title: "CSAT", State: survey.Published, Questions: []survey.Question{
		{Text: "Rate us", Type: survey.FiveStars},
		{Text: "Pick one", Type: survey.MultipleChoice, PossibleAnswers: []string{"Red", "Green"}},
		{Text: "Why?", Type: survey.SimpleText},
	}}
	if err := store.NewSurveyStore(st).Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s
}

// queueAnswers queues n answers of s in one call (so in as few messages,
// the same each time).
func queueAnswers(t *testing.T, st storage.Storage, s *survey.Survey, n int) []survey.SurveyAnswer {
	t.Helper()
	var answers []survey.SurveyAnswer
	for i := range n {
		a, err := survey.NewAnswer(s, surveytest.Forms(map[string]string{s.Questions[0].ID: "4", s.Questions[1].ID: "Green", s.Questions[2].ID: fmt.Sprint("because ", i)}))
		if err != nil {
			t.Fatal(err)
		}
		a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
		answers = append(answers, a)
	}
	if err := store.NewSurveyAnswerStore(st).EnqueueFor(context.Background(), survey.Standard, answers); err != nil {
		t.Fatal(err)
	}
	return answers
}

func webhookStore(st storage.Storage) *store.WebhookStore {
	box, _ := secret.New(make([]byte, secret.KeySize))
	return store.NewWebhookStore(st).WithSecrets(box)
}

// TestWebhooksCostNothingWithoutEndpoints: answers of a tenant without an
// endpoint cost the answers worker exactly the storage calls they cost
// without webhooks at all (its endpoints, none, are cached: one query per
// 30 s); a tenant with one gets one queued event per answer, with typed
// values, and delivering each costs its queue operations and one write of
// the endpoint's last deliveries.
func TestWebhooksCostNothingWithoutEndpoints(t *testing.T) {
	ctx := context.Background()
	st := counting.New(backends.Local(t))
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := worker.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	hooks := webhookStore(st)
	quietTenant, loud := newTenant(), newTenant()+"l"
	qs, ls := typedSurvey(t, st, quietTenant), typedSurvey(t, st, loud)
	withHooks := worker.New(st, worker.DefaultConfig, quiet, nil)
	withHooks.Webhooks = hooks

	// Warm (the survey's summary and list exist and are cached; the
	// tenant's endpoints, none, are cached).
	queueAnswers(t, st, qs, 32)
	drain(t, st, withHooks)

	cost := func(h *store.WebhookStore) int64 {
		withHooks.Webhooks = h
		defer func() { withHooks.Webhooks = hooks }()
		before := st.Total("")
		queueAnswers(t, st, qs, 32)
		drain(t, st, withHooks)
		return st.Total("") - before
	}
	without, with := cost(nil), cost(hooks)
	t.Logf("32 answers of a tenant without endpoints: %d storage calls without webhooks, %d with", without, with)
	if with != without {
		t.Fatalf("32 answers cost %d storage calls with webhooks on, %d without", with, without)
	}
	if n, _ := st.ApproximateCount(ctx, store.WebhooksQueue); n != 0 {
		t.Fatalf("%d events queued for a tenant without endpoints", n)
	}

	// A tenant with an endpoint: an event per answer, typed values.
	r := newReceiver(t)
	e, err := hooks.Add(ctx, loud, store.NewWebhook{URL: r.url(), Events: []string{webhook.ResponseCreated}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sent := queueAnswers(t, st, ls, 10)
	drain(t, st, withHooks)
	if n, _ := st.ApproximateCount(ctx, store.WebhooksQueue); n != 10 {
		t.Fatalf("%d events queued for 10 answers", n)
	}
	f := newWebhookFixture(t, true, webhookConfig)
	dw := worker.NewWebhooks(st, hooks, f.w2client(), webhookConfig, quiet)
	before := st.Total("")
	for {
		n, err := dw.RunOnce(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	calls := st.Total("") - before
	t.Logf("10 deliveries: %d storage calls (%v)", calls, st.Snapshot())
	// 10 × (delete + the endpoint's record) + the dequeues (one of 8, one
	// of 2, one that finds the queue empty).
	if calls > 10*2+3 {
		t.Fatalf("10 deliveries cost %d storage calls", calls)
	}
	got := r.requests()
	if len(got) != 10 {
		t.Fatalf("the receiver got %d", len(got))
	}
	ids := map[string]bool{}
	for _, g := range got {
		if err := webhook.Verify(e.Secret, g.header, g.body, time.Now()); err != nil {
			t.Fatal(err)
		}
		var ev struct {
			Type string
			Data survey.ExportedAnswer
		}
		if err := json.Unmarshal(g.body, &ev); err != nil {
			t.Fatal(err)
		}
		ids[ev.Data.ID] = true
		a := ev.Data.Answers
		if ev.Type != webhook.ResponseCreated || ev.Data.Slug != ls.Slug || len(a) != 3 || a[0].Value != float64(4) || a[1].Value != "Green" || a[0].QuestionText != "Rate us" {
			t.Fatalf("event %s", g.body)
		}
		if g.header.Get("webhook-id") != webhook.MessageID(e.ID, webhook.ResponseCreated, ev.Data.ID) {
			t.Fatalf("webhook-id %q", g.header.Get("webhook-id"))
		}
	}
	for _, a := range sent {
		if !ids[a.ID] {
			t.Fatalf("answer %s sent no event", a.ID)
		}
	}
}

// failSummaryOnce fails the first summary write: the worker dies after
// queueing a batch's webhooks and before its commit point.
type failSummaryOnce struct {
	storage.Storage
	failed atomic.Bool
}

func (f *failSummaryOnce) PutBlob(ctx context.Context, c, name string, data []byte, o storage.PutOptions) (string, error) {
	if c == store.SummariesContainer && f.failed.CompareAndSwap(false, true) {
		return "", errors.New("crash before the summary write")
	}
	return f.Storage.PutBlob(ctx, c, name, data, o)
}

// TestWebhooksAtLeastOnce: a batch that fails after its events are queued
// and before its summary is written is merged again, and its events are
// queued again with the same webhook-ids: a receiver de-duplicates them.
func TestWebhooksAtLeastOnce(t *testing.T) {
	ctx := context.Background()
	base := backends.Local(t)
	if err := store.Init(ctx, base); err != nil {
		t.Fatal(err)
	}
	if err := worker.Init(ctx, base); err != nil {
		t.Fatal(err)
	}
	st := &failSummaryOnce{Storage: base}
	hooks := webhookStore(st)
	tenant := newTenant()
	s := typedSurvey(t, st, tenant)
	e, err := hooks.Add(ctx, tenant, store.NewWebhook{URL: "https://hooks.example/", Events: []string{webhook.ResponseCreated}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := worker.New(st, testConfig, quiet, nil)
	w.Webhooks = hooks
	sent := queueAnswers(t, st, s, 3)
	drain(t, st, w)
	if !st.failed.Load() {
		t.Fatal("the summary write never failed")
	}
	msgs, err := st.PeekMessages(ctx, store.WebhooksQueue, 32)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]int{}
	for _, m := range msgs {
		var wm store.WebhookMessage
		_ = json.Unmarshal(m.Data, &wm)
		byID[wm.ID]++
	}
	if len(msgs) != 6 || len(byID) != 3 {
		t.Fatalf("%d events with %d ids, want each of 3 answers' events twice", len(msgs), len(byID))
	}
	for _, a := range sent {
		if byID[webhook.MessageID(e.ID, webhook.ResponseCreated, a.ID)] != 2 {
			t.Fatalf("answer %s: %v", a.ID, byID)
		}
	}
	sum, _, _ := store.NewSurveyAnswersSummaryStore(st).Get(ctx, tenant, s.Slug)
	if sum.TotalAnswers != 3 {
		t.Fatalf("counted %d", sum.TotalAnswers)
	}
}

// BenchmarkWebhookDelivery queues events for an endpoint (a receiver on
// loopback answering 204) and delivers them, over the embedded store
// wrapped in the counting layer: storage operations per delivery (its
// message's dequeue share and delete, and the write of the endpoint's
// last deliveries).
func BenchmarkWebhookDelivery(b *testing.B) {
	ctx := context.Background()
	st := counting.New(backends.Local(b))
	if err := store.Init(ctx, st); err != nil {
		b.Fatal(err)
	}
	hooks := webhookStore(st)
	r := newReceiver(b)
	r.status.Store(204)
	_, err := hooks.Add(ctx, "bench", store.NewWebhook{URL: r.url(), Events: []string{webhook.SurveyClosed}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	client := outboundClient()
	w := worker.NewWebhooks(st, hooks, client, webhookConfig, quiet)
	body := func() ([]byte, error) { return []byte(`{"type":"survey.closed"}`), nil }
	delivered, ops := 0, int64(0)
	for i := 0; b.Loop(); i++ {
		for j := range 16 {
			if _, err := hooks.Emit(ctx, "bench", webhook.SurveyClosed, "s", fmt.Sprint(i, "/", j), body); err != nil {
				b.Fatal(err)
			}
		}
		before := st.Total("")
		for {
			n, err := w.RunOnce(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if n == 0 {
				break
			}
			delivered += n
		}
		ops += st.Total("") - before
	}
	b.ReportMetric(float64(ops)/float64(delivered), "ops/delivery")

}
