package survey

import (
	"strconv"
	"strings"
	"time"
)

// ExportedAnswer is an answer as a line of the JSON export (web), an
// answer of the API and the data of a response.created webhook: the stored answer's
// fields, and per question its text for people (answer: what the CSV
// shows, cells joined) and its kind's typed value (value).
type ExportedAnswer struct {
	ID        string         `json:"id"`
	Tenant    string         `json:"tenant"`
	Slug      string         `json:"slug"`
	Title     string         `json:"title"`
	CreatedOn time.Time      `json:"createdOn"`
	Answers   []ExportedPart `json:"answers"`
	// Hidden are the values of the survey's hidden fields the answer
	// carries, by name (absent when none).
	Hidden map[string]string `json:"hidden,omitempty"`
	// Values are the answer's score and variables, by name (scoring.go;
	// absent when the survey has none).
	Values map[string]float64 `json:"values,omitempty"`
	// Partial marks a partial answer (absent from complete ones).
	Partial bool `json:"partial,omitempty"`
	// OverQuota are the full quota cells the answer was screened out of
	// (SurveyAnswer.OverQuota; absent when none).
	OverQuota []string `json:"overQuota,omitempty"`
}

// ExportedPart is one question's answer of an ExportedAnswer.
type ExportedPart struct {
	QuestionID   string       `json:"questionId"`
	QuestionText string       `json:"questionText"`
	Type         QuestionType `json:"type"`
	Answer       string       `json:"answer"`
	Value        any          `json:"value"`
}

// ExportAnswer is a as a line of the JSON export, its answers in the order
// of the survey's questions (an answer to a question the survey no longer
// has comes last).
func ExportAnswer(sv *Survey, a *SurveyAnswer) ExportedAnswer {
	out := ExportedAnswer{ID: a.ID, Tenant: a.Tenant, Slug: a.Slug, Title: a.Title, CreatedOn: a.CreatedOn, Answers: []ExportedPart{}, Hidden: a.Hidden, Partial: a.Partial, OverQuota: a.OverQuota}
	cells := sv.VarCells(a)
	for i, n := range sv.VarNames() {
		if x, ok := filterNumber(cells[i]); ok {
			if out.Values == nil {
				out.Values = map[string]float64{}
			}
			out.Values[n] = x
		}
	}
	for _, qa := range a.Answers {
		q, ok := sv.Question(qa.QuestionID)
		if !ok || q.Type != qa.Type {
			q = Question{ID: qa.QuestionID, Text: qa.QuestionText, Type: qa.Type}
		}
		part := ExportedPart{QuestionID: qa.QuestionID, QuestionText: qa.QuestionText, Type: qa.Type, Answer: qa.Answer, Value: qa.Answer}
		if k, ok := KindOf(qa.Type); ok {
			part.Value = k.Value(q, qa)
			part.Answer = AnswerText(k, q, qa)
		}
		out.Answers = append(out.Answers, part)
	}
	return out
}

// AnswerText is an answer for people: its CSV cells, those with a value
// joined by "; " (the cell of a column named for a row or an item is
// "column: cell"; one that is the column's name, a checked choice, is
// itself).
func AnswerText(k Kind, q Question, qa QuestionAnswer) string {
	cols, cells := k.Columns(q), k.Cells(q, qa)
	var parts []string
	for i, c := range cells {
		switch {
		case c == "":
		case i >= len(cols) || cols[i] == "" || c == cols[i]:
			parts = append(parts, c)
		default:
			parts = append(parts, cols[i]+": "+c)
		}
	}
	return strings.Join(parts, "; ")
}

// AnswerLines is an answer for people as lines of plain text, for a
// message that has no table (a chat message): a kind whose typed value is
// a list of texts (a ranking's items, first first) as numbered lines;
// otherwise the checked choices
// (cells that are their column's name) as one comma list, then each other
// cell under a named column as "column: cell" (a grid's "row: column", a
// contact's parts, an upload's "file 2: name"), and a single column's cell
// as it is. An unanswered question has no lines. It is AnswerText laid
// out: the same cells, for every kind.
func AnswerLines(k Kind, q Question, qa QuestionAnswer) []string {
	if ordered, ok := k.Value(q, qa).([]string); ok && len(ordered) > 0 {
		lines := make([]string, len(ordered))
		for i, item := range ordered {
			lines[i] = strconv.Itoa(i+1) + ". " + item
		}
		return lines
	}
	cols, cells := k.Columns(q), k.Cells(q, qa)
	var chosen, lines []string
	for i, c := range cells {
		switch {
		case c == "":
		case i >= len(cols) || cols[i] == "":
			lines = append(lines, c)
		case c == cols[i]:
			chosen = append(chosen, c)
		default:
			lines = append(lines, cols[i]+": "+c)
		}
	}
	if len(chosen) > 0 {
		lines = append([]string{strings.Join(chosen, ", ")}, lines...)
	}
	return lines
}
