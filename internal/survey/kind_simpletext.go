package survey

import "unicode/utf8"

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
	return Chart{Words: qs.TopWords(MaxSummaryWords), OtherWords: qs.OtherWords}
}

func (simpleText) Columns(Question) []string { return []string{""} }

func (simpleText) CellTypes(Question) []CellType { return []CellType{CellText} }

func (simpleText) Cells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

func (simpleText) Value(_ Question, qa QuestionAnswer) any { return textValue(qa.Answer) }

func (simpleText) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	return []SQLRow{{Text: qa.Answer}}
}

// textValue is a text answer as a JSON value: nil when there is none.
func textValue(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// StatVars: those of the CSV export's columns, as they are.
func (k simpleText) StatVars(q Question) []StatVar { return plainVariables(k, q) }

// StatCells: the CSV export's cells.
func (k simpleText) StatCells(q Question, qa QuestionAnswer) []string { return k.Cells(q, qa) }
