package web_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/store/storetest"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
	"github.com/surveys-dev/surveys/internal/web"
)

// partsReader is the store's reader with the number of parts of a
// filtered scan set by the test (parts), and the number it last used
// (used).
type partsReader struct {
	*store.SurveyAnswerStore
	parts, used atomic.Int32
}

func (r *partsReader) ScanFilteredParts(ctx context.Context, tenant, slug string, filter survey.AnswerFilter, _ int, start func(k int) func(of int, a *survey.SurveyAnswer) error) ([]int, error) {
	reads, err := r.SurveyAnswerStore.ScanFilteredParts(ctx, tenant, slug, filter, int(r.parts.Load()), start)
	r.used.Store(int32(len(reads)))
	return reads, err
}

// TestCountFilteredInParts: the filtered analysis page and the filtered
// report of a survey of every kind whose answers fill several segments
// are the same, byte for byte (the report's text), whether the answers
// are counted in one part or in several read at once and merged.
func TestCountFilteredInParts(t *testing.T) {
	t.Parallel()
	st := backends.Local(t)
	reader := &partsReader{SurveyAnswerStore: store.NewSurveyAnswerStore(st)}
	app := newTestAppOn(t, st, func(d *web.Deps) { d.Reader = reader })
	ctx := context.Background()
	sv, forms := surveytest.ExampleSurvey("adatum", "parts")
	if err := app.surveys.Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	answers := make([]*survey.SurveyAnswer, 5000)
	for i := range answers {
		a, err := survey.NewAnswer(sv, forms(r))
		if err != nil {
			t.Fatal(err)
		}
		a.CreatedOn = start.Add(time.Duration(i) * 20 * time.Minute)
		a.ID = store.NewAnswerID(a.CreatedOn)
		answers[i] = &a
	}
	if err := storetest.PutSegmented(ctx, st, sv, answers); err != nil {
		t.Fatal(err)
	}
	if _, err := store.NewUserStore(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	idOf := func(k survey.QuestionType) string {
		for _, q := range sv.Questions {
			if q.Type == k {
				return q.ID
			}
		}
		t.Fatalf("no question of kind %s", k)
		return ""
	}
	base := "/adatum/surveys/" + sv.Slug
	for _, q := range []url.Values{
		{"c": {idOf(survey.MultipleChoice) + "=Coffee", idOf(survey.YesNo) + "=Yes"}, "from": {"2026-01-31"}},
		{"status": {"complete"}},
		{"to": {"2026-02-20"}},
	} {
		var pages, reports []string
		for _, n := range []int32{1, 4} {
			reader.parts.Store(n)
			code, _, page := app.get(t, base+"/analyze?"+q.Encode(), c)
			if code != 200 {
				t.Fatalf("analyze?%s = %d", q.Encode(), code)
			}
			if used := reader.used.Load(); n > 1 && used < 2 || n == 1 && used != 1 {
				t.Fatalf("%d parts asked for, %d used: the answers fill too few segments", n, used)
			}
			code, header, body := app.get(t, base+"/report.pdf?"+q.Encode(), c)
			if code != 200 {
				t.Fatalf("report.pdf?%s = %d", q.Encode(), code)
			}
			texts := readReport(t, header, body)
			pages, reports = append(pages, page), append(reports, fmt.Sprint(texts))
		}
		if pages[0] != pages[1] {
			t.Errorf("analyze?%s differs counted in parts:\n%s\nin one:\n%s", q.Encode(), pages[1], pages[0])
		}
		if reports[0] != reports[1] {
			t.Errorf("report.pdf?%s differs counted in parts:\n%s\nin one:\n%s", q.Encode(), reports[1], reports[0])
		}
	}
}
