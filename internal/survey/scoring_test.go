package survey

import (
	"strings"
	"testing"
)

// quiz is a survey with points on a multiple choice and on checkboxes, a
// quiz yes/no, a number and variables over them.
func quiz() *Survey {
	return &Survey{Title: "Quiz", State: Draft, OnePer: OnePerNone,
		Questions: []Question{
			{ID: "a", Text: "Colour?", Type: MultipleChoice, PossibleAnswers: []string{"Red", "Blue"}, Points: map[string]float64{"Red": 3, "Blue": 1}},
			{ID: "b", Text: "Pets?", Type: Checkboxes, PossibleAnswers: []string{"Cat", "Dog", "Fish"}, Points: map[string]float64{"Cat": 2, "Dog": 2, "Fish": -1}},
			{ID: "c", Text: "Is water wet?", Type: YesNo, Correct: []string{"Yes"}, Feedback: "It is."},
			{ID: "d", Text: "Age?", Type: Number, Optional: true},
		},
		Scoring: Scoring{Variables: []Variable{
			{Name: "total", Func: FuncSum, Args: []string{"a", "b", "10"}},
			{Name: "best", Func: FuncMax, Args: []string{"a", "b", "c"}},
			{Name: "mean", Func: FuncAverage, Args: []string{"a", "d"}},
			{Name: "n", Func: FuncCount, Args: []string{"a", "b", "d"}},
			{Name: "low", Func: FuncMin, Args: []string{"var:total", "d"}},
		},
			Outcomes: []Outcome{{Var: "total", Min: 15, Message: "Great"}, {Var: ScoreName, Min: 1, Message: "Fine"}}},
	}
}

func TestScoringValues(t *testing.T) {
	for _, tc := range []struct {
		name    string
		forms   map[string]Form
		want    map[string]string
		outcome int // -1: none
	}{
		{"high", map[string]Form{"a": Value("Red"), "b": {"": {"Cat", "Dog"}}, "c": Value("Yes"), "d": Value("40")},
			map[string]string{"score": "8", "total": "17", "best": "4", "mean": "21.5", "n": "3", "low": "17"}, 0},
		{"low", map[string]Form{"a": Value("Blue"), "b": {"": {"Fish"}}, "c": Value("No")},
			map[string]string{"score": "0", "total": "10", "best": "1", "mean": "1", "n": "2", "low": "10"}, -1},
		{"middle", map[string]Form{"a": Value("Blue"), "b": {"": {"Fish", "Cat"}}, "c": Value("Yes"), "d": Value("2.5")},
			map[string]string{"score": "3", "total": "12", "best": "1", "mean": "1.75", "n": "3", "low": "2.5"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := quiz()
			a, err := NewAnswer(s, tc.forms)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				if a.Values[k] != v {
					t.Errorf("%s = %q, want %q (all %v)", k, a.Values[k], v, a.Values)
				}
			}
			got, ok := s.Outcome(a.Values)
			if !ok {
				got = -1
			}
			if got != tc.outcome {
				t.Errorf("outcome %d, want %d", got, tc.outcome)
			}
		})
	}
}

