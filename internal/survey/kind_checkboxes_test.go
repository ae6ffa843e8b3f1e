package survey

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// answerCase is a respondent's form for one question and what becomes of
// it: the stored answer, or a problem beside the question (a part of its
// message).
type answerCase struct {
	name    string
	form    Form
	stored  string
	problem string
}

// checkAnswers answers question q (normalized and valid) with each case's
// form through NewAnswer, and checks that what is stored is given back by
// the kind's form of it.
func checkAnswers(t *testing.T, q Question, cases []answerCase) {
	t.Helper()
	q.ID, q.Text = "q1", "The question"
	s := &Survey{Tenant: "adatum", Slug: "kinds", Title: "Kinds", State: Published, Questions: []Question{q}}
	s.Normalize()
	if err := s.Validate(); err != nil {
		t.Fatalf("definition refused: %v", err)
	}
	k, _ := KindOf(q.Type)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := NewAnswer(s, map[string]Form{"q1": tc.form})
			if tc.problem != "" {
				e, ok := err.(*Error)
				if !ok || !strings.Contains(e.Fields["q1"], tc.problem) {
					t.Fatalf("got %+v, %v; want a problem %q beside q1", a.Answers, err, tc.problem)
				}
				return
			}
			var got string
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if len(a.Answers) > 0 {
				got = a.Answers[0].Answer
			}
			if got != tc.stored {
				t.Fatalf("stored %q, want %q", got, tc.stored)
			}
			if got == "" {
				return
			}
			b, err := NewAnswer(s, map[string]Form{"q1": k.form(s.Questions[0], got)})
			if err != nil || b.Answers[0].Answer != got {
				t.Fatalf("the form of %q gives %+v, %v", got, b.Answers, err)
			}
		})
	}
}

// exportCase is a stored answer and what the kind exports of it.
type exportCase struct {
	name   string
	stored string
	cells  []string
	value  string // JSON
	rows   []SQLRow
	// bare are the SQL rows for the question's ID and type alone, when
	// they differ from rows.
	bare []SQLRow
}

// checkExports checks each stored answer's cells, JSON value and SQL rows
// for question q (normalized), and its SQL rows for the question as the
// PostgreSQL copy sees it (ID and type only).
func checkExports(t *testing.T, q Question, cases []exportCase) {
	t.Helper()
	k, _ := KindOf(q.Type)
	s := &Survey{Questions: []Question{q}}
	s.Normalize()
	q = s.Questions[0]
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			qa := QuestionAnswer{QuestionID: "q1", Type: q.Type, Answer: tc.stored}
			if got := k.Cells(q, qa); !reflect.DeepEqual(got, tc.cells) {
				t.Errorf("cells %q, want %q", got, tc.cells)
			}
			b, err := json.Marshal(k.Value(q, qa))
			if err != nil || string(b) != tc.value {
				t.Errorf("value %s, %v; want %s", b, err, tc.value)
			}
			if got := k.SQLRows(q, qa); !reflect.DeepEqual(got, tc.rows) {
				t.Errorf("SQL rows %+v, want %+v", got, tc.rows)
			}
			bare := tc.rows
			if tc.bare != nil {
				bare = tc.bare
			}
			if got := k.SQLRows(Question{ID: "q1", Type: q.Type}, qa); !reflect.DeepEqual(got, bare) {
				t.Errorf("SQL rows without the question's settings %+v, want %+v", got, bare)
			}
		})
	}
}

// definitionCase is a question's settings and the problem, if any, beside
// one of its fields.
type definitionCase struct {
	name         string
	q            Question
	field, found string // "" when valid
}

func checkDefinitions(t *testing.T, cases []definitionCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.ID, tc.q.Text = "q1", "The question"
			s := &Survey{Tenant: "adatum", Slug: "kinds", Title: "Kinds", State: Published, Questions: []Question{tc.q}}
			s.Normalize()
			err := s.Validate()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e, ok := err.(*Error)
			if !ok || !strings.Contains(e.Fields["questions.0."+tc.field], tc.found) {
				t.Fatalf("got %v; want %q beside questions.0.%s", err, tc.found, tc.field)
			}
		})
	}
}

func TestCheckboxesDefinition(t *testing.T) {
	two := []string{"Coffee", "Tea"}
	checkDefinitions(t, []definitionCase{
		{"no bounds", Question{Type: Checkboxes, PossibleAnswers: two}, "", ""},
		{"bounds", Question{Type: Checkboxes, PossibleAnswers: two, Min: "1", Max: "2"}, "", ""},
		{"leading zeros", Question{Type: Checkboxes, PossibleAnswers: two, Min: "01", Max: "002"}, "", ""},
		{"other counts", Question{Type: Checkboxes, PossibleAnswers: two, Other: true, Max: "3"}, "", ""},
		{"zero minimum", Question{Type: Checkboxes, PossibleAnswers: two, Min: "0"}, "", ""},
		{"one choice", Question{Type: Checkboxes, PossibleAnswers: []string{"Coffee"}}, "choices", "at least two"},
		{"max past the choices", Question{Type: Checkboxes, PossibleAnswers: two, Max: "3"}, "max", "only 2 answers"},
		{"min past the choices", Question{Type: Checkboxes, PossibleAnswers: two, Min: "4"}, "min", "only 2 answers"},
		{"min above max", Question{Type: Checkboxes, PossibleAnswers: two, Min: "2", Max: "1"}, "max", "below the minimum"},
		{"max zero", Question{Type: Checkboxes, PossibleAnswers: two, Max: "0"}, "max", "at least one"},
		{"not a number", Question{Type: Checkboxes, PossibleAnswers: two, Min: "one"}, "min", "whole number"},
		{"negative", Question{Type: Checkboxes, PossibleAnswers: two, Min: "-1"}, "min", "whole number"},
		{"fraction", Question{Type: Checkboxes, PossibleAnswers: two, Max: "1.5"}, "max", "whole number"},
	})
	s := &Survey{Questions: []Question{{Type: Checkboxes, PossibleAnswers: two, Min: " 01", Max: "002", Scale: 3, Rows: two}}}
	s.Normalize()
	if q := s.Questions[0]; q.Min != "1" || q.Max != "2" || q.Scale != 0 || q.Rows != nil {
		t.Errorf("normalized: %+v", q)
	}
}

