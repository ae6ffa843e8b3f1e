package survey

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

func TestCanonicalNumber(t *testing.T) {
	tests := []struct {
		in, want, problem string
	}{
		{"42", "42", ""},
		{"+42", "42", ""},
		{"007", "7", ""},
		{"-0", "0", ""},
		{"-0.000", "0", ""},
		{"−3", "-3", ""},
		{"3,50", "3.5", ""},
		{".5", "0.5", ""},
		{"-.5", "-0.5", ""},
		{"7.", "7", ""},
		{"1.000000", "1", ""},
		{"0.000001", "0.000001", ""},
		{"0.0000001", "", "at most 6 digits after the decimal point"},
		{"123456789012345", "123456789012345", ""},
		{"1234567890123456", "", "at most 15 digits"},
		{"1234567890.123456", "", "at most 15 digits"},
		{"000000000000000000001", "1", ""},
		{"1e3", "", "without an exponent"},
		{"1E-3", "", "without an exponent"},
		{"1 000", "", "in digits"},
		{"1.2.3", "", "in digits"},
		{"1,5.3", "", "in digits"},
		{"NaN", "", "in digits"},
		{"Inf", "", "in digits"},
		{"0x10", "", "in digits"},
		{"-", "", "in digits"},
		{".", "", "in digits"},
		{"--1", "", "in digits"},
		{"-−1", "", "in digits"},
		{"+-1", "", "in digits"},
		{"١٢", "", "in digits"},
	}
	for _, tc := range tests {
		got, msg := canonicalNumber(tc.in)
		problem := msg.String()
		if got != tc.want || !strings.Contains(problem, tc.problem) || (tc.problem == "") != (problem == "") {
			t.Errorf("canonicalNumber(%q) = %q, %q; want %q, %q", tc.in, got, problem, tc.want, tc.problem)
		}
	}
}

func TestNumberAnswer(t *testing.T) {
	free := Question{Text: "N", Type: Number}
	whole := Question{Text: "N", Type: Number, Integer: true, Min: "1", Max: "10"}
	atLeast := Question{Text: "N", Type: Number, Min: "-2.5"}
	tests := []struct {
		name       string
		q          Question
		in         string
		want, prob string
	}{
		{"a decimal", free, " 3,14 ", "3.14", ""},
		{"nothing", free, "", "", "Please give a number."},
		{"words", free, "three", "", "Please give a number in digits, like 42 or 3.5."},
		{"whole, in range", whole, "10", "10", ""},
		{"whole, a fraction", whole, "2.5", "", "Please give a whole number between 1 and 10."},
		{"whole, trailing zeros are whole", whole, "2.00", "2", ""},
		{"whole, below", whole, "0", "", "Please give a whole number between 1 and 10."},
		{"whole, above", whole, "11", "", "Please give a whole number between 1 and 10."},
		{"whole, words", whole, "ten", "", "Please give a whole number between 1 and 10, in digits."},
		{"at least, below", atLeast, "-2.6", "", "Please give a number of at least -2.5."},
		{"at least, the bound", atLeast, "-2.50", "-2.5", ""},
		{"exponent", free, "2e5", "", "Please write the number in digits, without an exponent."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, problem := kindsAAnswer(t, tc.q, Value(tc.in))
			if got != tc.want || problem != tc.prob {
				t.Errorf("%q: got %q, %q; want %q, %q", tc.in, got, problem, tc.want, tc.prob)
			}
		})
	}
}

func TestNumberDefinition(t *testing.T) {
	tests := []boundsCase{
		{"none", Question{}, "", "", ""},
		{"canonical bounds", Question{Min: "-0", Max: "1,50"}, "", "0", "1.5"},
		{"min past max", Question{Min: "2", Max: "1"}, ".max", "2", "1"},
		{"not a number", Question{Min: "abc"}, ".min", "abc", ""},
		{"whole numbers, a fraction", Question{Integer: true, Max: "2.5"}, ".max", "", "2.5"},
		{"exponent", Question{Max: "1e9"}, ".max", "", "1e9"},
	}
	checkBounds(t, Number, tests)
}