func TestScoringValidate(t *testing.T) {
	for _, tc := range []struct {
		name, key, want string
		edit            func(s *Survey)
	}{
		{"valid", "", "", func(*Survey) {}},
		{"unknown question", "variables", "neither a question", func(s *Survey) { s.Variables[0].Args = []string{"zz"} }},
		{"text question", "variables", "neither points nor a number", func(s *Survey) {
			s.Questions = append(s.Questions, Question{ID: "e", Text: "Why?", Type: SimpleText})
			s.Variables[0].Args = []string{"e"}
		}},
		{"cycle", "variables", "depends on itself", func(s *Survey) { s.Variables[0].Args = []string{"var:low"} }},
		{"bad name", "variables", "not allowed", func(s *Survey) { s.Variables[0].Name = "Total!" }},
		{"q and a number", "variables", "not allowed", func(s *Survey) { s.Variables[0].Name = "q3" }},
		{"score", "variables", "the survey's score", func(s *Survey) { s.Variables[0].Name = "score" }},
		{"twice", "variables", "named twice", func(s *Survey) { s.Variables[1].Name = "total" }},
		{"bad func", "variables", "choose one of", func(s *Survey) { s.Variables[0].Func = "median" }},
		{"unknown var", "variables", "not a variable", func(s *Survey) { s.Variables[0].Args = []string{"var:nope"} }},
		{"points on no choice", "questions.0.points", "not one of", func(s *Survey) { s.Questions[0].Points["Green"] = 1 }},
		{"correct no choice", "questions.2.correct", "not one of", func(s *Survey) { s.Questions[2].Correct = []string{"Maybe"} }},
		{"outcome unknown", "outcomes", "neither the score", func(s *Survey) { s.Outcomes[0].Var = "nope" }},
		{"outcome empty", "outcomes", "Write each", func(s *Survey) { s.Outcomes[0].Message = " " }},
		{"redirect http", "redirect", "https://", func(s *Survey) { s.Redirect = "http://example.com/" }},
		{"redirect script", "redirect", "https://", func(s *Survey) { s.Redirect = "javascript:alert(1)" }},
		{"redirect long", "redirect", "characters", func(s *Survey) { s.Redirect = "https://example.com/" + strings.Repeat("a", MaxRedirectURL) }},
		{"rule on a later var", "questions.1.showIf.rules.0.question", "asked later", func(s *Survey) {
			s.Questions[1].ShowIf = &Condition{Rules: []Rule{{Question: "var:total", Op: OpGreaterThan, Values: []string{"3"}}}}
		}},
		{"pipe a later var", "questions.1.text", "asked later", func(s *Survey) { s.Questions[1].Text = "So far {{total}}" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := quiz()
			tc.edit(s)
			p := s.Problems()
			if tc.key == "" {
				if p != nil {
					t.Fatalf("problems %v", p)
				}
				return
			}
			if !strings.Contains(p[tc.key], tc.want) {
				t.Errorf("%s: %q, want %q (all %v)", tc.key, p[tc.key], tc.want, p)
			}
		})
	}
}

func TestScoringLogicAndPiping(t *testing.T) {
	s := quiz()
	s.Sections = []Section{{ID: "one"}, {ID: "two", ShowIf: &Condition{Rules: []Rule{{Question: "var:total", Op: OpGreaterThan, Values: []string{"12"}}}}}}
	s.Questions[3].Section = "two"
	s.Questions[3].Text = "Your total is {{total}} ({{var:score|none}})."
	if p := s.Problems(); p != nil {
		t.Fatal(p)
	}
	given := s.Given(map[string]Form{"a": Value("Red"), "b": {"": {"Cat"}}, "c": Value("Yes")})
	if !s.Shown(given)["d"] {
		t.Error("a total of 15 does not show the second section")
	}
	if got := s.Pipe(s.Questions[3].Text, given, nil); got != "Your total is 15 (6)." {
		t.Errorf("piped %q", got)
	}
	given = s.Given(map[string]Form{"a": Value("Blue"), "b": {"": {"Fish"}}, "c": Value("Yes")})
	if s.Shown(given)["d"] {
		t.Error("a total of 10 shows the second section")
	}
}

func TestRedirectURL(t *testing.T) {
	s := &Survey{Scoring: Scoring{Redirect: "https://example.com/done?x=1"}}
	if got := s.RedirectURL(map[string]string{"total": "3"}, nil); got != s.Redirect {
		t.Errorf("without fields: %q", got)
	}
	s.RedirectFields = true
	if got := s.RedirectURL(map[string]string{"total": "3"}, map[string]string{"source": "a&b <c>"}); got != "https://example.com/done?source=a%26b+%3Cc%3E&total=3&x=1" {
		t.Errorf("with fields: %q", got)
	}
}
