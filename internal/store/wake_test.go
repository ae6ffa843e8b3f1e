package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestQueueingWakes: what this instance puts on a queue calls its hook
// (which wakes the instance's worker) once it is queued: an answer, a
// flush of views, a copy requested; a flush with nothing counted queues
// nothing and calls nothing.
func TestQueueingWakes(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	sv := &survey.Survey{Tenant: "adatum", Title: "Wakes", State: survey.Published, Questions: []survey.Question{{Text: "Why?", Type: survey.SimpleText}}}
	if err := store.NewSurveyStore(st).Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	notifier := store.NewNotifier(store.NewSurveyAnswerStore(st), 2)
	views := store.NewViewCounter(st, time.Hour)
	transfers := store.NewSurveyTransferStore(st)
	calls := map[string]int{}
	notifier.Queued = func(q string) {
		if q != store.AnswersQueue {
			t.Errorf("a Standard tenant's answer woke the worker for %s, want %s", q, store.AnswersQueue)
		}
		calls["answers"]++
	}
	views.Flushed = func() { calls["views"]++ }
	transfers.Requested = func() { calls["transfers"]++ }

	a := survey.SurveyAnswer{ID: store.NewAnswerID(time.Now()), Tenant: "adatum", Slug: sv.Slug, CreatedOn: time.Now().UTC(),
		Answers: []survey.QuestionAnswer{{QuestionID: sv.Questions[0].ID, Type: survey.SimpleText, Answer: "because"}}}
	if err := notifier.Notify(ctx, a, survey.Standard); err != nil {
		t.Fatal(err)
	}
	if err := views.Flush(ctx); err != nil { // nothing counted: nothing queued
		t.Fatal(err)
	}
	views.Add("adatum", sv.Slug)
	if err := views.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := transfers.Request(ctx, "adatum", sv.Slug); err != nil {
		t.Fatal(err)
	}
	for queue, want := range map[string]int{"answers": 1, "views": 1, "transfers": 1} {
		if calls[queue] != want {
			t.Errorf("%s: the hook was called %d times, want %d", queue, calls[queue], want)
		}
	}
	for _, q := range []string{store.AnswersQueue, store.ViewsQueue, store.TransfersQueue} {
		if n, err := st.ApproximateCount(ctx, q); err != nil || n != 1 {
			t.Errorf("%s holds %d messages (%v), want 1", q, n, err)
		}
	}
}
