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

func (s *swapQuotas) Take(ctx context.Context, tenant, slug string, names []string, limits map[string]int) (string, error) {
	return s.p.Load().Take(ctx, tenant, slug, names, limits)
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
