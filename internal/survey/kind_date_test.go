package survey

import (
	"fmt"
	"strings"
	"testing"
)

func TestDateAnswer(t *testing.T) {
	free := Question{Text: "D", Type: Date}
	bounded := Question{Text: "D", Type: Date, Min: "2026-01-01", Max: "2026-12-31"}
	after := Question{Text: "D", Type: Date, Min: "2026-01-01"}
	before := Question{Text: "D", Type: Date, Max: "2026-12-31"}
	tests := []struct {
		name       string
		q          Question
		in         string
		want, prob string
	}{
		{"a date", free, " 2026-12-03 ", "2026-12-03", ""},
		{"nothing", free, "", "", "Please give a date."},
		{"the first day", free, "1900-01-01", "1900-01-01", ""},
		{"the last day", free, "2199-12-31", "2199-12-31", ""},
		{"before 1900", free, "1899-12-31", "", "Please give a date from the year 1900 to 2199."},
		{"after 2199", free, "2200-01-01", "", "Please give a date from the year 1900 to 2199."},
		{"no such day", free, "2026-02-30", "", "Please give a date as year-month-day, like 2026-12-03."},
		{"leap day", free, "2028-02-29", "2028-02-29", ""},
		{"another format", free, "03/12/2026", "", "Please give a date as year-month-day, like 2026-12-03."},
		{"one digit month", free, "2026-2-03", "", "Please give a date as year-month-day, like 2026-12-03."},
		{"with a time", free, "2026-12-03T10:00", "", "Please give a date as year-month-day, like 2026-12-03."},
		{"within bounds", bounded, "2026-06-15", "2026-06-15", ""},
		{"before bounds", bounded, "2025-12-31", "", "Please give a date from 1 January 2026 to 31 December 2026."},
		{"after the earliest", after, "2025-12-31", "", "Please give a date on or after 1 January 2026."},
		{"before the latest", before, "2027-01-01", "", "Please give a date on or before 31 December 2026."},
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

func TestDateDefinition(t *testing.T) {
	tests := []struct {
		name  string
		q     Question
		field string
	}{
		{"none", Question{}, ""},
		{"bounds", Question{Min: "2020-01-01", Max: "2020-01-01"}, ""},
		{"min past max", Question{Min: "2026-01-02", Max: "2026-01-01"}, ".max"},
		{"not a date", Question{Min: "yesterday"}, ".min"},
		{"outside 1900–2199", Question{Max: "2200-01-01"}, ".max"},
		{"no such day", Question{Min: "2026-02-29"}, ".min"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Text, q.Type, q.ID = "Q", Date, "q1"
			fields := kindsAFields(q)
			if tc.field == "" && fields != nil || tc.field != "" && fields["questions.0"+tc.field] == "" {
				t.Errorf("fields %v, want a problem of %q", fields, tc.field)
			}
		})
	}
}

func dateChart(values ...string) Chart {
	s := &Survey{Questions: []Question{{ID: "q1", Text: "D", Type: Date}}}
	a, b := NewSummary(s), NewSummary(s)
	for i, v := range values {
		sum := a
		if i%2 == 1 {
			sum = b
		}
		sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: Date, Answer: v}}})
	}
	b.Merge(a)
	return dateKind{}.Chart(&b.Questions[0])
}

func TestDateChart(t *testing.T) {
	c := dateChart("2026-03-05", "2025-12-31", "2026-03-01", "2026-01-10")
	if got, want := mustJSON(t, c), mustJSON(t, Chart{
		Figures: []Figure{{"Earliest", "31 December 2025"}, {"Latest", "5 March 2026"}},
		Labels:  []string{"Dec 2025", "Jan 2026", "Mar 2026"}, Counts: []int64{1, 1, 2},
	}); got != want {
		t.Errorf("chart %s, want %s", got, want)
	}
	// Thirty months with answers: the 24 latest, and a note.
	var dates []string
	for m := 0; m < 30; m++ {
		dates = append(dates, fmt.Sprintf("%d-%02d-15", 2020+m/12, 1+m%12))
	}
	dates = append(dates, "2020-01-01")
	c = dateChart(dates...)
	if len(c.Labels) != 24 || c.Labels[0] != "Jul 2020" || c.Labels[23] != "Jun 2022" {
		t.Errorf("labels %q", c.Labels)
	}
	if !strings.Contains(c.Note, "the 24 latest of 30 months") || !strings.Contains(c.Note, "7 answers in earlier months are not shown") {
		t.Errorf("note %q", c.Note)
	}
	if c := dateChart(); c.Labels != nil || c.Figures != nil {
		t.Errorf("empty chart %+v", c)
	}
}

func TestDateExports(t *testing.T) {
	k := dateKind{}
	q := Question{Type: Date}
	qa := QuestionAnswer{Answer: "2026-12-03"}
	if v := k.Value(q, qa); v != "2026-12-03" {
		t.Errorf("value %v", v)
	}
	if rows := k.SQLRows(q, qa); len(rows) != 1 || rows[0].Date != "2026-12-03" {
		t.Errorf("SQL rows %+v", rows)
	}
}
