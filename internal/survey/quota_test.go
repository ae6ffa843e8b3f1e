package survey_test

import (
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
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

// withSkip asks gender (q1) on page s1, age (q2) on s2, a long block
// (q3, required) on s3 and a last word (q4) on s4; its quota "women"
// (limit 2) skips to s4.
func withSkip() *survey.Survey {
	return &survey.Survey{Tenant: "adatum", Slug: "skip", Title: "Skip", State: survey.Draft,
		Sections: []survey.Section{{ID: "s1"}, {ID: "s2"}, {ID: "s3"}, {ID: "s4"}},
		Questions: []survey.Question{
			{ID: "q1", Text: "Gender", Type: survey.MultipleChoice, PossibleAnswers: []string{"Female", "Male"}, Section: "s1"},
			{ID: "q2", Text: "Age", Type: survey.Dropdown, PossibleAnswers: []string{"18–29", "30+"}, Section: "s2"},
			{ID: "q3", Text: "Your story", Type: survey.SimpleText, Section: "s3"},
			{ID: "q4", Text: "Last word", Type: survey.SimpleText, Optional: true, Section: "s4"},
		},
		Quotas: []survey.Quota{{Name: "women", Limit: 2, Action: " Skip ", Section: "s4",
			If: survey.Condition{Rules: []survey.Rule{{Question: "q1", Op: "equals", Values: []string{"Female"}}}}}},
	}
}

func TestQuotaSkipValid(t *testing.T) {
	s := withSkip()
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if q := s.Quotas[0]; q.Action != survey.QuotaSkip || !q.Skips() {
		t.Errorf("normalized quota %+v", q)
	}
	if !s.HasLogic() {
		t.Error("a survey whose quota skips has no logic")
	}
	// A quota without an action ends the survey, as before actions.
	e := withQuotas()
	e.Normalize()
	if e.Quotas[0].Action != survey.QuotaEnd || e.Quotas[0].Skips() {
		t.Errorf("default action %q", e.Quotas[0].Action)
	}
}

func TestQuotaSkipRefused(t *testing.T) {
	for _, c := range []struct {
		name            string
		action, section string
		rulesOn         string
		key             string
	}{
		{"unknown action", "jump", "s4", "q1", "quotas.0.action"},
		{"no section", "skip", "", "q1", "quotas.0.section"},
		{"unknown section", "skip", "s9", "q1", "quotas.0.section"},
		{"its own section", "skip", "s1", "q1", "quotas.0.section"},
		{"a section before its rules", "skip", "s2", "q2", "quotas.0.section"},
		{"a section with end", "end", "s4", "q1", "quotas.0.section"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := withSkip()
			s.Quotas[0].Action, s.Quotas[0].Section = c.action, c.section
			s.Quotas[0].If.Rules[0].Question = c.rulesOn
			if c.rulesOn == "q2" {
				s.Quotas[0].If.Rules[0].Values = []string{"30+"}
			}
			s.Normalize()
			if p := s.Problems(); p[c.key] == "" {
				t.Errorf("no problem at %s: %v", c.key, p)
			}
		})
	}
}

func TestQuotaSkipPath(t *testing.T) {
	s := withSkip()
	s.Normalize()
	female := map[string]survey.QuestionAnswer{"q1": {QuestionID: "q1", Type: survey.MultipleChoice, Answer: "Female"}}
	male := map[string]survey.QuestionAnswer{"q1": {QuestionID: "q1", Type: survey.MultipleChoice, Answer: "Male"}}
	for _, c := range []struct {
		name    string
		answers map[string]survey.QuestionAnswer
		sc      survey.Screened
		want    string
	}{
		{"not screened", female, nil, "s1 s2 s3 s4"},
		{"screened leaving s1", female, survey.Screened{"women": "s1"}, "s1 s4"},
		{"screened leaving s2", female, survey.Screened{"women": "s2"}, "s1 s2 s4"},
		{"screened leaving s3: nothing to skip", female, survey.Screened{"women": "s3"}, "s1 s2 s3 s4"},
		{"no longer in the cell", male, survey.Screened{"women": "s1"}, "s1 s2 s3 s4"},
		{"unknown quota", female, survey.Screened{"men": "s1"}, "s1 s2 s3 s4"},
	} {
		if got := strings.Join(s.Path(s.WithScreened(c.answers, c.sc)), " "); got != c.want {
			t.Errorf("%s: path %q, want %q", c.name, got, c.want)
		}
	}
	// The skipped section's required question is not required, and an
	// answer to it is dropped.
	forms := surveytest.Forms(map[string]string{"q1": "Female", "q3": "kept?"})
	a, err := survey.NewAnswerScreened(s, forms, nil, survey.Screened{"women": "s1"})
	if err != nil {
		t.Fatalf("screened answer refused: %v", err)
	}
	if _, ok := a.Answer("q3"); ok || len(a.Answers) != 1 {
		t.Errorf("screened answer %+v", a.Answers)
	}
	if _, err := survey.NewAnswerWith(s, surveytest.Forms(map[string]string{"q1": "Female"}), nil); err == nil {
		t.Error("an answer that skipped nothing was accepted without q2 and q3")
	}
	p := survey.NewPartialAnswerScreened(s, forms, nil, survey.Screened{"women": "s1"})
	if len(p.Answers) != 1 {
		t.Errorf("screened partial answer %+v", p.Answers)
	}
	if got := s.OverQuota([]string{"women"}, survey.Screened{"women": "s1"}); len(got) != 1 {
		t.Errorf("over quota %v", got)
	}
}

func TestQuotaMessageTranslated(t *testing.T) {
	s := withSkip()
	s.Quotas[0].Message = "Thank you: we have enough."
	s.Translations = map[string]survey.Translation{"fr": {Quotas: []string{" Merci : nous en avons assez. "}}}
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if tr, _ := s.Translated("fr"); len(tr.Quotas) != 1 || tr.Quotas[0] != "Merci : nous en avons assez." {
		t.Errorf("translation %+v", tr)
	}
	s.Translations["fr"] = survey.Translation{Quotas: []string{strings.Repeat("x", survey.MaxQuotaMessage+1)}}
	if p := s.Problems(); p["translations.fr.quotas.0"] == "" {
		t.Errorf("no problem with a long message: %v", p)
	}
}
