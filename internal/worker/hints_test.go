package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// TestPollSkipsEmptyQueues: a poll leaves out a queue a take found empty
// less than EmptyRecheck ago, unless this instance queued to it since
// (WakeFor); so an answer this instance took is merged at the next poll,
// and one another instance queued at the first poll after EmptyRecheck.
// RunOnce takes every queue, always.
func TestPollSkipsEmptyQueues(t *testing.T) {
	ctx := context.Background()
	st := counting.New(backends.Local(t))
	std, stdAnswers := planSurvey(t, st, newTenant(), 3)
	prem, premAnswers := planSurvey(t, st, newTenant()+"p", 2)
	as := store.NewSurveyAnswerStore(st)
	w := worker.New(st, worker.DefaultConfig, quiet, nil)
	clock := time.Now()
	worker.SetNow(w, func() time.Time { return clock })
	dequeues := func() int64 {
		for _, c := range st.Snapshot() {
			if c.Op.String() == "queue.dequeue" {
				return c.Calls
			}
		}
		t.Fatal("no queue.dequeue count")
		return 0
	}
	// poll polls once and returns the messages taken and the dequeues.
	poll := func(name string, f func(*worker.Worker, context.Context) (int, error)) (int, int64) {
		t.Helper()
		before := dequeues()
		n, err := f(w, ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return n, dequeues() - before
	}
	enqueue := func(p survey.Plan, a survey.SurveyAnswer) {
		t.Helper()
		if err := as.EnqueueFor(ctx, p, []survey.SurveyAnswer{a}); err != nil {
			t.Fatal(err)
		}
	}

	if n, d := poll("first poll", worker.Poll); n != 0 || d != 2 {
		t.Fatalf("first poll of two empty queues: %d messages, %d dequeues; want 0, 2", n, d)
	}
	if n, d := poll("second poll", worker.Poll); n != 0 || d != 0 {
		t.Fatalf("a poll right after: %d messages, %d dequeues; want 0, 0 (both found empty)", n, d)
	}
	// This instance queues a Premium answer: that queue only is taken.
	enqueue(survey.Premium, premAnswers[0])
	w.WakeFor(store.PremiumAnswersQueue)
	if n, d := poll("after a Premium wake", worker.Poll); n != 1 || d != 1 {
		t.Fatalf("after a Premium wake: %d messages, %d dequeues; want 1, 1", n, d)
	}
	if got := total(t, st, prem); got != 1 {
		t.Fatalf("Premium survey: %d answers, want 1", got)
	}
	// Another instance queues a Standard answer (no wake): left for
	// EmptyRecheck, then taken.
	enqueue(survey.Standard, stdAnswers[0])
	if n, d := poll("within EmptyRecheck", worker.Poll); n != 0 || d != 1 {
		t.Fatalf("within EmptyRecheck: %d messages, %d dequeues; want 0, 1 (Premium only: it was not found empty)", n, d)
	}
	clock = clock.Add(worker.EmptyRecheck)
	if n, d := poll("after EmptyRecheck", worker.Poll); n != 1 || d != 2 {
		t.Fatalf("after EmptyRecheck: %d messages, %d dequeues; want 1, 2", n, d)
	}
	if got := total(t, st, std); got != 1 {
		t.Fatalf("Standard survey: %d answers, want 1", got)
	}
	// A queue that gave messages is taken at the next poll (it may hold
	// more); Premium, just found empty, is not.
	enqueue(survey.Standard, stdAnswers[1])
	if n, d := poll("after a batch", worker.Poll); n != 1 || d != 1 {
		t.Fatalf("the poll after a batch: %d messages, %d dequeues; want 1, 1", n, d)
	}
	// RunOnce never leaves a queue out.
	if n, _ := poll("a poll", worker.Poll); n != 0 {
		t.Fatalf("a poll of empty queues took %d", n)
	}
	enqueue(survey.Standard, stdAnswers[2])
	enqueue(survey.Premium, premAnswers[1])
	if n, d := poll("RunOnce", (*worker.Worker).RunOnce); n != 2 || d != 2 {
		t.Fatalf("RunOnce: %d messages, %d dequeues; want 2, 2", n, d)
	}
	if s, p := total(t, st, std), total(t, st, prem); s != 3 || p != 2 {
		t.Fatalf("after the polls: standard %d, premium %d answers; want 3, 2", s, p)
	}
}
