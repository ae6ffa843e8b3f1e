package survey

import (
	"fmt"
	"math/rand/v2"
	"unicode/utf8"
)

// SimpleText is a free text answer of up to MaxTextAnswerLength
// characters, on several lines; its summary counts the answers' words
// (summary.go's Words and keepWords).
type simpleText struct{}

func (simpleText) Type() QuestionType { return SimpleText }
func (simpleText) Key() string        { return "simpletext" }
func (simpleText) Label() string      { return "Long text" }
func (simpleText) Settings() Settings { return Settings{Text: true} }

func (simpleText) normalize(*Question)                    {}
func (simpleText) validate(Question, string, fieldErrors) {}

func (simpleText) answer(_ Question, f Form) (string, Msg) {
	v := f.Get("")
	if n := utf8.RuneCountInString(v); n > MaxTextAnswerLength {
		return "", M("Please keep your answer to %d characters (it has %d).", MaxTextAnswerLength, n)
	}
	return v, Msg{}
}

func (simpleText) form(_ Question, stored string) Form { return Value(stored) }

func (simpleText) newSummary(_ Question, qs *QuestionAnswersSummary) {
	qs.Words = map[string]int64{}
}

func (simpleText) add(qs *QuestionAnswersSummary, answer string) { qs.addWords(answer) }

func (simpleText) Chart(qs *QuestionAnswersSummary) Chart {
	return Chart{Words: qs.TopWords(10), OtherWords: qs.OtherWords}
}

func (simpleText) Columns(Question) []string { return []string{""} }

func (simpleText) CellTypes(Question) []CellType { return []CellType{CellText} }

func (simpleText) Cells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

func (simpleText) Value(_ Question, qa QuestionAnswer) any { return textValue(qa.Answer) }

func (simpleText) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	return []SQLRow{{Text: qa.Answer}}
}

func (simpleText) example() (Question, func(*rand.Rand) Form) {
	return Question{Text: "What should we improve?", Type: SimpleText}, func(r *rand.Rand) Form {
		// Words from a vocabulary larger than a summary keeps, stop words
		// and punctuation.
		text := "The"
		for n := 1 + r.IntN(20); n > 0; n-- {
			text += fmt.Sprintf(" w%dx,", r.IntN(3*MaxSummaryWords)) + []string{"", " it's", " and", " Été"}[r.IntN(4)]
		}
		return Value(text)
	}
}

// textValue is a text answer as a JSON value: nil when there is none.
func textValue(s string) any {
	if s == "" {
		return nil
	}
	return s
}
