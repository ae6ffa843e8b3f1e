package survey

import (
	"strings"
	"testing"
)

func TestConsentAnswer(t *testing.T) {
	q := Question{Text: "Consent", Type: Consent, Statement: "I agree."}
	tests := []struct {
		in, want, prob string
	}{
		{"accepted", "accepted", ""},
		{" Accepted ", "accepted", ""},
		{"true", "accepted", ""},
		{"yes", "accepted", ""},
		{"", "", "Please tick the box to give your consent."},
		{"on", "", "To give your consent, tick the box; to decline, leave it empty."},
		{"no", "", "To give your consent, tick the box; to decline, leave it empty."},
	}
	for _, tc := range tests {
		got, problem := kindsAAnswer(t, q, Value(tc.in))
		if got != tc.want || problem != tc.prob {
			t.Errorf("%q: got %q, %q; want %q, %q", tc.in, got, problem, tc.want, tc.prob)
		}
	}
	// Optional, left empty: no answer, and no problem (declined).
	q.ID, q.Optional = "q1", true
	s := &Survey{Title: "T", State: Published, Questions: []Question{q}}
	s.Normalize()
	if a, err := NewAnswer(s, map[string]Form{"q1": Value("")}); err != nil || len(a.Answers) != 0 {
		t.Errorf("optional, empty: %+v, %v", a.Answers, err)
	}
}

func TestConsentDefinition(t *testing.T) {
	tests := []struct {
		name      string
		statement string
		want      string // the problem beside .statement
	}{
		{"none", "", "Write the statement people agree to by ticking the box."},
		{"blank", " \n ", "Write the statement people agree to by ticking the box."},
		{"too long", strings.Repeat("é", MaxStatementLength+1), "Keep the statement to 2000 characters (it has 2001)."},
		{"lines", "I agree.\r\nReally.", ""},
		{"at the bound", strings.Repeat("é", MaxStatementLength), ""},
	}
	for _, tc := range tests {
		got := kindsAFields(Question{ID: "q1", Text: "Consent", Type: Consent, Statement: tc.statement})["questions.0.statement"]
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// Another kind has no statement: Normalize clears it.
	s := &Survey{Questions: []Question{{ID: "q1", Text: "Q", Type: YesNo, Statement: "stray"}, {ID: "q2", Text: "Q", Type: Consent, Statement: " a\r\nb "}}}
	s.Normalize()
	if s.Questions[0].Statement != "" || s.Questions[1].Statement != "a\nb" {
		t.Errorf("normalized statements %q, %q", s.Questions[0].Statement, s.Questions[1].Statement)
	}
}
