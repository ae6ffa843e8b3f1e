package worker_test

import (
	"context"
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
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
	"github.com/surveys-dev/surveys/internal/worker"
)

// partialFixture is a survey that keeps partial answers after an hour,
// and three respondents who moved past its first page: the first leaves
// (kept as partial), the second completes after their partial answer was
// kept (theirs replaces it), the third completes within the hour (their
// progress is queued too, after their answer: the delete at their submit
// failed, and the worker discards it).
type partialFixture struct {
	st       storage.Storage
	sv       *survey.Survey
	partials [3]survey.SurveyAnswer // the progress saved, by respondent
	complete [3]survey.SurveyAnswer // the complete answers (of 2 and 3)
}

func newPartialFixture(t *testing.T, st storage.Storage) *partialFixture {
	t.Helper()
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := worker.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	sv := &survey.Survey{Tenant: newTenant(), Title: "Partial test", State: survey.Published, KeepPartial: time.Hour, Questions: []survey.Question{
		{Text: "Rate", Type: survey.FiveStars},
		{Text: "Pick", Type: survey.MultipleChoice, PossibleAnswers: []string{"Red", "Green", "Blue"}},
	}}
	if err := store.NewSurveyStore(st).Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	f := &partialFixture{st: st, sv: sv}
	ps := store.NewPartialStore(st)
	for i := range 3 {
		id := store.NewAnswerID(time.Now())
		p := survey.NewPartialAnswer(sv, surveytest.Forms(map[string]string{sv.Questions[0].ID: fmt.Sprint(i + 2)}), nil)
		p.ID = id
		if err := ps.Save(ctx, "", &p); err != nil {
			t.Fatal(err)
		}
		f.partials[i] = p
		c, err := survey.NewAnswer(sv, surveytest.Forms(map[string]string{sv.Questions[0].ID: fmt.Sprint(i + 1), sv.Questions[1].ID: "Green"}))
		if err != nil {
			t.Fatal(err)
		}
		c.ID, c.CreatedOn = id, time.Now().UTC()
		f.complete[i] = c
	}
	// The third, within the hour; the delete of their progress failed,
	// so the promoter queues it too, after their complete answer.
	f.submit(t, st, 2, false)
	return f
}

// submit is what the respondent's final submit does: the complete answer
// queued, then the saved progress deleted (unless that failed: drop
// false).
func (f *partialFixture) submit(t *testing.T, st storage.Storage, i int, drop bool) {
	t.Helper()
	ctx := context.Background()
	if err := store.NewSurveyAnswerStore(st).Enqueue(ctx, []survey.SurveyAnswer{f.complete[i]}); err != nil {
		t.Fatal(err)
	}
	if !drop {
		return
	}
	if err := store.NewPartialStore(st).Delete(ctx, f.sv.Tenant, f.sv.Slug, f.complete[i].ID); err != nil {
		t.Fatal(err)
	}
}

// promoter is a promoter whose clock is two hours ahead: every progress
// saved is due.
func promoter(st storage.Storage) *worker.Promoter {
	p := worker.NewPromoter(st, quiet)
	p.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	return p
}

// diff says how the survey's summary, list and segments differ from what
// the three respondents make ("" if not): the second and third counted
// complete, the first partial, once each.
func (f *partialFixture) diff() string {
	ctx := context.Background()
	want := survey.NewSummary(f.sv)
	want.Add(f.complete[1])
	want.Add(f.complete[2])
	want.Partial = 1
	got, _, err := store.NewSurveyAnswersSummaryStore(f.st).Get(ctx, f.sv.Tenant, f.sv.Slug)
	if err != nil {
		return "summary: " + err.Error()
	}
	if !reflect.DeepEqual(&got.SurveyAnswersSummary, want) {
		return fmt.Sprintf("summary has %d complete and %d partial answers, want 2 and 1:\n got %+v\nwant %+v", got.TotalAnswers, got.Partial, got.SurveyAnswersSummary, *want)
	}
	p1 := store.PartialID(f.partials[0].ID)
	if !slices.Equal(got.Partials, []string{p1}) {
		return fmt.Sprintf("the summary counts partial answers %v, want %v", got.Partials, []string{p1})
	}
	// What readers show: the scan of the segments, less the deleted.
	as := store.NewSurveyAnswerStore(f.st)
	shown := map[string]bool{}
	var problem string
	err = as.Scan(ctx, f.sv.Tenant, f.sv.Slug, 0, func(_ int, a *survey.SurveyAnswer) error {
		if slices.Contains(got.Deleted, a.ID) {
			return nil
		}
		if shown[a.ID] {
			problem = "answer " + a.ID + " shown twice"
		}
		shown[a.ID] = true
		if a.Partial != (a.ID == p1) {
			problem = fmt.Sprintf("answer %s is partial: %v", a.ID, a.Partial)
		}
		return nil
	})
	if err != nil {
		return err.Error()
	}
	if problem != "" {
		return problem
	}
	if want := map[string]bool{p1: true, f.complete[1].ID: true, f.complete[2].ID: true}; !reflect.DeepEqual(shown, want) {
		return fmt.Sprintf("the answers shown are %v, want %v", shown, want)
	}
	if a, err := as.Get(ctx, f.sv.Tenant, f.sv.Slug, p1); err != nil || !a.Partial || len(a.Answers) != 1 {
		return fmt.Sprintf("the partial answer's blob is %+v (%v)", a, err)
	}
	return ""
}

