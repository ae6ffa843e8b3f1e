package survey

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Checkboxes is the type of a question of several choices.
const Checkboxes QuestionType = "Checkboxes"

// checkboxes is several of two to MaxChoices possible answers and, when
// the question has Other, a line of the respondent's own, which counts as
// one more selection; Min and Max bound the number of selections. Stored
// canonically as a JSON array of the chosen answers in the question's
// order, then the other text (OtherMark + text) last:
// ["Coffee","Cake","\u001fMate"]. Its summary counts each choice and the
// Other answers and their words, as multipleChoice's does.
type checkboxes struct{}

func (checkboxes) Type() QuestionType { return Checkboxes }
func (checkboxes) Key() string        { return "checkboxes" }
func (checkboxes) Label() string      { return "Checkboxes" }
func (checkboxes) Settings() Settings {
	return Settings{Choices: true, MaxChoices: MaxChoices, Other: true, Shuffle: true, Bounds: "selections"}
}

func (checkboxes) normalize(q *Question) {
	q.PossibleAnswers = normalizeLines(q.PossibleAnswers)
	q.Min, q.Max = canonicalCount(q.Min), canonicalCount(q.Max)
}

func (checkboxes) validate(q Question, key string, f fieldErrors) {
	validateLines(q.PossibleAnswers, 2, MaxChoices, "possible answer", key+".choices", f)
	most := len(q.PossibleAnswers)
	if q.Other {
		most++
	}
	validateSelections(q, most, key, f)
}

// validateSelections checks q's bounds on its number of selections (Min
// and Max, under key+".min" and ".max"), most being the choices there are.
func validateSelections(q Question, most int, key string, f fieldErrors) {
	min, max := 0, most
	for _, b := range []struct {
		text, field, what string
		n                 *int
	}{{q.Min, key + ".min", "least", &min}, {q.Max, key + ".max", "most", &max}} {
		if b.text == "" {
			continue
		}
		n, ok := parseCount(b.text)
		switch {
		case !ok:
			f.add(b.field, "Give the number of answers to choose at %s as a whole number.", b.what)
		case n > most:
			f.add(b.field, "At %s %d: there are only %d answers to choose from.", b.what, n, most)
		case b.what == "most" && n == 0:
			f.add(b.field, "Let respondents choose at least one answer, or leave the maximum empty.")
		default:
			*b.n = n
		}
	}
	if min > max {
		f.add(key+".max", "The maximum (%d) is below the minimum (%d).", max, min)
	}
}

func (checkboxes) required() Msg { return M("Please choose at least one answer.") }

// selectionBounds are the least and most selections q allows (0 and no
// bound when it sets none).
func selectionBounds(q Question) (min, max int) {
	min, _ = parseCount(q.Min)
	max, ok := parseCount(q.Max)
	if !ok {
		max = -1
	}
	return min, max
}

func (checkboxes) answer(q Question, f Form) (string, Msg) {
	sent := make(map[string]bool, len(f[""]))
	for _, v := range f[""] {
		if !contains(q.PossibleAnswers, v) {
			return "", M("Please choose only among the answers offered.")
		}
		sent[v] = true
	}
	var chosen []string
	for _, c := range q.PossibleAnswers {
		if sent[c] {
			chosen = append(chosen, c)
		}
	}
	if other := f.Get("other"); other != "" && q.Other {
		o, problem := otherText(other)
		if !problem.IsZero() {
			return "", problem
		}
		chosen = append(chosen, o)
	}
	if len(chosen) == 0 {
		return "", Msg{}
	}
	switch min, max := selectionBounds(q); {
	case len(chosen) < min:
		return "", M("Please choose at least %s (you chose %d).", answersCount(min), len(chosen))
	case max >= 0 && len(chosen) > max:
		return "", M("Please choose at most %s (you chose %d).", answersCount(max), len(chosen))
	}
	return encodeJSON(chosen), Msg{}
}

// answersCount is "one answer", "three answers".
func answersCount(n int) Msg {
	if n == 1 {
		return M("one answer")
	}
	return M("%s answers", Quantity(n))
}

// encodeJSON is the canonical JSON of a stored answer's structure (a list,
// or an object whose keys encoding/json sorts).
func encodeJSON(v any) string {
	if s, ok := encodePlain(v); ok {
		return s // the same bytes, without reflection
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic("survey: encode an answer: " + err.Error()) // strings only: cannot fail
	}
	return string(b)
}

// decodeList reads a stored JSON array of strings; nil when it is none.
func decodeList(stored string) []string {
	if l, ok := plainStrings(stored, '[', ']', []string{}); ok {
		return l
	}
	var l []string
	if json.Unmarshal([]byte(stored), &l) != nil {
		return nil
	}
	return l
}

// splitOther parts a stored list into its choices and its Other text
// (without OtherMark; "" when none).
func splitOther(list []string) (choices []string, other string) {
	choices = []string{}
	for _, v := range list {
		if o, ok := strings.CutPrefix(v, OtherMark); ok {
			other = o
		} else {
			choices = append(choices, v)
		}
	}
	return choices, other
}

func (checkboxes) form(_ Question, stored string) Form {
	choices, other := splitOther(decodeList(stored))
	f := Form{}
	if len(choices) > 0 {
		f[""] = choices
	}
	if other != "" {
		f["other"] = []string{other}
	}
	return f
}

func (checkboxes) newSummary(q Question, qs *QuestionAnswersSummary) {
	for _, c := range q.PossibleAnswers {
		qs.Choices = append(qs.Choices, ChoiceCount{Answer: c})
	}
}

