package survey_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// withLogic is a three-section survey: "about" asks a role (q1), an age
// (q2, a number) and the drinks (q3, checkboxes), and a manager's team
// size (q4) only when q1 is Manager; after it, anyone under 18 goes to the
// end, a tea drinker to "last"; "food" is shown only when q2 is answered.
func withLogic() *survey.Survey {
	return &survey.Survey{Tenant: "adatum", Title: "Logic", State: survey.Draft,
		Sections: []survey.Section{
			{ID: "about", Title: "About you", Jumps: []survey.Jump{
				{If: survey.Condition{Rules: []survey.Rule{{Question: "q2", Op: "less_than", Values: []string{"18"}}}}, To: "end"},
				{If: survey.Condition{Match: "any", Rules: []survey.Rule{{Question: "q3", Op: "equals", Values: []string{"tea"}}}}, To: "last"},
			}},
			{ID: "food", Title: "Food", ShowIf: &survey.Condition{Rules: []survey.Rule{{Question: "q2", Op: "answered"}}}},
			{ID: "last", Title: "Last"},
		},
		Questions: []survey.Question{
			{ID: "q1", Text: "Role", Type: survey.MultipleChoice, PossibleAnswers: []string{"Manager", "Engineer"}, Section: "about"},
			{ID: "q2", Text: "Age", Type: survey.Number, Optional: true, Section: "about"},
			{ID: "q3", Text: "Drinks", Type: survey.Checkboxes, PossibleAnswers: []string{"Coffee", "Tea"}, Optional: true, Section: "about"},
			{ID: "q4", Text: "Team size", Type: survey.Number, Section: "about",
				ShowIf: &survey.Condition{Rules: []survey.Rule{{Question: "q1", Op: "equals", Values: []string{" manager "}}}}},
			{ID: "q5", Text: "Lunch", Type: survey.SimpleText, Section: "food"},
			{ID: "q6", Text: "Anything else", Type: survey.SimpleText, Optional: true, Section: "last"},
		}}
}

func TestLogicValid(t *testing.T) {
	s := withLogic()
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if r := s.Questions[3].ShowIf.Rules[0]; r.Values[0] != "manager" || s.Questions[3].ShowIf.Match != "all" {
		t.Errorf("normalized rule %+v", r)
	}
	// A single section with logic stays a section, so that its
	// problems are shown.
	one := &survey.Survey{Title: "One", State: survey.Draft, Sections: []survey.Section{{ID: "a", Jumps: []survey.Jump{{If: survey.Condition{Rules: []survey.Rule{{Question: "x", Op: "answered"}}}, To: "end"}}}},
		Questions: []survey.Question{{ID: "x", Text: "X", Type: survey.SimpleText}}}
	one.Normalize()
	if len(one.Sections) != 1 || one.Validate() != nil {
		t.Errorf("one section with a jump: %+v, %v", one.Sections, one.Validate())
	}
}

