package survey

import (
	"strings"
	"testing"
)

func TestShortTextPattern(t *testing.T) {
	q := Question{Text: "Member number", Type: ShortText, Pattern: `[A-Z]{2}[0-9]{6}`, PatternMessage: "Two capitals and six digits, like AB123456."}
	tests := []struct {
		in, want, prob string
	}{
		{"AB123456", "AB123456", ""},
		{" AB123456 ", "AB123456", ""},
		{"ab123456", "", "Two capitals and six digits, like AB123456."},
		// Whole answers only: not a part of one.
		{"XAB123456", "", "Two capitals and six digits, like AB123456."},
		{"AB1234567", "", "Two capitals and six digits, like AB123456."},
		{"AB123456\nCD654321", "", "Two capitals and six digits, like AB123456."},
	}
	for _, tc := range tests {
		got, problem := kindsAAnswer(t, q, Value(tc.in))
		if got != tc.want || problem != tc.prob {
			t.Errorf("%q: got %q, %q; want %q, %q", tc.in, got, problem, tc.want, tc.prob)
		}
	}
	// An alternation is of the whole answer.
	q.Pattern, q.PatternMessage = `yes|no`, "Yes or no."
	for in, ok := range map[string]bool{"yes": true, "no": true, "yesno": false, "nope": false} {
		if got, _ := kindsAAnswer(t, q, Value(in)); (got != "") != ok {
			t.Errorf("yes|no on %q: %q", in, got)
		}
	}
}

func TestShortTextPatternDefinition(t *testing.T) {
	tests := []struct {
		name, pattern, message string
		want                   map[string]string
	}{
		{"none", "", "", nil},
		{"a message without a pattern is dropped", "", "stray", nil},
		{"good", `\d{4} ?[A-Z]{2}`, "A Dutch postcode, like 1234 AB.", nil},
		{"no message", `\d+`, "", map[string]string{"patternMessage": "Say what an answer should look like: people whose answer does not fit the pattern read this."}},
		{"not RE2: a backreference", `(a)\1`, "m", map[string]string{"pattern": "This is not a regular expression Go can read (RE2): invalid escape sequence in \"\\\\1\"."}},
		{"not RE2: a lookahead", `a(?=b)`, "m", map[string]string{"pattern": "This is not a regular expression Go can read (RE2): invalid or unsupported Perl syntax in \"(?=\"."}},
		{"unbalanced, which wrapping would hide", `a)|(b`, "m", map[string]string{"pattern": "This is not a regular expression Go can read (RE2): unexpected ) in \"a)|(b\"."}},
		{"too long", strings.Repeat("a", MaxPatternLength+1), "m", map[string]string{"pattern": "Keep the pattern to 200 characters (it has 201)."}},
		{"a repeat too large", `a{1001}`, "m", map[string]string{"pattern": "This is not a regular expression Go can read (RE2): invalid repeat count in \"{1001}\"."}},
		{"message too long", `a`, strings.Repeat("m", 201), map[string]string{"patternMessage": "Keep the message to 200 characters (it has 201)."}},
	}
	for _, tc := range tests {
		errs := kindsAFields(Question{ID: "q1", Text: "Q", Type: ShortText, Pattern: tc.pattern, PatternMessage: tc.message})
		for _, f := range []string{"pattern", "patternMessage"} {
			if got := errs["questions.0."+f]; got != tc.want[f] {
				t.Errorf("%s: %s %q, want %q", tc.name, f, got, tc.want[f])
			}
		}
	}
	s := &Survey{Questions: []Question{{ID: "q1", Text: "Q", Type: ShortText, PatternMessage: "stray"}, {ID: "q2", Text: "Q", Type: SimpleText, Pattern: "a", PatternMessage: "m"}}}
	s.Normalize()
	if q := s.Questions[0]; q.PatternMessage != "" {
		t.Errorf("a message without a pattern is kept: %+v", q)
	}
	if q := s.Questions[1]; q.Pattern != "" || q.PatternMessage != "" {
		t.Errorf("a long text keeps a pattern: %+v", q)
	}
}

// TestPatternCompiledOnce: the same pattern is compiled once.
func TestPatternCompiledOnce(t *testing.T) {
	a, err := compilePattern(`[a-z]+-once`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := compilePattern(`[a-z]+-once`)
	if a != b {
		t.Error("a pattern is compiled again")
	}
}
