package api

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestDefinitionScoring: points, correct answers, feedback, variables
// (naming questions q1, q2 … in the definition), outcomes, the redirect
// and their translations come back whole from a definition's export and
// import, under the names the OpenAPI document gives them.
func TestDefinitionScoring(t *testing.T) {
	sv := &survey.Survey{Tenant: "adatum", Slug: "quiz", Title: "Quiz", State: survey.Published,
		Scoring: survey.Scoring{ShowCorrect: true, Redirect: "https://example.com/done", RedirectFields: true,
			Variables: []survey.Variable{{Name: "total", Func: "sum", Args: []string{"x7", "y8", "1"}}, {Name: "top", Func: "max", Args: []string{"var:total", "x7"}}},
			Outcomes:  []survey.Outcome{{Var: "total", Min: 3, Message: "Well done, {{total}}."}}},
		Questions: []survey.Question{
			{ID: "x7", Text: "Colour?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Red", "Blue"}, Points: map[string]float64{"Red": 2.5}},
			{ID: "y8", Text: "Wet?", Type: survey.YesNo, Correct: []string{"Yes"}, Feedback: "It is."},
		},
		Language: "en", Translations: map[string]survey.Translation{"de": {Outcomes: []string{"Gut gemacht."},
			Questions: map[string]survey.QuestionText{"y8": {Feedback: "Ist es."}}}},
	}
	sv.Normalize()
	if err := sv.Validate(); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(DefinitionOf(sv))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"points":{"Red":2.5}`, `"correct":["Yes"]`, `"feedback":"It is."`, `"variables":[{"name":"total","func":"sum","args":["q1","q2","1"]}`,
		`"outcomes":[{"var":"total","min":3,"message":"Well done, {{total}}."}]`, `"showCorrect":true`, `"redirect":"https://example.com/done"`, `"redirectFields":true`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("no %s in %s", want, data)
		}
	}
	back, err := ParseDefinition("adatum", data)
	if err != nil {
		t.Fatal(err)
	}
	q0, q1 := back.Questions[0].ID, back.Questions[1].ID
	if !reflect.DeepEqual(back.Questions[0].Points, sv.Questions[0].Points) || back.Questions[1].Feedback != "It is." || !back.ShowCorrect || !back.RedirectFields ||
		!reflect.DeepEqual(back.Variables[0].Args, []string{q0, q1, "1"}) || back.Variables[1].Args[0] != "var:total" || back.Outcomes[0] != sv.Outcomes[0] {
		t.Errorf("back %+v", back)
	}
	if de := back.Translations["de"]; len(de.Outcomes) != 1 || de.Outcomes[0] != "Gut gemacht." || de.Questions[q1].Feedback != "Ist es." {
		t.Errorf("translations back %+v", de)
	}
	// A bad variable is refused beside its field.
	bad := strings.Replace(string(data), `"func":"sum"`, `"func":"median"`, 1)
	if _, err := ParseDefinition("adatum", []byte(bad)); err == nil || !strings.Contains(err.(*survey.Error).Fields["variables"], "choose one of") {
		t.Errorf("median: %v", err)
	}
}