func TestLogicRefused(t *testing.T) {
	rule := func(q, op string, vs ...string) *survey.Condition {
		return &survey.Condition{Rules: []survey.Rule{{Question: q, Op: op, Values: vs}}}
	}
	many := &survey.Condition{}
	for range survey.MaxRules + 1 {
		many.Rules = append(many.Rules, survey.Rule{Question: "q1", Op: "answered"})
	}
	for _, c := range []struct {
		name   string
		change func(s *survey.Survey)
		key    string
	}{
		{"a later question", func(s *survey.Survey) { s.Questions[0].ShowIf = rule("q2", "answered") }, "questions.0.showIf.rules.0.question"},
		{"itself", func(s *survey.Survey) { s.Questions[1].ShowIf = rule("q2", "answered") }, "questions.1.showIf.rules.0.question"},
		{"a question that does not exist", func(s *survey.Survey) { s.Questions[4].ShowIf = rule("q9", "answered") }, "questions.4.showIf.rules.0.question"},
		{"a question ID two questions have", func(s *survey.Survey) { s.Questions[2].ID = "q1" }, "questions.3.showIf.rules.0.question"},
		{"no question", func(s *survey.Survey) { s.Questions[4].ShowIf = rule("", "answered") }, "questions.4.showIf.rules.0.question"},
		{"a hidden question", func(s *survey.Survey) {
			s.Questions[0].Hidden = true
			s.Questions[1].Optional = true
		}, "questions.3.showIf.rules.0.question"},
		{"an unknown op", func(s *survey.Survey) { s.Questions[3].ShowIf = rule("q1", "contains", "x") }, "questions.3.showIf.rules.0.op"},
		{"an unknown match", func(s *survey.Survey) { s.Questions[3].ShowIf.Match = "most" }, "questions.3.showIf.match"},
		{"no rules", func(s *survey.Survey) { s.Questions[3].ShowIf = &survey.Condition{} }, "questions.3.showIf.rules"},
		{"too many rules", func(s *survey.Survey) { s.Questions[3].ShowIf = many }, "questions.3.showIf.rules"},
		{"a value missing", func(s *survey.Survey) { s.Questions[3].ShowIf = rule("q1", "equals") }, "questions.3.showIf.rules.0.values"},
		{"a blank value", func(s *survey.Survey) { s.Questions[3].ShowIf = rule("q1", "equals", "  ") }, "questions.3.showIf.rules.0.values"},
		{"two values for equals", func(s *survey.Survey) { s.Questions[3].ShowIf = rule("q1", "equals", "a", "b") }, "questions.3.showIf.rules.0.values"},
		{"a value for answered", func(s *survey.Survey) { s.Questions[3].ShowIf = rule("q1", "answered", "a") }, "questions.3.showIf.rules.0.values"},
		{"no value for one_of", func(s *survey.Survey) { s.Questions[3].ShowIf = rule("q1", "one_of") }, "questions.3.showIf.rules.0.values"},
		{"too many values", func(s *survey.Survey) {
			s.Questions[3].ShowIf = rule("q1", "one_of", strings.Split(strings.Repeat("a,", survey.MaxRuleValues+1), ",")...)
		}, "questions.3.showIf.rules.0.values"},
		{"a long value", func(s *survey.Survey) { s.Questions[3].ShowIf = rule("q1", "equals", strings.Repeat("a", 201)) }, "questions.3.showIf.rules.0.values"},
		{"a number op on a choice", func(s *survey.Survey) { s.Questions[3].ShowIf = rule("q1", "greater_than", "3") }, "questions.3.showIf.rules.0.op"},
		{"a number op with a word", func(s *survey.Survey) { s.Questions[3].ShowIf = rule("q2", "greater_than", "three") }, "questions.3.showIf.rules.0.values"},
		{"a section on its own question", func(s *survey.Survey) { s.Sections[1].ShowIf = rule("q5", "answered") }, "sections.1.showIf.rules.0.question"},
		{"a condition on the first section", func(s *survey.Survey) { s.Sections[0].ShowIf = rule("q1", "answered") }, "sections.0.showIf"},
		{"a jump on a later section's question", func(s *survey.Survey) { s.Sections[0].Jumps[0].If = *rule("q5", "answered") }, "sections.0.jumps.0.if.rules.0.question"},
		{"a jump backwards", func(s *survey.Survey) {
			s.Sections[2].Jumps = []survey.Jump{{If: *rule("q6", "answered"), To: "about"}}
		}, "sections.2.jumps.0.to"},
		{"a jump to itself", func(s *survey.Survey) { s.Sections[1].Jumps = []survey.Jump{{If: *rule("q5", "answered"), To: "food"}} }, "sections.1.jumps.0.to"},
		{"a jump to an unknown section", func(s *survey.Survey) { s.Sections[0].Jumps[1].To = "nowhere" }, "sections.0.jumps.1.to"},
		{"a jump to nowhere", func(s *survey.Survey) { s.Sections[0].Jumps[1].To = "" }, "sections.0.jumps.1.to"},
		{"too many jumps", func(s *survey.Survey) {
			for range survey.MaxJumps {
				s.Sections[0].Jumps = append(s.Sections[0].Jumps, s.Sections[0].Jumps[0])
			}
		}, "sections.0.jumps"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := withLogic()
			c.change(s)
			s.Normalize()
			var e *survey.Error
			if err := s.Validate(); !errors.As(err, &e) || e.Fields[c.key] == "" {
				t.Fatalf("Validate = %v, want a problem at %s", err, c.key)
			}
		})
	}
}

