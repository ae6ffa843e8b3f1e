package web_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// swapQuotas and swapNotifier let a test give the server's submit path a
// storage that dies (faulty), one process after another.
type swapQuotas struct {
	p atomic.Pointer[store.QuotaStore]
}

func (s *swapQuotas) TakeCells(ctx context.Context, tenant, slug string, names []string, limits map[string]int, skip map[string]bool) (string, []string, error) {
	return s.p.Load().TakeCells(ctx, tenant, slug, names, limits, skip)
}
func (s *swapQuotas) Give(ctx context.Context, tenant, slug string, names []string) error {
	return s.p.Load().Give(ctx, tenant, slug, names)
}
func (s *swapQuotas) Counts(ctx context.Context, tenant, slug string) (map[string]int, error) {
	return s.p.Load().Counts(ctx, tenant, slug)
}

type swapNotifier struct {
	p atomic.Pointer[store.Notifier]
}

func (s *swapNotifier) Notify(ctx context.Context, a survey.SurveyAnswer, p survey.Plan) error {
	return s.p.Load().Notify(ctx, a, p)
}

// TestQuotaCrash: a submit into a quota cell of 1 dies before and after
// each storage call it makes (the counter's read and conditional write,
// the answer's enqueue); then a healthy server takes a second answer in
// the cell. Whatever the point, the cell never accepts more than one
// answer, an acknowledged answer is filed, and an answer filed is one
// the counter took.
func TestQuotaCrash(t *testing.T) {
	t.Parallel()
	st := backends.Local(t)
	quotas, notifier := &swapQuotas{}, &swapNotifier{}
	use := func(s storage.Storage) {
		quotas.p.Store(store.NewQuotaStore(s))
		notifier.p.Store(store.NewNotifier(store.NewSurveyAnswerStore(s), 2))
	}
	use(st)
	app := newTestAppOn(t, st, func(d *web.Deps) { d.Quotas, d.Notifier = quotas, notifier })

	// A clean run counts the calls of a submit.
	clean := faulty.New(st)
	use(clean)
	sv := app.quotaPoll(t, "Clean", 1)
	if code, body := app.answerQuota(t, sv, "Female"); code != http.StatusSeeOther {
		t.Fatalf("clean submit = %d\n%s", code, body)
	}
	calls := clean.Calls()
	if calls < 3 {
		t.Fatalf("a submit into a quota cell made %d storage calls (%v); want the counter's read and write and the enqueue", calls, clean.Ops())
	}
	t.Logf("a submit into a quota cell: %d storage calls %v", calls, clean.Ops())
	for n := int64(1); n <= calls; n++ {
		for _, after := range []bool{false, true} {
			sv := app.quotaPoll(t, "Crash", 1)
			use(faulty.At(st, n, after))
			first, _ := app.answerQuota(t, sv, "Female")
			use(st) // restarted
			second, _ := app.answerQuota(t, sv, "Female")
			acked := 0
			for _, c := range []int{first, second} {
				switch c {
				case http.StatusSeeOther:
					acked++
				case http.StatusOK: // the quota's page
				default:
					if c != first {
						t.Errorf("call %d (after %v): the healthy server's submit = %d", n, after, c)
					}
				}
			}
			filed, counted, _ := app.countAnswers(t, sv)
			c, err := store.NewQuotaStore(st).Counts(context.Background(), "adatum", sv.Slug)
			if err != nil {
				t.Fatal(err)
			}
			if acked > 1 || filed > 1 || c["women"] > 1 || filed < acked || int64(filed) != counted || c["women"] < filed {
				t.Errorf("call %d (after %v): statuses %d, %d; %d acknowledged, %d filed, %d counted, cell count %d", n, after, first, second, acked, filed, counted, c["women"])
			}
		}
	}
}

