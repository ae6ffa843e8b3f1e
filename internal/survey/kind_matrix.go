package survey

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Matrix is the type of a question of rows answered on one shared set of
// columns.
const Matrix QuestionType = "Matrix"

// Bounds of a matrix.
const (
	MaxMatrixRows    = 30
	MaxMatrixColumns = 10
	// defaultMatrixScale is the rating scale of a matrix given neither
	// columns nor a scale.
	defaultMatrixScale = 5
)

// matrix is one answer per row (Rows, 1 to MaxMatrixRows) among shared
// columns: the PossibleAnswers (2 to MaxMatrixColumns), or, when it has
// none, a rating scale 1 to Scale (2 to 10). A required matrix needs every
// row answered; an optional one keeps the rows answered. Stored
// canonically as a JSON object of row → column, keys sorted:
// {"Price":"4","Speed":"5"}. Its summary counts each row's columns
// (QuestionAnswersSummary.Rows).
type matrix struct{}

func (matrix) Type() QuestionType { return Matrix }
func (matrix) Key() string        { return "matrix" }
func (matrix) Label() string      { return "Grid (matrix)" }
func (matrix) Settings() Settings {
	return Settings{Choices: true, MaxChoices: MaxMatrixColumns, Rows: true, Scale: true}
}

// normalize: columns, when given, win over a scale; neither gives a scale
// of defaultMatrixScale.
func (matrix) normalize(q *Question) {
	q.PossibleAnswers, q.Rows = normalizeLines(q.PossibleAnswers), normalizeLines(q.Rows)
	switch {
	case len(q.PossibleAnswers) > 0:
		q.Scale = 0
	case q.Scale == 0:
		q.Scale = defaultMatrixScale
	}
}

func (matrix) validate(q Question, key string, f fieldErrors) {
	validateLines(q.Rows, 1, MaxMatrixRows, "row", key+".rows", f)
	if len(q.PossibleAnswers) > 0 {
		validateLines(q.PossibleAnswers, 2, MaxMatrixColumns, "column", key+".choices", f)
		return
	}
	if q.Scale < 2 || q.Scale > 10 {
		f.add(key+".scale", "A rating scale goes from 1 up to 2 to 10 (not %d); or give the columns.", q.Scale)
	}
}

func (matrix) required() Msg { return M("Please answer every row.") }

// matrixColumns are the columns of q: its possible answers, or "1" to
// its scale.
func matrixColumns(q Question) []string {
	if len(q.PossibleAnswers) > 0 || q.Scale <= 0 {
		return q.PossibleAnswers
	}
	cols := make([]string, q.Scale)
	for i := range cols {
		cols[i] = strconv.Itoa(i + 1)
	}
	return cols
}

func (matrix) answer(q Question, f Form) (string, Msg) {
	cols := matrixColumns(q)
	answered := map[string]string{}
	var missing []string
	for i, row := range q.Rows {
		v := f.Get(strconv.Itoa(i))
		if v == "" {
			missing = append(missing, row)
			continue
		}
		if len(q.PossibleAnswers) == 0 {
			// A rating: the number, however it is written.
			if n, err := strconv.Atoi(v); err == nil {
				v = strconv.Itoa(n)
			}
		}
		if !contains(cols, v) {
			return "", M("Please choose one of the answers offered for %q.", row)
		}
		answered[row] = v
	}
	switch {
	case len(answered) == 0:
		return "", Msg{}
	case len(missing) > 0 && !q.Optional:
		return "", M("Please answer every row: %s.", notAnswered(missing))
	}
	return encodeJSON(answered), Msg{}
}

// notAnswered names rows not answered, for people: the first three.
func notAnswered(rows []string) Msg {
	quoted := make([]string, 0, 3)
	for _, r := range rows[:min(len(rows), 3)] {
		quoted = append(quoted, strconv.Quote(r))
	}
	switch {
	case len(rows) == 1:
		return M("%s has no answer", quoted[0])
	case len(rows) > 3:
		return M("%s and %d more have none", strings.Join(quoted, ", "), len(rows)-3)
	}
	return M("%s and %s have none", strings.Join(quoted[:len(quoted)-1], ", "), quoted[len(quoted)-1])
}

