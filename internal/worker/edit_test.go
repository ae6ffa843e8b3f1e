package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
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

// The edit of the fixture's published survey that the tests below make
// while answers arrive: a typo fixed, a question and a choice taken off
// (hidden when they have answers), a choice and a question added.
const (
	editedText = "Rate us, please"
	addedText  = "Anything else to say?"
)

// editSurvey makes the edit through st, as the designer's save does: from
// the stored survey, by the questions' IDs (so that it may be made again
// after a crash, as a subscriber would save again).
func editSurvey(ctx context.Context, st storage.Storage, f *fixture) error {
	ss := store.NewSurveyStore(st)
	cur, err := ss.Get(ctx, f.survey.Tenant, f.survey.Slug)
	if err != nil {
		return err
	}
	orig := f.survey.Questions
	next := *cur
	next.Questions = nil
	for _, q := range cur.Questions {
		switch {
		case q.Hidden:
			// Hidden questions stay hidden (the store keeps them).
		case q.ID == orig[0].ID:
			q.Text = editedText
			next.Questions = append(next.Questions, q)
		case q.ID == orig[1].ID:
			q.PossibleAnswers = []string{"Red", "Green", "Yellow"}
			next.Questions = append(next.Questions, q)
		case q.ID == orig[2].ID:
			// Taken off: "Say" has answers, so it is hidden.
		default:
			next.Questions = append(next.Questions, q)
		}
	}
	if !slices.ContainsFunc(cur.Questions, func(q survey.Question) bool { return q.Text == addedText }) {
		next.Questions = append(next.Questions, survey.Question{Text: addedText, Type: survey.SimpleText})
	}
	return ss.Update(ctx, &next)
}

// answerNow enqueues n answers to the survey as respondents see it now
// (through st, which never fails: the respondents are other processes),
// and adds their IDs to f.
func answerNow(t *testing.T, st storage.Storage, f *fixture, n, seed int) {
	t.Helper()
	ctx := context.Background()
	sv, err := store.NewSurveyStore(st).Get(ctx, f.survey.Tenant, f.survey.Slug)
	if err != nil {
		t.Fatal(err)
	}
	sv = sv.Visible()
	// The fixture's questions of every kind are answered with their
	// kind's example values, as newFixture does.
	examples := map[string]func(*rand.Rand) survey.Form{}
	for j, k := range survey.Kinds() {
		_, form := surveytest.Example(k)
		examples[f.survey.Questions[4+j].ID] = form
	}
	var batch []survey.SurveyAnswer
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 1))
		forms := map[string]survey.Form{}
		for _, q := range sv.Questions {
			if form := examples[q.ID]; form != nil {
				forms[q.ID] = form(r)
				continue
			}
			switch q.Type {
			case survey.FiveStars:
				forms[q.ID] = survey.Value(fmt.Sprint(1 + (seed+i)%5))
			case survey.MultipleChoice:
				forms[q.ID] = survey.Value(q.PossibleAnswers[(seed+i)%len(q.PossibleAnswers)])
			case survey.SimpleText:
				forms[q.ID] = survey.Value(fmt.Sprintf("late answer %d", seed+i))
			}
		}
		a, err := survey.NewAnswer(sv, forms)
		if err != nil {
			t.Fatalf("answer to %+v: %v", sv.Questions, err)
		}
		a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
		f.ids = append(f.ids, a.ID)
		batch = append(batch, a)
	}
	if err := store.NewSurveyAnswerStore(st).Enqueue(ctx, batch); err != nil {
		t.Fatal(err)
	}
}

