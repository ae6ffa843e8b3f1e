// Package codebook is the one place that names and codes a survey's
// answers for statistics packages: a data file (CSV, UTF-8, one row per
// answer, a code for each choice) and, beside it, the SPSS syntax
// (spss.go) or the R script (r.go) that reads it with the questions'
// texts as variable labels and the choices as value labels or factor
// levels.
//
// What each kind of question gives is the kind's (survey.Kind.StatVars
// and StatCells); this package names the variables (q1, q1_2 …, the
// hidden fields and the survey's own variables by their names made
// valid), measures the data as it is written (the widths SPSS reads) and
// writes the syntax. Nothing here does I/O but to the writers it is
// given.
package codebook

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/surveys-dev/surveys/internal/survey"
)

// Type is what a variable holds.
type Type uint8

const (
	Text     Type = iota // a string
	Number               // a number, or a code of Values
	Date                 // a day, YYYY-MM-DD
	DateTime             // a moment in UTC, YYYY-MM-DD hh:mm:ss
)

// Var is one variable (a column of the data file).
type Var struct {
	// Name is valid for SPSS and R, and unique (without its case).
	Name string
	// Label is what it holds for people: the question's text, and the
	// variable's own label in brackets ("Colours? [Red]").
	Label string
	Type  Type
	// Values name its codes; Scale says they name some of its numbers
	// only (the ends of a scale), which stay numbers.
	Values []survey.ValueLabel
	Scale  bool

	// Measured from the data written: the longest text, in bytes; the
	// most digits before and after the point of a number, and a sign.
	width, whole, decimals int
	negative               bool
}

// Coded reports whether v's values are codes, each named: a factor in R.
func (v *Var) Coded() bool { return v.Type == Number && len(v.Values) > 0 && !v.Scale }

// Book is a survey's variables, and the data file's writer.
type Book struct {
	// Title is the survey's, for the syntax's comments.
	Title string
	// DataFile is the data file's name, as the syntax reads it.
	DataFile string
	Vars     []*Var
	// Rows counts the answers written.
	Rows int

	sv        *survey.Survey
	questions []question
	hidden    int // index of the first hidden field's variable
	status    bool
	cw        *csv.Writer
	text      func(string) string
	row       []string
}

// question is where a question's variables are among the Book's.
type question struct {
	q     survey.Question
	kind  survey.Kind // nil for a kind unknown: one text variable
	first int
	blank []string
}

// New is sv's book, writing its data file to w, named dataFile for the
// syntax. text, when not nil, is applied to each text cell written (a
// guard against a spreadsheet's formulas, as the CSV export's).
func New(sv *survey.Survey, dataFile string, w io.Writer, text func(string) string) *Book {
	b := &Book{Title: sv.Title, DataFile: dataFile, sv: sv, cw: csv.NewWriter(w), text: text}
	names := namer{}
	add := func(name, label string, t Type, values []survey.ValueLabel, scale bool) {
		b.Vars = append(b.Vars, &Var{Name: names.name(name), Label: oneLine(label), Type: t, Values: values, Scale: scale})
	}
	add("answer_id", "Answer ID", Text, nil, false)
	add("created_on", "Received (UTC)", DateTime, nil, false)
	for i, q := range sv.Questions {
		qq := question{q: q, first: len(b.Vars)}
		base := "q" + strconv.Itoa(i+1)
		if k, ok := survey.KindOf(q.Type); ok {
			qq.kind = k
			for _, v := range k.StatVars(q) {
				label := q.Text
				if v.Label != "" {
					label += " [" + v.Label + "]"
				}
				add(base+v.Suffix, label, typeOf(v.Type), v.Values, v.Scale)
			}
			qq.blank = k.StatCells(q, survey.QuestionAnswer{})
		} else {
			add(base, q.Text, Text, nil, false)
			qq.blank = []string{""}
		}
		b.questions = append(b.questions, qq)
	}
	b.hidden = len(b.Vars)
	for _, n := range sv.HiddenFields {
		add(n, n+" (hidden field)", Text, nil, false)
	}
	for _, n := range sv.VarNames() {
		add(n, n+" (variable)", Number, nil, false)
	}
	if sv.KeepPartial > 0 {
		b.status = true
		add("status", "Status", Number, statusValues, false)
	}
	return b
}

// statusValues code an answer's status, of a survey that keeps partial
// answers.
var statusValues = []survey.ValueLabel{{Code: 1, Label: "Complete"}, {Code: 2, Label: "Partial"}}

func typeOf(t survey.CellType) Type {
	switch t {
	case survey.CellNumber:
		return Number
	case survey.CellDate:
		return Date
	}
	return Text
}

// Header writes the data file's first line: the variables' names.
func (b *Book) Header() error {
	names := make([]string, len(b.Vars))
	for i, v := range b.Vars {
		names[i] = v.Name
	}
	return b.cw.Write(names)
}

// Write writes a's row to the data file, measuring it.
func (b *Book) Write(a *survey.SurveyAnswer) error {
	row := append(b.row[:0], a.ID, a.CreatedOn.UTC().Format(time.DateTime))
	for _, q := range b.questions {
		qa, ok := a.Answer(q.q.ID)
		var cells []string
		switch {
		case !ok:
			cells = q.blank
		case q.kind != nil:
			cells = q.kind.StatCells(q.q, qa)
		default:
			cells = []string{qa.Answer}
		}
		row = append(row, cells...)
		// A kind gives as many cells as variables: never shift the
		// columns after it if one did not.
		for len(row) < q.first+len(q.blank) {
			row = append(row, "")
		}
		row = row[:q.first+len(q.blank)]
	}
	for _, n := range b.sv.HiddenFields {
		row = append(row, a.Hidden[n])
	}
	row = append(row, b.sv.VarCells(a)...)
	if b.status {
		row = append(row, strconv.Itoa(statusCode(a)))
	}
	for i, c := range row {
		v := b.Vars[i]
		if v.Type == Text {
			c = oneLine(c)
			if b.text != nil && c != "" {
				c = b.text(c)
			}
			row[i] = c
		}
		v.measure(c)
	}
	b.row = row
	b.Rows++
	return b.cw.Write(row)
}

func statusCode(a *survey.SurveyAnswer) int {
	if a.Partial {
		return 2
	}
	return 1
}

// Flush writes what the data file's writer holds.
func (b *Book) Flush() error {
	b.cw.Flush()
	return b.cw.Error()
}

// measure notes the width of a cell of v.
func (v *Var) measure(c string) {
	switch v.Type {
	case Text:
		v.width = max(v.width, len(c))
	case Number:
		if c == "" {
			return
		}
		if strings.HasPrefix(c, "-") {
			v.negative, c = true, c[1:]
		}
		whole, frac, _ := strings.Cut(c, ".")
		v.whole, v.decimals = max(v.whole, len(whole)), max(v.decimals, len(frac))
	}
}

// oneLine is s with its line breaks and tabs as spaces: the data file
// has one line per answer (SPSS reads no line break inside a quoted
// cell), and a label is one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", " ")
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, s)
}

// cut is s cut to at most n bytes, at a character's boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
