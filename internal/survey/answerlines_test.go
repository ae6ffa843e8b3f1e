package survey_test

import (
	"slices"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestAnswerLines: an answer as lines for a chat message: checked choices
// as one comma list (the other text after it), a grid's rows as "row:
// column", a ranking as numbered lines, a single cell as it is; nothing
// for no answer.
func TestAnswerLines(t *testing.T) {
	sv := &survey.Survey{Tenant: "adatum", Slug: "lines", Title: "Lines", Questions: []survey.Question{
		{ID: "q1", Text: "Which?", Type: survey.Checkboxes, PossibleAnswers: []string{"Coffee", "Tea", "Cake"}, Other: true, Optional: true},
		{ID: "q2", Text: "Rate each", Type: survey.Matrix, Rows: []string{"Speed", "Price"}, PossibleAnswers: []string{"Bad", "Good"}, Optional: true},
		{ID: "q3", Text: "Why?", Type: survey.SimpleText, Optional: true},
		{ID: "q4", Text: "Anything else?", Type: survey.SimpleText, Optional: true},
		{ID: "q5", Text: "Order these", Type: survey.Ranking, PossibleAnswers: []string{"Price", "Quality", "Delivery"}, Optional: true},
	}}
	sv.Normalize()
	a, err := survey.NewAnswer(sv, map[string]survey.Form{
		"q1": {"": {"Coffee", "Cake"}, "other": {"Mate"}},
		"q2": {"0": {"Good"}, "1": {"Bad"}},
		"q3": survey.Value("Because, < & >"),
		"q5": {"0": {"3"}, "1": {"1"}, "2": {"2"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id   string
		want []string
	}{
		{"q1", []string{"Coffee, Cake", "Other: Mate"}},
		{"q2", []string{"Speed: Good", "Price: Bad"}},
		{"q3", []string{"Because, < & >"}},
		{"q4", nil},
		{"q5", []string{"1. Quality", "2. Delivery", "3. Price"}},
	} {
		q, _ := sv.Question(tc.id)
		qa, _ := a.Answer(tc.id)
		k, _ := survey.KindOf(q.Type)
		if got := survey.AnswerLines(k, q, qa); !slices.Equal(got, tc.want) {
			t.Errorf("%s (%s): %q, want %q", tc.id, q.Type, got, tc.want)
		}
	}
}
