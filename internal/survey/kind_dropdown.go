package survey

import (
	"fmt"
	"sort"
	"strconv"
)

// Dropdown is the type of a question of one choice among many, shown as a
// list to pick from.
const Dropdown QuestionType = "Dropdown"

// MaxDropdownChoices bounds a dropdown's possible answers.
const MaxDropdownChoices = 500

// dropdownBars is how many bars a dropdown's chart shows at most: the
// most chosen answers.
const dropdownBars = 20

// dropdown is one of two to MaxDropdownChoices possible answers, stored as
// multipleChoice stores a choice: the answer itself. Its summary counts
// each choice in the question's order.
type dropdown struct{}

func (dropdown) Type() QuestionType { return Dropdown }
func (dropdown) Key() string        { return "dropdown" }
func (dropdown) Label() string      { return "Dropdown" }
func (dropdown) Settings() Settings {
	return Settings{Choices: true, MaxChoices: MaxDropdownChoices, Shuffle: true}
}

func (dropdown) normalize(q *Question) { q.PossibleAnswers = normalizeLines(q.PossibleAnswers) }

func (dropdown) validate(q Question, key string, f fieldErrors) {
	validateLines(q.PossibleAnswers, 2, MaxDropdownChoices, "possible answer", key+".choices", f)
}

func (dropdown) required() Msg { return M("Please choose an answer.") }

// answer: the choice sent (a dropdown has no Other, which Normalize clears,
// so oneChoice ignores an other text).
func (dropdown) answer(q Question, f Form) (string, Msg) { return oneChoice(q, f) }

func (dropdown) form(_ Question, stored string) Form { return Value(stored) }

func (dropdown) newSummary(q Question, qs *QuestionAnswersSummary) {
	for _, c := range q.PossibleAnswers {
		qs.Choices = append(qs.Choices, ChoiceCount{Answer: c})
	}
}

func (dropdown) add(qs *QuestionAnswersSummary, answer string) {
	qs.Choices = addChoice(qs.Choices, answer)
}

// Chart: a bar per choice in the question's order; past dropdownBars
// choices, the dropdownBars most chosen (ties in the question's order),
// most chosen first, and a note of the others.
func (dropdown) Chart(qs *QuestionAnswersSummary) Chart {
	c := choiceChart(qs)
	if len(c.Labels) <= dropdownBars {
		return c
	}
	order := make([]int, len(c.Labels))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return c.Counts[order[i]] > c.Counts[order[j]] })
	top := Chart{Labels: make([]string, dropdownBars), Counts: make([]int64, dropdownBars)}
	var rest int64
	for n, i := range order {
		if n < dropdownBars {
			top.Labels[n], top.Counts[n] = c.Labels[i], c.Counts[i]
		} else {
			rest += c.Counts[i]
		}
	}
	top.Note = fmt.Sprintf("The %d most chosen of %d answers are shown, most chosen first; the %s %s chosen %s in all.",
		dropdownBars, len(c.Labels), Count(len(c.Labels)-dropdownBars, "other"), Noun(len(c.Labels)-dropdownBars, "was"), times(rest))
	return top
}

// times is "once", "twice", "12 times".
func times(n int64) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return strconv.FormatInt(n, 10) + " times"
}

func (dropdown) Columns(Question) []string { return []string{""} }

func (dropdown) CellTypes(Question) []CellType { return []CellType{CellText} }

func (dropdown) Cells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

func (dropdown) Value(_ Question, qa QuestionAnswer) any { return textValue(qa.Answer) }

func (dropdown) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	return []SQLRow{{Text: qa.Answer}}
}

// picks: the choices.
func (dropdown) picks(q Question) []string { return q.PossibleAnswers }

// StatVars: the choice, coded 1, 2 … in the order of the choices. A
// question without choices (its settings unknown) has the CSV's text.
func (k dropdown) StatVars(q Question) []StatVar {
	if len(q.PossibleAnswers) == 0 {
		return plainVariables(k, q)
	}
	return []StatVar{{Type: CellNumber, Values: choiceValues(q.PossibleAnswers, false)}}
}

// StatCells: the choice's code.
func (k dropdown) StatCells(q Question, qa QuestionAnswer) []string {
	if len(q.PossibleAnswers) == 0 {
		return k.Cells(q, qa)
	}
	return []string{choiceCode(q.PossibleAnswers, qa.Answer)}
}

// categories: the choices.
func (dropdown) categories(q Question) ([]string, bool) { return choiceCategories(q), false }

func (dropdown) categoriesOf(q Question, stored string, dst []int) []int {
	return choiceCategory(q, stored, dst)
}
