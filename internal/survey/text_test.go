package survey

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanText(t *testing.T) {
	tests := []struct{ in, text, line string }{
		{"plain words", "plain words", "plain words"},
		{"two\nlines\r\n\tindented", "two\nlines\r\n\tindented", "two lines   indented"},
		{"nul\x00here", "nulhere", "nulhere"},
		{"bell\x07 del\x7f c1\u0085", "bell del c1", "bell del c1"},
		{"evil\u202egnp.exe", "evilgnp.exe", "evilgnp.exe"},
		{"\u2066isolated\u2069 \u202alr\u202c", "isolated lr", "isolated lr"},
		{"bad \xff\xfe bytes", "bad  bytes", "bad  bytes"},
		{"kept \uFFFD é 日本 \u200f", "kept \uFFFD é 日本 \u200f", "kept \uFFFD é 日本 \u200f"},
		{"", "", ""},
	}
	for _, tc := range tests {
		if got := CleanText(tc.in); got != tc.text {
			t.Errorf("CleanText(%q) = %q, want %q", tc.in, got, tc.text)
		}
		if got := CleanLine(tc.in); got != tc.line {
			t.Errorf("CleanLine(%q) = %q, want %q", tc.in, got, tc.line)
		}
	}
}

func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"hello", "a\x00b", "\u202eabc", "\xff", "line\nline\ttab\r", "\u2069\u0085\x7f", "é\uFFFD"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, lines := range []bool{true, false} {
			got := clean(s, lines)
			if !utf8.ValidString(got) {
				t.Fatalf("clean(%q, %v) = %q: not UTF-8", s, lines, got)
			}
			for _, r := range got {
				if badRune(r, lines) {
					t.Fatalf("clean(%q, %v) = %q keeps %U", s, lines, got, r)
				}
			}
			if again := clean(got, lines); again != got {
				t.Fatalf("clean is not idempotent: %q then %q", got, again)
			}
			if len(got) > len(s) {
				t.Fatalf("clean(%q, %v) = %q grew", s, lines, got)
			}
			safe := utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return badRune(r, lines) })
			if safe && got != s {
				t.Fatalf("clean(%q, %v) = %q changed a safe text", s, lines, got)
			}
		}
	})
}

// A NUL, a direction override or a stray byte in an answer is dropped
// before the answer is stored (a NUL once made every PostgreSQL copy of
// the survey fail); line breaks of a long answer stay.
func TestNewAnswerCleansText(t *testing.T) {
	a, err := NewAnswer(validSurvey(), forms(map[string]string{"q1": "fine\x00 \u202eanswer\xff\nsecond line", "q2": "Red\x00", "q3": "4"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Answers[0].Answer; got != "fine answer\nsecond line" {
		t.Errorf("text answer = %q", got)
	}
	if got := a.Answers[1].Answer; got != "Red" {
		t.Errorf("choice = %q", got)
	}
	if _, err := NewAnswer(validSurvey(), forms(map[string]string{"q1": "\x00\u2066", "q2": "Red", "q3": "4"})); ErrorCode(err) != EINVALID {
		t.Errorf("an answer of control characters only: err = %v, want EINVALID", err)
	}
}

// Titles, questions, choices and tenant names are cleaned by Normalize and
// refused by Validate when they are not.
func TestDefinitionsCleanText(t *testing.T) {
	s := validSurvey()
	s.Title = "Feed\x00back\u202e"
	s.Questions[0].Text = "Name\na thing\x1b"
	s.Questions[1].PossibleAnswers = []string{"Re\x00d", "\u2067Blue"}
	dirty := *s
	dirty.Questions = append([]Question(nil), s.Questions...)
	dirty.Questions[1].PossibleAnswers = append([]string(nil), s.Questions[1].PossibleAnswers...)
	e, ok := dirty.Validate().(*Error)
	if !ok || e.Fields["title"] == "" || e.Fields["questions.0.text"] == "" || e.Fields["questions.1.choices"] == "" {
		t.Errorf("Validate of a dirty survey = %v", dirty.Validate())
	}
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.Title != "Feedback" || s.Questions[0].Text != "Name a thing" || s.Questions[1].PossibleAnswers[0] != "Red" || s.Questions[1].PossibleAnswers[1] != "Blue" {
		t.Errorf("normalized: %q %q %q", s.Title, s.Questions[0].Text, s.Questions[1].PossibleAnswers)
	}

	tn := &Tenant{Key: "adatum", Name: "Adatum\u202e\x00 Inc", Plan: Trial}
	if e, ok := tn.Validate().(*Error); !ok || e.Fields["name"] == "" {
		t.Errorf("Validate of a dirty tenant name = %v", tn.Validate())
	}
	tn.Normalize()
	if err := tn.Validate(); err != nil || tn.Name != "Adatum Inc" {
		t.Errorf("normalized name %q: %v", tn.Name, err)
	}
}

// FuzzOneSpaced: oneSpaced gives what strings.Fields joined by spaces
// gives, whether it takes s as it is or not.
func FuzzOneSpaced(f *testing.F) {
	for _, s := range []string{"", " ", "Ana", "Ana Lima", "Ana  Lima", " Ana", "Ana ", "Ana\tLima", "Ana\u00a0Lima", "Ana\u2003Lima", "a\xffb", "\u0085", "x\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := oneSpaced(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("oneSpaced(%q) = %q, want %q", s, got, want)
		}
	})
}

// FuzzOutside: outside bounds numbers as big.Rat does (rat), whether it
// reads them as whole numbers or not.
func FuzzOutside(f *testing.F) {
	for _, s := range [][3]string{{"5", "1", "100000"}, {"-3", "+2", ""}, {"007", "", "7"}, {"1.5", "2", "3"}, {"9223372036854775808", "1", ""},
		{"0", "", ""}, {"0x10", "16", "20"}, {"1_0", "10", "10"}, {"1/2", "0.5", "1"}, {"12", "1.5", "100"}, {"x", "1", "2"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, n, min, max string) {
		r := rat(n)
		want := (min != "" && r.Cmp(rat(min)) < 0) || (max != "" && r.Cmp(rat(max)) > 0)
		if got := outside(n, min, max); got != want {
			t.Errorf("outside(%q, %q, %q) = %v, want %v", n, min, max, got, want)
		}
	})
}
