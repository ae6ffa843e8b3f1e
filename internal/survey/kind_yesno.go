package survey

import "strings"

// YesNo is the type of a question answered "Yes" or "No".
const YesNo QuestionType = "YesNo"

// The stored answers of a yes/no question, in English whatever the
// respondent's language (the input shows them translated: "Yes" and "No"
// are keys of the respondent pages' catalogs).
const (
	AnswerYes = "Yes"
	AnswerNo  = "No"
)

// yesNo is one of two fixed choices, stored as AnswerYes or AnswerNo.
// Its summary counts each (Choices "Yes" then "No"); its chart gives a bar
// for each, with its share of the answers.
type yesNo struct{}

func (yesNo) Type() QuestionType { return YesNo }
func (yesNo) Key() string        { return "yesno" }
func (yesNo) Label() string      { return "Yes or no" }
func (yesNo) Settings() Settings { return Settings{} }

func (yesNo) normalize(*Question)                    {}
func (yesNo) validate(Question, string, fieldErrors) {}
func (yesNo) required() Msg                          { return M("Please answer yes or no.") }

// answer takes "Yes" or "No", in any case (what the input sends, or an
// API client's "yes").
func (yesNo) answer(_ Question, f Form) (string, Msg) {
	switch v := f.Get(""); {
	case v == "":
		return "", Msg{}
	case strings.EqualFold(v, AnswerYes):
		return AnswerYes, Msg{}
	case strings.EqualFold(v, AnswerNo):
		return AnswerNo, Msg{}
	}
	return "", M("Please answer yes or no.")
}

func (yesNo) form(_ Question, stored string) Form { return Value(stored) }

func (yesNo) newSummary(_ Question, qs *QuestionAnswersSummary) {
	qs.Choices = []ChoiceCount{{Answer: AnswerYes}, {Answer: AnswerNo}}
}

func (yesNo) add(qs *QuestionAnswersSummary, answer string) {
	if answer == AnswerYes || answer == AnswerNo {
		qs.Choices = addChoice(qs.Choices, answer)
	}
}

// Chart: a bar for "Yes" and one for "No", in that order (the page gives
// each its count and share).
func (yesNo) Chart(qs *QuestionAnswersSummary) Chart {
	c := Chart{Labels: []string{AnswerYes, AnswerNo}, Counts: []int64{0, 0}}
	for _, cc := range qs.Choices {
		switch cc.Answer {
		case AnswerYes:
			c.Counts[0] += cc.Count
		case AnswerNo:
			c.Counts[1] += cc.Count
		}
	}
	return c
}

func (yesNo) Columns(Question) []string { return []string{""} }

func (yesNo) CellTypes(Question) []CellType { return []CellType{CellText} }

func (yesNo) Cells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

// Value is true for "Yes", false for "No".
func (yesNo) Value(_ Question, qa QuestionAnswer) any {
	switch qa.Answer {
	case AnswerYes:
		return true
	case AnswerNo:
		return false
	}
	return nil
}

// SQLRows: the answer as text (the numeric column holds only answers
// that are numbers).
func (yesNo) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	return []SQLRow{{Text: qa.Answer}}
}

// picks: Yes and No.
func (yesNo) picks(Question) []string { return []string{AnswerYes, AnswerNo} }

// StatVars: 1 for yes, 0 for no.
func (yesNo) StatVars(Question) []StatVar {
	return []StatVar{{Type: CellNumber, Values: []ValueLabel{{1, AnswerYes}, {0, AnswerNo}}}}
}

// StatCells: 1 or 0.
func (yesNo) StatCells(_ Question, qa QuestionAnswer) []string {
	switch qa.Answer {
	case AnswerYes:
		return []string{"1"}
	case AnswerNo:
		return []string{"0"}
	}
	return []string{""}
}

// categories: "Yes", then "No".
func (yesNo) categories(Question) ([]string, bool) { return []string{AnswerYes, AnswerNo}, false }

func (yesNo) categoriesOf(_ Question, stored string, dst []int) []int {
	switch stored {
	case AnswerYes:
		dst = append(dst, 0)
	case AnswerNo:
		dst = append(dst, 1)
	}
	return dst
}
