package survey_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// exampleAnswers are n answers to a survey of every kind
// (surveytest.ExampleSurvey), as respondents send them.
func exampleAnswers(tb testing.TB, n int) (*survey.Survey, []survey.SurveyAnswer) {
	tb.Helper()
	sv, forms := surveytest.ExampleSurvey("adatum", "every-kind")
	r := rand.New(rand.NewPCG(11, 12))
	out := make([]survey.SurveyAnswer, n)
	for i := range out {
		a, err := survey.NewAnswer(sv, forms(r))
		if err != nil {
			tb.Fatal(err)
		}
		out[i] = a
	}
	return sv, out
}

// TestRecountEveryKind: a Recount of answers to a question of every kind
// gives the summary that adding them one at a time gives, and the one
// the worker's batches give (AddAll).
func TestRecountEveryKind(t *testing.T) {
	sv, answers := exampleAnswers(t, 3000)
	want := survey.NewSummary(sv)
	for _, a := range answers {
		want.Add(a)
	}
	rc := survey.NewRecount(sv)
	for _, a := range answers {
		rc.Add(a)
	}
	got := rc.Summary()
	if !reflect.DeepEqual(got, want) {
		for i := range want.Questions {
			if !reflect.DeepEqual(got.Questions[i], want.Questions[i]) {
				t.Errorf("question %s (%s): recount %+v\nwant %+v", want.Questions[i].QuestionID, want.Questions[i].Type, got.Questions[i], want.Questions[i])
			}
		}
		t.Fatalf("the recount differs from the summary")
	}
	batches := survey.NewSummary(sv)
	for i := 0; i < len(answers); i += 500 {
		batches.AddAll(answers[i:min(i+500, len(answers))])
	}
	if !reflect.DeepEqual(batches, want) {
		t.Fatalf("the batches' summary differs from the answers added one at a time")
	}
}

// BenchmarkRecount counts 10,000 answers to a survey of every kind into
// a Recount: what a filtered analysis or report does per answer picked.
func BenchmarkRecount(b *testing.B) {
	sv, answers := exampleAnswers(b, 10_000)
	for b.Loop() {
		rc := survey.NewRecount(sv)
		for _, a := range answers {
			rc.Add(a)
		}
		rc.Summary()
	}
	b.ReportMetric(float64(len(answers)*b.N)/b.Elapsed().Seconds(), "answers/s")
}
