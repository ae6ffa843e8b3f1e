package survey

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Hidden fields: a survey declares names (source, panel_id …) whose
// values arrive in the respondent's link (/survey/t/s?source=newsletter).
// The respondent never sees them; they are kept through every page of the
// survey (sealed in the form, as the earlier pages' answers are), stored
// with the answer (SurveyAnswer.Hidden), and read like a question's
// answer by the analysis, the filters, the exports and the logic: a rule
// or a filter names the field as HiddenRef(name), "hidden:source".
//
// A survey may also let its link prefill its visible questions
// (Survey.Prefill): q-<question ID>=value, read as the question's form
// field; a value its kind does not accept is not prefilled.

// Limits of hidden fields.
const (
	MaxHiddenFields     = 20
	MaxHiddenFieldName  = 40
	MaxHiddenFieldValue = 500
)

// HiddenPrefix starts the reference to a hidden field where a question's
// ID is expected (a rule's question, a filter's q, the answers the logic
// reads): no question's ID has a colon.
const HiddenPrefix = "hidden:"

// HiddenRef is the reference to hidden field name.
func HiddenRef(name string) string { return HiddenPrefix + name }

// HiddenName is the hidden field ref names, when it names one.
func HiddenName(ref string) (string, bool) { return strings.CutPrefix(ref, HiddenPrefix) }

// reservedParams are the link's parameters the respondent's pages read
// themselves: no hidden field may have their names.
var reservedParams = []string{"k", "t", "s", "lang", "token", "state", "action", "pow", "embed"}

// ValidHiddenFieldName reports whether name can name a hidden field: 1 to
// MaxHiddenFieldName lower-case letters, digits, "_" and "-", starting
// with a letter, and none of the link's own parameters (nor q-…, which
// prefills a question).
func ValidHiddenFieldName(name string) bool {
	if name == "" || len(name) > MaxHiddenFieldName || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for _, c := range name {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
			return false
		}
	}
	return !slices.Contains(reservedParams, name) && !strings.HasPrefix(name, "q-") && !designerRef(name)
}

