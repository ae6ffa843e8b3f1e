package survey

import (
	"net/mail"
	"net/url"
	"strings"
	"unicode/utf8"
)

// ShortText is one line of text: free, an e-mail address or a web
// address (Format), of Min to Max characters (Max MaxShortTextLength when
// unset). It is stored as written, on one line; its summary counts its
// words, as a long text's.
const ShortText QuestionType = "ShortText"

// MaxShortTextLength bounds a short text answer, in characters.
const MaxShortTextLength = 500

type shortText struct{}

func (shortText) Type() QuestionType { return ShortText }
func (shortText) Key() string        { return "shorttext" }
func (shortText) Label() string      { return "Short text" }
func (shortText) Settings() Settings {
	return Settings{Bounds: "length", Format: true, Pattern: true, Text: true}
}

func (shortText) normalize(q *Question) {
	q.Format = strings.TrimSpace(CleanLine(q.Format))
	q.Min, q.Max = canonicalCount(q.Min), canonicalCount(q.Max)
}

func (shortText) validate(q Question, key string, f fieldErrors) {
	switch q.Format {
	case "", "email", "url":
	default:
		f.add(key+".format", "Choose free text, an e-mail address or a web address.")
	}
	min, max, ok := 0, MaxShortTextLength, true
	for _, b := range []struct {
		v, field string
		n        *int
	}{{q.Min, ".min", &min}, {q.Max, ".max", &max}} {
		if b.v == "" {
			continue
		}
		n, good := parseCount(b.v)
		if !good || n > MaxShortTextLength {
			f.add(key+b.field, "Give a whole number of characters from 0 to %d.", MaxShortTextLength)
			ok = false
			continue
		}
		*b.n = n
	}
	if ok && q.Max != "" && min > max {
		f.add(key+".max", "The longest answer cannot be shorter than the shortest (%d characters).", min)
	}
	validatePattern(q, key, f)
}

func (shortText) required() Msg { return M("Please write an answer.") }

// lengths are the bounds of an answer's length, in characters.
func (shortText) lengths(q Question) (min, max int) {
	min, _ = parseCount(q.Min)
	max = MaxShortTextLength
	if n, ok := parseCount(q.Max); ok && n <= MaxShortTextLength {
		max = n
	}
	return min, max
}

func (k shortText) answer(q Question, f Form) (string, Msg) {
	v := f.Get("")
	if v == "" {
		return "", Msg{}
	}
	// One line: a line break (pasted) is a space, white space runs are one.
	v = oneSpaced(CleanLine(v))
	min, max := k.lengths(q)
	switch n := utf8.RuneCountInString(v); {
	case n > max:
		return "", M("Please keep your answer to %d characters (it has %d).", max, n)
	case n < min:
		return "", M("Please write at least %d characters (your answer has %d).", min, n)
	}
	switch q.Format {
	case "email":
		if !isEmail(v) {
			return "", M("Please give an e-mail address, like name@example.com.")
		}
	case "url":
		if !isWebAddress(v) {
			return "", M("Please give a web address starting with https:// or http://, like https://example.com.")
		}
	}
	if q.Pattern != "" {
		if re, err := compilePattern(q.Pattern); err != nil || !re.MatchString(v) {
			return "", M("%s", PatternMessage(q.PatternMessage))
		}
	}
	return v, Msg{}
}

// isEmail reports whether v is a bare e-mail address (no name, no angle
// brackets), as net/mail reads it.
func isEmail(v string) bool {
	a, err := mail.ParseAddress(v)
	return err == nil && a.Name == "" && a.Address == v && strings.Contains(v, "@")
}

// isWebAddress reports whether v is an absolute http or https URL with a
// host.
func isWebAddress(v string) bool {
	u, err := url.Parse(v)
	if err != nil || !u.IsAbs() || u.Opaque != "" || u.Hostname() == "" {
		return false
	}
	return u.Scheme == "https" || u.Scheme == "http"
}

func (shortText) form(_ Question, stored string) Form { return Value(stored) }

func (shortText) newSummary(_ Question, qs *QuestionAnswersSummary) {
	qs.Words = map[string]int64{}
}

func (shortText) add(qs *QuestionAnswersSummary, answer string) { qs.addWords(answer) }

func (shortText) Chart(qs *QuestionAnswersSummary) Chart {
	return Chart{Words: qs.TopWords(MaxSummaryWords), OtherWords: qs.OtherWords}
}

func (shortText) Columns(Question) []string { return []string{""} }

func (shortText) CellTypes(Question) []CellType { return []CellType{CellText} }

func (shortText) Cells(_ Question, qa QuestionAnswer) []string { return []string{qa.Answer} }

func (shortText) Value(_ Question, qa QuestionAnswer) any { return textValue(qa.Answer) }

func (shortText) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	return []SQLRow{{Text: qa.Answer}}
}

// StatVars: those of the CSV export's columns, as they are.
func (k shortText) StatVars(q Question) []StatVar { return plainVariables(k, q) }

// StatCells: the CSV export's cells.
func (k shortText) StatCells(q Question, qa QuestionAnswer) []string { return k.Cells(q, qa) }
