package survey

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxFilterAnswer bounds the answer a filter looks for, in characters.
const MaxFilterAnswer = 200

// MaxFilterPicks bounds a filter's picked conditions (c=).
const MaxFilterPicks = 5

// FilterPick is one more condition of a filter, as the answer picked from
// a question's choices sends it (c=<ref>=<answer>): the answer to
// Question (a question's ID, or a hidden field's or a variable's
// reference) is, or includes, Answer.
type FilterPick struct {
	Question, Answer string
	q                Question
}

// Value is the pick as its c= parameter.
func (p FilterPick) Value() string { return p.Question + "=" + p.Answer }

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
// Picks are more such conditions, each of which the answer must meet
// too (a segment of several conditions). The zero AnswerFilter picks
// every answer.
type AnswerFilter struct {
	// From and To are days as YYYY-MM-DD, or "".
	From, To string
	// Question is a question's ID, or ""; Answer what its answer is.
	Question string
	Answer   string
	// Status is "complete" or "partial" (partial answers: partial.go),
	// or "" for both.
	Status string
	// Picks are more conditions on answers, all of them met.
	Picks []FilterPick

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
		for i := range len(v["c"]) {
			if m, ok := se.Fields["c."+strconv.Itoa(i)]; ok {
				parts = append(parts, "c: "+m)
			}
		}
		return f, &Error{Code: se.Code, Message: "The filter has problems: " + strings.Join(parts, " "), Fields: se.Fields}
	}
	return f, err
}

// ParseAnswerFilter reads the filter of a query for survey sv: from and to
// (YYYY-MM-DD), q (a question's ID) and a (its answer), and c, up to
// MaxFilterPicks times, <ref>=<answer> (a picked answer: q and a in one).
// Missing or empty parameters filter nothing. Bad ones give an EINVALID
// *Error whose Fields say what is wrong with each ("from", "to", "q",
// "a", "c.<N>" for the N-th c, from 0).
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
		if p := sv.filterRefProblem(f.Question); p != "" {
			errs.add("q", "%s", p)
		}
		f.q, _ = sv.Question(f.Question)
		if p := filterAnswerProblem(f.Answer); p != "" {
			errs.add("a", "%s", p)
		}
	}
	for i, c := range v["c"] {
		key := "c." + strconv.Itoa(i)
		c = strings.TrimSpace(CleanLine(c))
		if c == "" {
			continue // a picker left at "any answer"
		}
		ref, answer, _ := strings.Cut(c, "=")
		p := FilterPick{Question: strings.TrimSpace(ref), Answer: strings.TrimSpace(answer)}
		switch {
		case len(f.Picks) == MaxFilterPicks:
			errs.add(key, "Pick at most %d answers.", MaxFilterPicks)
		case sv.filterRefProblem(p.Question) != "":
			errs.add(key, "%s", sv.filterRefProblem(p.Question))
		case filterAnswerProblem(p.Answer) != "":
			errs.add(key, "%s", filterAnswerProblem(p.Answer))
		case !slices.ContainsFunc(f.Picks, func(o FilterPick) bool { return o.Question == p.Question && strings.EqualFold(o.Answer, p.Answer) }):
			p.q, _ = sv.Question(p.Question)
			f.Picks = append(f.Picks, p)
		}
	}
	if err := errs.err("The filter"); err != nil {
		return AnswerFilter{}, err
	}
	return f, nil
}

// filterRefProblem is what is wrong with a filter's reference to a
// question, hidden field or variable of s; "" when it names one.
func (s *Survey) filterRefProblem(ref string) string {
	if _, hidden := HiddenName(ref); hidden {
		return s.hiddenRefProblem(ref)
	}
	if n, isVar := VarName(ref); isVar {
		if !s.HasVariable(n) {
			return fmt.Sprintf("This survey has no variable %q.", CleanLine(n))
		}
		return ""
	}
	if _, ok := s.Question(ref); !ok {
		return "This survey has no such question."
	}
	return ""
}

// filterAnswerProblem is what is wrong with the answer a filter looks
// for; "" when there is none.
func filterAnswerProblem(a string) string {
	switch {
	case a == "":
		return "Give the answer to look for."
	case utf8.RuneCountInString(a) > MaxFilterAnswer:
		return fmt.Sprintf("Give an answer of at most %d characters.", MaxFilterAnswer)
	}
	return ""
}

// filterNumber is s as a number, when it is one.
func filterNumber(s string) (float64, bool) {
	n, err := strconv.ParseFloat(s, 64)
	return n, err == nil && !strings.ContainsAny(s, "xXpPnN_") // no hex, inf, NaN or digit separators
}

// Active reports whether f picks fewer than every answer.
func (f AnswerFilter) Active() bool {
	return f.From != "" || f.To != "" || f.Question != "" || f.Status != "" || len(f.Picks) > 0
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
	if f.Question != "" && !answerIncludes(a, f.Question, f.q, f.Answer) {
		return false
	}
	for _, p := range f.Picks {
		if !answerIncludes(a, p.Question, p.q, p.Answer) {
			return false
		}
	}
	return true
}

// AnswerFields names what of an answer a filter's Match looks at beyond
// its ID, tenant, day and partial flag: its answers to Questions (by ID),
// and its hidden fields' (Hidden) or variables' (Values) values.
type AnswerFields struct {
	Questions      []string
	Hidden, Values bool
}

// Fields are what Match looks at: a reader may decode only these fields
// of an answer to learn whether f picks it, and the whole answer of
// those it picks (Match gives the same verdict on both).
func (f AnswerFilter) Fields() AnswerFields {
	var out AnswerFields
	refs := make([]string, 0, 1+len(f.Picks))
	if f.Question != "" {
		refs = append(refs, f.Question)
	}
	for _, p := range f.Picks {
		refs = append(refs, p.Question)
	}
	for _, ref := range refs {
		if _, hidden := HiddenName(ref); hidden {
			out.Hidden = true
		} else if _, isVar := VarName(ref); isVar {
			out.Values = true
		} else if !slices.Contains(out.Questions, ref) {
			out.Questions = append(out.Questions, ref)
		}
	}
	return out
}

// answerIncludes reports whether a's answer to ref (question q, or a
// hidden field or a variable) is, or includes, want.
func answerIncludes(a *SurveyAnswer, ref string, q Question, want string) bool {
	if n, hidden := HiddenName(ref); hidden {
		return cellsInclude([]string{strings.TrimSpace(a.Hidden[n])}, want)
	}
	if n, isVar := VarName(ref); isVar {
		// A variable's value is its one cell.
		return cellsInclude([]string{a.Values[n]}, want)
	}
	qa, ok := a.Answer(ref)
	if !ok {
		return false
	}
	cells, ok := answerCells(q, qa)
	return ok && cellsInclude(cells, want)
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
	for _, p := range f.Picks {
		v.Add("c", p.Value())
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
	conds := f.Picks
	if f.Question != "" {
		conds = append([]FilterPick{{Question: f.Question, Answer: f.Answer, q: f.q}}, f.Picks...)
	}
	for _, c := range conds {
		if n, hidden := HiddenName(c.Question); hidden {
			parts = append(parts, "hidden field “"+n+"” is “"+c.Answer+"”")
		} else if n, isVar := VarName(c.Question); isVar {
			parts = append(parts, "variable “"+n+"” is “"+c.Answer+"”")
		} else {
			parts = append(parts, "answer to “"+c.q.Text+"” is “"+c.Answer+"”")
		}
	}
	if f.Status != "" {
		parts = append(parts, f.Status+" answers only")
	}
	return strings.Join(parts, ", ")
}
