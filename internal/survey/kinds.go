package survey

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is one kind of question: everything the domain knows of it, in one
// file per kind (kind_*.go), reached through the registry below. Nothing
// else switches on a question's type. A kind is free of I/O and HTML: its
// input and chart are the partials templates/kinds/<Key>.input.html and
// templates/kinds/<Key>.chart.html. Its example question, for tests, is
// in package surveytest (examples.go), by the kind's type.
//
// The unexported methods keep kinds inside this package. The conformance
// and fuzz tests (kinds_test.go) run every registered kind on its example,
// and fail for a kind that has none.
type Kind interface {
	// Type is the kind's stored name, as surveys, answers and summaries
	// hold it ("FiveStars").
	Type() QuestionType
	// Key names the kind's partials: lower case, letters only.
	Key() string
	// Label is the kind's name for people ("Five stars").
	Label() string
	// Settings says which of a Question's settings the kind has, for the
	// designer and the API; Normalize clears the others.
	Settings() Settings

	// Chart is what the analysis page shows of a question's summary.
	Chart(qs *QuestionAnswersSummary) Chart
	// Columns names the CSV columns the kind gives question q, after the
	// question's own text: one "" for a single column.
	Columns(q Question) []string
	// Cells are the cells of those columns for an answer (the zero
	// QuestionAnswer when the respondent has none), before any escaping
	// for spreadsheets: as many as Columns.
	Cells(q Question, qa QuestionAnswer) []string
	// CellTypes says what each of those columns holds (CellText,
	// CellNumber, CellDate), for exports with typed cells (XLSX): as many
	// as Columns.
	CellTypes(q Question) []CellType
	// Value is the answer as a typed JSON value (a number, a list, an
	// object of rows); nil when there is none.
	Value(q Question, qa QuestionAnswer) any
	// StatVars are the question's variables in the exports for
	// statistics packages (SPSS, R: package codebook): codes for choices
	// (a 0/1 variable per checkbox, a variable per matrix row and per
	// rank), numbers, days and texts. At least one.
	StatVars(q Question) []StatVar
	// StatCells are an answer's values of those variables (the zero
	// QuestionAnswer when the respondent has none): a code or a number as
	// a decimal, a day as YYYY-MM-DD, a text; "" for none (missing). As
	// many as StatVars.
	StatCells(q Question, qa QuestionAnswer) []string
	// SQLRows are the rows the PostgreSQL copy writes for an answer:
	// one, or one per matrix row, checked choice or ranked choice.
	SQLRows(q Question, qa QuestionAnswer) []SQLRow

	// normalize cleans the settings the kind has (the text, help and
	// the settings it does not have are cleaned by Survey.Normalize).
	normalize(q *Question)
	// validate adds the problems of a question's settings to f, under
	// key+".choices" and the like.
	validate(q Question, key string, f fieldErrors)
	// answer checks what a respondent sent (each value cleaned of control
	// characters and trimmed) and returns the answer to store, or a
	// message for the respondent. Nothing sent is ("", ""): Survey's
	// NewAnswer decides whether the question needed an answer.
	answer(q Question, f Form) (stored string, problem Msg)
	// form is what a respondent sends to give the stored answer: answer
	// of form(q, stored) is stored again.
	form(q Question, stored string) Form
	// newSummary gives qs the empty counts of q (q has no settings when
	// the summary is made from an answer alone).
	newSummary(q Question, qs *QuestionAnswersSummary)
	// add counts one stored answer into qs. Merging summaries is the
	// summary's (summary.go), part by part, the same for every kind.
	add(qs *QuestionAnswersSummary, answer string)
}

// Settings are the settings of a Question that a kind has.
type Settings struct {
	// Choices: PossibleAnswers, up to MaxChoices (or the kind's own
	// bound, for a dropdown).
	Choices    bool
	MaxChoices int
	// Rows of a matrix.
	Rows bool
	// Other and Shuffle of a choice question.
	Other, Shuffle bool
	// Bounds says what Min and Max bound, for people ("length",
	// "number", "date", "selections"); "" when the kind has none.
	Bounds string
	// Integer, Format (short text), Scale and its end labels.
	Integer, Format, Scale, ScaleLabels bool
	// ScaleName and ScaleTops, when set, are what Scale means to the
	// designer and the values offered ("Largest file, in MB"); else a
	// scale from 1 to 2 … 10. ChoicesName and ChoicesHint, when set, say
	// what the choices are (the kinds of file an upload takes).
	ScaleName, ChoicesName, ChoicesHint string
	ScaleTops                           []int
	// Files: the answers are files the server stored (UploadedFile): a
	// respondent's own field values are never taken for them, and the
	// page state carries them on every page (a trait of the kind).
	Files bool
	// Statement: the text a consent question asks to agree to.
	Statement bool
	// Step: a slider's step between Min and Max.
	Step bool
	// Parts: the parts a contact question asks.
	Parts bool
	// Pattern: a short text's regular expression and its message.
	Pattern bool
	// Pictures: a picture choice's pictures (each a label, an alt text
	// and an uploaded image, Question.Pictures), and whether several may
	// be chosen (Multiple).
	Pictures bool
	// Text: the answers are texts people write, which the analysis page
	// lists besides counting their words (not a setting of a question: a
	// trait of the kind).
	Text bool
}