// numberChart is the chart of a number question with the given answers,
// added in two summaries then merged.
func numberChart(values ...string) Chart {
	s := &Survey{Questions: []Question{{ID: "q1", Text: "N", Type: Number}}}
	a, b := NewSummary(s), NewSummary(s)
	for i, v := range values {
		sum := a
		if i%2 == 1 {
			sum = b
		}
		sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: Number, Answer: v}}})
	}
	a.Merge(b)
	return numberKind{}.Chart(&a.Questions[0])
}

func TestNumberChart(t *testing.T) {
	many := make([]string, 0, 1200)
	for i := 0; i < 1200; i++ {
		many = append(many, strconv.Itoa(i))
	}
	tests := []struct {
		name    string
		values  []string
		figures []Figure
		labels  []string
		counts  []int64
		note    string
	}{
		{"exact mean of 0.1 and 0.2, three times", []string{"0.1", "0.2", "0.1", "0.2", "0.1", "0.2"},
			[]Figure{{"Count", "6"}, {"Least", "0.1"}, {"Lower quartile", "0.1"}, {"Median", "0.15"}, {"Upper quartile", "0.2"}, {"Greatest", "0.2"}, {"Mean", "0.15"}},
			[]string{"0.1–0.11", "0.11–0.12", "0.12–0.13", "0.13–0.14", "0.14–0.15", "0.15–0.16", "0.16–0.17", "0.17–0.18", "0.18–0.19", "0.19–0.2"},
			[]int64{3, 0, 0, 0, 0, 0, 0, 0, 0, 3}, ""},
		{"one value", []string{"7", "7"},
			[]Figure{{"Count", "2"}, {"Least", "7"}, {"Lower quartile", "7"}, {"Median", "7"}, {"Upper quartile", "7"}, {"Greatest", "7"}, {"Mean", "7"}},
			[]string{"7"}, []int64{2}, ""},
		{"whole numbers, a bin each", []string{"1", "2", "2", "5"},
			[]Figure{{"Count", "4"}, {"Least", "1"}, {"Lower quartile", "1.75"}, {"Median", "2"}, {"Upper quartile", "2.75"}, {"Greatest", "5"}, {"Mean", "2.5"}},
			[]string{"1", "2", "3", "4", "5"}, []int64{1, 2, 0, 0, 1}, ""},
		{"whole numbers, bins of three", []string{"0", "2", "3", "29", "25"},
			[]Figure{{"Count", "5"}, {"Least", "0"}, {"Lower quartile", "2"}, {"Median", "3"}, {"Upper quartile", "25"}, {"Greatest", "29"}, {"Mean", "11.8"}},
			[]string{"0–2", "3–5", "6–8", "9–11", "12–14", "15–17", "18–20", "21–23", "24–26", "27–29"},
			[]int64{2, 1, 0, 0, 0, 0, 0, 0, 1, 1}, ""},
		{"whole numbers, fewer bins when they divide badly", []string{"1", "11"},
			[]Figure{{"Count", "2"}, {"Least", "1"}, {"Lower quartile", "3.5"}, {"Median", "6"}, {"Upper quartile", "8.5"}, {"Greatest", "11"}, {"Mean", "6"}},
			[]string{"1–2", "3–4", "5–6", "7–8", "9–10", "11"},
			[]int64{1, 0, 0, 0, 0, 1}, ""},
		{"negative, mean rounded", []string{"-1", "0", "0"},
			[]Figure{{"Count", "3"}, {"Least", "-1"}, {"Lower quartile", "-0.5"}, {"Median", "0"}, {"Upper quartile", "0"}, {"Greatest", "0"}, {"Mean", "-0.33"}},
			[]string{"-1", "0"}, []int64{1, 2}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := numberChart(tc.values...)
			if got, want := mustJSON(t, c.Figures), mustJSON(t, tc.figures); got != want {
				t.Errorf("figures %s, want %s", got, want)
			}
			if got, want := mustJSON(t, [2]any{c.Labels, c.Counts}), mustJSON(t, [2]any{tc.labels, tc.counts}); got != want {
				t.Errorf("histogram %s, want %s", got, want)
			}
			if c.Note != tc.note {
				t.Errorf("note %q", c.Note)
			}
		})
	}
	// More distinct values than a summary keeps: the histogram is of a
	// sample, and says so; the figures count every answer.
	c := numberChart(many...)
	var binned int64
	for _, n := range c.Counts {
		binned += n
	}
	if c.Figures[0].Value != "1200" || binned != 1000 || !strings.Contains(c.Note, "a fixed sample of 1000 of the 1200 answers") {
		t.Errorf("figures %v, %d binned, note %q", c.Figures, binned, c.Note)
	}
	// ... and no quartiles, which would need every number.
	if got, want := mustJSON(t, c.Figures), mustJSON(t, []Figure{{"Count", "1200"}, {"Least", "0"}, {"Greatest", "1199"}, {"Mean", "599.5"}}); got != want || !strings.Contains(c.Note, "median and quartiles") {
		t.Errorf("sampled figures %s, want %s; note %q", got, want, c.Note)
	}
	if c := numberChart(); c.Labels != nil || c.Figures != nil {
		t.Errorf("empty chart: %+v", c)
	}
}

