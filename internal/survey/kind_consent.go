package survey

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Consent is the type of a question of one tick box: the respondent agrees
// to the question's Statement.
const Consent QuestionType = "Consent"

// ConsentAccepted is the stored answer of a ticked consent box, and the
// value its box sends.
const ConsentAccepted = "accepted"

// MaxStatementLength bounds a consent statement, in characters.
const MaxStatementLength = 2000

// consent is a tick box beside a statement the designer writes (Statement,
// lines of text, required). Ticked, it is stored as ConsentAccepted; not
// ticked, it is no answer. Required (not Optional, the default), the
// survey cannot be sent without the tick: the box is required in the
// browser, and the server says "Please tick the box to give your consent."
// when it is missing. Optional, leaving it unticked is declining, which the
// analysis counts as the answers without it. Its summary counts the
// acceptances (Choices: "accepted").
type consent struct{}

func (consent) Type() QuestionType { return Consent }
func (consent) Key() string        { return "consent" }
func (consent) Label() string      { return "Consent" }
func (consent) Settings() Settings { return Settings{Statement: true} }

func (consent) normalize(*Question) {}

func (consent) validate(q Question, key string, f fieldErrors) {
	switch n := utf8.RuneCountInString(q.Statement); {
	case strings.TrimSpace(q.Statement) == "":
		f.add(key+".statement", "Write the statement people agree to by ticking the box.")
	case n > MaxStatementLength:
		f.add(key+".statement", "Keep the statement to %d characters (it has %d).", MaxStatementLength, n)
	case !IsCleanText(q.Statement):
		f.add(key+".statement", "The statement may not contain control characters or direction overrides.")
	}
}

func (consent) required() Msg { return M("Please tick the box to give your consent.") }

// answer takes the box's value; an API client may also send "true" or
// "yes". Anything else is refused rather than read as a refusal.
func (consent) answer(_ Question, f Form) (string, Msg) {
	switch v := strings.ToLower(f.Get("")); v {
	case "":
		return "", Msg{}
	case ConsentAccepted, "true", "yes":
		return ConsentAccepted, Msg{}
	}
	return "", M("To give your consent, tick the box; to decline, leave it empty.")
}

func (consent) form(_ Question, stored string) Form { return Value(stored) }

func (consent) newSummary(_ Question, qs *QuestionAnswersSummary) {
	qs.Choices = []ChoiceCount{{Answer: ConsentAccepted}}
}

func (consent) add(qs *QuestionAnswersSummary, answer string) {
	if answer == ConsentAccepted {
		qs.Choices = addChoice(qs.Choices, answer)
	}
}

// Chart: the number of acceptances as a figure (the page adds those who
// left an optional box empty: the answers without one).
func (consent) Chart(qs *QuestionAnswersSummary) Chart {
	var n int64
	for _, cc := range qs.Choices {
		if cc.Answer == ConsentAccepted {
			n += cc.Count
		}
	}
	return Chart{Figures: []Figure{{"Accepted", strconv.FormatInt(n, 10)}}}
}

func (consent) Columns(Question) []string { return []string{""} }

func (consent) CellTypes(Question) []CellType { return []CellType{CellText} }

func (consent) Cells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

// Value is true for an acceptance.
func (consent) Value(_ Question, qa QuestionAnswer) any {
	if qa.Answer == ConsentAccepted {
		return true
	}
	return nil
}

func (consent) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	return []SQLRow{{Text: qa.Answer}}
}

// picks: accepted (an answer not accepted is no answer).
func (consent) picks(Question) []string { return []string{ConsentAccepted} }

// StatVars: 1 for an acceptance.
func (consent) StatVars(Question) []StatVar {
	return []StatVar{{Type: CellNumber, Values: []ValueLabel{{1, "Accepted"}}}}
}

// StatCells: 1 for an acceptance.
func (consent) StatCells(_ Question, qa QuestionAnswer) []string {
	if qa.Answer == ConsentAccepted {
		return []string{"1"}
	}
	return []string{""}
}
