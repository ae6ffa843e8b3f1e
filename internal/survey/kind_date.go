package survey

import (
	"fmt"
	"sort"
	"strconv"
	"time"
)

// Date is a day, stored as YYYY-MM-DD (what a browser's date input sends),
// between FirstDate and LastDate and the question's Min and Max when it
// has them. Its summary is DateSummary: the earliest, the latest and the
// count per month.
const Date QuestionType = "Date"

// The dates a Date question takes at all.
const (
	FirstDate = "1900-01-01"
	LastDate  = "2199-12-31"
)

// dateMonths is the most months a date's chart shows: the latest.
const dateMonths = 24

type dateKind struct{}

func (dateKind) Type() QuestionType { return Date }
func (dateKind) Key() string        { return "date" }
func (dateKind) Label() string      { return "Date" }
func (dateKind) Settings() Settings { return Settings{Bounds: "date"} }

func (dateKind) normalize(*Question) {}

func (dateKind) validate(q Question, key string, f fieldErrors) {
	ok := true
	for _, b := range []struct{ v, field string }{{q.Min, ".min"}, {q.Max, ".max"}} {
		if b.v != "" && !isDate(b.v) {
			f.add(key+b.field, "Give a date from %s to %s, as YYYY-MM-DD.", FirstDate, LastDate)
			ok = false
		}
	}
	if ok && q.Min != "" && q.Max != "" && q.Min > q.Max {
		f.add(key+".max", "The latest date cannot be before the earliest (%s).", q.Min)
	}
}

// isDate reports whether s is a day from FirstDate to LastDate, written
// YYYY-MM-DD (such dates order as text).
func isDate(s string) bool {
	t, err := time.Parse(time.DateOnly, s)
	return err == nil && t.Format(time.DateOnly) == s && s >= FirstDate && s <= LastDate
}

// dateBounds are the earliest and latest day q takes.
func dateBounds(q Question) (first, last string) {
	first, last = FirstDate, LastDate
	if isDate(q.Min) {
		first = q.Min
	}
	if isDate(q.Max) {
		last = q.Max
	}
	return first, last
}

// longDate is a YYYY-MM-DD day for people: "3 December 2026".
func longDate(s string) Msg {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return M("%s", s)
	}
	return Day(t)
}

// Weekday is the day of t with its weekday: "Saturday 5 December 2026".
func Weekday(t time.Time) Msg { return M("%[1]s %[2]s", M(t.Weekday().String()), Day(t)) }

// Day is the day of t, for people: "3 December 2026".
func Day(t time.Time) Msg {
	return M("%[1]d %[2]s %[3]s", t.Day(), M(t.Month().String()), strconv.Itoa(t.Year()))
}

func (dateKind) required() Msg { return M("Please give a date.") }

func (dateKind) answer(q Question, f Form) (string, Msg) {
	v := f.Get("")
	if v == "" {
		return "", Msg{}
	}
	if _, err := time.Parse(time.DateOnly, v); err != nil || len(v) != len(time.DateOnly) {
		return "", M("Please give a date as year-month-day, like 2026-12-03.")
	}
	first, last := dateBounds(q)
	if v < first || v > last {
		switch {
		case q.Min != "" && q.Max != "":
			return "", M("Please give a date from %s to %s.", longDate(first), longDate(last))
		case q.Min != "" && v < first:
			return "", M("Please give a date on or after %s.", longDate(first))
		case q.Max != "" && v > last:
			return "", M("Please give a date on or before %s.", longDate(last))
		}
		return "", M("Please give a date from the year %s to %s.", FirstDate[:4], LastDate[:4])
	}
	return v, Msg{}
}

func (dateKind) form(_ Question, stored string) Form { return Value(stored) }

func (dateKind) newSummary(_ Question, qs *QuestionAnswersSummary) {
	qs.Dates = &DateSummary{Months: map[string]int64{}}
}

func (dateKind) add(qs *QuestionAnswersSummary, answer string) {
	if !isDate(answer) {
		return
	}
	if qs.Dates == nil {
		qs.Dates = &DateSummary{Months: map[string]int64{}}
	}
	qs.Dates.add(answer)
}

// Chart: the earliest and latest dates, and a bar per month with answers,
// in order, the dateMonths latest of them.
func (dateKind) Chart(qs *QuestionAnswersSummary) Chart {
	ds := qs.Dates
	if ds == nil || ds.Earliest == "" {
		return Chart{}
	}
	c := Chart{Figures: []Figure{{"Earliest", longDate(ds.Earliest).String()}, {"Latest", longDate(ds.Latest).String()}}}
	var months []string
	for m, n := range ds.Months {
		if n > 0 {
			months = append(months, m)
		}
	}
	sort.Strings(months)
	if len(months) > dateMonths {
		var earlier int64
		for _, m := range months[:len(months)-dateMonths] {
			earlier += ds.Months[m]
		}
		c.Note = fmt.Sprintf("The bars show the %d latest of %d months with answers; %s in earlier months %s not shown.",
			dateMonths, len(months), Count(earlier, "answer"), Noun(earlier, "is"))
		months = months[len(months)-dateMonths:]
	}
	c.Labels, c.Counts = []string{}, []int64{}
	for _, m := range months {
		label := m
		if t, err := time.Parse("2006-01", m); err == nil {
			label = t.Format("Jan 2006")
		}
		c.Labels, c.Counts = append(c.Labels, label), append(c.Counts, ds.Months[m])
	}
	return c
}

func (dateKind) Columns(Question) []string { return []string{""} }

// CellTypes: a date.
func (dateKind) CellTypes(Question) []CellType { return []CellType{CellDate} }

func (dateKind) Cells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

// Value is the date as its YYYY-MM-DD string.
func (dateKind) Value(_ Question, qa QuestionAnswer) any { return textValue(qa.Answer) }

// SQLRows: the date in the date column.
func (dateKind) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	row := SQLRow{Text: qa.Answer}
	if isDate(qa.Answer) {
		row.Date = qa.Answer
	}
	return []SQLRow{row}
}

// StatVars: those of the CSV export's columns, as they are.
func (k dateKind) StatVars(q Question) []StatVar { return plainVariables(k, q) }

// StatCells: the CSV export's cells.
func (k dateKind) StatCells(q Question, qa QuestionAnswer) []string { return k.Cells(q, qa) }
