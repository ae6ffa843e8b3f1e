package survey

import (
	"reflect"
	"testing"
)

func TestRankingDefinition(t *testing.T) {
	checkDefinitions(t, []definitionCase{
		{"two", Question{Type: Ranking, PossibleAnswers: []string{"A", "B"}}, "", ""},
		{"one", Question{Type: Ranking, PossibleAnswers: []string{"A", ""}}, "choices", "at least two items"},
		{"too many", Question{Type: Ranking, PossibleAnswers: countries(MaxChoices + 1)}, "choices", "at most 20 items"},
		{"twice", Question{Type: Ranking, PossibleAnswers: []string{"A", "B", "A"}}, "choices", "listed twice"},
	})
}

func TestRankingAnswer(t *testing.T) {
	q := Question{Type: Ranking, PossibleAnswers: []string{"Price", "Quality", "Delivery"}}
	checkAnswers(t, q, []answerCase{
		{"in order", Form{"0": {"1"}, "1": {"2"}, "2": {"3"}}, `["Price","Quality","Delivery"]`, ""},
		{"reversed", Form{"0": {"3"}, "1": {"2"}, "2": {"1"}}, `["Delivery","Quality","Price"]`, ""},
		{"numbers as written", Form{"0": {" 02"}, "1": {"+3"}, "2": {"1"}}, `["Delivery","Price","Quality"]`, ""},
		{"fields of no item ignored", Form{"0": {"2"}, "1": {"1"}, "2": {"3"}, "3": {"1"}, "": {"x"}}, `["Quality","Price","Delivery"]`, ""},
		{"a shared position", Form{"0": {"1"}, "1": {"2"}, "2": {"1"}}, "", `"Price" and "Delivery" are both at position 1`},
		{"an item without a position", Form{"0": {"1"}, "2": {"2"}}, "", `from 1 to 3: "Quality" has no answer`},
		{"past the last", Form{"0": {"1"}, "1": {"2"}, "2": {"4"}}, "", `from 1 to 3 ("Delivery" has "4")`},
		{"zero", Form{"0": {"0"}, "1": {"2"}, "2": {"3"}}, "", `from 1 to 3 ("Price" has "0")`},
		{"not a number", Form{"0": {"first"}, "1": {"2"}, "2": {"3"}}, "", `from 1 to 3`},
		{"nothing", Form{"0": {""}}, "", "Please put the items in order"},
	})
	optional := q
	optional.Optional = true
	checkAnswers(t, optional, []answerCase{
		{"nothing", Form{}, "", ""},
		{"in part", Form{"1": {"1"}}, "", "Please give every item a position"},
	})
}

func TestRankingExports(t *testing.T) {
	q := Question{Type: Ranking, PossibleAnswers: []string{"Price", "Quality", "Delivery"}}
	checkExports(t, q, []exportCase{
		{"ranked", `["Delivery","Price","Quality"]`, []string{"2", "3", "1"}, `["Delivery","Price","Quality"]`,
			[]SQLRow{{Item: "Delivery", Text: "1", Number: "1"}, {Item: "Price", Text: "2", Number: "2"}, {Item: "Quality", Text: "3", Number: "3"}}, nil},
		{"none", "", []string{"", "", ""}, "null", []SQLRow{}, nil},
	})
	if got := (ranking{}).Cells(Question{Type: Ranking}, QuestionAnswer{Answer: `["Delivery","Price"]`}); !reflect.DeepEqual(got, []string{"Delivery; Price"}) {
		t.Errorf("cells without settings %q", got)
	}
}

func TestRankingSummary(t *testing.T) {
	s := &Survey{Questions: []Question{{ID: "q1", Type: Ranking, PossibleAnswers: []string{"Price", "Quality", "Delivery", "Colour"}}}}
	sum := NewSummary(s)
	for _, stored := range []string{`["Quality","Price","Delivery"]`, `["Quality","Delivery","Price"]`, `["Price","Quality","Delivery"]`} {
		sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: Ranking, Answer: stored}}})
	}
	qs := sum.Questions[0]
	want := []RankSum{{"Price", 3, 6, 1}, {"Quality", 3, 4, 2}, {"Delivery", 3, 8, 0}, {"Colour", 0, 0, 0}}
	if !reflect.DeepEqual(qs.Ranks, want) {
		t.Fatalf("ranks %+v", qs.Ranks)
	}
	c := (ranking{}).Chart(&qs)
	// Sorted by average position; of 4 items, an average of a bar's
	// width is (4+1−average)/4: 1 → 100, 4 → 25.
	wantPositions := []Position{
		{Item: "Quality", Average: "1.33", Ranked: 3, First: 2, Width: 100 * (5 - 4.0/3) / 4},
		{Item: "Price", Average: "2.00", Ranked: 3, First: 1, Width: 75},
		{Item: "Delivery", Average: "2.67", Ranked: 3, Width: 100 * (5 - 8.0/3) / 4},
		{Item: "Colour"},
	}
	if !reflect.DeepEqual(c.Positions, wantPositions) || c.Labels != nil ||
		!reflect.DeepEqual(c.Figures, []Figure{{"Quality", "1.33"}, {"Price", "2.00"}, {"Delivery", "2.67"}, {"Colour", "not ranked"}}) || c.Note == "" {
		t.Errorf("chart %+v %+v %q", c.Positions, c.Figures, c.Note)
	}
	// Ties keep the question's order; a single item ranked first fills its bar.
	c = (ranking{}).Chart(&QuestionAnswersSummary{Answered: 2, Ranks: []RankSum{{"B", 2, 3, 1}, {"A", 2, 3, 1}}})
	if got := []string{c.Positions[0].Item, c.Positions[1].Item}; !reflect.DeepEqual(got, []string{"B", "A"}) || c.Positions[0].Width != 75 {
		t.Errorf("ties %+v", c.Positions)
	}
	c = (ranking{}).Chart(&QuestionAnswersSummary{Answered: 1, Ranks: []RankSum{{"Only", 1, 1, 1}}})
	if c.Positions[0].Width != 100 {
		t.Errorf("one item %+v", c.Positions)
	}
}
