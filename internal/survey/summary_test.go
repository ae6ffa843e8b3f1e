package survey

import (
	"reflect"
	"testing"
)

func answer(text, choice, stars string) SurveyAnswer {
	a, err := NewAnswer(validSurvey(), map[string]string{"q1": text, "q2": choice, "q3": stars})
	if err != nil {
		panic(err)
	}
	return a
}

func TestSummaryAdd(t *testing.T) {
	sum := NewSummary(validSurvey())
	sum.Add(answer("The app is fast and the app is pretty", "Blue", "5"))
	sum.Add(answer("Fast!", "Blue", "4"))
	sum.Add(answer("slow at night", "Red", "4"))
	if sum.TotalAnswers != 3 {
		t.Fatalf("TotalAnswers = %d", sum.TotalAnswers)
	}
	q2 := sum.Questions[1]
	if !reflect.DeepEqual(q2.Choices, []ChoiceCount{{"Red", 1}, {"Blue", 2}}) {
		t.Errorf("choices = %v", q2.Choices)
	}
	q3 := sum.Questions[2]
	if count, total := q3.StarCount(); count != 3 || total != 13 || *q3.Stars != [5]int64{0, 0, 0, 2, 1} {
		t.Errorf("stars = %v count %d sum %d", *q3.Stars, count, total)
	}
	if avg := q3.Average(); avg != 13.0/3 {
		t.Errorf("average = %v", avg)
	}
	top := sum.Questions[0].TopWords(3)
	want := []WordCount{{"app", 2}, {"fast", 2}, {"night", 1}}
	if !reflect.DeepEqual(top, want) {
		t.Errorf("top words = %v, want %v", top, want)
	}
}

// Merging summaries gives the same counts as adding every answer to one:
// the average is exact, never a rounded mean merged again.
func TestSummaryMergeIsExact(t *testing.T) {
	answers := []SurveyAnswer{answer("a b c", "Red", "1"), answer("b c", "Blue", "2"), answer("c", "Red", "2"), answer("dd ee", "Blue", "5")}
	whole := NewSummary(validSurvey())
	for _, a := range answers {
		whole.Add(a)
	}
	merged := NewSummary(validSurvey())
	for _, a := range answers {
		part := NewSummary(validSurvey())
		part.Add(a)
		merged.Merge(part)
	}
	if !reflect.DeepEqual(whole, merged) {
		t.Errorf("merged %+v\nwhole  %+v", merged, whole)
	}
	if got := merged.Questions[2].Average(); got != 2.5 {
		t.Errorf("average = %v, want 2.5", got)
	}
}

// Two questions with the same text are kept apart: summaries merge by ID.
func TestSummaryByQuestionID(t *testing.T) {
	s := &Survey{Tenant: "adatum", Slug: "twins", Title: "Twins", State: Draft, Questions: []Question{
		{ID: "a", Text: "Rate it", Type: FiveStars},
		{ID: "b", Text: "Rate it", Type: FiveStars},
	}}
	a, err := NewAnswer(s, map[string]string{"a": "1", "b": "5"})
	if err != nil {
		t.Fatal(err)
	}
	sum := NewSummary(s)
	sum.Add(a)
	if sum.Questions[0].Average() != 1 || sum.Questions[1].Average() != 5 {
		t.Errorf("averages %v %v, want 1 and 5", sum.Questions[0].Average(), sum.Questions[1].Average())
	}
}

func TestWords(t *testing.T) {
	got := Words("The QUICK brown fox — isn't it quick? I'd say: 'très' rapide, 42x!")
	want := []string{"quick", "brown", "fox", "quick", "say", "très", "rapide", "42x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
}
