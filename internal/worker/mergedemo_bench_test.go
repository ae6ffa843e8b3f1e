package worker_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
	"github.com/surveys-dev/surveys/internal/worker"
)

// BenchmarkMergeDemo is the answers worker's share of the write path: 64
// messages of 7 complete answers to the demo survey (Adatum's, one
// question of every kind, as the web side queues them under load) are
// queued, then drained by RunOnce over the embedded store: decoded,
// resolved, filed, merged, listed and segmented. It reports the process's
// CPU time (user and system: the embedded store's writer included) and
// the allocations per answer merged.
//
//	go test ./internal/worker -run '^$' -bench BenchmarkMergeDemo -benchtime 20x
func BenchmarkMergeDemo(b *testing.B) {
	ctx := context.Background()
	st := backends.Local(b)
	for _, f := range []func(context.Context) error{
		func(ctx context.Context) error { return store.Init(ctx, st) },
		func(ctx context.Context) error { return worker.Init(ctx, st) },
		func(ctx context.Context) error { _, err := store.Seed(ctx, st); return err },
	} {
		if err := f(ctx); err != nil {
			b.Fatal(err)
		}
	}
	s, err := store.NewSurveyStore(st).Get(ctx, "adatum", "adatum-customer-satisfaction")
	if err != nil {
		b.Fatal(err)
	}
	// A complete answer: each question answered with what its kind's
	// example sends (surveytest), where the demo's question takes it.
	r := rand.New(rand.NewPCG(1, 2))
	answer := func() survey.SurveyAnswer {
		for range 100 {
			forms := map[string]survey.Form{}
			for _, q := range s.Questions {
				if f := demoForm(r, q); f != nil {
					forms[q.ID] = f
				} else if _, form, ok := surveytest.Lookup(q.Type); ok {
					forms[q.ID] = form(r)
				}
			}
			a, err := survey.NewAnswer(s, forms)
			if err != nil {
				// Leave out what the demo's question does not take.
				var e *survey.Error
				if !errors.As(err, &e) {
					b.Fatal(err)
				}
				for id := range e.Fields {
					delete(forms, id)
				}
				if a, err = survey.NewAnswer(s, forms); err != nil {
					continue
				}
			}
			a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
			return a
		}
		b.Fatal("no answer the demo survey takes")
		return survey.SurveyAnswer{}
	}
	// The answers are made once (checking them is the web side's cost),
	// and queued again and again with new IDs.
	var pool []survey.SurveyAnswer
	for range 64 {
		pool = append(pool, answer())
	}
	answers := store.NewSurveyAnswerStore(st)
	const messages, perMessage = 64, 7
	queue := func() {
		for range messages {
			batch := make([]survey.SurveyAnswer, perMessage)
			for i := range batch {
				batch[i] = pool[r.IntN(len(pool))]
				batch[i].ID, batch[i].CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
			}
			if err := answers.EnqueueFor(ctx, survey.Standard, batch); err != nil {
				b.Fatal(err)
			}
		}
	}
	if a := answer(); len(a.Answers) < len(s.Questions)-2 {
		b.Fatalf("an answer to %d questions of %d", len(a.Answers), len(s.Questions))
	}
	w := worker.New(st, worker.DefaultConfig, quiet, nil)
	queue()
	runUntilEmpty(b, w) // the summary, list and segments exist, as on a running server
	var (
		cpu    time.Duration
		ms     runtime.MemStats
		allocs uint64
		bytes  uint64
		merged int
	)
	for b.Loop() {
		b.StopTimer()
		queue()
		runtime.GC() // the queueing's garbage is not the worker's
		b.StartTimer()
		runtime.ReadMemStats(&ms)
		a0, by0, c0 := ms.Mallocs, ms.TotalAlloc, processCPU()
		runUntilEmpty(b, w)
		cpu += processCPU() - c0
		runtime.ReadMemStats(&ms)
		allocs += ms.Mallocs - a0
		bytes += ms.TotalAlloc - by0
		merged += messages * perMessage
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(merged), "cpu-µs/answer")
	b.ReportMetric(float64(allocs)/float64(merged), "allocs/answer")
	b.ReportMetric(float64(bytes)/float64(merged), "B/answer")
}

// demoForm is what a respondent sends to a question of the demo survey
// whose kind's example (surveytest) offers other choices; nil for the
// others.
func demoForm(r *rand.Rand, q survey.Question) survey.Form {
	pick := func(from []string) string { return from[r.IntN(len(from))] }
	switch q.Type {
	case survey.Checkboxes:
		f := survey.Form{}
		for _, i := range r.Perm(len(q.PossibleAnswers))[:1+r.IntN(3)] {
			f[""] = append(f[""], q.PossibleAnswers[i])
		}
		return f
	case survey.Matrix:
		f := survey.Form{}
		for i := range q.Rows {
			f[strconv.Itoa(i)] = []string{pick(q.PossibleAnswers)}
		}
		return f
	case survey.Ranking:
		f := survey.Form{}
		for i, p := range r.Perm(len(q.PossibleAnswers)) {
			f[strconv.Itoa(i)] = []string{strconv.Itoa(p + 1)}
		}
		return f
	case survey.Dropdown:
		return survey.Value(pick(q.PossibleAnswers))
	case survey.Number:
		return survey.Value(strconv.Itoa(1 + r.IntN(500)))
	case survey.PictureChoice:
		return survey.Value(q.Pictures[r.IntN(len(q.Pictures))].Label)
	}
	return nil
}

// processCPU is the process's CPU time, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