func TestCheckboxesAnswer(t *testing.T) {
	q := Question{Type: Checkboxes, PossibleAnswers: []string{"Coffee", "Tea", "Cake", "Biscuits"}, Other: true, Min: "2", Max: "3", Optional: true}
	checkAnswers(t, q, []answerCase{
		{"two, in the question's order", Form{"": {"Cake", "Coffee"}}, `["Coffee","Cake"]`, ""},
		{"sent twice", Form{"": {"Tea", " Tea ", "Cake", ""}}, `["Tea","Cake"]`, ""},
		{"other text counts", Form{"": {"Tea"}, "other": {" Mate "}}, `["Tea","\u001fMate"]`, ""},
		{"three with other", Form{"": {"Biscuits", "Coffee"}, "other": {"Mate"}}, `["Coffee","Biscuits","\u001fMate"]`, ""},
		{"html in other", Form{"": {"Tea"}, "other": {"<b>&</b>"}}, `["Tea","\u001f\u003cb\u003e\u0026\u003c/b\u003e"]`, ""},
		{"nothing (optional)", Form{"": {" "}, "other": {""}}, "", ""},
		{"too few", Form{"": {"Tea"}}, "", "at least two answers (you chose 1)"},
		{"other alone too few", Form{"other": {"Mate"}}, "", "at least two answers"},
		{"too many", Form{"": {"Coffee", "Tea", "Cake", "Biscuits"}}, "", "at most three answers (you chose 4)"},
		{"too many with other", Form{"": {"Coffee", "Tea", "Cake"}, "other": {"Mate"}}, "", "at most three"},
		{"not offered", Form{"": {"Tea", "Water"}}, "", "only among the answers offered"},
		{"other too long", Form{"": {"Tea"}, "other": {strings.Repeat("x", MaxChoiceLength+1)}}, "", "200 characters"},
	})
	// Without Other, an other text is not an answer.
	checkAnswers(t, Question{Type: Checkboxes, PossibleAnswers: []string{"Coffee", "Tea"}}, []answerCase{
		{"other ignored", Form{"": {"Tea"}, "other": {"Mate"}}, `["Tea"]`, ""},
		{"other alone is nothing", Form{"other": {"Mate"}}, "", "Please choose at least one answer."},
	})
}

func TestCheckboxesExports(t *testing.T) {
	q := Question{Type: Checkboxes, PossibleAnswers: []string{"Coffee", "Tea", "Cake"}, Other: true}
	checkExports(t, q, []exportCase{
		{"choices and other", `["Coffee","Cake","\u001fMate"]`, []string{"Coffee", "", "Cake", "Mate"},
			`{"choices":["Coffee","Cake"],"other":"Mate"}`,
			[]SQLRow{{Item: "Coffee", Text: "Coffee"}, {Item: "Cake", Text: "Cake"}, {Item: "Other", Text: "Mate"}}, nil},
		{"other alone", `["\u001fMate"]`, []string{"", "", "", "Mate"}, `{"choices":[],"other":"Mate"}`,
			[]SQLRow{{Item: "Other", Text: "Mate"}}, nil},
		{"none", "", []string{"", "", "", ""}, "null", []SQLRow{}, nil},
	})
	if got := (checkboxes{}).Columns(q); !reflect.DeepEqual(got, []string{"Coffee", "Tea", "Cake", "Other"}) {
		t.Errorf("columns %q", got)
	}
	// A question whose settings are unknown: one cell of the choices.
	if got := (checkboxes{}).Cells(Question{Type: Checkboxes}, QuestionAnswer{Answer: `["Tea","\u001fMate"]`}); !reflect.DeepEqual(got, []string{"Tea; Other: Mate"}) {
		t.Errorf("cells without settings %q", got)
	}
}

func TestCheckboxesSummary(t *testing.T) {
	s := &Survey{Tenant: "adatum", Slug: "kinds", Questions: []Question{{ID: "q1", Type: Checkboxes, PossibleAnswers: []string{"Coffee", "Tea", "Cake"}, Other: true}}}
	sum := NewSummary(s)
	for _, stored := range []string{`["Coffee","Cake"]`, `["Coffee","\u001fHot chocolate"]`, `["\u001fchocolate milk"]`} {
		sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: Checkboxes, Answer: stored}}})
	}
	qs := sum.Questions[0]
	if want := []ChoiceCount{{"Coffee", 2}, {"Tea", 0}, {"Cake", 1}}; !reflect.DeepEqual(qs.Choices, want) || qs.Other != 2 || qs.Answered != 3 || qs.Words["chocolate"] != 2 {
		t.Fatalf("summary %+v", qs)
	}
	c := (checkboxes{}).Chart(&qs)
	if want := []string{"Coffee", "Tea", "Cake", "Other"}; !reflect.DeepEqual(c.Labels, want) || !reflect.DeepEqual(c.Counts, []int64{2, 0, 1, 2}) || !strings.Contains(c.Note, "3 respondents chose 5") {
		t.Errorf("chart %+v", c)
	}
}
