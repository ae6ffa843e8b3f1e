package survey

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestMatrixDefinition(t *testing.T) {
	rows := []string{"Speed", "Price"}
	many := make([]string, MaxMatrixRows+1)
	for i := range many {
		many[i] = fmt.Sprintf("Row %d", i+1)
	}
	checkDefinitions(t, []definitionCase{
		{"scale", Question{Type: Matrix, Rows: rows, Scale: 7}, "", ""},
		{"default scale", Question{Type: Matrix, Rows: rows}, "", ""},
		{"columns", Question{Type: Matrix, Rows: rows, PossibleAnswers: []string{"Bad", "Good"}}, "", ""},
		{"one row", Question{Type: Matrix, Rows: []string{"Speed"}}, "", ""},
		{"thirty rows", Question{Type: Matrix, Rows: many[:MaxMatrixRows]}, "", ""},
		{"no rows", Question{Type: Matrix, Rows: []string{" ", ""}}, "rows", "at least one row"},
		{"too many rows", Question{Type: Matrix, Rows: many}, "rows", "at most 30 rows"},
		{"a row twice", Question{Type: Matrix, Rows: []string{"Speed", "Speed"}}, "rows", "listed twice"},
		{"one column", Question{Type: Matrix, Rows: rows, PossibleAnswers: []string{"Good"}}, "choices", "at least two columns"},
		{"eleven columns", Question{Type: Matrix, Rows: rows, PossibleAnswers: strings.Split("a b c d e f g h i j k", " ")}, "choices", "at most 10 columns"},
		{"scale of one", Question{Type: Matrix, Rows: rows, Scale: 1}, "scale", "2 to 10"},
		{"scale of eleven", Question{Type: Matrix, Rows: rows, Scale: 11}, "scale", "2 to 10"},
		{"negative scale", Question{Type: Matrix, Rows: rows, Scale: -3}, "scale", "2 to 10"},
	})
	for _, tc := range []struct {
		name    string
		q       Question
		scale   int
		columns []string
	}{
		{"neither: a scale of five", Question{Type: Matrix, Rows: rows}, 5, []string{"1", "2", "3", "4", "5"}},
		{"columns win over a scale", Question{Type: Matrix, Rows: rows, PossibleAnswers: []string{"No", " Yes"}, Scale: 3}, 0, []string{"No", "Yes"}},
		{"a scale", Question{Type: Matrix, Rows: rows, Scale: 3, Other: true, Min: "1"}, 3, []string{"1", "2", "3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Survey{Questions: []Question{tc.q}}
			s.Normalize()
			q := s.Questions[0]
			if q.Scale != tc.scale || !reflect.DeepEqual(matrixColumns(q), tc.columns) || q.Other || q.Min != "" {
				t.Errorf("normalized %+v: columns %q", q, matrixColumns(q))
			}
		})
	}
}

func TestMatrixAnswer(t *testing.T) {
	scale := Question{Type: Matrix, Rows: []string{"Speed", "Price", "Support"}, Scale: 5}
	checkAnswers(t, scale, []answerCase{
		{"every row", Form{"0": {"5"}, "1": {"2"}, "2": {"4"}}, `{"Price":"2","Speed":"5","Support":"4"}`, ""},
		{"numbers as written", Form{"0": {" 05"}, "1": {"+2"}, "2": {"4"}}, `{"Price":"2","Speed":"5","Support":"4"}`, ""},
		{"fields of no row ignored", Form{"0": {"1"}, "1": {"1"}, "2": {"1"}, "3": {"5"}, "": {"3"}, "other": {"x"}}, `{"Price":"1","Speed":"1","Support":"1"}`, ""},
		{"a row missing", Form{"0": {"5"}, "2": {"4"}}, "", `Please answer every row: "Price" has no answer.`},
		{"two rows missing", Form{"1": {"5"}}, "", `"Speed" and "Support" have none`},
		{"nothing", Form{}, "", "Please answer every row."},
		{"off the scale", Form{"0": {"6"}, "1": {"2"}, "2": {"4"}}, "", `one of the answers offered for "Speed"`},
		{"zero", Form{"0": {"1"}, "1": {"0"}, "2": {"4"}}, "", `offered for "Price"`},
		{"not a number", Form{"0": {"1"}, "1": {"2"}, "2": {"good"}}, "", `offered for "Support"`},
	})
	optional := Question{Type: Matrix, Rows: []string{"Speed", "Price", "Support"}, PossibleAnswers: []string{"Bad", "Fair", "Good"}, Optional: true}
	checkAnswers(t, optional, []answerCase{
		{"every row", Form{"0": {"Good"}, "1": {"Bad"}, "2": {"Fair"}}, `{"Price":"Bad","Speed":"Good","Support":"Fair"}`, ""},
		{"some rows", Form{"2": {"Good"}}, `{"Support":"Good"}`, ""},
		{"none", Form{"0": {" "}}, "", ""},
		{"a column not offered", Form{"0": {"Great"}}, "", `offered for "Speed"`},
		{"columns are not numbers", Form{"0": {"1"}}, "", `offered for "Speed"`},
		{"case matters", Form{"0": {"good"}}, "", `offered for "Speed"`},
	})
}