// designerRef reports whether name reads as the designer's reference to
// a question by its position, q<N> (piping.go): no hidden field may have
// such a name.
func designerRef(name string) bool {
	if len(name) < 2 || name[0] != 'q' {
		return false
	}
	for _, c := range name[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// normalizeHiddenFields trims the names, in lower case, and drops the
// empty ones.
func (s *Survey) normalizeHiddenFields() {
	var out []string
	for _, n := range s.HiddenFields {
		if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
			out = append(out, n)
		}
	}
	s.HiddenFields = out
}

// validateHiddenFields adds the problems of the hidden fields under
// "hiddenFields" (one message for the list, naming the field at fault).
func (s *Survey) validateHiddenFields(f fieldErrors) {
	if len(s.HiddenFields) > MaxHiddenFields {
		f.add("hiddenFields", "A survey has at most %d hidden fields (it has %d).", MaxHiddenFields, len(s.HiddenFields))
		return
	}
	for i, n := range s.HiddenFields {
		switch {
		case utf8.RuneCountInString(n) > MaxHiddenFieldName:
			f.add("hiddenFields", "Keep the name of a hidden field to %d characters (%q has %d).", MaxHiddenFieldName, n, utf8.RuneCountInString(n))
		case slices.Contains(reservedParams, n):
			f.add("hiddenFields", "%q is a name the survey's link uses itself: choose another.", n)
		case !ValidHiddenFieldName(n):
			f.add("hiddenFields", "The name %q is not allowed: use lower-case letters, digits, - and _, starting with a letter (and not q-… nor q and a number).", CleanLine(n))
		case slices.Contains(s.HiddenFields[:i], n):
			f.add("hiddenFields", "The hidden field %q is named twice.", n)
		}
	}
}

// HasHidden reports whether the survey declares hidden field name.
func (s *Survey) HasHidden(name string) bool { return slices.Contains(s.HiddenFields, name) }

// HiddenValues are the values of the survey's hidden fields in a link's
// query: a declared field's first value, cleaned (CleanLine, trimmed) and
// cut to MaxHiddenFieldValue characters; the empty ones and unknown
// parameters are left out. nil when there are none.
func (s *Survey) HiddenValues(query url.Values) map[string]string {
	var out map[string]string
	for _, n := range s.HiddenFields {
		v := strings.TrimSpace(CleanLine(query.Get(n)))
		if v == "" {
			continue
		}
		if r := []rune(v); len(r) > MaxHiddenFieldValue {
			v = strings.TrimSpace(string(r[:MaxHiddenFieldValue]))
		}
		if out == nil {
			out = map[string]string{}
		}
		out[n] = v
	}
	return out
}

// KeepHidden is values less those of fields the survey does not declare
// (or no longer does), and those out of bounds: what an answer stores.
// nil when none is left.
func (s *Survey) KeepHidden(values map[string]string) map[string]string {
	var out map[string]string
	for _, n := range s.HiddenFields {
		v, ok := values[n]
		if !ok || v == "" || utf8.RuneCountInString(v) > MaxHiddenFieldValue || !IsCleanLine(v) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[n] = v
	}
	return out
}

// withHidden is answers with the hidden values under their references
// (HiddenRef), as the logic reads them: a new map when there are any.
func withHidden(answers map[string]QuestionAnswer, hidden map[string]string) map[string]QuestionAnswer {
	if len(hidden) == 0 {
		return answers
	}
	out := make(map[string]QuestionAnswer, len(answers)+len(hidden))
	for id, qa := range answers {
		out[id] = qa
	}
	for n, v := range hidden {
		out[HiddenRef(n)] = QuestionAnswer{QuestionID: HiddenRef(n), QuestionText: n, Answer: v}
	}
	return out
}

// GivenWith is Given with the hidden values: what the logic looks at
// while the answer is not yet whole.
func (s *Survey) GivenWith(forms map[string]Form, hidden map[string]string) map[string]QuestionAnswer {
	return withHidden(s.Given(forms), s.KeepHidden(hidden))
}

// PrefillForms are the forms of a link's query (q-<ID> and q-<ID>-<suffix>
// parameters, as a page's form names its fields) that prefill the
// survey's questions: only when the survey allows it (Prefill), and only
// those its questions' kinds accept as an answer. nil when there are none.
func (s *Survey) PrefillForms(query url.Values) map[string]Form {
	if !s.Prefill {
		return nil
	}
	var out map[string]Form
	for name, vs := range query {
		rest, ok := strings.CutPrefix(name, "q-")
		if !ok {
			continue
		}
		id, suffix, _ := strings.Cut(rest, "-")
		q, ok := s.Question(id)
		if !ok || q.Hidden {
			continue
		}
		if out == nil {
			out = map[string]Form{}
		}
		if out[id] == nil {
			out[id] = Form{}
		}
		out[id][suffix] = vs
	}
	for id, f := range out {
		q, _ := s.Question(id)
		k, ok := KindOf(q.Type)
		if !ok {
			delete(out, id)
			continue
		}
		if v, problem := k.answer(q, cleanForm(f)); !problem.IsZero() || v == "" {
			delete(out, id)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// HiddenColumns name the export's columns of the hidden fields, after
// the questions' ("source (hidden field)").
func (s *Survey) HiddenColumns() []string {
	out := make([]string, len(s.HiddenFields))
	for i, n := range s.HiddenFields {
		out[i] = n + " (hidden field)"
	}
	return out
}

// HiddenCells are an answer's cells of those columns ("" for none).
func (s *Survey) HiddenCells(a *SurveyAnswer) []string {
	out := make([]string, len(s.HiddenFields))
	for i, n := range s.HiddenFields {
		out[i] = a.Hidden[n]
	}
	return out
}

// hiddenRefProblem is the problem of a rule or a filter naming ref, a
// hidden field reference, for survey s ("" for none).
func (s *Survey) hiddenRefProblem(ref string) string {
	n, _ := HiddenName(ref)
	if !s.HasHidden(n) {
		return "This survey has no hidden field " + strconv.Quote(CleanLine(n)) + ": choose another."
	}
	return ""
}
