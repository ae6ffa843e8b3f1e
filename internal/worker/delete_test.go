package worker_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
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
	return f.ranksDiff(want.TotalAnswers)
}

// ranksDiff says how the survey's ranks (the dashboard's count, its most
// answered list, and the home page's when the survey is listed) differ
// from answers ("" if not): the count is answers, and the survey is on
// each list once, with answers.
func (f *fixture) ranksDiff(answers int64) string {
	ctx := context.Background()
	rs := store.NewRankingStore(f.st)
	tr, err := rs.Tenant(ctx, f.survey.Tenant, 100)
	if err != nil {
		return "ranks: " + err.Error()
	}
	if c := tr.Counts[f.survey.Slug]; c.Answers != answers {
		return fmt.Sprintf("the dashboard counts %d answers, the summary %d", c.Answers, answers)
	}
	lists := [][]store.RankedSurvey{tr.MostAnswered}
	if f.survey.Listed {
		home, err := rs.Home(ctx, 100)
		if err != nil {
			return "home ranks: " + err.Error()
		}
		lists = append(lists, home.MostAnswered)
	}
	for i, l := range lists {
		var rows []int64
		for _, r := range l {
			if r.Tenant == f.survey.Tenant && r.Slug == f.survey.Slug {
				rows = append(rows, r.Answers)
			}
		}
		if len(rows) != 1 || rows[0] != answers {
			return fmt.Sprintf("most answered list %d shows the survey with %v answers, want once with %d", i, rows, answers)
		}
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

// TestDeleteAnswerCrashBetweenEveryCall deletes a second answer of 7,
// failing before and after each storage call of the deletion in turn; the
// deletion asked again (a subscriber clicks once more) finishes it,
// exactly: the summary equals a recount of the other answers, scans leave
// it out once, and the ranks (the dashboard's count and both most
// answered lists) say 5, once. A crash the deletion is never asked again
// after is repaired by the worker's next merge (TestDeleteAnswerRanks).
func TestDeleteAnswerCrashBetweenEveryCall(t *testing.T) {
	t.Parallel() // its own embedded stores
	ctx := context.Background()
	// fixture is a listed survey of 7 answers, counted, and one deleted.
	fixture := func(st storage.Storage) *fixture {
		f := newFixture(t, st, newTenant(), 7, 2)
		list(t, f)
		drainQuiet(st, worker.New(st, recoverConfig, quiet, nil))
		if err := store.NewSurveyAnswerStore(st).DeleteAnswer(ctx, f.survey, f.ids[1]); err != nil {
			t.Fatal(err)
		}
		return f
	}
	clean := faulty.New(backends.Local(t))
	f := fixture(clean.Unwrap())
	if err := store.NewSurveyAnswerStore(clean).DeleteAnswer(ctx, f.survey, f.ids[3]); err != nil {
		t.Fatal(err)
	}
	if msg := f.deletedDiff(f.ids[1], f.ids[3]); msg != "" {
		t.Fatal(msg)
	}
	if msg := f.ranksDiff(5); msg != "" {
		t.Fatal(msg)
	}
	total := clean.Calls()
	t.Logf("deleting one answer of 6 makes %d storage calls", total)

	everyCrash(t, total, func(n int64, after bool) []string {
		st := backends.Local(t)
		fx := fixture(st)
		crashing := faulty.At(st, n, after)
		_ = store.NewSurveyAnswerStore(crashing).DeleteAnswer(ctx, fx.survey, fx.ids[3])
		// Asked again: a subscriber clicks once more.
		if err := store.NewSurveyAnswerStore(st).DeleteAnswer(ctx, fx.survey, fx.ids[3]); err != nil {
			return []string{"asked again: " + err.Error()}
		}
		if msg := fx.deletedDiff(fx.ids[1], fx.ids[3]); msg != "" {
			return []string{msg}
		}
		if msg := fx.ranksDiff(5); msg != "" {
			return []string{msg}
		}
		return nil
	})
}

// list lists f's survey on the home page, as its subscriber would.
func list(t *testing.T, f *fixture) {
	t.Helper()
	ctx := context.Background()
	f.survey.Listed = true
	if err := store.NewSurveyStore(f.st).Update(ctx, f.survey); err != nil {
		t.Fatal(err)
	}
	sv, err := store.NewSurveyStore(f.st).Get(ctx, f.survey.Tenant, f.survey.Slug)
	if err != nil || !sv.Listed {
		t.Fatalf("listed: %+v, %v", sv, err)
	}
	f.survey = sv
}

// TestDeleteAnswerRanks: 7 answers, 2 deleted: every count the ranks keep
// is 5 (the dashboard's, most answered of the tenant and of the home
// page), also when the ranks' write of a deletion failed and the deletion
// is never asked again: the worker's next merge brings them to the
// summary's count (6 with a new answer), and a late rank write of an
// older count changes nothing.
func TestDeleteAnswerRanks(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	f := newFixture(t, st, newTenant(), 7, 2)
	list(t, f)
	w := worker.New(st, testConfig, quiet, nil)
	drain(t, st, w)
	if msg := f.ranksDiff(7); msg != "" {
		t.Fatal(msg)
	}
	as := store.NewSurveyAnswerStore(st)
	if err := as.DeleteAnswer(ctx, f.survey, f.ids[2]); err != nil {
		t.Fatal(err)
	}
	if msg := f.ranksDiff(6); msg != "" {
		t.Fatal(msg)
	}
	// The second deletion's rank write fails: every table write does.
	if err := store.NewSurveyAnswerStore(&noTableWrites{Storage: st}).DeleteAnswer(ctx, f.survey, f.ids[5]); err == nil {
		t.Fatal("a deletion whose ranks could not be written reported no error")
	}
	// A late writer of the count before the deletions changes nothing.
	if err := store.NewRankingStore(st).SetCount(ctx, f.survey.Tenant, f.survey.Slug, 7, 0); err != nil {
		t.Fatal(err)
	}
	if msg := f.ranksDiff(6); msg != "" {
		t.Fatal(msg)
	}
	// The next answer's merge ranks the survey at the summary's count.
	fresh := answerOf(t, f, 8)
	if err := as.Enqueue(ctx, []survey.SurveyAnswer{fresh}); err != nil {
		t.Fatal(err)
	}
	drain(t, st, w)
	f.ids = append(f.ids, fresh.ID)
	if msg := f.deletedDiff(f.ids[2], f.ids[5]); msg != "" {
		t.Fatal(msg)
	}
	if msg := f.ranksDiff(6); msg != "" {
		t.Fatal(msg)
	}
}

// noTableWrites fails every table write.
type noTableWrites struct{ storage.Storage }

func (noTableWrites) Transact(context.Context, string, string, []storage.TableOp) error {
	return errors.New("table writes fail")
}
