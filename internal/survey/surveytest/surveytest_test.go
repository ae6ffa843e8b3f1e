package surveytest

import (
	"math/rand/v2"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestExamples: every registered kind has an example, and every example is
// of a registered kind, a question of that kind.
func TestExamples(t *testing.T) {
	for _, k := range survey.Kinds() {
		q, form, ok := Lookup(k.Type())
		if !ok {
			t.Errorf("kind %s has no example: give it one in examples.go, for the conformance and fuzz tests of every kind", k.Type())
			continue
		}
		if q.Type != k.Type() || form == nil {
			t.Errorf("the example of kind %s is a question of type %q (form %v)", k.Type(), q.Type, form != nil)
		}
	}
	for typ := range examples {
		if _, ok := survey.KindOf(typ); !ok {
			t.Errorf("examples.go has an example of %q, which is no registered kind", typ)
		}
	}
}

// TestExampleSurvey: the survey of every kind is valid, has a question of
// each, and takes the answers its source of forms makes.
func TestExampleSurvey(t *testing.T) {
	s, forms := ExampleSurvey("adatum", "kinds")
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(s.Questions) != len(survey.Kinds()) {
		t.Fatalf("%d questions for %d kinds", len(s.Questions), len(survey.Kinds()))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		a, err := survey.NewAnswer(s, forms(r))
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if len(a.Answers) != len(s.Questions) {
			t.Fatalf("answer %d answers %d of %d questions", i, len(a.Answers), len(s.Questions))
		}
	}
}
