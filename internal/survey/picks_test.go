package survey_test

import (
	"math/rand/v2"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// TestFilterPicks: a kind's picks are answers a filter finds: every
// answer to its example (but an Other text) is picked by one of them,
// and a pick matches no answer that is not it. Kinds without picks are
// typed, or have no one answer to pick.
func TestFilterPicks(t *testing.T) {
	s, forms := surveytest.ExampleSurvey("adatum", "picks")
	r := rand.New(rand.NewPCG(3, 4))
	for _, q := range s.Questions {
		picks := survey.FilterPicks(q)
		k, _ := survey.KindOf(q.Type)
		set := k.Settings()
		if wantPicks := set.Choices && !set.Rows && !set.Files && k.Key() != "ranking" || q.Type == survey.YesNo || q.Type == survey.Consent ||
			q.Type == survey.FiveStars || q.Type == survey.LinearScale || q.Type == survey.NetPromoterScore; wantPicks != (len(picks) > 0) {
			t.Errorf("%s: picks %q", q.Type, picks)
		}
		if len(picks) == 0 {
			continue
		}
		filters := make([]survey.AnswerFilter, len(picks))
		for j, p := range picks {
			f, err := survey.ParseAnswerFilter(s, url.Values{"c": {q.ID + "=" + p}})
			if err != nil || len(f.Picks) != 1 {
				t.Fatalf("%s: pick %q: %v", q.Type, p, err)
			}
			filters[j] = f
		}
		for range 40 {
			a, err := survey.NewAnswer(s, forms(r))
			if err != nil {
				t.Fatal(err)
			}
			qa, ok := a.Answer(q.ID)
			if !ok || qa.Answer == "" {
				continue
			}
			cells := k.Cells(q, qa)
			picked := slices.IndexFunc(filters, func(f survey.AnswerFilter) bool { return f.Match(&a) }) >= 0
			if !picked && !q.Other {
				t.Errorf("%s: no pick finds the answer %q (cells %q)", q.Type, qa.Answer, cells)
			}
			for j, f := range filters {
				if f.Match(&a) && !slices.ContainsFunc(cells, func(c string) bool { return strings.EqualFold(c, picks[j]) }) {
					t.Errorf("%s: pick %q finds %q (cells %q)", q.Type, picks[j], qa.Answer, cells)
				}
			}
		}
	}
}