// countsOf is a summary's counts by question ID, for comparing a summary
// kept across an edit with a recount: without the questions' texts (an
// edit changes them), the counts of nothing, or the order of choices,
// rows and questions.
func countsOf(sum *survey.SurveyAnswersSummary) string {
	out := map[string]survey.QuestionAnswersSummary{"": {Answered: sum.TotalAnswers}}
	for _, qs := range sum.Questions {
		if qs.Answered == 0 {
			continue
		}
		qs.QuestionText = ""
		qs.Choices = nonZero(qs.Choices)
		var rows []survey.RowCount
		for _, r := range qs.Rows {
			if r.Choices = nonZero(r.Choices); len(r.Choices) > 0 {
				rows = append(rows, r)
			}
		}
		sort.Slice(rows, func(i, j int) bool { return rows[i].Row < rows[j].Row })
		qs.Rows = rows
		var ranks []survey.RankSum
		for _, r := range qs.Ranks {
			if r.Count > 0 {
				ranks = append(ranks, r)
			}
		}
		sort.Slice(ranks, func(i, j int) bool { return ranks[i].Item < ranks[j].Item })
		qs.Ranks = ranks
		out[qs.QuestionID] = qs
	}
	b, _ := json.Marshal(out) // map keys sorted
	return string(b)
}

func nonZero(cs []survey.ChoiceCount) []survey.ChoiceCount {
	var out []survey.ChoiceCount
	for _, c := range cs {
		if c.Count > 0 {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Answer < out[j].Answer })
	return out
}

// editDiff says what is wrong after an edit made while answers arrived
// ("" if nothing): the survey whole, in its old version or the edited one
// (the edited one when edited says so); every answer filed and counted
// once in the summary, which equals a recount; the answers to the added
// question counted under it.
func (f *fixture) editDiff(edited bool) string {
	ctx := context.Background()
	sv, err := store.NewSurveyStore(f.st).Get(ctx, f.survey.Tenant, f.survey.Slug)
	if err != nil {
		return "survey: " + err.Error()
	}
	switch {
	case len(sv.Questions) == len(f.survey.Questions) && sv.Questions[0].Text == f.survey.Questions[0].Text:
		if edited {
			return "the edit was saved, but the survey has its old questions"
		}
	case sv.Questions[0].Text == editedText && sv.Questions[0].ID == f.survey.Questions[0].ID && slices.ContainsFunc(sv.Questions, func(q survey.Question) bool { return q.Text == addedText }):
	default:
		return fmt.Sprintf("the survey is neither its old version nor the edited one: %d questions, the first %q", len(sv.Questions), sv.Questions[0].Text)
	}
	got, _, err := store.NewSurveyAnswersSummaryStore(f.st).Get(ctx, f.survey.Tenant, f.survey.Slug)
	if err != nil {
		return "summary: " + err.Error()
	}
	as := store.NewSurveyAnswerStore(f.st)
	want := survey.NewSummary(sv)
	for _, id := range f.ids {
		a, err := as.Get(ctx, f.survey.Tenant, f.survey.Slug, id)
		if err != nil {
			return fmt.Sprintf("answer %s: %v", id, err)
		}
		want.Add(*a)
	}
	if want.TotalAnswers != int64(len(f.ids)) || got.TotalAnswers != want.TotalAnswers {
		return fmt.Sprintf("summary has %d answers, recount %d, given %d", got.TotalAnswers, want.TotalAnswers, len(f.ids))
	}
	if g, w := countsOf(&got.SurveyAnswersSummary), countsOf(want); g != w {
		return fmt.Sprintf("summary differs from a recount:\n got %s\nwant %s", g, w)
	}
	ids, total, err := as.Page(ctx, f.survey.Tenant, f.survey.Slug, 0, 1000)
	if err != nil || total != len(f.ids) || len(ids) != len(f.ids) {
		return fmt.Sprintf("answer list has %d entries, want %d (%v)", total, len(f.ids), err)
	}
	// The exports' columns: every question, hidden ones too.
	all := sv.Everything(&got.SurveyAnswersSummary)
	for _, id := range []string{f.survey.Questions[0].ID, f.survey.Questions[1].ID, f.survey.Questions[2].ID} {
		if _, ok := all.Question(id); !ok {
			return "the analysis and exports lost question " + id
		}
	}
	return f.segmentsDiffer(ids)
}