func (checkboxes) add(qs *QuestionAnswersSummary, answer string) {
	for _, v := range decodeList(answer) {
		addOneChoice(qs, v)
	}
}

func (checkboxes) Chart(qs *QuestionAnswersSummary) Chart {
	c := choiceChart(qs)
	if qs.Answered > 0 {
		c.Note = fmt.Sprintf("Each respondent may choose several answers: %s chose %d in all, of which the bars give the shares.", respondents(qs.Answered), sumCounts(c.Counts))
	}
	return c
}

// respondents is "1 respondent", "12 respondents".
func respondents(n int64) string {
	if n == 1 {
		return "1 respondent"
	}
	return strconv.FormatInt(n, 10) + " respondents"
}

func sumCounts(counts []int64) int64 {
	var n int64
	for _, c := range counts {
		n += c
	}
	return n
}

// Columns: one per possible answer, then "Other" when the question has it.
func (checkboxes) Columns(q Question) []string {
	cols := append([]string(nil), q.PossibleAnswers...)
	if q.Other {
		cols = append(cols, OtherLabel)
	}
	if len(cols) == 0 {
		return []string{""}
	}
	return cols
}

// CellTypes: the chosen answers and the other text are texts.
func (k checkboxes) CellTypes(q Question) []CellType { return cellTypes(len(k.Columns(q)), CellText) }

// Cells: the answer itself under each chosen answer (a spreadsheet counts
// a column's filled cells), "" under the others, and the other text under
// "Other". A question without possible answers (its settings
// unknown) has one cell: the choices, then "Other: " and the text, with
// "; " between them.
func (k checkboxes) Cells(q Question, qa QuestionAnswer) []string {
	cols := k.Columns(q)
	cells := make([]string, len(cols))
	if qa.Answer == "" {
		return cells
	}
	choices, other := splitOther(decodeList(qa.Answer))
	if len(q.PossibleAnswers) == 0 && !q.Other {
		cells[0] = strings.Join(checkboxTexts(choices, other), "; ")
		return cells
	}
	for i, c := range q.PossibleAnswers {
		if contains(choices, c) {
			cells[i] = c
		}
	}
	if q.Other {
		cells[len(cells)-1] = other
	}
	return cells
}

// checkboxTexts are the chosen answers for people, "Other: " and the text
// last.
func checkboxTexts(choices []string, other string) []string {
	out := append([]string(nil), choices...)
	if other != "" {
		out = append(out, OtherLabel+": "+other)
	}
	return out
}

// checkboxValue is a checkboxes answer in JSON: {"choices":["Coffee"],
// "other":"Mate"}, "other" left out when there is none.
type checkboxValue struct {
	Choices []string `json:"choices"`
	Other   string   `json:"other,omitempty"`
}

func (checkboxes) Value(_ Question, qa QuestionAnswer) any {
	list := decodeList(qa.Answer)
	if list == nil {
		return nil
	}
	choices, other := splitOther(list)
	return checkboxValue{Choices: choices, Other: other}
}

// SQLRows: one row per chosen answer (Item and Text the answer), and one
// for the other text (Item "Other", Text the text).
func (checkboxes) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	choices, other := splitOther(decodeList(qa.Answer))
	rows := make([]SQLRow, 0, len(choices)+1)
	for _, c := range choices {
		rows = append(rows, SQLRow{Item: c, Text: c})
	}
	if other != "" {
		rows = append(rows, SQLRow{Item: OtherLabel, Text: other})
	}
	return rows
}

// picks: the choices (an answer includes each box it ticked).
func (checkboxes) picks(q Question) []string { return q.PossibleAnswers }

// checkedValues code a checkbox: 1 checked, 0 not.
var checkedValues = []ValueLabel{{0, "Not chosen"}, {1, "Chosen"}}

// StatVars: one per choice, 1 when it is checked and 0 when not (of an
// answer that has some), and the other text in a variable of its own. A
// question without choices (its settings unknown) has the CSV's text.
func (k checkboxes) StatVars(q Question) []StatVar {
	if len(q.PossibleAnswers) == 0 && !q.Other {
		return plainVariables(k, q)
	}
	var out []StatVar
	for i, c := range q.PossibleAnswers {
		out = append(out, StatVar{Suffix: "_" + strconv.Itoa(i+1), Label: c, Type: CellNumber, Values: checkedValues})
	}
	if q.Other {
		out = append(out, StatVar{Suffix: "_other", Label: OtherLabel, Type: CellText})
	}
	return out
}

// StatCells: 1 or 0 per choice, the other text; all "" for no answer.
func (k checkboxes) StatCells(q Question, qa QuestionAnswer) []string {
	if len(q.PossibleAnswers) == 0 && !q.Other {
		return k.Cells(q, qa)
	}
	out := make([]string, len(k.StatVars(q)))
	if qa.Answer == "" {
		return out
	}
	choices, other := splitOther(decodeList(qa.Answer))
	for i, c := range q.PossibleAnswers {
		out[i] = "0"
		if contains(choices, c) {
			out[i] = "1"
		}
	}
	if q.Other {
		out[len(out)-1] = other
	}
	return out
}

// categories: the choices, then Other when the question has it; an
// answer falls into each it checked.
func (checkboxes) categories(q Question) ([]string, bool) { return choiceCategories(q), true }

func (checkboxes) categoriesOf(q Question, stored string, dst []int) []int {
	for _, v := range decodeList(stored) {
		dst = choiceCategory(q, v, dst)
	}
	return dst
}