func answers(kv ...string) map[string]survey.QuestionAnswer {
	types := map[string]survey.QuestionType{"q1": survey.MultipleChoice, "q2": survey.Number, "q3": survey.Checkboxes, "q4": survey.Number, "q5": survey.SimpleText, "q6": survey.SimpleText}
	out := map[string]survey.QuestionAnswer{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = survey.QuestionAnswer{QuestionID: kv[i], Type: types[kv[i]], Answer: kv[i+1]}
	}
	return out
}

func TestConditionHolds(t *testing.T) {
	s := withLogic()
	s.Normalize()
	for _, c := range []struct {
		name    string
		rule    survey.Rule
		answers map[string]survey.QuestionAnswer
		want    bool
	}{
		{"equals ignores case", survey.Rule{Question: "q1", Op: "equals", Values: []string{"manager"}}, answers("q1", "Manager"), true},
		{"equals another", survey.Rule{Question: "q1", Op: "equals", Values: []string{"Engineer"}}, answers("q1", "Manager"), false},
		{"equals unanswered", survey.Rule{Question: "q1", Op: "equals", Values: []string{"Manager"}}, answers(), false},
		{"equals a number", survey.Rule{Question: "q2", Op: "equals", Values: []string{"30.0"}}, answers("q2", "30"), true},
		{"equals a checked box", survey.Rule{Question: "q3", Op: "equals", Values: []string{"Tea"}}, answers("q3", `["Coffee","Tea"]`), true},
		{"equals an unchecked box", survey.Rule{Question: "q3", Op: "equals", Values: []string{"Tea"}}, answers("q3", `["Coffee"]`), false},
		{"not equals", survey.Rule{Question: "q1", Op: "not_equals", Values: []string{"Manager"}}, answers("q1", "Engineer"), true},
		{"not equals the same", survey.Rule{Question: "q1", Op: "not_equals", Values: []string{"Manager"}}, answers("q1", "Manager"), false},
		{"not equals unanswered", survey.Rule{Question: "q1", Op: "not_equals", Values: []string{"Manager"}}, answers(), true},
		{"one of", survey.Rule{Question: "q1", Op: "one_of", Values: []string{"Boss", "Engineer"}}, answers("q1", "Engineer"), true},
		{"none of", survey.Rule{Question: "q1", Op: "one_of", Values: []string{"Boss", "Chef"}}, answers("q1", "Engineer"), false},
		{"greater", survey.Rule{Question: "q2", Op: "greater_than", Values: []string{"17.5"}}, answers("q2", "18"), true},
		{"not greater", survey.Rule{Question: "q2", Op: "greater_than", Values: []string{"18"}}, answers("q2", "18"), false},
		{"less", survey.Rule{Question: "q2", Op: "less_than", Values: []string{"18"}}, answers("q2", "-3"), true},
		{"less unanswered", survey.Rule{Question: "q2", Op: "less_than", Values: []string{"18"}}, answers(), false},
		{"answered", survey.Rule{Question: "q2", Op: "answered"}, answers("q2", "0"), true},
		{"answered empty", survey.Rule{Question: "q2", Op: "answered"}, answers("q2", ""), false},
		{"not answered", survey.Rule{Question: "q2", Op: "not_answered"}, answers(), true},
		{"unknown op", survey.Rule{Question: "q2", Op: "like"}, answers("q2", "1"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cond := &survey.Condition{Match: "all", Rules: []survey.Rule{c.rule}}
			if got := cond.Holds(s, c.answers); got != c.want {
				t.Errorf("Holds = %v, want %v", got, c.want)
			}
		})
	}
	yes := survey.Rule{Question: "q1", Op: "answered"}
	no := survey.Rule{Question: "q2", Op: "answered"}
	a := answers("q1", "Manager")
	for _, c := range []struct {
		cond *survey.Condition
		want bool
	}{
		{nil, true},
		{&survey.Condition{Match: "all", Rules: []survey.Rule{yes, yes}}, true},
		{&survey.Condition{Match: "all", Rules: []survey.Rule{yes, no}}, false},
		{&survey.Condition{Match: "any", Rules: []survey.Rule{no, yes}}, true},
		{&survey.Condition{Match: "any", Rules: []survey.Rule{no, no}}, false},
	} {
		if got := c.cond.Holds(s, a); got != c.want {
			t.Errorf("%+v Holds = %v, want %v", c.cond, got, c.want)
		}
	}
}