// editRun is one run of an edit while answers arrive, through st (which
// may fail at some call, as a process that died there): the worker takes
// some answers, the survey is edited, respondents answer the survey they
// see, and the worker goes on. It reports whether the edit was saved.
func editRun(t *testing.T, clean, st storage.Storage, f *fixture, stop func() bool) bool {
	ctx := context.Background()
	w := worker.New(st, crashConfig, quiet, nil)
	for i := 0; i < 2 && !stop(); i++ {
		_, _ = w.RunOnce(ctx)
	}
	answerNow(t, clean, f, 2, 100)
	edited := !stop() && editSurvey(ctx, st, f) == nil
	answerNow(t, clean, f, 3, 200)
	for i := 0; i < 50 && !stop(); i++ {
		if n, _ := w.RunOnce(ctx); n == 0 {
			break
		}
	}
	return edited
}

// TestEditWhileAnswering edits a published survey while answers arrive and
// the worker counts them: nothing is lost, the answers to the added
// question are counted under it, the hidden question and choice keep
// theirs, and the summary equals a recount.
func TestEditWhileAnswering(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		f := newFixture(t, st, newTenant(), 6, 2)
		if !editRun(t, st, st, f, func() bool { return false }) {
			t.Fatal("the edit failed")
		}
		drain(t, st, worker.New(st, testConfig, quiet, nil))
		if msg := f.editDiff(true); msg != "" {
			t.Fatal(msg)
		}
		ctx := context.Background()
		sv, _ := store.NewSurveyStore(st).Get(ctx, f.survey.Tenant, f.survey.Slug)
		sum, _, _ := store.NewSurveyAnswersSummaryStore(st).Get(ctx, f.survey.Tenant, f.survey.Slug)
		added := sv.Questions[slices.IndexFunc(sv.Questions, func(q survey.Question) bool { return q.Text == addedText })]
		hidden, _ := sv.Question(f.survey.Questions[2].ID)
		choice, _ := sv.Question(f.survey.Questions[1].ID)
		for _, qs := range sum.Questions {
			if qs.QuestionID == added.ID && qs.Answered != 3 {
				t.Errorf("the added question has %d answers, want the 3 given after the edit", qs.Answered)
			}
		}
		if !hidden.Hidden || !slices.Equal(choice.HiddenChoices, []string{"Blue"}) {
			t.Errorf("hidden: question %+v, choices %q", hidden, choice.HiddenChoices)
		}
	})
}

// TestCrashEditWhileAnswering makes the run of TestEditWhileAnswering die
// before and after each of its storage calls in turn (the worker's and the
// edit's), then has a new process save the edit again (as the subscriber
// would) and finish the work: the survey is always whole, and the summary
// equals a recount with every answer in it.
func TestCrashEditWhileAnswering(t *testing.T) {
	t.Parallel() // its own embedded stores
	clean := faulty.New(backends.Local(t))
	f := newFixture(t, clean.Unwrap(), newTenant(), 6, 2)
	if !editRun(t, clean.Unwrap(), clean, f, func() bool { return false }) {
		t.Fatal("the edit failed")
	}
	total := clean.Calls()
	t.Logf("a clean run makes %d storage calls", total)

	everyCrash(t, total, func(n int64, after bool) []string {
		st := backends.Local(t)
		fx := newFixture(t, st, newTenant(), 6, 2)
		crashing := faulty.At(st, n, after)
		editRun(t, st, crashing, fx, func() bool { return crashing.Calls() >= n+5 })
		// Right after the crash: the survey is whole, old or new.
		var msgs []string
		if sv, err := store.NewSurveyStore(st).Get(context.Background(), fx.survey.Tenant, fx.survey.Slug); err != nil ||
			!(sv.Questions[0].Text == editedText || len(sv.Questions) == len(fx.survey.Questions)) {
			msgs = append(msgs, fmt.Sprintf("after the crash the survey is not whole: %v", err))
		}
		// A new process: the subscriber saves again, the worker finishes.
		if err := editSurvey(context.Background(), st, fx); err != nil {
			return append(msgs, "saving the edit again: "+err.Error())
		}
		drainQuiet(st, worker.New(st, recoverConfig, quiet, nil))
		if msg := fx.editDiff(true); msg != "" {
			msgs = append(msgs, msg)
		}
		return msgs
	})
}