// normalizeSettings clears the settings a kind does not have.
func normalizeSettings(q *Question, s Settings) {
	if !s.Choices {
		q.PossibleAnswers, q.HiddenChoices = nil, nil
	}
	if !s.Rows {
		q.Rows, q.HiddenRows = nil, nil
	}
	if !s.Other {
		q.Other = false
	}
	if !s.Shuffle {
		q.Shuffle = false
	}
	if s.Bounds == "" {
		q.Min, q.Max = "", ""
	}
	q.Min, q.Max = strings.TrimSpace(CleanLine(q.Min)), strings.TrimSpace(CleanLine(q.Max))
	if !s.Integer {
		q.Integer = false
	}
	if !s.Format {
		q.Format = ""
	}
	if !s.Scale {
		q.Scale = 0
	}
	if !s.ScaleLabels {
		q.LowLabel, q.HighLabel = "", ""
	}
	q.LowLabel, q.HighLabel = strings.TrimSpace(CleanLine(q.LowLabel)), strings.TrimSpace(CleanLine(q.HighLabel))
	if !s.Pattern {
		q.Pattern, q.PatternMessage = "", ""
	}
	q.Pattern, q.PatternMessage = strings.TrimSpace(CleanLine(q.Pattern)), strings.TrimSpace(CleanLine(q.PatternMessage))
	if q.Pattern == "" {
		q.PatternMessage = ""
	}
	if !s.Parts {
		q.Parts = nil
	}
	if !s.Pictures {
		q.Pictures, q.Multiple = nil, false
	}
	if !s.Step {
		q.Step = ""
	}
	if !s.Statement {
		q.Statement = ""
	}
	q.Statement = strings.TrimSpace(CleanText(strings.ReplaceAll(q.Statement, "\r\n", "\n")))
}

// Form is what a respondent's browser sent for one question, by the field's
// suffix: Form[""] the values of the question's own field (q-<ID>),
// Form["other"] the text of its "Other" choice (q-<ID>-other), Form["3"]
// row 3 of a matrix or item 3 of a ranking (q-<ID>-3).
type Form map[string][]string

