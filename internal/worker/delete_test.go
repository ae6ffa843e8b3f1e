package worker_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// deletedDiff says how a survey whose answers gone were deleted differs
// from what it should be ("" if not): its summary equals a recount of the
// other answers from their blobs, a scan gives the others once each in
// list order, the deleted ones' blobs are gone and their segment lines are
// tombstones (the segments still hold every position).
func (f *fixture) deletedDiff(gone ...string) string {
	ctx := context.Background()
	as := store.NewSurveyAnswerStore(f.st)
	got, _, err := store.NewSurveyAnswersSummaryStore(f.st).Get(ctx, f.survey.Tenant, f.survey.Slug)
	if err != nil {
		return "summary: " + err.Error()
	}
	want := survey.NewSummary(f.survey)
	for _, id := range f.ids {
		if slices.Contains(gone, id) {
			if _, err := as.Get(ctx, f.survey.Tenant, f.survey.Slug, id); survey.ErrorCode(err) != survey.ENOTFOUND {
				return fmt.Sprintf("deleted answer %s: its blob is still there (%v)", id, err)
			}
			continue
		}
		a, err := as.Get(ctx, f.survey.Tenant, f.survey.Slug, id)
		if err != nil {
			return err.Error()
		}
		want.Add(*a)
	}
	if !reflect.DeepEqual(&got.SurveyAnswersSummary, want) {
		return fmt.Sprintf("summary has %d answers, a recount of the others %d", got.TotalAnswers, want.TotalAnswers)
	}
	if got.Len() != int64(len(f.ids)) || len(got.Deleted) != len(gone) {
		return fmt.Sprintf("summary covers %d positions with %d deleted, want %d and %d", got.Len(), len(got.Deleted), len(f.ids), len(gone))
	}
	listed, _, err := as.Page(ctx, f.survey.Tenant, f.survey.Slug, 0, 1000)
	if err != nil {
		return err.Error()
	}
	var wantOrder []string
	for _, id := range listed {
		if !slices.Contains(gone, id) {
			wantOrder = append(wantOrder, id)
		}
	}
	var scanned []string
	if err := as.Scan(ctx, f.survey.Tenant, f.survey.Slug, 0, func(_ int, a *survey.SurveyAnswer) error {
		scanned = append(scanned, a.ID)
		return nil
	}); err != nil {
		return err.Error()
	}
	if !slices.Equal(scanned, wantOrder) {
		return fmt.Sprintf("a scan gives %v, want %v", scanned, wantOrder)
	}
	if n, err := as.Segmented(ctx, f.survey.Tenant, f.survey.Slug); err != nil || n != len(f.ids) {
		return fmt.Sprintf("segments hold %d positions (%v), want %d", n, err, len(f.ids))
	}
	return ""
}

// TestDeleteAnswer: deleting answers takes them out of the summary (equal
// to a recount of the others), the scans and the blobs, once: deleting
// again changes nothing, a deleted answer's form posted again is not
// counted, and answers that come later are counted as before.
func TestDeleteAnswer(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		ctx := context.Background()
		f := newFixture(t, st, newTenant(), 6, 2)
		w := worker.New(st, testConfig, quiet, nil)
		drain(t, st, w)
		as := store.NewSurveyAnswerStore(st)
		for _, id := range []string{f.ids[1], f.ids[4], f.ids[1]} {
			if err := as.DeleteAnswer(ctx, f.survey, id); err != nil {
				t.Fatal(err)
			}
		}
		if err := as.DeleteAnswer(ctx, f.survey, store.NewAnswerID(f.survey.CreatedOn)); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Errorf("deleting an answer never given = %v, want not found", err)
		}
		if msg := f.deletedDiff(f.ids[1], f.ids[4]); msg != "" {
			t.Fatal(msg)
		}
		// The deleted answer's form, posted again, is not counted; a new
		// answer is.
		a1 := answerOf(t, f, 1)
		a1.ID = f.ids[1]
		fresh := answerOf(t, f, 7)
		if err := as.Enqueue(ctx, []survey.SurveyAnswer{a1, fresh}); err != nil {
			t.Fatal(err)
		}
		drain(t, st, w)
		f.ids = append(f.ids, fresh.ID)
		if msg := f.deletedDiff(f.ids[1], f.ids[4]); msg != "" {
			t.Fatal(msg)
		}
	})
}

// answerOf is a new answer to f's survey (its first question only).
func answerOf(t *testing.T, f *fixture, i int) survey.SurveyAnswer {
	t.Helper()
	q := f.survey.Questions[0]
	return survey.SurveyAnswer{ID: store.NewAnswerID(time.Now()), Tenant: f.survey.Tenant, Slug: f.survey.Slug, Title: f.survey.Title, CreatedOn: time.Now().UTC(),
		Answers: []survey.QuestionAnswer{{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: fmt.Sprint(i%5 + 1)}}}
}

// TestDeleteAnswerCrashBetweenEveryCall deletes an answer, failing before
// and after each storage call of the deletion in turn; the deletion asked
// again (a subscriber clicks once more) finishes it, exactly: the summary
// equals a recount of the other answers, scans leave it out once.
func TestDeleteAnswerCrashBetweenEveryCall(t *testing.T) {
	ctx := context.Background()
	clean := &faulty{Storage: backends.Local(t)}
	f := newFixture(t, clean.Storage, newTenant(), 7, 2)
	drain(t, clean.Storage, worker.New(clean.Storage, testConfig, quiet, nil))
	if err := store.NewSurveyAnswerStore(clean).DeleteAnswer(ctx, f.survey, f.ids[3]); err != nil {
		t.Fatal(err)
	}
	if msg := f.deletedDiff(f.ids[3]); msg != "" {
		t.Fatal(msg)
	}
	total := clean.calls.Load()
	t.Logf("deleting one answer of 7 makes %d storage calls", total)

	everyCrash(t, total, func(n int64, after bool) []string {
		st := backends.Local(t)
		fx := newFixture(t, st, newTenant(), 7, 2)
		drainQuiet(st, worker.New(st, recoverConfig, quiet, nil))
		crashing := &faulty{Storage: st, n: n, after: after}
		_ = store.NewSurveyAnswerStore(crashing).DeleteAnswer(ctx, fx.survey, fx.ids[3])
		// Asked again: a subscriber clicks once more.
		if err := store.NewSurveyAnswerStore(st).DeleteAnswer(ctx, fx.survey, fx.ids[3]); err != nil {
			return []string{"asked again: " + err.Error()}
		}
		if msg := fx.deletedDiff(fx.ids[3]); msg != "" {
			return []string{msg}
		}
		return nil
	})
}
