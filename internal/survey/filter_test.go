package survey_test

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// filterSurvey has a question of each shape a filter meets: one choice,
// several, a rating, a number, a text.
func filterSurvey() *survey.Survey {
	return &survey.Survey{Tenant: "adatum", Slug: "s", Title: "Filters", Questions: []survey.Question{
		{ID: "q1", Text: "Which device?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Web site", "Mobile app"}},
		{ID: "q2", Text: "Which do you use?", Type: survey.Checkboxes, PossibleAnswers: []string{"Mail", "Chat", "Phone"}},
		{ID: "q3", Text: "Rate us", Type: survey.FiveStars},
		{ID: "q4", Text: "How many?", Type: survey.Number, Optional: true},
		{ID: "q5", Text: "Anything else?", Type: survey.SimpleText, Optional: true},
	}}
}

func filterAnswer(t *testing.T, sv *survey.Survey, on string, forms map[string]survey.Form) *survey.SurveyAnswer {
	t.Helper()
	a, err := survey.NewAnswer(sv, forms)
	if err != nil {
		t.Fatal(err)
	}
	if a.CreatedOn, err = time.Parse(time.RFC3339, on); err != nil {
		t.Fatal(err)
	}
	return &a
}

func TestAnswerFilter(t *testing.T) {
	sv := filterSurvey()
	// Given at the very end of 2 December 2026, UTC: mobile, mail and
	// chat, 4 stars, 12 of them.
	a := filterAnswer(t, sv, "2026-12-02T23:59:59Z", map[string]survey.Form{
		"q1": survey.Value("Mobile app"), "q2": {"": {"Mail", "Chat"}}, "q3": survey.Value("4"), "q4": survey.Value("12"), "q5": survey.Value("Great"),
	})
	// Given at the start of 3 December: web, phone, 2 stars, no number.
	b := filterAnswer(t, sv, "2026-12-03T00:00:00Z", map[string]survey.Form{
		"q1": survey.Value("Web site"), "q2": survey.Value("Phone"), "q3": survey.Value("2"),
	})
	for _, tc := range []struct {
		query    string
		a, b     bool
		describe string
	}{
		{"", true, true, ""},
		{"from=&to=&q=&a=", true, true, ""},
		{"from=2026-12-02", true, true, "from 2 Dec 2026"},
		{"from=2026-12-03", false, true, "from 3 Dec 2026"},
		{"to=2026-12-02", true, false, "until 2 Dec 2026"},
		{"from=2026-12-02&to=2026-12-02", true, false, "from 2 Dec 2026 to 2 Dec 2026"},
		{"from=2026-12-03&to=2026-12-31", false, true, ""},
		{"q=q1&a=Mobile+app", true, false, "answer to “Which device?” is “Mobile app”"},
		{"q=q1&a=+mobile+APP+", true, false, ""},
		{"q=q1&a=Mobile", false, false, ""},
		{"q=q2&a=Chat", true, false, ""},
		{"q=q2&a=Phone", false, true, ""},
		{"q=q3&a=4", true, false, ""},
		{"q=q3&a=4.0", true, false, ""},
		{"q=q4&a=12", true, false, ""},
		{"q=q4&a=1.2e1", true, false, ""},
		{"q=q4&a=0", false, false, ""},
		{"q=q5&a=great", true, false, ""},
		{"from=2026-12-03&q=q1&a=Mobile+app", false, false, ""},
		// Picked answers (c=<ref>=<answer>): each must hold, with q and a.
		{"c=q1%3DMobile+app", true, false, "answer to “Which device?” is “Mobile app”"},
		{"c=q1%3DMobile+app&c=q3%3D4", true, false, "answer to “Which device?” is “Mobile app”, answer to “Rate us” is “4”"},
		{"c=q1%3DMobile+app&c=q3%3D2", false, false, ""},
		{"c=q2%3DMail&c=q2%3DChat&c=&c=", true, false, ""},
		{"c=q2%3DPhone&q=q3&a=2", false, true, "answer to “Rate us” is “2”, answer to “Which do you use?” is “Phone”"},
		{"c=q2%3DPhone&c=q2%3Dphone", false, true, "answer to “Which do you use?” is “Phone”"},
		{"c=", true, true, ""},
	} {
		v, _ := url.ParseQuery(tc.query)
		f, err := survey.ParseAnswerFilter(sv, v)
		if err != nil {
			t.Errorf("%q: %v", tc.query, err)
			continue
		}
		if got := f.Match(a); got != tc.a {
			t.Errorf("%q matches the first answer: %v, want %v", tc.query, got, tc.a)
		}
		if got := f.Match(b); got != tc.b {
			t.Errorf("%q matches the second answer: %v, want %v", tc.query, got, tc.b)
		}
		if tc.describe != "" && f.Describe() != tc.describe {
			t.Errorf("%q describes itself as %q, want %q", tc.query, f.Describe(), tc.describe)
		}
		if f.Active() != (f.Values().Encode() != "") {
			t.Errorf("%q: active %v, values %q", tc.query, f.Active(), f.Values().Encode())
		}
		// Its values read back as the same filter.
		if g, err := survey.ParseAnswerFilter(sv, f.Values()); err != nil || g.Values().Encode() != f.Values().Encode() {
			t.Errorf("%q read back as %q, %v", tc.query, g.Values().Encode(), err)
		}
	}
}

