package survey

import (
	"fmt"
	"reflect"
	"testing"
)

func countries(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("Country %d", i+1)
	}
	return out
}

func TestDropdownDefinition(t *testing.T) {
	checkDefinitions(t, []definitionCase{
		{"two", Question{Type: Dropdown, PossibleAnswers: []string{"A", "B"}}, "", ""},
		{"five hundred", Question{Type: Dropdown, PossibleAnswers: countries(MaxDropdownChoices)}, "", ""},
		{"one", Question{Type: Dropdown, PossibleAnswers: []string{"A"}}, "choices", "at least two"},
		{"too many", Question{Type: Dropdown, PossibleAnswers: countries(MaxDropdownChoices + 1)}, "choices", "at most 500"},
		{"twice", Question{Type: Dropdown, PossibleAnswers: []string{"A", "B", "A"}}, "choices", `"A" is listed twice`},
	})
	s := &Survey{Questions: []Question{{Type: Dropdown, PossibleAnswers: []string{" A", "", "B"}, Other: true, Shuffle: true, Min: "1"}}}
	s.Normalize()
	if q := s.Questions[0]; !reflect.DeepEqual(q.PossibleAnswers, []string{"A", "B"}) || q.Other || !q.Shuffle || q.Min != "" {
		t.Errorf("normalized: %+v", q)
	}
}

func TestDropdownAnswer(t *testing.T) {
	q := Question{Type: Dropdown, PossibleAnswers: countries(300)}
	checkAnswers(t, q, []answerCase{
		{"a choice", Form{"": {"Country 250"}}, "Country 250", ""},
		{"trimmed", Form{"": {" Country 3 "}}, "Country 3", ""},
		{"the first of two", Form{"": {"Country 2", "Country 9"}}, "Country 2", ""},
		{"not offered", Form{"": {"Country 301"}}, "", "one of the answers offered"},
		{"no other", Form{"other": {"Atlantis"}}, "", "Please choose an answer."},
		{"nothing", Form{"": {""}}, "", "Please choose an answer."},
	})
	checkExports(t, q, []exportCase{
		{"a choice", "Country 7", []string{"Country 7"}, `"Country 7"`, []SQLRow{{Text: "Country 7"}}, nil},
		{"none", "", []string{""}, "null", []SQLRow{{}}, nil},
	})
}

func TestDropdownChart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		choices int
		answers []int // choice numbers, from 1
		labels  []string
		counts  []int64
		note    string
	}{
		{"few choices: all, in order", 3, []int{3, 3, 1}, []string{"Country 1", "Country 2", "Country 3"}, []int64{1, 0, 2}, ""},
		{"many choices: the most chosen", 25, []int{25, 25, 25, 7, 7, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22},
			append([]string{"Country 25", "Country 7"}, "Country 1", "Country 2", "Country 3", "Country 4", "Country 5", "Country 6",
				"Country 8", "Country 9", "Country 10", "Country 11", "Country 12", "Country 13", "Country 14", "Country 15", "Country 16",
				"Country 17", "Country 18", "Country 19"),
			[]int64{3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
			"The 20 most chosen of 25 answers are shown, most chosen first; the 5 others were chosen 3 times in all."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Survey{Questions: []Question{{ID: "q1", Type: Dropdown, PossibleAnswers: countries(tc.choices)}}}
			sum := NewSummary(s)
			for _, n := range tc.answers {
				sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: Dropdown, Answer: fmt.Sprintf("Country %d", n)}}})
			}
			c := (dropdown{}).Chart(&sum.Questions[0])
			if !reflect.DeepEqual(c.Labels, tc.labels) || !reflect.DeepEqual(c.Counts, tc.counts) || c.Note != tc.note {
				t.Errorf("chart %q %v %q", c.Labels, c.Counts, c.Note)
			}
		})
	}
}
