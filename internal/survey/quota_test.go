package survey_test

import (
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// withQuotas asks a gender (q1), an age band (q2), a comment (q3), and
// has the hidden field panel; its quota "young women" counts Female and
// 18–29, "panel a" counts the link's panel=a.
func withQuotas() *survey.Survey {
	return &survey.Survey{Tenant: "adatum", Title: "Quotas", State: survey.Draft, HiddenFields: []string{"panel"},
		Questions: []survey.Question{
			{ID: "q1", Text: "Gender", Type: survey.MultipleChoice, PossibleAnswers: []string{"Female", "Male", "Another"}},
			{ID: "q2", Text: "Age", Type: survey.Dropdown, PossibleAnswers: []string{"18–29", "30–49", "50+"}},
			{ID: "q3", Text: "Comment", Type: survey.SimpleText, Optional: true},
		},
		Quotas: []survey.Quota{
			{Name: " young women ", Limit: 20, Message: "We have enough answers\r\nfrom young women.",
				If: survey.Condition{Rules: []survey.Rule{{Question: "q1", Op: "equals", Values: []string{"female"}}, {Question: "q2", Op: "one_of", Values: []string{"18–29"}}}}},
			{Name: "panel a", Limit: 1, If: survey.Condition{Rules: []survey.Rule{{Question: "hidden:panel", Op: "equals", Values: []string{"a"}}}}},
		}}
}

func TestQuotasValid(t *testing.T) {
	s := withQuotas()
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if q := s.Quotas[0]; q.Name != "young women" || q.Message != "We have enough answers\nfrom young women." || q.If.Match != "all" {
		t.Errorf("normalized quota %+v", q)
	}
}

func TestQuotasRefused(t *testing.T) {
	rule := func(q, op string, vs ...string) survey.Condition {
		return survey.Condition{Rules: []survey.Rule{{Question: q, Op: op, Values: vs}}}
	}
	many := make([]survey.Quota, survey.MaxQuotas+1)
	for i := range many {
		many[i] = survey.Quota{Name: "q" + strings.Repeat("x", i), Limit: 1, If: rule("q1", "equals", "Female")}
	}
	for _, c := range []struct {
		name   string
		quotas []survey.Quota
		key    string
	}{
		{"no name", []survey.Quota{{Limit: 1, If: rule("q1", "equals", "Female")}}, "quotas.0.name"},
		{"same name", []survey.Quota{{Name: "A", Limit: 1, If: rule("q1", "equals", "Female")}, {Name: "a", Limit: 1, If: rule("q1", "equals", "Male")}}, "quotas.1.name"},
		{"limit zero", []survey.Quota{{Name: "a", Limit: 0, If: rule("q1", "equals", "Female")}}, "quotas.0.limit"},
		{"limit too high", []survey.Quota{{Name: "a", Limit: 1_000_001, If: rule("q1", "equals", "Female")}}, "quotas.0.limit"},
		{"no rules", []survey.Quota{{Name: "a", Limit: 1}}, "quotas.0.if.rules"},
		{"unknown question", []survey.Quota{{Name: "a", Limit: 1, If: rule("q9", "equals", "Female")}}, "quotas.0.if.rules.0.question"},
		{"not a choice", []survey.Quota{{Name: "a", Limit: 1, If: rule("q1", "equals", "Robot")}}, "quotas.0.if.rules.0.values"},
		{"a text question", []survey.Quota{{Name: "a", Limit: 1, If: rule("q3", "equals", "hi")}}, "quotas.0.if.rules.0.question"},
		{"another op", []survey.Quota{{Name: "a", Limit: 1, If: rule("q1", "not_equals", "Female")}}, "quotas.0.if.rules.0.op"},
		{"unknown hidden field", []survey.Quota{{Name: "a", Limit: 1, If: rule("hidden:source", "equals", "x")}}, "quotas.0.if.rules.0.question"},
		{"too many", many, "quotas"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := withQuotas()
			s.Quotas = c.quotas
			p := s.Problems()
			if p[c.key] == "" {
				t.Errorf("no problem at %s: %v", c.key, p)
			}
		})
	}
}

func TestQuotaCells(t *testing.T) {
	s := withQuotas()
	s.Normalize()
	ans := func(gender, age string, hidden map[string]string) *survey.SurveyAnswer {
		a := &survey.SurveyAnswer{Hidden: hidden}
		if gender != "" {
			a.Answers = append(a.Answers, survey.QuestionAnswer{QuestionID: "q1", Type: survey.MultipleChoice, Answer: gender})
		}
		if age != "" {
			a.Answers = append(a.Answers, survey.QuestionAnswer{QuestionID: "q2", Type: survey.Dropdown, Answer: age})
		}
		return a
	}
	for _, c := range []struct {
		name string
		a    *survey.SurveyAnswer
		want string
	}{
		{"both", ans("Female", "18–29", nil), "young women"},
		{"one of two", ans("Female", "30–49", nil), ""},
		{"other gender", ans("Male", "18–29", nil), ""},
		{"nothing", ans("", "", nil), ""},
		{"hidden field", ans("Male", "50+", map[string]string{"panel": "a"}), "panel a"},
		{"two cells", ans("Female", "18–29", map[string]string{"panel": "a"}), "young women,panel a"},
		{"another panel", ans("Female", "50+", map[string]string{"panel": "b"}), ""},
	} {
		if got := strings.Join(s.QuotaCells(c.a), ","); got != c.want {
			t.Errorf("%s: cells %q, want %q", c.name, got, c.want)
		}
	}
	if l := s.QuotaLimits([]string{"young women", "panel a"}); l["young women"] != 20 || l["panel a"] != 1 {
		t.Errorf("limits %v", l)
	}
}

func TestQuotasFollowRenamedQuestions(t *testing.T) {
	s := withQuotas()
	s.RenameQuestions([]string{"a1", "a2", "a3"})
	if r := s.Quotas[0].If.Rules; r[0].Question != "a1" || r[1].Question != "a2" {
		t.Errorf("rules %+v", r)
	}
	d := s.Duplicate(s.CreatedOn)
	if len(d.Quotas) != 2 || d.Quotas[0].If.Rules[0].Question != "q1" {
		t.Errorf("duplicate's quotas %+v", d.Quotas)
	}
}
