package survey_test

import (
	"math/rand/v2"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// BenchmarkNewAnswer checks complete answers to a survey of every kind
// (surveytest.ExampleSurvey), as a respondent's submit does
// (NewAnswerScreened): each kind's parsing and checks, the logic's path,
// the answer made.
func BenchmarkNewAnswer(b *testing.B) {
	sv, forms := surveytest.ExampleSurvey("adatum", "every-kind")
	r := rand.New(rand.NewPCG(3, 4))
	sent := make([]map[string]survey.Form, 64)
	for i := range sent {
		sent[i] = forms(r)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := survey.NewAnswerScreened(sv, sent[i%len(sent)], nil, nil); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