// TestQuartiles: the quartiles of numbers from the count of each distinct
// value, as a spreadsheet's QUARTILE.INC gives them (the expectations
// are LibreOffice's).
func TestQuartiles(t *testing.T) {
	tests := []struct {
		name       string
		values     []string
		q1, q2, q3 string
	}{
		{"one number", []string{"4"}, "4", "4", "4"},
		{"two", []string{"0", "10"}, "2.5", "5", "7.5"},
		{"odd count", []string{"1", "2", "3", "4", "5"}, "2", "3", "4"},
		{"even count", []string{"1", "2", "3", "4"}, "1.75", "2.5", "3.25"},
		{"repeated values", []string{"3", "1", "3", "3", "9", "1"}, "1.5", "3", "3"},
		{"decimals, in any order", []string{"2.5", "0.5", "1.5"}, "1", "1.5", "2"},
		{"negative", []string{"-10", "-2", "0", "7"}, "-4", "-1", "1.75"},
		{"skewed: one outlier", []string{"1", "1", "1", "1", "1", "1", "1", "1", "1000"}, "1", "1", "1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ns NumberSummary
			for _, v := range tc.values {
				ns.add(v, 0)
			}
			q := quartiles(&ns)
			if len(q) != 3 {
				t.Fatalf("quartiles %v", q)
			}
			for i, want := range []string{tc.q1, tc.q2, tc.q3} {
				if got := roundRat(q[i], 6); got != want {
					t.Errorf("quartile %d = %s, want %s", i+1, got, want)
				}
			}
		})
	}
	if q := quartiles(&NumberSummary{}); q != nil {
		t.Errorf("no numbers: %v", q)
	}
	ns := NumberSummary{Count: 3, Values: map[string]int64{"1": 2}, OtherValues: 1}
	if q := quartiles(&ns); q != nil {
		t.Errorf("a sample: %v", q)
	}
}

func TestNumberExports(t *testing.T) {
	k := numberKind{}
	q := Question{Type: Number}
	qa := QuestionAnswer{Answer: "-12.5"}
	if v, err := json.Marshal(k.Value(q, qa)); err != nil || string(v) != "-12.5" {
		t.Errorf("value %s, %v", v, err)
	}
	if rows := k.SQLRows(q, qa); len(rows) != 1 || rows[0].Number != "-12.5" || rows[0].Text != "-12.5" {
		t.Errorf("SQL rows %+v", rows)
	}
	if cells := k.Cells(q, qa); len(cells) != 1 || cells[0] != "-12.5" {
		t.Errorf("cells %q", cells)
	}
}