// run is the whole story on st: the promoter's pass and the worker's
// drain, the second respondent's submit (on submit, which the crash
// leaves alone: the respondent's request is another process), and the
// worker's drain again.
func (f *partialFixture) run(st storage.Storage, submit storage.Storage, t *testing.T) {
	ctx := context.Background()
	_ = promoter(st).RunOnce(ctx)
	w := worker.New(st, crashConfig, quiet, nil)
	for range 10 {
		if n, _ := w.RunOnce(ctx); n == 0 {
			break
		}
	}
	f.submit(t, submit, 1, true)
	for range 10 {
		if n, _ := w.RunOnce(ctx); n == 0 {
			break
		}
	}
}

func TestPartialAnswers(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		f := newPartialFixture(t, st)
		f.run(st, st, t)
		drain(t, st, worker.New(st, testConfig, quiet, nil))
		if msg := f.diff(); msg != "" {
			t.Fatal(msg)
		}
		// Another pass finds nothing, and a copy of a partial answer's
		// message (a promoter that died before its delete) is not
		// counted again.
		if err := promoter(st).RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{0, 1} {
			p := f.partials[i]
			p.ID, p.Partial = store.PartialID(p.ID), true
			if err := store.NewSurveyAnswerStore(st).Enqueue(context.Background(), []survey.SurveyAnswer{p}); err != nil {
				t.Fatal(err)
			}
		}
		drain(t, st, worker.New(st, testConfig, quiet, nil))
		if msg := f.diff(); msg != "" {
			t.Fatal("after copies: " + msg)
		}
		// The partial answer deleted (spam, say): out of the partial
		// count and of Partials, the complete counts unchanged.
		ctx := context.Background()
		if err := store.NewSurveyAnswerStore(st).DeleteAnswer(ctx, f.sv, store.PartialID(f.partials[0].ID)); err != nil {
			t.Fatal(err)
		}
		sum, _, err := store.NewSurveyAnswersSummaryStore(st).Get(ctx, f.sv.Tenant, f.sv.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Partial != 0 || len(sum.Partials) != 0 || sum.TotalAnswers != 2 {
			t.Fatalf("after deleting the partial answer: %d partial %v, %d complete", sum.Partial, sum.Partials, sum.TotalAnswers)
		}
	})
}

// TestPartialCrashBetweenEveryCall kills the promoter and the worker
// before and after each of their storage calls in turn (the promotion, and
// the merge of a complete answer after its partial one), restarts them,
// and checks the known outcome: each respondent counted once, nothing
// lost.
func TestPartialCrashBetweenEveryCall(t *testing.T) {
	t.Parallel() // its own embedded stores
	clean := faulty.New(backends.Local(t))
	f := newPartialFixture(t, clean.Unwrap())
	f.run(clean, clean.Unwrap(), t)
	if msg := f.diff(); msg != "" {
		t.Fatal("a clean run: " + msg)
	}
	total := clean.Calls()
	t.Logf("a clean run makes %d storage calls", total)
	everyCrash(t, total, func(n int64, after bool) []string {
		st := backends.Local(t)
		fx := newPartialFixture(t, st)
		fx.run(faulty.At(st, n, after), st, t)
		// A new process finishes the work.
		if err := promoter(st).RunOnce(context.Background()); err != nil {
			return []string{"promote: " + err.Error()}
		}
		drainQuiet(st, worker.New(st, recoverConfig, quiet, nil))
		if msg := fx.diff(); msg != "" {
			return []string{msg}
		}
		return nil
	})
}

// TestPromoterIdle counts the storage calls of the promoter's passes
// while no partial answer is due: one listing a pass (one a minute).
func TestPromoterIdle(t *testing.T) {
	counted := faulty.New(backends.Local(t))
	f := newPartialFixture(t, counted.Unwrap())
	_ = f
	p := worker.NewPromoter(counted, quiet)
	before := counted.Calls()
	for range 5 {
		if err := p.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := counted.Calls() - before; got != 5 {
		t.Fatalf("5 idle passes made %d storage calls, want 5", got)
	}
}
