package survey

import (
	"strings"
	"testing"
)

// kindsAAnswer answers the one question q of a survey with form f, as a
// respondent's browser does: the stored answer, or the problem shown
// beside the question.
func kindsAAnswer(t *testing.T, q Question, f Form) (stored, problem string) {
	t.Helper()
	q.ID = "q1"
	s := &Survey{Tenant: "adatum", Slug: "kinds", Title: "Kinds", State: Published, Questions: []Question{q}}
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatalf("definition %+v refused: %v", q, err)
	}
	a, err := NewAnswer(s, map[string]Form{"q1": f})
	if err != nil {
		return "", err.(*Error).Fields["q1"]
	}
	return a.Answers[0].Answer, ""
}

// kindsAFields is the field errors of a one-question survey (nil when
// valid).
func kindsAFields(q Question) map[string]string {
	s := &Survey{Tenant: "adatum", Slug: "kinds", Title: "Kinds", State: Published, Questions: []Question{q}}
	s.Normalize()
	if err := s.Validate(); err != nil {
		return err.(*Error).Fields
	}
	return nil
}

// boundsCase is a definition of a kind with bounds: the field refused (""
// when valid) and the bounds as Normalize keeps them.
type boundsCase struct {
	name     string
	q        Question
	field    string
	min, max string
}

// checkBounds checks definitions of kind t's bounds.
func checkBounds(t *testing.T, typ QuestionType, tests []boundsCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Text, q.Type, q.ID = "Q", typ, "q1"
			fields := kindsAFields(q)
			if tc.field == "" && fields != nil || tc.field != "" && fields["questions.0"+tc.field] == "" {
				t.Errorf("fields %v, want a problem of %q", fields, tc.field)
			}
			s := &Survey{Questions: []Question{q}}
			s.Normalize()
			if s.Questions[0].Min != tc.min || s.Questions[0].Max != tc.max {
				t.Errorf("normalized to %q–%q, want %q–%q", s.Questions[0].Min, s.Questions[0].Max, tc.min, tc.max)
			}
		})
	}
}

func TestShortTextAnswer(t *testing.T) {
	free := Question{Text: "Name", Type: ShortText}
	email := Question{Text: "E-mail", Type: ShortText, Format: "email"}
	web := Question{Text: "Site", Type: ShortText, Format: "url"}
	bounded := Question{Text: "Code", Type: ShortText, Min: "3", Max: "5"}
	tests := []struct {
		name    string
		q       Question
		in      string
		want    string
		problem string // a part of the problem, "" when accepted
	}{
		{"free text", free, "  Ana  Berg ", "Ana Berg", ""},
		{"a pasted line break is a space", free, "Ana\nBerg", "Ana Berg", ""},
		{"default bound: 500 characters", free, strings.Repeat("é", 500), strings.Repeat("é", 500), ""},
		{"past 500 characters", free, strings.Repeat("é", 501), "", "Please keep your answer to 500 characters (it has 501)."},
		{"nothing", free, "   ", "", "Please write an answer."},
		{"too short", bounded, "ab", "", "Please write at least 3 characters (your answer has 2)."},
		{"too long", bounded, "abcdef", "", "Please keep your answer to 5 characters (it has 6)."},
		{"within bounds", bounded, "abc", "abc", ""},
		{"e-mail", email, "ana@example.com", "ana@example.com", ""},
		{"e-mail, international", email, "émile@exämple.com", "émile@exämple.com", ""},
		{"e-mail with a name", email, "Ana <ana@example.com>", "", "Please give an e-mail address"},
		{"not an e-mail", email, "ana at example.com", "", "Please give an e-mail address"},
		{"no domain", email, "ana@", "", "Please give an e-mail address"},
		{"https", web, "https://example.com/a?b=c", "https://example.com/a?b=c", ""},
		{"http, upper-case scheme", web, "HTTP://example.com", "HTTP://example.com", ""},
		{"no scheme", web, "example.com", "", "Please give a web address"},
		{"another scheme", web, "javascript:alert(1)", "", "Please give a web address"},
		{"ftp", web, "ftp://example.com", "", "Please give a web address"},
		{"no host", web, "https:///path", "", "Please give a web address"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, problem := kindsAAnswer(t, tc.q, Value(tc.in))
			if got != tc.want || !strings.Contains(problem, tc.problem) || (tc.problem == "") != (problem == "") {
				t.Errorf("%q: got %q, %q; want %q, %q", tc.in, got, problem, tc.want, tc.problem)
			}
		})
	}
}

func TestShortTextDefinition(t *testing.T) {
	tests := []boundsCase{
		{"no bounds", Question{Format: "email"}, "", "", ""},
		{"bounds", Question{Min: "0", Max: "500"}, "", "0", "500"},
		{"leading zeros", Question{Min: "007", Max: " 10 "}, "", "7", "10"},
		{"past 500", Question{Max: "501"}, ".max", "", "501"},
		{"negative", Question{Min: "-1"}, ".min", "-1", ""},
		{"not whole", Question{Min: "1.5"}, ".min", "1.5", ""},
		{"min past max", Question{Min: "20", Max: "10"}, ".max", "20", "10"},
		{"unknown format", Question{Format: "phone"}, ".format", "", ""},
	}
	checkBounds(t, ShortText, tests)
}

func TestShortTextChart(t *testing.T) {
	s := &Survey{Questions: []Question{{ID: "q1", Text: "Q", Type: ShortText}}}
	sum := NewSummary(s)
	for _, v := range []string{"Fast service", "fast delivery"} {
		sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: ShortText, Answer: v}}})
	}
	c := shortText{}.Chart(&sum.Questions[0])
	if len(c.Words) == 0 || c.Words[0] != (WordCount{"fast", 2}) {
		t.Errorf("words = %v, want fast ×2 first", c.Words)
	}
}
