package survey

import "testing"

// TestMultipleChoiceOther: "Other" ticked needs its text; the text alone
// is the other answer (typing in it is choosing it); a choice wins over
// a text left behind.
func TestMultipleChoiceOther(t *testing.T) {
	q := Question{Text: "Drink?", Type: MultipleChoice, PossibleAnswers: []string{"Coffee", "Tea"}, Other: true}
	tests := []struct {
		name string
		in   Form
		want string
		prob string
	}{
		{"a choice", Value("Tea"), "Tea", ""},
		{"Other ticked, its text written", Form{"": {OtherChoice}, "other": {" Mate "}}, OtherMark + "Mate", ""},
		{"Other ticked, no text", Form{"": {OtherChoice}}, "", "Please say what your other answer is."},
		{"Other ticked, a blank text", Form{"": {OtherChoice}, "other": {"  "}}, "", "Please say what your other answer is."},
		{"the text alone", Form{"other": {"Mate"}}, OtherMark + "Mate", ""},
		{"a choice and a text", Form{"": {"Coffee"}, "other": {"Mate"}}, "Coffee", ""},
		{"nothing", Form{}, "", "Please choose one answer."},
	}
	for _, tc := range tests {
		got, problem := kindsAAnswer(t, q, tc.in)
		if got != tc.want || problem != tc.prob {
			t.Errorf("%s: got %q, %q; want %q, %q", tc.name, got, problem, tc.want, tc.prob)
		}
	}
	// Optional: Other ticked without a text is still refused, not taken
	// for no answer.
	q.ID, q.Optional = "q1", true
	s := &Survey{Title: "T", State: Published, Questions: []Question{q}}
	s.Normalize()
	if _, err := NewAnswer(s, map[string]Form{"q1": {"": {OtherChoice}}}); err == nil || err.(*Error).Fields["q1"] != "Please say what your other answer is." {
		t.Errorf("optional, Other ticked without a text: %v", err)
	}
	// Without Other, "(other)" is no choice; with it, it cannot be one.
	q.Other = false
	if got, problem := kindsAAnswer(t, q, Value(OtherChoice)); got != "" || problem != "Please choose one of the answers offered." {
		t.Errorf("(other) without Other: %q, %q", got, problem)
	}
	if got := kindsAFields(Question{ID: "q1", Text: "Q", Type: MultipleChoice, PossibleAnswers: []string{"A", "(other)"}, Other: true})["questions.0.choices"]; got == "" {
		t.Error("a possible answer (other) beside Other is accepted")
	}
}
