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
// choices. What a full cell does is its Action: "end" (the default), an
// answer in it is not stored and the respondent reads the quota's message
// ("quota full") instead of the thank-you page; "skip", the respondent is
// screened out of it: on their next page step they go to the quota's
// Section (as a logic jump would send them), and their answer is stored
// without taking the cell, naming it in SurveyAnswer.OverQuota, so that
// the cell's count stays exactly its limit.
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
	// Action is what a full cell does: QuotaEnd ("" in quotas made
	// before actions) or QuotaSkip, to Section (a section's ID, after
	// the questions If names).
	Action  string `json:"action,omitempty"`
	Section string `json:"section,omitempty"`
}

// Actions of a full quota cell.
const (
	QuotaEnd  = "end"
	QuotaSkip = "skip"
)

// Skips reports whether a full cell of the quota skips to its section
// (rather than ending the survey).
func (qt Quota) Skips() bool { return qt.Action == QuotaSkip }

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
		qt.Action = strings.ToLower(strings.TrimSpace(qt.Action))
		if qt.Action == "" {
			qt.Action = QuotaEnd
		}
		qt.Section = strings.TrimSpace(qt.Section)
	}
}

// validateQuotas adds the problems of the quotas under "quotas" and
// "quotas.N.name", ".limit", ".message", ".action", ".section" and
// ".if…" (the condition's keys, as logic.go's).
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
		s.validateQuotaAction(qt, key, f)
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

// validateQuotaAction adds the problems of quota qt's action and section
// under key+".action" and key+".section": a quota that skips goes to a
// section after the one where its cell is decided (quotaFrom), as a jump
// goes forward only.
func (s *Survey) validateQuotaAction(qt Quota, key string, f fieldErrors) {
	switch qt.Action {
	case QuotaEnd, "":
		if qt.Section != "" {
			f.add(key+".section", "A quota that ends the survey goes to no section: choose to skip to it, or no section.")
		}
		return
	case QuotaSkip:
	default:
		f.add(key+".action", "Choose what a full quota does: end the survey, or skip to a section.")
		return
	}
	to := slices.IndexFunc(s.Sections, func(sc Section) bool { return sc.ID == qt.Section })
	from := s.quotaFrom(qt)
	switch {
	case qt.Section == "":
		f.add(key+".section", "Choose the section to skip to.")
	case to < 0:
		f.add(key+".section", "This survey has no such section: choose another.")
	case to <= from:
		f.add(key+".section", "A quota skips forward only: choose a section after the questions its rules look at.")
	}
}

// quotaFrom is the index of the section where quota qt's cell is decided:
// that of the last question its rules name (the first section for hidden
// fields only, or questions it does not have).
func (s *Survey) quotaFrom(qt Quota) int {
	from := 0
	for _, r := range qt.If.Rules {
		if q, ok := s.Question(r.Question); ok {
			from = max(from, s.sectionIndex(q))
		}
	}
	return from
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

// Screened are the quota cells a respondent was screened out of on
// their way (full cells of quotas that skip), by quota name: the ID of
// the section they were leaving when their answers so far fell into the
// full cell. After that section they go to the quota's section, while
// their answers still fall into the cell (NextSection).
type Screened map[string]string

// quotaPrefix starts the keys under which a respondent's Screened cells
// ride among the answers the logic reads (as hidden fields' values do:
// no question ID has a colon).
const quotaPrefix = "quota:"

// WithScreened is answers (as GivenWith gives them) with the cells the
// respondent was screened out of, as NextSection reads them: a new map
// when there are any.
func (s *Survey) WithScreened(answers map[string]QuestionAnswer, sc Screened) map[string]QuestionAnswer {
	if len(sc) == 0 {
		return answers
	}
	out := make(map[string]QuestionAnswer, len(answers)+len(sc))
	for id, qa := range answers {
		out[id] = qa
	}
	for n, from := range sc {
		if qt, ok := s.Quota(n); ok && qt.Skips() {
			out[quotaPrefix+n] = QuestionAnswer{QuestionID: quotaPrefix + n, Answer: from}
		}
	}
	return out
}

// pathKey reports whether an answers' key is no question's but rides
// with the answers for the logic from the start: a hidden field's value,
// or a cell the respondent was screened out of.
func pathKey(id string) bool {
	_, hidden := HiddenName(id)
	return hidden || strings.HasPrefix(id, quotaPrefix)
}

// quotaSkip is where a respondent leaving section k (of ID current) goes
// because of a cell they were screened out of (WithScreened): the first
// quota, in the survey's order, that screened them as they left this
// section, whose cell their answers still fall into, and whose section
// is after it. ok is false for none.
func (s *Survey) quotaSkip(current string, k int, answers map[string]QuestionAnswer) (to int, ok bool) {
	for _, qt := range s.Quotas {
		if !qt.Skips() {
			continue
		}
		from, screened := answers[quotaPrefix+qt.Name]
		if !screened || from.Answer != current || len(qt.If.Rules) == 0 || !qt.If.Holds(s, answers) {
			continue
		}
		if to := slices.IndexFunc(s.Sections, func(sc Section) bool { return sc.ID == qt.Section }); to > k {
			return to, true
		}
	}
	return 0, false
}

// OverQuota are the cells of cells (an answer's, QuotaCells) that an
// answer of a respondent screened out of sc does not take: those of
// quotas that skip and screened them.
func (s *Survey) OverQuota(cells []string, sc Screened) []string {
	var out []string
	for _, n := range cells {
		if _, screened := sc[n]; screened {
			if qt, ok := s.Quota(n); ok && qt.Skips() {
				out = append(out, n)
			}
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

// KeepScreened is sc less the cells of quotas the survey no longer has
// or that no longer skip (a state sealed before the survey changed).
func (s *Survey) KeepScreened(sc Screened) Screened {
	var out Screened
	for n, from := range sc {
		if qt, ok := s.Quota(n); ok && qt.Skips() {
			if out == nil {
				out = Screened{}
			}
			out[n] = from
		}
	}
	return out
}

// OverQuotaColumn names the column of the exports of a survey with a
// quota that skips (SkipsQuotas): OverQuotaCell is the cells an answer
// was screened out of.
const OverQuotaColumn = "over quota"

// SkipsQuotas reports whether one of the survey's quotas skips to a
// section when full: its exports have the OverQuotaColumn.
func (s *Survey) SkipsQuotas() bool { return slices.ContainsFunc(s.Quotas, Quota.Skips) }

// OverQuotaCell is answer a's cell of the OverQuotaColumn: the names of
// the quota cells it was screened out of, joined by "; " ("" for none).
func OverQuotaCell(a *SurveyAnswer) string { return strings.Join(a.OverQuota, "; ") }
