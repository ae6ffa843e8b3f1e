package survey

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxFilterAnswer bounds the answer a filter looks for, in characters.
const MaxFilterAnswer = 200

// AnswerFilter picks some of a survey's answers: those given on the days
// From to To (inclusive, days in UTC; either end may be open) and, when
// Question is set, those whose answer to it is, or includes, Answer.
//
// An answer to a question "is or includes" Answer when one of the cells
// its kind gives the CSV export is Answer, ignoring case and the spaces
// around it, or, both being numbers, the same number: the choice of a
// multiple choice or a dropdown, a checked box, a matrix row's column, a
// rating, a number, a date, a whole short text. No kind is switched on.
// Question may name a hidden field (HiddenRef): its value is Answer.
// The zero AnswerFilter picks every answer.
type AnswerFilter struct {
	// From and To are days as YYYY-MM-DD, or "".
	From, To string
	// Question is a question's ID, or ""; Answer what its answer is.
	Question string
	Answer   string
	// Status is "complete" or "partial" (partial answers: partial.go),
	// or "" for both.
	Status string

	from, to time.Time // to is the start of the day after To
	q        Question
}

// AnswerFilterOf is ParseAnswerFilter for a request that has no form to
// show the problems beside (an export, the API): they are in the error's
// message too, as "from: … to: …".
func AnswerFilterOf(sv *Survey, v url.Values) (AnswerFilter, error) {
	f, err := ParseAnswerFilter(sv, v)
	var se *Error
	if errors.As(err, &se) {
		var parts []string
		for _, k := range []string{"from", "to", "q", "a", "status"} {
			if m, ok := se.Fields[k]; ok {
				parts = append(parts, k+": "+m)
			}
		}
		return f, &Error{Code: se.Code, Message: "The filter has problems: " + strings.Join(parts, " "), Fields: se.Fields}
	}
	return f, err
}

// ParseAnswerFilter reads the filter of a query for survey sv: from and to
// (YYYY-MM-DD), q (a question's ID) and a (its answer). Missing or empty
// parameters filter nothing. Bad ones give an EINVALID *Error whose Fields
// say what is wrong with each ("from", "to", "q", "a").
func ParseAnswerFilter(sv *Survey, v url.Values) (AnswerFilter, error) {
	get := func(k string) string { return strings.TrimSpace(CleanLine(v.Get(k))) }
	f := AnswerFilter{From: get("from"), To: get("to"), Question: get("q"), Answer: get("a"), Status: get("status")}
	errs := fieldErrors{}
	if f.Status != "" && f.Status != "complete" && f.Status != "partial" {
		errs.add("status", "Choose complete or partial answers, or both.")
	}
	day := func(s, field string) time.Time {
		if s == "" {
			return time.Time{}
		}
		t, err := time.Parse(time.DateOnly, s)
		if err != nil || s < FirstDate || s > LastDate {
			errs.add(field, "Give a day as YYYY-MM-DD, from %s to %s.", FirstDate, LastDate)
			return time.Time{}
		}
		return t
	}
	f.from = day(f.From, "from")
	if to := day(f.To, "to"); !to.IsZero() {
		f.to = to.AddDate(0, 0, 1)
		if !f.from.IsZero() && to.Before(f.from) {
			errs.add("to", "The last day is before the first day.")
		}
	}
	switch {
	case f.Question == "" && f.Answer != "":
		errs.add("q", "Choose the question whose answer to look for.")
	case f.Question != "":
		q, ok := sv.Question(f.Question)
		if _, hidden := HiddenName(f.Question); hidden {
			if p := sv.hiddenRefProblem(f.Question); p != "" {
				errs.add("q", "%s", p)
			}
		} else if n, isVar := VarName(f.Question); isVar {
			if !sv.HasVariable(n) {
				errs.add("q", "This survey has no variable %q.", CleanLine(n))
			}
		} else if !ok {
			errs.add("q", "This survey has no such question.")
		}
		f.q = q
		switch {
		case f.Answer == "":
			errs.add("a", "Give the answer to look for.")
		case utf8.RuneCountInString(f.Answer) > MaxFilterAnswer:
			errs.add("a", "Give an answer of at most %d characters.", MaxFilterAnswer)
		}
	}
	if err := errs.err("The filter"); err != nil {
		return AnswerFilter{}, err
	}
	return f, nil
}

// filterNumber is s as a number, when it is one.
func filterNumber(s string) (float64, bool) {
	n, err := strconv.ParseFloat(s, 64)
	return n, err == nil && !strings.ContainsAny(s, "xXpPnN_") // no hex, inf, NaN or digit separators
}

// Active reports whether f picks fewer than every answer.
func (f AnswerFilter) Active() bool {
	return f.From != "" || f.To != "" || f.Question != "" || f.Status != ""
}

// Match reports whether f picks answer a.
func (f AnswerFilter) Match(a *SurveyAnswer) bool {
	if !f.from.IsZero() && a.CreatedOn.Before(f.from) {
		return false
	}
	if !f.to.IsZero() && !a.CreatedOn.Before(f.to) {
		return false
	}
	if f.Status != "" && a.Partial != (f.Status == "partial") {
		return false
	}
	if f.Question == "" {
		return true
	}
	if n, hidden := HiddenName(f.Question); hidden {
		return cellsInclude([]string{strings.TrimSpace(a.Hidden[n])}, f.Answer)
	}
	if n, isVar := VarName(f.Question); isVar {
		// A variable's value is its one cell.
		return cellsInclude([]string{a.Values[n]}, f.Answer)
	}
	qa, ok := a.Answer(f.Question)
	if !ok {
		return false
	}
	cells, ok := answerCells(f.q, qa)
	return ok && cellsInclude(cells, f.Answer)
}

// Values is f as a query (the parameters ParseAnswerFilter reads), its
// empty parameters left out.
func (f AnswerFilter) Values() url.Values {
	v := url.Values{}
	for _, p := range [][2]string{{"from", f.From}, {"to", f.To}, {"q", f.Question}, {"a", f.Answer}, {"status", f.Status}} {
		if p[1] != "" {
			v.Set(p[0], p[1])
		}
	}
	return v
}

// Describe says what f picks, for people: "from 1 Dec 2026 to 3 Dec
// 2026, answer to “Which device?” is “Mobile app”"; "" for none.
func (f AnswerFilter) Describe() string {
	var parts []string
	long := func(t time.Time) string { return t.Format("2 Jan 2006") }
	switch {
	case f.From != "" && f.To != "":
		parts = append(parts, "from "+long(f.from)+" to "+long(f.to.AddDate(0, 0, -1)))
	case f.From != "":
		parts = append(parts, "from "+long(f.from))
	case f.To != "":
		parts = append(parts, "until "+long(f.to.AddDate(0, 0, -1)))
	}
	if n, hidden := HiddenName(f.Question); hidden {
		parts = append(parts, "hidden field “"+n+"” is “"+f.Answer+"”")
	} else if n, isVar := VarName(f.Question); isVar {
		parts = append(parts, "variable “"+n+"” is “"+f.Answer+"”")
	} else if f.Question != "" {
		parts = append(parts, "answer to “"+f.q.Text+"” is “"+f.Answer+"”")
	}
	if f.Status != "" {
		parts = append(parts, f.Status+" answers only")
	}
	return strings.Join(parts, ", ")
}