func TestAnswerFilterInvalid(t *testing.T) {
	sv := filterSurvey()
	for _, tc := range []struct{ query, field, message string }{
		{"from=2026-13-01", "from", "YYYY-MM-DD"},
		{"from=yesterday", "from", "YYYY-MM-DD"},
		{"to=2026-2-1", "to", "YYYY-MM-DD"},
		{"to=1899-12-31", "to", "from 1900-01-01"},
		{"from=2026-12-03&to=2026-12-02", "to", "before the first day"},
		{"a=Mobile+app", "q", "Choose the question"},
		{"q=q9&a=x", "q", "no such question"},
		{"q=q1", "a", "Give the answer"},
		{"q=q1&a=" + strings.Repeat("x", survey.MaxFilterAnswer+1), "a", "at most 200"},
		{"c=q9%3Dx", "c.0", "no such question"},
		{"c=&c=q1", "c.1", "Give the answer"},
		{"c=q1%3D" + strings.Repeat("x", survey.MaxFilterAnswer+1), "c.0", "at most 200"},
		{"c=hidden:nosuch%3Dx", "c.0", "nosuch"},
		{"c=q1%3Da&c=q1%3Db&c=q1%3Dc&c=q1%3Dd&c=q1%3De&c=q1%3Df", "c.5", "at most 5"},
	} {
		v, _ := url.ParseQuery(tc.query)
		_, err := survey.ParseAnswerFilter(sv, v)
		var se *survey.Error
		if survey.ErrorCode(err) != survey.EINVALID {
			t.Errorf("%q: %v, want invalid", tc.query, err)
			continue
		}
		se = err.(*survey.Error)
		if !strings.Contains(se.Fields[tc.field], tc.message) {
			t.Errorf("%q: fields %q, want %s: …%s…", tc.query, se.Fields, tc.field, tc.message)
		}
	}
}

// FuzzParseAnswerFilter: any query is a filter or an invalid one with a
// message beside a field it reads; a filter reads back as itself and
// matching never panics.
func FuzzParseAnswerFilter(f *testing.F) {
	for _, s := range []string{"", "from=2026-12-01&to=2026-12-02", "q=q1&a=Mobile+app", "c=q1%3DMobile+app&c=q3%3D4&c=", "c=%3D%3D", "q=q4&a=1e400", "q=q4&a=NaN", "from=2026-02-30", "a=%00", "q=q2&a=%E2%80%AE"} {
		f.Add(s)
	}
	sv := filterSurvey()
	a, _ := survey.NewAnswer(sv, map[string]survey.Form{"q1": survey.Value("Mobile app"), "q2": survey.Value("Mail"), "q3": survey.Value("4"), "q4": survey.Value("12")})
	a.CreatedOn = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, query string) {
		v, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		filter, err := survey.ParseAnswerFilter(sv, v)
		if err != nil {
			se, ok := err.(*survey.Error)
			if !ok || se.Code != survey.EINVALID || len(se.Fields) == 0 {
				t.Fatalf("%q: %v", query, err)
			}
			for k := range se.Fields {
				n, isPick := strings.CutPrefix(k, "c.")
				if i, err := strconv.Atoi(n); isPick && (err != nil || i >= len(v["c"])) || !isPick && k != "from" && k != "to" && k != "q" && k != "a" && k != "status" {
					t.Fatalf("%q: a problem beside %q", query, k)
				}
			}
			return
		}
		filter.Match(&a)
		_ = filter.Describe()
		back, err := survey.ParseAnswerFilter(sv, filter.Values())
		if err != nil || back.Values().Encode() != filter.Values().Encode() || back.Match(&a) != filter.Match(&a) {
			t.Fatalf("%q read back as %q, %v", query, back.Values().Encode(), err)
		}
	})
}