func TestPathAndVisible(t *testing.T) {
	s := withLogic()
	s.Normalize()
	ids := func(qs []survey.Question) string {
		var out []string
		for _, q := range qs {
			out = append(out, q.ID)
		}
		return strings.Join(out, ",")
	}
	if got := ids(s.VisibleQuestions("about", answers("q1", "Engineer"))); got != "q1,q2,q3" {
		t.Errorf("visible for an engineer: %s", got)
	}
	if got := ids(s.VisibleQuestions("about", answers("q1", "Manager"))); got != "q1,q2,q3,q4" {
		t.Errorf("visible for a manager: %s", got)
	}
	for _, c := range []struct {
		name    string
		answers map[string]survey.QuestionAnswer
		path    string
		shown   string
	}{
		{"under 18 goes to the end", answers("q1", "Engineer", "q2", "12", "q3", `["Tea"]`), "about", "q1,q2,q3"},
		{"tea goes to last", answers("q1", "Manager", "q2", "40", "q3", `["Tea"]`), "about,last", "q1,q2,q3,q4,q6"},
		{"no age skips food", answers("q1", "Engineer"), "about,last", "q1,q2,q3,q6"},
		{"all the way", answers("q1", "Engineer", "q2", "40"), "about,food,last", "q1,q2,q3,q5,q6"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := strings.Join(s.Path(c.answers), ","); got != c.path {
				t.Errorf("path %s, want %s", got, c.path)
			}
			var shown []string
			for id := range s.Shown(c.answers) {
				shown = append(shown, id)
			}
			slices.Sort(shown)
			if got := strings.Join(shown, ","); got != c.shown {
				t.Errorf("shown %s, want %s", got, c.shown)
			}
		})
	}
	if next, end := s.NextSection("last", nil); !end || next != "" {
		t.Errorf("after the last section: %q %v", next, end)
	}
	if _, end := s.NextSection("nowhere", nil); !end {
		t.Error("after an unknown section: not the end")
	}
	// A survey without sections is one page, then the end.
	plain := &survey.Survey{Questions: []survey.Question{{ID: "a", Text: "A", Type: survey.SimpleText}}}
	if p := plain.Path(nil); !reflect.DeepEqual(p, []string{""}) || len(plain.VisibleQuestions("", nil)) != 1 {
		t.Errorf("one page: %v", p)
	}
	// An answer to a question the path skips decides nothing, and is
	// dropped.
	a := answers("q1", "Engineer", "q4", "3", "q2", "12", "q5", "Soup")
	kept := s.DropHidden(a)
	if _, ok := kept["q4"]; ok || len(kept) != 2 {
		t.Errorf("kept %v", kept)
	}
}

