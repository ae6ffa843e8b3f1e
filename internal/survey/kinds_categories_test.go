package survey_test

import (
	"math/rand/v2"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestKindCategories runs every kind that has categories (a variable of
// the cross-tabulation) on 300 answers its example's respondents may
// give: each answer falls into at least one category, and into exactly
// one unless the kind says an answer may fall into several; no index is
// past the categories. The kinds that have categories are those a person
// would count by (written out here, not asked of the code).
func TestKindCategories(t *testing.T) {
	want := map[survey.QuestionType]bool{survey.MultipleChoice: true, survey.Dropdown: true, survey.Checkboxes: true, survey.PictureChoice: true,
		survey.YesNo: true, survey.LinearScale: true, survey.FiveStars: true, survey.NetPromoterScore: true}
	for _, k := range survey.Kinds() {
		t.Run(string(k.Type()), func(t *testing.T) {
			s, form := exampleSurvey(t, k)
			q := s.Questions[0]
			labels, multiple, ok := survey.Categories(q)
			if ok != want[k.Type()] {
				t.Fatalf("has categories: %v, want %v", ok, want[k.Type()])
			}
			if !ok {
				return
			}
			if len(labels) < 2 {
				t.Fatalf("categories %q", labels)
			}
			r := rand.New(rand.NewPCG(2, uint64(len(k.Key()))))
			several := false
			for i := range 300 {
				a, err := survey.NewAnswer(s, map[string]survey.Form{"q1": form(r)})
				if err != nil {
					t.Fatalf("answer %d refused: %v", i, err)
				}
				in := survey.CategoriesOf(q, a.Answers[0], nil)
				if len(in) == 0 || len(in) > 1 && !multiple {
					t.Fatalf("%q falls into %v of %q (several: %v)", a.Answers[0].Answer, in, labels, multiple)
				}
				for _, j := range in {
					if j < 0 || j >= len(labels) {
						t.Fatalf("%q falls into %d of %d categories", a.Answers[0].Answer, j, len(labels))
					}
				}
				several = several || len(in) > 1
			}
			if multiple && !several {
				t.Logf("no answer of the example fell into several categories")
			}
		})
	}
}