// decodeRows reads a stored matrix answer; nil when it is none.
func decodeRows(stored string) map[string]string {
	if kv, ok := plainStrings(stored, '{', '}', nil); ok {
		m := make(map[string]string, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	var m map[string]string
	if json.Unmarshal([]byte(stored), &m) != nil {
		return nil
	}
	return m
}

func (matrix) form(q Question, stored string) Form {
	m := decodeRows(stored)
	f := Form{}
	for i, row := range q.Rows {
		if v, ok := m[row]; ok {
			f[strconv.Itoa(i)] = []string{v}
		}
	}
	return f
}

func (matrix) newSummary(q Question, qs *QuestionAnswersSummary) {
	cols := matrixColumns(q)
	for _, row := range q.Rows {
		rc := RowCount{Row: row, Choices: make([]ChoiceCount, len(cols))}
		for i, c := range cols {
			rc.Choices[i].Answer = c
		}
		qs.Rows = append(qs.Rows, rc)
	}
}

// add counts each answered row's column; rows and columns the summary
// lacks (an answer to an older definition) are added at the end, rows in
// order of their text.
func (matrix) add(qs *QuestionAnswersSummary, answer string) {
	m := decodeRows(answer)
	rows := make([]string, 0, len(m))
	for row := range m {
		rows = append(rows, row)
	}
	sort.Strings(rows)
	for _, row := range rows {
		i := 0
		for i < len(qs.Rows) && qs.Rows[i].Row != row {
			i++
		}
		if i == len(qs.Rows) {
			qs.Rows = append(qs.Rows, RowCount{Row: row, Choices: []ChoiceCount{}})
		}
		qs.Rows[i].Choices = addChoice(qs.Rows[i].Choices, m[row])
	}
}

// Chart: a chart per row (Title the row, its Answered, and a count per
// column, each shaded by its share of the row's answers: a heat table);
// every row has the same columns, in the same order (those of the
// question, then any only older answers have); when every column of a
// row is a whole number (a rating scale), the row's mean.
func (matrix) Chart(qs *QuestionAnswersSummary) Chart {
	c := Chart{Rows: []Chart{}}
	var cols []string
	for _, rc := range qs.Rows {
		for _, cc := range rc.Choices {
			if !slices.Contains(cols, cc.Answer) {
				cols = append(cols, cc.Answer)
			}
		}
	}
	for _, rc := range qs.Rows {
		row := Chart{Title: rc.Row, Labels: cols, Counts: make([]int64, len(cols)), Levels: make([]int, len(cols))}
		var n, sum int64
		numbers := true
		for _, cc := range rc.Choices {
			row.Counts[slices.Index(cols, cc.Answer)] += cc.Count
			v, err := strconv.ParseInt(cc.Answer, 10, 64)
			numbers = numbers && err == nil
			n, sum = n+cc.Count, sum+v*cc.Count
		}
		for i, k := range row.Counts {
			row.Levels[i] = HeatLevel(k, n)
		}
		if numbers && n > 0 {
			row.Average, row.Averaged = float64(sum)/float64(n), true
		}
		row.Answered = n
		row.Figures = []Figure{{Label: "Answers", Value: strconv.FormatInt(n, 10)}}
		c.Rows = append(c.Rows, row)
	}
	return c
}

// HeatLevels is the darkest shade of a heat table's cell.
const HeatLevels = 4

// HeatLevel is the shade of a cell counting count of total answers: 0
// when it counts none, else its share in quarters, rounded up (1 up to a
// quarter, HeatLevels over three quarters).
func HeatLevel(count, total int64) int {
	if count <= 0 || total <= 0 {
		return 0
	}
	return int(min((HeatLevels*count+total-1)/total, HeatLevels))
}

// Columns: one per row.
func (matrix) Columns(q Question) []string {
	if len(q.Rows) == 0 {
		return []string{""}
	}
	return q.Rows
}

// CellTypes: each row's column, a number on a rating scale (no columns
// named), else text; one text cell for a question without rows.
func (matrix) CellTypes(q Question) []CellType {
	if len(q.Rows) == 0 {
		return []CellType{CellText}
	}
	if len(q.PossibleAnswers) == 0 {
		return cellTypes(len(q.Rows), CellNumber)
	}
	return cellTypes(len(q.Rows), CellText)
}

// Cells: each row's column, "" when the row has none. A question without
// rows (its settings unknown) has one cell: "row: column" for each
// answered row, with "; " between them.
func (matrix) Cells(q Question, qa QuestionAnswer) []string {
	m := decodeRows(qa.Answer)
	if len(q.Rows) == 0 {
		return []string{strings.Join(matrixTexts(m), "; ")}
	}
	cells := make([]string, len(q.Rows))
	for i, row := range q.Rows {
		cells[i] = m[row]
	}
	return cells
}

// matrixTexts are the answered rows as "row: column", in order of rows.
func matrixTexts(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for row, v := range m {
		out = append(out, row+": "+v)
	}
	sort.Strings(out)
	return out
}

// matrixValue is the value of a matrix's column: a number for a rating
// scale (or when the question's columns are unknown and it is a whole
// number), the column's text otherwise.
func matrixValue(q Question, v string) any {
	if len(q.PossibleAnswers) == 0 {
		if n := intValue(v); n != nil {
			return n
		}
	}
	return v
}

// Value is an object of row → column: {"Price": 4, "Speed": 5} on a
// rating scale, {"Price": "Good"} for columns of text.
func (matrix) Value(q Question, qa QuestionAnswer) any {
	m := decodeRows(qa.Answer)
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for row, v := range m {
		out[row] = matrixValue(q, v)
	}
	return out
}

// SQLRows: one row per answered matrix row, in the question's order of
// rows (Item the row, Text the column, Number the rating on a scale).
func (matrix) SQLRows(q Question, qa QuestionAnswer) []SQLRow {
	m := decodeRows(qa.Answer)
	var order []string
	for _, row := range q.Rows {
		if _, ok := m[row]; ok {
			order = append(order, row)
		}
	}
	if len(order) != len(m) {
		order = order[:0]
		for row := range m {
			order = append(order, row)
		}
		sort.Strings(order)
	}
	rows := make([]SQLRow, 0, len(order))
	for _, row := range order {
		r := SQLRow{Item: row, Text: m[row]}
		if n, ok := matrixValue(q, m[row]).(int); ok {
			r.Number = strconv.Itoa(n)
		}
		rows = append(rows, r)
	}
	return rows
}

// StatVars: one per row, its column coded 1, 2 … in the order of the
// columns, or its point on a rating scale. A question without rows (its
// settings unknown) has the CSV's text.
func (k matrix) StatVars(q Question) []StatVar {
	if len(q.Rows) == 0 {
		return plainVariables(k, q)
	}
	out := make([]StatVar, len(q.Rows))
	for i, row := range q.Rows {
		out[i] = StatVar{Suffix: "_" + strconv.Itoa(i+1), Label: row, Type: CellNumber}
		if len(q.PossibleAnswers) > 0 {
			out[i].Values = choiceValues(q.PossibleAnswers, false)
		}
	}
	return out
}

// StatCells: each row's code or point, "" when it has none.
func (k matrix) StatCells(q Question, qa QuestionAnswer) []string {
	if len(q.Rows) == 0 {
		return k.Cells(q, qa)
	}
	m := decodeRows(qa.Answer)
	out := make([]string, len(q.Rows))
	for i, row := range q.Rows {
		if len(q.PossibleAnswers) > 0 {
			out[i] = choiceCode(q.PossibleAnswers, m[row])
		} else if _, err := strconv.Atoi(m[row]); err == nil {
			out[i] = m[row]
		}
	}
	return out
}
