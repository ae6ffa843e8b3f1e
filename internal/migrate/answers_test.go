package migrate_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/migrate"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
	"github.com/surveys-dev/surveys/internal/worker"
)

// TestDuplicateAnswerMessage migrates an embedded store whose answers
// queue holds messages in every state a worker leaves them in: never
// delivered; taken, its answer filed, not yet merged (a worker killed, or
// a backup taken mid-batch); taken, merged into the summary, not yet
// deleted. Every message is copied twice, as a crash between the enqueue
// and the checkpoint does. A worker on the destination then counts every
// answer exactly once: the summary equals a recount of the answer blobs,
// and the answer list holds each answer once.
func TestDuplicateAnswerMessage(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "surveys.db")
	src, err := local.Open(path)
	must(t, "Open", err)
	defer src.Close()
	must(t, "store.Init", store.Init(ctx, src))
	must(t, "worker.Init", worker.Init(ctx, src))
	s := &survey.Survey{Tenant: fmt.Sprintf("mig%d", time.Now().UnixNano()%1e9), Title: "Migrated", State: survey.Published,
		Questions: []survey.Question{{Text: "Rate", Type: survey.FiveStars}}}
	must(t, "Create", store.NewSurveyStore(src).Create(ctx, s))
	answers := store.NewSurveyAnswerStore(src)
	const n = 6
	made := map[string]survey.SurveyAnswer{} // by ID
	for i := range n {
		a, err := survey.NewAnswer(s, surveytest.Forms(map[string]string{s.Questions[0].ID: fmt.Sprint(i%5 + 1)}))
		must(t, "NewAnswer", err)
		a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
		made[a.ID] = a
		must(t, "Enqueue", answers.Enqueue(ctx, []survey.SurveyAnswer{a}))
	}
	take := func() (storage.Message, survey.SurveyAnswer) {
		t.Helper()
		msgs, err := src.Dequeue(ctx, store.AnswersQueue, 1, time.Hour)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("Dequeue = %v, %v", msgs, err)
		}
		var m store.AnswerMessage
		must(t, "decode", jsonUnmarshal(msgs[0].Data, &m))
		queued, _ := m.Pending()
		if len(queued) != 1 {
			t.Fatalf("a message of %d answers, want 1", len(queued))
		}
		a := made[queued[0].ID]
		own, err := answers.File(ctx, &a, msgs[0].ID)
		if err != nil || !own {
			t.Fatalf("File = %v, %v", own, err)
		}
		return msgs[0], a
	}
	// Filed, not merged.
	take()
	// Filed and merged, not deleted.
	m2, a2 := take()
	sum := &store.StoredSummary{SurveyAnswersSummary: *survey.NewSummary(s)}
	sum.Add(a2)
	sum.AppliedMessages, sum.Pending, sum.ListFrom = []string{m2.ID}, []string{a2.ID}, 0
	_, err = store.NewSurveyAnswersSummaryStore(src).Put(ctx, sum, "")
	must(t, "Put summary", err)
	must(t, "Close", src.Close())

	// Copy it, every answers message twice: each run fails once the
	// enqueue of a message not yet recorded is done.
	dst := newAzurite(t)
	snap, err := local.OpenSnapshot(ctx, path)
	must(t, "OpenSnapshot", err)
	defer snap.Close()
	o := migrate.Options{Checkpoint: path + ".checkpoint", Destination: "azurite", Moved: store.MoveAnswerMessage}
	for run := 1; ; run++ {
		failAt := int64(2)
		if run == 1 {
			failAt = 1
		}
		f := faulty.At(dst, failAt, true)
		f.Counts = func(op faulty.Op) bool { return op.Kind == "enqueue" }
		_, err := migrate.Copy(ctx, snap, f, o)
		if err == nil {
			break
		}
		if !errors.Is(err, errInjected) || run > 3*n {
			t.Fatalf("run %d: %v", run, err)
		}
	}
	if got, err := dst.ApproximateCount(ctx, store.AnswersQueue); err != nil || got != 2*n {
		t.Fatalf("%d answers messages at the destination (%v), want %d (each twice)", got, err, 2*n)
	}

	w := worker.New(dst, worker.Config{Batch: 3, Visibility: 5 * time.Second, MaxAttempts: 5, MaxIdle: 50 * time.Millisecond},
		slog.New(slog.NewTextHandler(io.Discard, nil)), worker.NewMetrics())
	deadline := time.Now().Add(2 * time.Minute)
	for {
		got, err := w.RunOnce(ctx)
		if err != nil {
			t.Logf("RunOnce: %v", err)
		}
		left, err := dst.ApproximateCount(ctx, store.AnswersQueue)
		must(t, "ApproximateCount", err)
		if got == 0 && left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the queue did not drain: %d left", left)
		}
	}
	stored, _, err := store.NewSurveyAnswersSummaryStore(dst).Get(ctx, s.Tenant, s.Slug)
	must(t, "summary", err)
	recount := survey.NewSummary(s)
	as := store.NewSurveyAnswerStore(dst)
	blobs := 0
	must(t, "ListAll", as.ListAll(ctx, s.Tenant, s.Slug, func(id string) error {
		a, err := as.Get(ctx, s.Tenant, s.Slug, id)
		if err != nil {
			return err
		}
		recount.Add(*a)
		blobs++
		return nil
	}))
	if stored.TotalAnswers != n || blobs != n || recount.TotalAnswers != n {
		t.Fatalf("summary counts %d answers, %d answer blobs, recount %d; want %d each", stored.TotalAnswers, blobs, recount.TotalAnswers, n)
	}
	ids, total, err := as.Page(ctx, s.Tenant, s.Slug, 0, 100)
	if err != nil || total != n {
		t.Fatalf("answer list has %d entries (%v), want %d", total, err, n)
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("answer %s listed twice", id)
		}
		seen[id] = true
	}
}
