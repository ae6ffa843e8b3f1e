package survey_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
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

// TestMergeRecounts: answers counted in parts (each the answers after
// the part before's: a survey's segments shared out among cores), some
// parts empty, then merged in order give the summary one Recount of all
// of them gives, to the byte: with partial answers, hidden fields and
// variables of more values than a summary keeps, questions the survey
// no longer has (first given in a later part), equal numbers written
// differently, and more words than a summary keeps.
func TestMergeRecounts(t *testing.T) {
	sv, answers := exampleAnswers(t, 3000)
	number := ""
	for _, q := range sv.Questions {
		if q.Type == survey.Number {
			number = q.ID
		}
	}
	for i := range answers {
		a := &answers[i]
		a.Partial = i%17 == 5
		a.Hidden = map[string]string{"source": "s" + strconv.Itoa(i%450)}
		if i%3 == 0 {
			a.Values = map[string]string{"score": strconv.Itoa(i % 300)}
		}
		// New slices: the example answers may share them.
		a.Answers = append([]survey.QuestionAnswer(nil), a.Answers...)
		if i >= 1700 && i%5 == 0 {
			a.Answers = append(a.Answers, survey.QuestionAnswer{QuestionID: "gone" + strconv.Itoa(i%3), QuestionText: "Gone", Type: survey.MultipleChoice, Answer: "c" + strconv.Itoa(i%7)})
		}
		for j := range a.Answers {
			if a.Answers[j].QuestionID == number && i%11 == 0 {
				a.Answers[j].Answer = []string{"7", "7.0", "07", "-3", "-3.00"}[i%5]
			}
		}
	}
	one := survey.NewRecount(sv)
	for _, a := range answers {
		one.Add(a)
	}
	want := one.Summary()
	if !slices.ContainsFunc(want.Questions, func(q survey.QuestionAnswersSummary) bool { return q.OtherWords > 0 }) || want.Hidden["source"].OtherValues == 0 {
		t.Fatal("the answers use no more words or values than a summary keeps: the test needs more")
	}
	wantJSON, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 5, 8} {
		// n parts of random sizes, some empty.
		cuts := []int{0, len(answers)}
		for range n - 1 {
			cuts = append(cuts, r.IntN(len(answers)+1))
		}
		slices.Sort(cuts)
		var parts []*survey.Recount
		for k := range n {
			rc := survey.NewRecount(sv)
			for _, a := range answers[cuts[k]:cuts[k+1]] {
				rc.Add(a)
			}
			parts = append(parts, rc)
		}
		got := survey.MergeRecounts(parts)
		gotJSON, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gotJSON, wantJSON) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%d parts (cut at %v): merged\n%s\nwant\n%s", n, cuts, gotJSON, wantJSON)
		}
	}
}
