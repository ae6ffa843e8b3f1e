package survey

import (
	"fmt"
	"math/rand/v2"
	"unicode/utf8"
)

// SimpleText is a free text answer of up to MaxTextAnswerLength
// characters; its summary counts the answers' words (summary.go's Words
// and keepWords).
type simpleText struct{}

func (simpleText) Type() QuestionType { return SimpleText }
func (simpleText) Key() string        { return "simpletext" }
func (simpleText) Label() string      { return "Simple text" }

func (simpleText) normalize(q *Question)                  { q.PossibleAnswers = nil }
func (simpleText) validate(Question, string, fieldErrors) {}

func (simpleText) answer(_ Question, v string) (string, string) {
	switch n := utf8.RuneCountInString(v); {
	case v == "":
		return v, "Please answer this question."
	case n > MaxTextAnswerLength:
		return v, fmt.Sprintf("Please keep your answer to %d characters (it has %d).", MaxTextAnswerLength, n)
	}
	return v, ""
}

func (simpleText) newSummary(_ Question, qs *QuestionAnswersSummary) {
	qs.Words = map[string]int64{}
}

func (simpleText) add(qs *QuestionAnswersSummary, answer string) {
	for _, w := range Words(answer) {
		qs.Words[w]++
	}
	qs.keepWords()
}

func (simpleText) merge(qs, o *QuestionAnswersSummary) {
	for w, n := range o.Words {
		if qs.Words == nil {
			qs.Words = map[string]int64{}
		}
		qs.Words[w] += n
	}
	qs.OtherWords += o.OtherWords
	qs.keepWords()
}

func (simpleText) restore(qs *QuestionAnswersSummary) {
	if qs.Words == nil {
		qs.Words = map[string]int64{}
	}
}

func (simpleText) Chart(qs *QuestionAnswersSummary) Chart {
	return Chart{Words: qs.TopWords(10), OtherWords: qs.OtherWords}
}

func (simpleText) ExportCells(qa QuestionAnswer) []string { return []string{qa.Answer} }

func (simpleText) CopyNumber(QuestionAnswer) (int64, bool) { return 0, false }

func (simpleText) example() (Question, func(*rand.Rand) string) {
	return Question{Text: "What should we improve?", Type: SimpleText}, func(r *rand.Rand) string {
		// Words from a vocabulary larger than a summary keeps, stop words
		// and punctuation.
		text := "The"
		for n := 1 + r.IntN(20); n > 0; n-- {
			text += fmt.Sprintf(" w%dx,", r.IntN(3*MaxSummaryWords)) + []string{"", " it's", " and", " Été"}[r.IntN(4)]
		}
		return text
	}
}
