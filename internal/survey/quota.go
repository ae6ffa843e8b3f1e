package survey

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Quotas: a survey may cap the number of complete answers whose choices
// fall into a cell (e.g. 100 answers with gender Female and age 18–29).
// A quota's cell is its condition over choice answers and hidden fields:
// rules "equals" or "one of", whose values are among the question's
// choices. An answer in a full cell is not stored: the respondent reads
// the quota's message ("quota full") instead of the thank-you page.
//
// The counting is the store's (store/quotas.go): a counter per quota,
// taken with a conditional write before the answer is acknowledged and
// given back when it is not, so that no cell ever accepts more than its
// limit whatever instances and crashes do.

// Quota is a limit on the complete answers in one cell. Name identifies
// it within its survey, and names its counter: renaming a quota starts
// its count again.
type Quota struct {
	Name  string    `json:"name"`
	Limit int       `json:"limit"`
	If    Condition `json:"if"`
	// Message is what a respondent whose answers fall into the full cell
	// reads (lines of text; empty: a plain "the survey is full" page).
	Message string `json:"message,omitempty"`
}

// Limits of quotas.
const (
	MaxQuotas        = 20
	MaxQuotaLimit    = 1_000_000
	MaxQuotaName     = 100
	MaxQuotaMessage  = MaxDescriptionLength
	quotaOpsAccepted = "equals or one of"
)

// normalizeQuotas trims the quotas' names and messages and cleans their
// conditions.
func (s *Survey) normalizeQuotas() {
	for i := range s.Quotas {
		qt := &s.Quotas[i]
		qt.Name = strings.TrimSpace(CleanLine(qt.Name))
		qt.Message = strings.TrimSpace(CleanText(strings.ReplaceAll(qt.Message, "\r\n", "\n")))
		qt.If.normalize()
	}
}

// validateQuotas adds the problems of the quotas under "quotas" and
// "quotas.N.name", ".limit", ".message" and ".if…" (the condition's keys,
// as logic.go's).
func (s *Survey) validateQuotas(f fieldErrors) {
	if len(s.Quotas) > MaxQuotas {
		f.add("quotas", "A survey has at most %d quotas (it has %d).", MaxQuotas, len(s.Quotas))
		return
	}
	for i, qt := range s.Quotas {
		key := "quotas." + strconv.Itoa(i)
		switch n := utf8.RuneCountInString(qt.Name); {
		case qt.Name == "":
			f.add(key+".name", "Name the quota.")
		case n > MaxQuotaName:
			f.add(key+".name", "Keep the quota's name to %d characters (it has %d).", MaxQuotaName, n)
		case slices.ContainsFunc(s.Quotas[:i], func(o Quota) bool { return strings.EqualFold(o.Name, qt.Name) }):
			f.add(key+".name", "Two quotas are named %q: give each its own name.", qt.Name)
		}
		if qt.Limit < 1 || qt.Limit > MaxQuotaLimit {
			f.add(key+".limit", "Give a limit from 1 to %d.", MaxQuotaLimit)
		}
		switch n := utf8.RuneCountInString(qt.Message); {
		case n > MaxQuotaMessage:
			f.add(key+".message", "Keep the message to %d characters (it has %d).", MaxQuotaMessage, n)
		case !IsCleanText(qt.Message):
			f.add(key+".message", "The message may not contain control characters or direction overrides.")
		}
		ck := key + ".if"
		s.validateCondition(&qt.If, ck, len(s.Questions), f)
		for j, r := range qt.If.Rules {
			rk := ck + ".rules." + strconv.Itoa(j)
			if r.Op != OpEquals && r.Op != OpOneOf {
				f.add(rk+".op", "A quota's rule compares with %s.", quotaOpsAccepted)
				continue
			}
			if _, hidden := HiddenName(r.Question); hidden {
				continue // any value a link may carry
			}
			q, ok := s.Question(r.Question)
			if !ok || q.Hidden {
				continue // validateCondition said so
			}
			if len(q.PossibleAnswers) == 0 {
				f.add(rk+".question", "A quota counts choices: choose a question with choices, or a hidden field.")
				continue
			}
			for _, v := range r.Values {
				if !slices.ContainsFunc(q.PossibleAnswers, func(c string) bool { return strings.EqualFold(c, v) }) {
					f.add(rk+".values", "%q is not one of the question's choices.", v)
					break
				}
			}
		}
	}
}

// QuotaCells are the names of the quotas whose cell answer a falls into,
// in the survey's order (none for an answer that no quota counts).
func (s *Survey) QuotaCells(a *SurveyAnswer) []string {
	if len(s.Quotas) == 0 {
		return nil
	}
	answers := make(map[string]QuestionAnswer, len(a.Answers))
	for _, qa := range a.Answers {
		answers[qa.QuestionID] = qa
	}
	return s.QuotaCellsOf(withHidden(answers, a.Hidden))
}

// QuotaCellsOf is QuotaCells for answers so far (by question ID, the
// hidden fields under their references, as GivenWith gives them): a
// cell whose rules look at a question not answered yet holds none.
func (s *Survey) QuotaCellsOf(answers map[string]QuestionAnswer) []string {
	var out []string
	for _, qt := range s.Quotas {
		if len(qt.If.Rules) > 0 && qt.If.Holds(s, answers) {
			out = append(out, qt.Name)
		}
	}
	return out
}

// Quota is the survey's quota named name.
func (s *Survey) Quota(name string) (Quota, bool) {
	i := slices.IndexFunc(s.Quotas, func(q Quota) bool { return q.Name == name })
	if i < 0 {
		return Quota{}, false
	}
	return s.Quotas[i], true
}

// QuotaLimits are the limits of the quotas named, by name.
func (s *Survey) QuotaLimits(names []string) map[string]int {
	out := make(map[string]int, len(names))
	for _, n := range names {
		if q, ok := s.Quota(n); ok {
			out[n] = q.Limit
		}
	}
	return out
}

func cloneQuotas(qs []Quota) []Quota {
	out := slices.Clone(qs)
	for i := range out {
		out[i].If = *out[i].If.clone()
	}
	return out
}
