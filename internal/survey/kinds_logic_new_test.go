package survey

import "testing"

// TestNewKindsInLogic: a rule may look at a yes/no answer (as its text)
// and at a slider's (as a number), as at the older kinds.
func TestNewKindsInLogic(t *testing.T) {
	s := &Survey{Title: "T", State: Published, Questions: []Question{
		{ID: "a", Text: "Car?", Type: YesNo},
		{ID: "b", Text: "Miles?", Type: Slider, Min: "0", Max: "100", Step: "10"},
		{ID: "c", Text: "Which car?", Type: SimpleText, Optional: true, ShowIf: &Condition{Match: MatchAll, Rules: []Rule{{Question: "a", Op: "equals", Values: []string{"Yes"}}}}},
		{ID: "d", Text: "Why so far?", Type: SimpleText, Optional: true, ShowIf: &Condition{Match: MatchAll, Rules: []Rule{{Question: "b", Op: "greater_than", Values: []string{"50"}}}}},
	}}
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		yes, miles string
		c, d       bool
	}{{"Yes", "60", true, true}, {"No", "50", false, false}, {"yes", "0", true, false}} {
		a, err := NewAnswer(s, map[string]Form{"a": Value(tc.yes), "b": {"slider": {tc.miles}, "set": {"1"}}})
		if err != nil {
			t.Fatal(err)
		}
		given := map[string]QuestionAnswer{}
		for _, qa := range a.Answers {
			given[qa.QuestionID] = qa
		}
		shown := s.Shown(given)
		if shown["c"] != tc.c || shown["d"] != tc.d {
			t.Errorf("%s, %s miles: shown c %v d %v, want %v %v", tc.yes, tc.miles, shown["c"], shown["d"], tc.c, tc.d)
		}
	}
}