// TestQuotaSkipCrash is TestQuotaCrash for a quota that skips: a
// respondent into its cell of 1 (two pages: the first page's step reads
// the counts, the submit takes the cell and enqueues) dies before and
// after each storage call; then a healthy server takes a second woman,
// who is never refused. Whatever the point, the cell's count is at most
// one, no more answers name it as taken than it counts, an acknowledged
// answer is filed, and an answer filed beside a taken one is over quota.
func TestQuotaSkipCrash(t *testing.T) {
	t.Parallel()
	st := backends.Local(t)
	quotas, notifier := &swapQuotas{}, &swapNotifier{}
	use := func(s storage.Storage) {
		quotas.p.Store(store.NewQuotaStore(s))
		notifier.p.Store(store.NewNotifier(store.NewSurveyAnswerStore(s), 2))
	}
	use(st)
	app := newTestAppOn(t, st, func(d *web.Deps) { d.Quotas, d.Notifier = quotas, notifier })
	// answer sends a woman's two pages: the submit's status (or the
	// first page's, when it failed).
	answer := func(sv *survey.Survey) int {
		path := "/survey/adatum/" + sv.Slug
		tok := app.token(t, path)
		code, body := app.post(t, path, tok, "", "", "q-"+sv.Questions[0].ID, "Female")
		if code != http.StatusOK {
			return code
		}
		_, state := formOf(t, body)
		code, _ = app.post(t, path, tok, state, "")
		return code
	}
	poll := func(title string) *survey.Survey {
		sv := app.publish(t, &survey.Survey{Title: title,
			Sections: []survey.Section{{ID: "you", Title: "You"}, {ID: "more", Title: "More"}},
			Questions: []survey.Question{{ID: "g", Text: "Gender", Type: survey.MultipleChoice, PossibleAnswers: []string{"Female", "Male"}, Section: "you"},
				{ID: "c", Text: "Comment", Type: survey.SimpleText, Optional: true, Section: "more"}},
			Quotas: []survey.Quota{{Name: "women", Limit: 1, Action: survey.QuotaSkip, Section: "more",
				If: survey.Condition{Rules: []survey.Rule{{Question: "g", Op: "equals", Values: []string{"Female"}}}}}}})
		app.pastCacheTTL()
		return sv
	}

	clean := faulty.New(st)
	use(clean)
	if code := answer(poll("Clean skip")); code != http.StatusSeeOther {
		t.Fatalf("clean answer = %d", code)
	}
	calls := clean.Calls()
	if calls < 4 {
		t.Fatalf("an answer into a skip quota's cell made %d storage calls (%v); want the counts' read on its page step, the counter's read and write and the enqueue", calls, clean.Ops())
	}
	t.Logf("an answer into a skip quota's cell: %d storage calls %v", calls, clean.Ops())
	ctx := context.Background()
	for n := int64(1); n <= calls; n++ {
		for _, after := range []bool{false, true} {
			sv := poll("Skip crash")
			use(faulty.At(st, n, after))
			first := answer(sv)
			use(st) // restarted
			if second := answer(sv); second != http.StatusSeeOther {
				t.Errorf("call %d (after %v): the healthy server's answer = %d", n, after, second)
			}
			acked := 1
			if first == http.StatusSeeOther {
				acked++
			}
			filed, counted, _ := app.countAnswers(t, sv)
			c, err := store.NewQuotaStore(st).Counts(ctx, "adatum", sv.Slug)
			if err != nil {
				t.Fatal(err)
			}
			taken, over := 0, 0
			if err := app.answers.ListAll(ctx, "adatum", sv.Slug, func(id string) error {
				a, err := app.answers.Get(ctx, "adatum", sv.Slug, id)
				if err != nil {
					return err
				}
				taken += len(a.Quotas)
				over += len(a.OverQuota)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if c["women"] > 1 || taken > c["women"] || filed < acked || int64(filed) != counted || taken+over != filed {
				t.Errorf("call %d (after %v): first %d; %d acknowledged, %d filed, %d counted; %d taken, %d over quota; cell count %d",
					n, after, first, acked, filed, counted, taken, over, c["women"])
			}
		}
	}
}
