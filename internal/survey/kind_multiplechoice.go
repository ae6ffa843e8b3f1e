package survey

import "strings"

// MultipleChoice is one of two to MaxChoices possible answers, or, when
// the question has Other, a line of the respondent's own, stored after
// OtherMark. Its summary counts each choice, in the order the question
// offers them, and the Other answers and their words.
type multipleChoice struct{}

func (multipleChoice) Type() QuestionType { return MultipleChoice }
func (multipleChoice) Key() string        { return "multiplechoice" }
func (multipleChoice) Label() string      { return "Multiple choice" }
func (multipleChoice) Settings() Settings {
	return Settings{Choices: true, MaxChoices: MaxChoices, Other: true, Shuffle: true}
}

func (multipleChoice) normalize(q *Question) { q.PossibleAnswers = normalizeLines(q.PossibleAnswers) }

func (multipleChoice) validate(q Question, key string, f fieldErrors) {
	validateLines(q.PossibleAnswers, 2, MaxChoices, "possible answer", key+".choices", f)
	if q.Other && contains(q.PossibleAnswers, OtherChoice) {
		f.add(key+".choices", "%q is what the page sends for “Other”: rename that possible answer, or take Other away.", OtherChoice)
	}
}

func (multipleChoice) required() Msg { return M("Please choose one answer.") }

func (multipleChoice) answer(q Question, f Form) (string, Msg) {
	return oneChoice(q, f)
}

// OtherChoice is what the "Other" radio button of a multiple choice
// question sends: not a possible answer (validate refuses it as one when
// the question has Other), so that a respondent who ticks Other and
// writes nothing is told to write their answer rather than taken to have
// answered nothing.
const OtherChoice = "(other)"

// oneChoice is the answer of a question of one choice, or of "Other"
// when the question has it: the choice sent, or else the other text,
// which "Other" ticked (OtherChoice) requires.
func oneChoice(q Question, f Form) (string, Msg) {
	switch v, other := f.Get(""), f.Get("other"); {
	case v == OtherChoice && q.Other:
		return otherText(other)
	case v != "" && !contains(q.PossibleAnswers, v):
		return "", M("Please choose one of the answers offered.")
	case v != "":
		return v, Msg{}
	case other != "" && q.Other:
		return otherText(other)
	}
	return "", Msg{}
}

func (multipleChoice) form(_ Question, stored string) Form { return choiceForm(stored) }

// choiceForm is the form of a stored choice, or of Other ticked and its
// text.
func choiceForm(stored string) Form {
	if other, ok := strings.CutPrefix(stored, OtherMark); ok {
		return Form{"": {OtherChoice}, "other": {other}}
	}
	return Value(stored)
}

func (multipleChoice) newSummary(q Question, qs *QuestionAnswersSummary) {
	for _, c := range q.PossibleAnswers {
		qs.Choices = append(qs.Choices, ChoiceCount{Answer: c})
	}
}

func (multipleChoice) add(qs *QuestionAnswersSummary, answer string) { addOneChoice(qs, answer) }

// addOneChoice counts a stored choice, or an Other answer and its words.
func addOneChoice(qs *QuestionAnswersSummary, answer string) {
	if other, ok := strings.CutPrefix(answer, OtherMark); ok {
		qs.Other++
		qs.addWords(other)
		return
	}
	qs.Choices = addChoice(qs.Choices, answer)
}

func (multipleChoice) Chart(qs *QuestionAnswersSummary) Chart { return choiceChart(qs) }

// choiceChart is a bar per choice, and one for Other with its words.
func choiceChart(qs *QuestionAnswersSummary) Chart {
	c := Chart{Labels: []string{}, Counts: []int64{}}
	for _, cc := range qs.Choices {
		c.Labels, c.Counts = append(c.Labels, cc.Answer), append(c.Counts, cc.Count)
	}
	if qs.Other > 0 {
		c.Labels, c.Counts = append(c.Labels, OtherLabel), append(c.Counts, qs.Other)
		c.Words, c.OtherWords = qs.TopWords(MaxSummaryWords), qs.OtherWords
	}
	return c
}

func (multipleChoice) Columns(Question) []string { return []string{""} }

func (multipleChoice) CellTypes(Question) []CellType { return []CellType{CellText} }

// Cells: the choice, or "Other: " and the text.
func (multipleChoice) Cells(_ Question, qa QuestionAnswer) []string {
	return []string{choiceText(qa.Answer)}
}

func (multipleChoice) Value(_ Question, qa QuestionAnswer) any {
	return textValue(choiceText(qa.Answer))
}

func (multipleChoice) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	return []SQLRow{{Text: choiceText(qa.Answer)}}
}

// choiceText is a stored choice for people: the choice, or "Other: " and
// the respondent's text.
func choiceText(stored string) string {
	if other, ok := strings.CutPrefix(stored, OtherMark); ok {
		return OtherLabel + ": " + other
	}
	return stored
}

// picks: the choices.
func (multipleChoice) picks(q Question) []string { return q.PossibleAnswers }

// StatVars: the choice, coded 1, 2 … in the order of the choices and
// "Other" after them, and the other text in a variable of its own. A
// question without choices (its settings unknown) has the CSV's text.
func (k multipleChoice) StatVars(q Question) []StatVar {
	if len(q.PossibleAnswers) == 0 && !q.Other {
		return plainVariables(k, q)
	}
	out := []StatVar{{Type: CellNumber, Values: choiceValues(q.PossibleAnswers, q.Other)}}
	if q.Other {
		out = append(out, StatVar{Suffix: "_other", Label: OtherLabel, Type: CellText})
	}
	return out
}

// StatCells: the choice's code, and the other text.
func (k multipleChoice) StatCells(q Question, qa QuestionAnswer) []string {
	if len(q.PossibleAnswers) == 0 && !q.Other {
		return k.Cells(q, qa)
	}
	out := []string{choiceCode(q.PossibleAnswers, qa.Answer)}
	if q.Other {
		other, _ := strings.CutPrefix(qa.Answer, OtherMark)
		if other == qa.Answer {
			other = ""
		}
		out = append(out, other)
	}
	return out
}

// categories: the choices, then Other when the question has it.
func (multipleChoice) categories(q Question) ([]string, bool) { return choiceCategories(q), false }

func (multipleChoice) categoriesOf(q Question, stored string, dst []int) []int {
	return choiceCategory(q, stored, dst)
}
