package worker_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
	"github.com/surveys-dev/surveys/internal/worker"
)

// BenchmarkAnswerCost sends answers through the notifier (as the answer
// POST does, `together` at once) and drains them with a worker, over the
// embedded store wrapped in the counting layer, and reports every storage
// operation of the answer path (enqueues, spills, dequeues, answer blobs,
// summary, list, ranks, deletes) per answer. "demo" is the seeded
// four-question survey; "long" is 13 text questions of 4,000 characters
// each, an answer larger than one queue message. "demo-webhooks-on" is
// "demo" with webhooks on and no endpoint for the tenant: the same figure.
// "demo-notify-on" is "demo" with e-mail notifications on and no
// subscriber: the same figure again; "demo-notify-1" has one member who
// asked for an e-mail per answer (capped at 20 an hour: the rest are
// counted on the subscription, one write a batch).
func BenchmarkAnswerCost(b *testing.B) {
	for _, c := range []struct {
		name        string
		texts       int
		length      int
		together    int
		hooks       bool
		subscribers int // -1: notifications off
	}{{"demo", 1, 40, 32, false, -1}, {"demo-webhooks-on", 1, 40, 32, true, -1}, {"demo-notify-on", 1, 40, 32, false, 0}, {"demo-notify-1", 1, 40, 32, false, 1},
		{"long", 13, survey.MaxTextAnswerLength, 8, false, -1}} {
		b.Run(c.name, func(b *testing.B) { benchAnswers(b, c.texts, c.length, c.together, c.hooks, c.subscribers) })
	}
}

func benchAnswers(b *testing.B, texts, length, together int, hooks bool, subscribers int) {
	ctx := context.Background()
	st := counting.New(backends.Local(b))
	if err := store.Init(ctx, st); err != nil {
		b.Fatal(err)
	}
	if err := worker.Init(ctx, st); err != nil {
		b.Fatal(err)
	}
	s := &survey.Survey{Tenant: "bench", Title: "Bench", State: survey.Published, Questions: []survey.Question{
		{Text: "Rate", Type: survey.FiveStars},
		{Text: "Pick", Type: survey.MultipleChoice, PossibleAnswers: []string{"Red", "Green", "Blue"}},
	}}
	for i := range texts {
		s.Questions = append(s.Questions, survey.Question{Text: fmt.Sprintf("Say %d", i), Type: survey.SimpleText})
	}
	if err := store.NewSurveyStore(st).Create(ctx, s); err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("good fast ", length/10)
	values := map[string]string{s.Questions[0].ID: "4", s.Questions[1].ID: "Green"}
	for _, q := range s.Questions[2:] {
		values[q.ID] = text
	}
	n := store.NewNotifier(store.NewSurveyAnswerStore(st), 4)
	w := worker.New(st, worker.DefaultConfig, quiet, nil)
	if hooks {
		w.Webhooks = webhookStore(st)
	}
	if subscribers >= 0 {
		subs := store.NewNotificationStore(st)
		tpl, err := mail.LoadTemplates()
		if err != nil {
			b.Fatal(err)
		}
		w.Notify = worker.NewNotify(st, subs, mail.NewOutbox(st, &mail.Config{}), tpl, notifyKey, "https://surveys.example", worker.DefaultNotifyConfig, quiet)
		for i := range subscribers {
			if err := subs.Subscribe(ctx, s.Tenant, s.Slug, fmt.Sprintf("m%d@example.com", i), survey.NotifyChoices{EachAnswer: true}, 0, time.Now()); err != nil {
				b.Fatal(err)
			}
		}
	}
	drainAll := func() { runUntilEmpty(b, w) }
	post := func() {
		var wg sync.WaitGroup
		errs := make(chan error, together)
		for range together {
			wg.Go(func() {
				a, err := survey.NewAnswer(s, surveytest.Forms(values))
				if err == nil {
					a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
					err = n.Notify(ctx, a, survey.Standard)
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	// The survey's summary, list and ranks exist, as on a running server.
	post()
	drainAll()
	before := st.Total("")
	answers := 0
	for b.Loop() {
		post()
		drainAll()
		answers += together
	}
	b.StopTimer()
	b.ReportMetric(float64(st.Total("")-before)/float64(answers), "ops/answer")
	sum, _, err := store.NewSurveyAnswersSummaryStore(st).Get(ctx, s.Tenant, s.Slug)
	if err != nil {
		b.Fatal(err)
	}
	if sum.TotalAnswers != int64(answers+together) {
		b.Fatalf("summary counts %d answers, %d posted", sum.TotalAnswers, answers+together)
	}
}

// BenchmarkMergeCapacity is how many answers a second one worker merges
// when each answer came in its own queue message (as at a steady rate,
// when the web side's enqueues keep up and no answers share a message):
// 320 such messages queued, then drained by RunOnce, over the embedded
// store. Its texts carry numbers, as the load run's do, so the text
// question's summary is soon at its bound of distinct words. The load
// run's open-loop step measures the same end to end.
func BenchmarkMergeCapacity(b *testing.B) {
	ctx := context.Background()
	st := counting.New(backends.Local(b))
	if err := store.Init(ctx, st); err != nil {
		b.Fatal(err)
	}
	if err := worker.Init(ctx, st); err != nil {
		b.Fatal(err)
	}
	s := &survey.Survey{Tenant: "bench", Title: "Bench", State: survey.Published, Questions: []survey.Question{
		{Text: "Rate", Type: survey.FiveStars},
		{Text: "Pick", Type: survey.MultipleChoice, PossibleAnswers: []string{"Red", "Green", "Blue"}},
		{Text: "Say", Type: survey.SimpleText},
	}}
	if err := store.NewSurveyStore(st).Create(ctx, s); err != nil {
		b.Fatal(err)
	}
	values := map[string]string{s.Questions[0].ID: "4", s.Questions[1].ID: "Green"}
	n := store.NewNotifier(store.NewSurveyAnswerStore(st), 1)
	w := worker.New(st, worker.DefaultConfig, quiet, nil)
	const messages = 320
	sent := 0
	queue := func() {
		for range messages {
			// Texts as the load run types them: a phrase and a number, so
			// that the question soon holds more distinct words than a
			// summary keeps (survey.MaxSummaryWords).
			sent++
			values[s.Questions[2].ID] = fmt.Sprintf("good fast service #%d", sent*7919%100000)
			a, err := survey.NewAnswer(s, surveytest.Forms(values))
			if err != nil {
				b.Fatal(err)
			}
			a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
			if err := n.Notify(ctx, a, survey.Standard); err != nil {
				b.Fatal(err)
			}
		}
	}
	drain := func() { runUntilEmpty(b, w) }
	queue()
	drain() // the summary, list and ranks exist, as on a running server
	var merging time.Duration
	answers := 0
	for b.Loop() {
		b.StopTimer()
		queue()
		b.StartTimer()
		start := time.Now()
		drain()
		merging += time.Since(start)
		answers += messages
	}
	b.ReportMetric(float64(answers)/merging.Seconds(), "answers/s")
}

// runUntilEmpty runs w's batches until one finds the queues empty.
func runUntilEmpty(b *testing.B, w *worker.Worker) {
	b.Helper()
	for {
		got, err := w.RunOnce(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if got == 0 {
			return
		}
	}
}
