package survey_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// pipedChoices asks a name (a) and a pet (a), then which of them to
// greet (b): its choices recall the earlier answers, and a matrix's rows
// and a ranking's items do too; a rule looks at a piped choice.
func pipedChoices() *survey.Survey {
	return &survey.Survey{Tenant: "adatum", Title: "Piped choices", State: survey.Draft,
		Sections: []survey.Section{{ID: "a"}, {ID: "b"}},
		Questions: []survey.Question{
			{ID: "name", Text: "Your name?", Type: survey.ShortText, Section: "a"},
			{ID: "pet", Text: "Your pet?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Cat", "Dog"}, Section: "a"},
			{ID: "greet", Text: "Greet whom?", Type: survey.MultipleChoice, PossibleAnswers: []string{"{{name|You}}", "Your {{pet|pet}}"}, Section: "b",
				Points: map[string]float64{"{{name|You}}": 2}},
			{ID: "rate", Text: "Rate", Type: survey.Matrix, Rows: []string{"{{name|You}}", "The {{pet}}"}, PossibleAnswers: []string{"Good", "Bad"}, Section: "b"},
			{ID: "order", Text: "Order", Type: survey.Ranking, PossibleAnswers: []string{"{{name|You}}", "Others"}, Section: "b"},
			{ID: "why", Text: "Why?", Type: survey.SimpleText, Optional: true, Section: "b",
				ShowIf: &survey.Condition{Rules: []survey.Rule{{Question: "greet", Op: "equals", Values: []string{"{{name|You}}"}}}}},
		}}
}

func TestPipedChoicesValid(t *testing.T) {
	s := pipedChoices()
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if !s.HasPiping() {
		t.Error("a survey whose choices recall answers has no piping")
	}
	// Shown piped, stored as the designer's label.
	answers := s.Given(surveytest.Forms(map[string]string{"name": "Ada", "pet": "Dog"}))
	if got := s.Pipe(s.Questions[2].PossibleAnswers[1], answers, nil); got != "Your Dog" {
		t.Errorf("piped choice %q", got)
	}
	forms := surveytest.Forms(map[string]string{"name": "Ada", "pet": "Dog", "greet": "{{name|You}}", "why": "Hi"})
	forms["rate"] = survey.Form{"0": {"Good"}, "1": {"Bad"}}
	forms["order"] = survey.Form{"0": {"1"}, "1": {"2"}}
	a, err := survey.NewAnswer(s, forms)
	if err != nil {
		t.Fatal(err)
	}
	if qa, _ := a.Answer("greet"); qa.Answer != "{{name|You}}" {
		t.Errorf("stored %q, want the designer's label", qa.Answer)
	}
	if _, ok := a.Answer("why"); !ok {
		t.Error("a rule on a piped choice did not hold")
	}
}

func TestPipedChoicesRefused(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(s *survey.Survey)
		key    string
	}{
		{"a later question", func(s *survey.Survey) { s.Questions[1].PossibleAnswers[0] = "Like {{greet}}" }, "questions.1.choices"},
		{"the same page", func(s *survey.Survey) { s.Questions[1].PossibleAnswers[0] = "Like {{name}}" }, "questions.1.choices"},
		{"an unknown question", func(s *survey.Survey) { s.Questions[2].PossibleAnswers[1] = "{{q9}}" }, "questions.2.choices"},
		{"a row on the same page", func(s *survey.Survey) { s.Questions[3].Rows[1] = "{{greet}}" }, "questions.3.rows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := pipedChoices()
			c.change(s)
			s.Normalize()
			var e *survey.Error
			if err := s.Validate(); !errors.As(err, &e) || e.Fields[c.key] == "" {
				t.Fatalf("Validate = %v, want a problem at %s", err, c.key)
			}
		})
	}
}

// TestPipedChoicesRenamed: renaming the questions renames the references
// of choices and rows, and what names those choices: points, rules'
// values, translations.
func TestPipedChoicesRenamed(t *testing.T) {
	s := pipedChoices()
	s.Translations = map[string]survey.Translation{"fr": {Questions: map[string]survey.QuestionText{"greet": {Choices: map[string]string{"{{name|You}}": "{{name|Vous}}"}}}}}
	s.RenameQuestions([]string{"q1", "q2", "q3", "q4", "q5", "q6"})
	q := s.Questions[2]
	if want := []string{"{{q1|You}}", "Your {{q2|pet}}"}; !reflect.DeepEqual(q.PossibleAnswers, want) {
		t.Errorf("choices %q, want %q", q.PossibleAnswers, want)
	}
	if q.Points["{{q1|You}}"] != 2 {
		t.Errorf("points %v", q.Points)
	}
	if r := s.Questions[3].Rows; r[1] != "The {{q2}}" {
		t.Errorf("rows %q", r)
	}
	if v := s.Questions[5].ShowIf.Rules[0].Values[0]; v != "{{q1|You}}" {
		t.Errorf("rule value %q", v)
	}
	if c := s.Translations["fr"].Questions["q3"].Choices; c["{{q1|You}}"] != "{{q1|Vous}}" {
		t.Errorf("translated choices %v", c)
	}
}