// Get returns the first value of field suffix, or "".
func (f Form) Get(suffix string) string {
	if v := f[suffix]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Value is a Form of one value of the question's own field.
func Value(v string) Form { return Form{"": {v}} }

// Chart is what a kind's chart partial shows of a summary: bars (a label
// and a count each), figures, a mean, counted words and, for a matrix, a
// chart per row.
type Chart struct {
	Labels []string
	Counts []int64
	// Average is the mean, when Averaged.
	Average  float64
	Averaged bool
	// Figures are named results shown above the bars ("Mean": "4.75").
	Figures []Figure
	// Score is the one result shown big, when there is one (an NPS's
	// "+42").
	Score *Figure
	// Stack are the parts of one whole, drawn as one stacked bar in their
	// order (an NPS's promoters, passives and detractors).
	Stack []Part
	// Words are all the words the summary counts, most used first: the
	// page shows the ChartWords most used that say something in the
	// survey's language (MostUsedWords).
	Words []WordCount
	// OtherWords counts the uses of words past the summary's sample.
	OtherWords int64
	// Rows are the charts of a matrix's rows, each with its Title.
	Rows  []Chart
	Title string
	// Positions are a ranking's items, in order.
	Positions []Position
	// Answered counts the answers a chart of Rows counts; Levels shades
	// each of its Counts for a heat table, from 0 (none) to HeatLevels.
	Answered int64
	Levels   []int
	// Note is a sentence under the chart.
	Note string
}

// Figure is one named result of a chart.
type Figure struct {
	Label, Value string
}

// Position is one item of a ranking's chart: its average position (two
// decimals, "" when no one ranked it), how many ranked it and how many
// first, and its bar's Width from 0 to 100, 100 for an average of 1 (the
// first place) down to 100/n for the last of n items.
type Position struct {
	Item, Average string
	Ranked, First int64
	Width         float64
}

// Part is one part of a chart's Stack: Key names it for the chart's
// style (letters only: "promoters"), Label for people; its count and its
// share of the whole in per cent, rounded to a whole number (halves away
// from zero), as Percent says it.
type Part struct {
	Key, Label string
	Count      int64
	Percent    int64
}

// CellType is what an export column holds, for a spreadsheet's typed cells.
type CellType uint8

const (
	CellText   CellType = iota // text, whatever it looks like
	CellNumber                 // a decimal number
	CellDate                   // a day, YYYY-MM-DD
)

// cellTypes is n columns of type t.
func cellTypes(n int, t CellType) []CellType {
	out := make([]CellType, n)
	for i := range out {
		out[i] = t
	}
	return out
}

// TypedCell is an export cell as a spreadsheet's cell value: nil for an
// empty cell, a float64 for a cell of a number column that is a finite
// decimal number, a time.Time (midnight UTC) for a cell of a date column
// that is a day (YYYY-MM-DD), and the text as it is otherwise, however it
// looks (a text beginning with "=" stays a text).
func TypedCell(t CellType, cell string) any {
	if cell == "" {
		return nil
	}
	switch t {
	case CellNumber:
		if f, err := strconv.ParseFloat(cell, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && isDecimal(cell) {
			return f
		}
	case CellDate:
		if d, err := time.Parse(time.DateOnly, cell); err == nil && d.Format(time.DateOnly) == cell {
			return d
		}
	}
	return cell
}

// isDecimal reports whether s is a plain decimal number: an optional
// "-", digits, and at most one "." between digits (no exponent, no "+",
// no "Inf", no hexadecimal).
func isDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	whole, frac, point := strings.Cut(s, ".")
	digits := func(d string) bool {
		for _, r := range d {
			if r < '0' || r > '9' {
				return false
			}
		}
		return d != ""
	}
	return digits(whole) && (!point || digits(frac))
}

// SQLRow is a row of the PostgreSQL copy's answers table.
type SQLRow struct {
	// Item is the matrix row, the checked choice or the ranked choice the
	// row is about; "" for a kind of one row per answer.
	Item string
	// Text is the answer as text.
	Text string
	// Number is the answer as a decimal number for the numeric column,
	// "" for NULL; Date is YYYY-MM-DD for the date column, "" for NULL.
	Number, Date string
}

// kinds lists every kind, in the order the designer offers them.
var kinds = []Kind{simpleText{}, multipleChoice{}, fiveStars{}, shortText{}, numberKind{}, dateKind{}, linearScale{}, netPromoterScore{},
	checkboxes{}, dropdown{}, matrix{}, ranking{}, fileUpload{}, yesNo{}, consent{}, slider{}, contact{}, pictureChoice{}}

var kindByType = func() map[QuestionType]Kind {
	m := make(map[QuestionType]Kind, len(kinds))
	for _, k := range kinds {
		if _, dup := m[k.Type()]; dup {
			panic("survey: kind " + string(k.Type()) + " registered twice")
		}
		m[k.Type()] = k
	}
	return m
}()

// KindOf returns the kind of question t names.
func KindOf(t QuestionType) (Kind, bool) {
	k, ok := kindByType[t]
	return k, ok
}

// Kinds returns every kind, in a stable order (the designer's).
func Kinds() []Kind {
	return append([]Kind(nil), kinds...)
}

// Helpers the kinds share.

// OtherMark starts a stored answer's "Other (please specify)" text. It is
// a control character, which no choice and no cleaned text a respondent
// sends can hold, so that the text can never be taken for a choice.
const OtherMark = "\x1f"

// OtherLabel is how "Other" is shown and exported.
const OtherLabel = "Other"

// normalizeLines cleans a list of lines (CleanLine), trims their white
// space and drops the empty ones.
func normalizeLines(lines []string) []string {
	var out []string
	for _, c := range lines {
		if c = strings.TrimSpace(CleanLine(c)); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// validateLines checks a list of choices or rows under field: between min
// and max of them, each a clean line of at most MaxChoiceLength
// characters, none twice. what names one of them for people ("possible
// answer").
func validateLines(lines []string, min, max int, what, field string, f fieldErrors) {
	seen := make(map[string]bool, len(lines))
	switch {
	case len(lines) < min:
		f.add(field, "Give at least %s %ss.", count(min), what)
	case len(lines) > max:
		f.add(field, "Give at most %d %ss (there are %d).", max, what, len(lines))
	}
	for _, c := range lines {
		switch {
		case strings.TrimSpace(c) == "":
			f.add(field, "A %s is empty.", what)
		case utf8.RuneCountInString(c) > MaxChoiceLength:
			f.add(field, "Keep each %s to %d characters.", what, MaxChoiceLength)
		case !IsCleanLine(c):
			f.add(field, "A %s may not contain control characters or direction overrides.", what)
		case seen[c]:
			f.add(field, "%q is listed twice.", c)
		}
		seen[c] = true
	}
}

// otherText checks the text of an "Other" choice, returning the stored
// form (OtherMark + text) or a problem.
func otherText(v string) (string, Msg) {
	v = strings.TrimSpace(CleanLine(v))
	switch n := utf8.RuneCountInString(v); {
	case v == "":
		return "", M("Please say what your other answer is.")
	case n > MaxChoiceLength:
		return "", M("Please keep your other answer to %d characters.", MaxChoiceLength)
	}
	return OtherMark + v, Msg{}
}

// canonicalCount writes a count of digits without leading zeros; anything
// else is left for validate to refuse.
func canonicalCount(s string) string {
	if n, ok := parseCount(s); ok {
		return strconv.Itoa(n)
	}
	return s
}

// parseCount reads a whole number of at most 9 digits (no sign).
func parseCount(s string) (int, bool) {
	if s == "" || len(s) > 9 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// count is n for people: in words up to ten.
func count(n int) string {
	if n >= 0 && n <= 10 {
		return []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}[n]
	}
	return strconv.Itoa(n)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