func TestNewAnswerLogic(t *testing.T) {
	s := withLogic()
	s.Normalize()
	// An engineer under 18: the team size (required, hidden) is not
	// asked, the lunch (required, skipped) neither; a team size sent
	// anyway is dropped.
	a, err := survey.NewAnswer(s, surveytest.Forms(map[string]string{"q1": "Engineer", "q2": "12", "q4": "7", "q5": "Soup"}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, qa := range a.Answers {
		got = append(got, qa.QuestionID)
	}
	if strings.Join(got, ",") != "q1,q2" {
		t.Errorf("stored %v", got)
	}
	// A manager must give the team size.
	_, err = survey.NewAnswer(s, surveytest.Forms(map[string]string{"q1": "Manager", "q2": "12"}))
	var e *survey.Error
	if !errors.As(err, &e) || e.Fields["q4"] == "" {
		t.Errorf("manager without a team size: %v", err)
	}
	// An adult with no tea goes through food: the lunch is required.
	_, err = survey.NewAnswer(s, surveytest.Forms(map[string]string{"q1": "Engineer", "q2": "30"}))
	if !errors.As(err, &e) || e.Fields["q5"] == "" {
		t.Errorf("adult without lunch: %v", err)
	}
}

// TestRenameQuestions: a new survey's rules follow its questions to the
// IDs the store gives them; the copy of a survey keeps its logic.
func TestRenameQuestions(t *testing.T) {
	s := withLogic()
	s.RenameQuestions([]string{"v_000", "v_001", "v_002", "v_003", "v_004", "v_005"})
	if s.Questions[3].ShowIf.Rules[0].Question != "v_000" || s.Sections[0].Jumps[0].If.Rules[0].Question != "v_001" || s.Sections[1].ShowIf.Rules[0].Question != "v_001" {
		t.Errorf("rules not renamed: %+v %+v", s.Questions[3].ShowIf, s.Sections[0].Jumps)
	}
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	cp := s.Duplicate(s.CreatedOn)
	if cp.Questions[3].ShowIf.Rules[0].Question != "q1" || cp.Sections[0].Jumps[1].If.Rules[0].Question != "q3" {
		t.Errorf("copy's rules: %+v", cp.Questions[3].ShowIf)
	}
	cp.Questions[3].ShowIf.Rules[0].Values[0] = "changed"
	if s.Questions[3].ShowIf.Rules[0].Values[0] == "changed" {
		t.Error("the copy shares its rules with the original")
	}
	if err := cp.Validate(); err != nil {
		t.Errorf("copy: %v", err)
	}
}

// FuzzLogic: any JSON for a question's condition and a section's jumps
// decodes, normalizes, validates and evaluates without panicking; what
// Validate accepts stays valid and gives a path forward through the
// survey.
func FuzzLogic(f *testing.F) {
	f.Add([]byte(`{"match":"any","rules":[{"question":"q1","op":"equals","values":["Manager"]}]}`), []byte(`[{"if":{"rules":[{"question":"q2","op":"less_than","values":["18"]}]},"to":"end"}]`), "Manager", "12")
	f.Add([]byte(`{"rules":[{"question":"q2","op":"greater_than","values":["1e3"]}]}`), []byte(`[{"if":{"rules":[{"question":"q3","op":"one_of","values":["Tea","x"]}]},"to":"last"}]`), "Engineer", "NaN")
	f.Add([]byte(`{"rules":[]}`), []byte(`[{"to":"about"}]`), "", "")
	f.Fuzz(func(t *testing.T, cond, jumps []byte, role, age string) {
		s := withLogic()
		var c survey.Condition
		if json.Unmarshal(cond, &c) != nil {
			return
		}
		var js []survey.Jump
		if json.Unmarshal(jumps, &js) != nil {
			return
		}
		s.Questions[3].ShowIf = &c
		s.Sections[0].Jumps = js
		s.Normalize()
		a := answers("q1", role, "q2", age, "q3", `["Tea"]`)
		s.Path(a)
		s.Shown(a)
		if s.Validate() != nil {
			return
		}
		s.Normalize()
		if err := s.Validate(); err != nil {
			t.Fatalf("valid, then not: %v", err)
		}
		path := s.Path(a)
		for i := 1; i < len(path); i++ {
			from := slices.IndexFunc(s.Sections, func(sc survey.Section) bool { return sc.ID == path[i-1] })
			to := slices.IndexFunc(s.Sections, func(sc survey.Section) bool { return sc.ID == path[i] })
			if to <= from {
				t.Fatalf("path %v goes back", path)
			}
		}
	})
}

// TestPagePath: the pages a respondent goes through follow the answers
// given so far (a section skipped, a jump, a page whose every question is
// hidden left out); a question whose condition looks at its own page is
// shown live, one on an earlier page as its condition holds.
func TestPagePath(t *testing.T) {
	s := withLogic()
	s.Normalize()
	s.Questions = append(s.Questions, survey.Question{ID: "q7", Text: "Why?", Type: survey.SimpleText, Section: "last",
		ShowIf: &survey.Condition{Match: "any", Rules: []survey.Rule{{Question: "q6", Op: "answered"}, {Question: "q1", Op: "equals", Values: []string{"Manager"}}}}})
	s.Questions[5].ShowIf = &survey.Condition{Match: "all", Rules: []survey.Rule{{Question: "q1", Op: "not_equals", Values: []string{"Engineer"}}}}
	pages := s.Pages()
	for _, c := range []struct {
		name  string
		forms map[string]survey.Form
		path  []int
		// q6 and q7 on the last page: shown, live.
		q6, q7 [2]bool
	}{
		{"nothing yet: food skipped (no age)", nil, []int{0, 2}, [2]bool{true, false}, [2]bool{true, true}},
		{"an age: food", map[string]survey.Form{"q2": {"": {"40"}}}, []int{0, 1, 2}, [2]bool{true, false}, [2]bool{true, true}},
		{"under 18: the end", map[string]survey.Form{"q2": {"": {"12"}}}, []int{0}, [2]bool{true, false}, [2]bool{true, true}},
		{"an engineer: the last page shows q7 live only", map[string]survey.Form{"q1": {"": {"Engineer"}}}, []int{0, 2}, [2]bool{false, false}, [2]bool{true, true}},
		{"a manager: q7 shown, decided", map[string]survey.Form{"q1": {"": {"Manager"}}}, []int{0, 2}, [2]bool{true, false}, [2]bool{true, false}},
		{"an answer the kind refuses is no answer", map[string]survey.Form{"q2": {"": {"forty"}}}, []int{0, 2}, [2]bool{true, false}, [2]bool{true, true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			kept := s.DropHidden(s.Given(c.forms))
			if got := s.PagePath(pages, kept); !reflect.DeepEqual(got, c.path) {
				t.Errorf("path %v, want %v", got, c.path)
			}
			for i, want := range [][2]bool{c.q6, c.q7} {
				show, live := s.PageShows(s.Questions[5+i], kept)
				if [2]bool{show, live} != want {
					t.Errorf("q%d shown %v live %v, want %v", 6+i, show, live, want)
				}
			}
		})
	}
	if !s.HasLogic() || (&survey.Survey{Questions: []survey.Question{{ID: "a"}}}).HasLogic() {
		t.Error("HasLogic")
	}
	// A page whose every question is hidden is left out of the path.
	s.Questions[4].ShowIf = &survey.Condition{Match: "all", Rules: []survey.Rule{{Question: "q1", Op: "equals", Values: []string{"Manager"}}}}
	if got := s.PagePath(s.Pages(), s.DropHidden(s.Given(map[string]survey.Form{"q1": {"": {"Engineer"}}, "q2": {"": {"40"}}}))); !reflect.DeepEqual(got, []int{0, 2}) {
		t.Errorf("path past an empty page %v", got)
	}
}

// TestShownWithoutLogic: a survey without logic (HasLogic false) shows
// every question that is not hidden, whatever the answers, hidden values
// and screened cells: NewAnswerScreened checks such a survey's answers
// without working out its path.
func TestShownWithoutLogic(t *testing.T) {
	every, forms := surveytest.ExampleSurvey("adatum", "every-kind")
	paged := &survey.Survey{Tenant: "adatum", Title: "Pages", HiddenFields: []string{"source"},
		Sections: []survey.Section{{ID: "a", Title: "A"}, {ID: "empty", Title: "Empty"}, {ID: "b", Title: "B"}},
		Quotas:   []survey.Quota{{Name: "cap", Limit: 10, If: survey.Condition{Rules: []survey.Rule{{Question: "q1", Op: "equals", Values: []string{"Manager"}}}}}},
		Questions: []survey.Question{
			{ID: "q1", Text: "Role", Type: survey.MultipleChoice, PossibleAnswers: []string{"Manager", "Engineer"}, Section: "a"},
			{ID: "q2", Text: "Gone", Type: survey.SimpleText, Section: "a", Hidden: true},
			{ID: "q3", Text: "Age", Type: survey.Number, Optional: true, Section: "b"},
			{ID: "q4", Text: "Of no section", Type: survey.SimpleText, Section: "nowhere"},
			{ID: "q5", Text: "Gone too", Type: survey.SimpleText, Section: "empty", Hidden: true},
		}}
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		s     *survey.Survey
		forms func(*rand.Rand) map[string]survey.Form
	}{
		{every, forms},
		{paged, func(r *rand.Rand) map[string]survey.Form {
			return map[string]survey.Form{"q1": survey.Value([]string{"Manager", "Engineer"}[r.IntN(2)]), "q3": survey.Value("41"), "q4": survey.Value("x")}
		}},
	} {
		if tc.s.HasLogic() {
			t.Fatalf("%s has logic", tc.s.Title)
		}
		var want []string
		for _, q := range tc.s.Questions {
			if !q.Hidden {
				want = append(want, q.ID)
			}
		}
		for range 20 {
			given := tc.s.GivenWith(tc.forms(r), map[string]string{"source": "mail"})
			shown := tc.s.Shown(tc.s.WithScreened(given, survey.Screened{"cap": "a"}))
			var got []string
			for _, q := range tc.s.Questions {
				if shown[q.ID] {
					got = append(got, q.ID)
				}
			}
			if !slices.Equal(got, want) || len(shown) != len(want) {
				t.Fatalf("%s: Shown = %v, want %v", tc.s.Title, shown, want)
			}
		}
	}
}