func TestMatrixExports(t *testing.T) {
	scale := Question{Type: Matrix, Rows: []string{"Speed", "Price", "Support"}, Scale: 5}
	checkExports(t, scale, []exportCase{
		{"every row", `{"Price":"2","Speed":"5","Support":"4"}`, []string{"5", "2", "4"}, `{"Price":2,"Speed":5,"Support":4}`,
			[]SQLRow{{Item: "Speed", Text: "5", Number: "5"}, {Item: "Price", Text: "2", Number: "2"}, {Item: "Support", Text: "4", Number: "4"}},
			// The PostgreSQL copy knows the question's ID and type
			// alone: rows in the order of their text.
			[]SQLRow{{Item: "Price", Text: "2", Number: "2"}, {Item: "Speed", Text: "5", Number: "5"}, {Item: "Support", Text: "4", Number: "4"}}},
		{"none", "", []string{"", "", ""}, "null", []SQLRow{}, nil},
	})
	choices := Question{Type: Matrix, Rows: []string{"Price", "Speed"}, PossibleAnswers: []string{"Bad", "Good"}, Optional: true}
	checkExports(t, choices, []exportCase{
		{"some rows", `{"Speed":"Good"}`, []string{"", "Good"}, `{"Speed":"Good"}`, []SQLRow{{Item: "Speed", Text: "Good"}}, nil},
		{"every row", `{"Price":"Bad","Speed":"Good"}`, []string{"Bad", "Good"}, `{"Price":"Bad","Speed":"Good"}`,
			[]SQLRow{{Item: "Price", Text: "Bad"}, {Item: "Speed", Text: "Good"}}, nil},
	})
	if got := (matrix{}).Cells(Question{Type: Matrix}, QuestionAnswer{Answer: `{"Speed":"5","Price":"2"}`}); !reflect.DeepEqual(got, []string{"Price: 2; Speed: 5"}) {
		t.Errorf("cells without settings %q", got)
	}
}

func TestMatrixSummary(t *testing.T) {
	s := &Survey{Questions: []Question{{ID: "q1", Type: Matrix, Rows: []string{"Speed", "Price"}, Scale: 3}}}
	sum := NewSummary(s)
	for _, stored := range []string{`{"Price":"2","Speed":"3"}`, `{"Speed":"1"}`, `{"Price":"2","Speed":"3","Gone":"1"}`} {
		sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: Matrix, Answer: stored}}})
	}
	qs := sum.Questions[0]
	want := []RowCount{
		{"Speed", []ChoiceCount{{"1", 1}, {"2", 0}, {"3", 2}}},
		{"Price", []ChoiceCount{{"1", 0}, {"2", 2}, {"3", 0}}},
		{"Gone", []ChoiceCount{{"1", 1}}}, // a row since removed
	}
	if !reflect.DeepEqual(qs.Rows, want) || qs.Answered != 3 {
		t.Fatalf("rows %+v", qs.Rows)
	}
	c := (matrix{}).Chart(&qs)
	if len(c.Rows) != 3 || c.Rows[0].Title != "Speed" || !c.Rows[0].Averaged || c.Rows[0].Average != 7.0/3 ||
		!reflect.DeepEqual(c.Rows[1].Counts, []int64{0, 2, 0}) || c.Rows[1].Average != 2 || c.Rows[1].Figures[0].Value != "2" {
		t.Errorf("chart %+v", c)
	}
	// A matrix of text columns has no mean.
	words := &QuestionAnswersSummary{Rows: []RowCount{{"Speed", []ChoiceCount{{"Bad", 1}, {"Good", 3}}}}}
	if c := (matrix{}).Chart(words); c.Rows[0].Averaged {
		t.Errorf("a mean of words: %+v", c)
	}
}

// TestHeatLevel: a cell's shade is its share of the row's answers in
// quarters, rounded up; none for an empty cell.
func TestHeatLevel(t *testing.T) {
	for _, tc := range []struct {
		count, total int64
		want         int
	}{
		{0, 0, 0}, {0, 10, 0}, {3, 0, 0},
		{1, 1000, 1}, {1, 4, 1}, {25, 100, 1},
		{26, 100, 2}, {1, 2, 2},
		{51, 100, 3}, {3, 4, 3},
		{76, 100, 4}, {99, 100, 4}, {7, 7, 4},
		{8, 7, 4}, // more than the total: a summary's counts drifted; still the darkest
	} {
		if got := HeatLevel(tc.count, tc.total); got != tc.want {
			t.Errorf("HeatLevel(%d, %d) = %d, want %d", tc.count, tc.total, got, tc.want)
		}
	}
}

// TestMatrixHeatTable: every row has the question's columns in order, and
// those only older answers have after them, each cell shaded.
func TestMatrixHeatTable(t *testing.T) {
	qs := &QuestionAnswersSummary{Rows: []RowCount{
		{"Speed", []ChoiceCount{{"Good", 3}, {"Bad", 1}}},
		{"Price", []ChoiceCount{{"Good", 0}, {"Bad", 2}, {"Awful", 2}}},
	}}
	c := (matrix{}).Chart(qs)
	want := []Chart{
		{Title: "Speed", Labels: []string{"Good", "Bad", "Awful"}, Counts: []int64{3, 1, 0}, Levels: []int{3, 1, 0}, Answered: 4, Figures: []Figure{{"Answers", "4"}}},
		{Title: "Price", Labels: []string{"Good", "Bad", "Awful"}, Counts: []int64{0, 2, 2}, Levels: []int{0, 2, 2}, Answered: 4, Figures: []Figure{{"Answers", "4"}}},
	}
	if got, want := mustJSON(t, c.Rows), mustJSON(t, want); got != want {
		t.Errorf("rows %s,\nwant %s", got, want)
	}
}
