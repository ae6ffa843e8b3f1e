package survey

import (
	"strings"
	"time"
)

// MaxTextAnswerLength bounds a simple-text answer, in characters.
const MaxTextAnswerLength = 4000

// SurveyAnswer is one respondent's answers to one survey.
type SurveyAnswer struct {
	// ID names the answer's blob: a tick count, unique per answer.
	ID        string           `json:"id"`
	Tenant    string           `json:"tenant"`
	Slug      string           `json:"slug"`
	Title     string           `json:"title"`
	CreatedOn time.Time        `json:"createdOn"`
	Answers   []QuestionAnswer `json:"answers"`
	// Hidden are the values of the survey's hidden fields the
	// respondent's link carried, by name (hidden.go); absent from answers
	// stored before them, and from those without any.
	Hidden map[string]string `json:"hidden,omitempty"`
	// Values are the survey's score and variables for the answer, by
	// name, as decimal numbers (scoring.go), computed at submit; absent
	// from answers stored before them, and from surveys without any.
	Values map[string]string `json:"values,omitempty"`
	// Partial marks what a respondent who left without submitting had
	// answered on the pages they moved past (partial.go); its ID is
	// PartialID of the form's. Absent from complete answers.
	Partial bool `json:"partial,omitempty"`
	// Quotas name the quota cells the answer took when it was accepted
	// (quota.go): deleting it gives them back. Absent from answers stored
	// before quotas, and from those no quota counted.
	Quotas []string `json:"quotas,omitempty"`
	// OverQuota name the full quota cells the answer fell into but was
	// accepted without taking, their quotas skipping to a section
	// (quota.go): the respondent was screened out of them. Absent from
	// answers in no full cell.
	OverQuota []string `json:"overQuota,omitempty"`
}

// QuestionAnswer is the answer to one question. For FiveStars Answer is
// "1" to "5"; for MultipleChoice one of the question's possible answers.
type QuestionAnswer struct {
	QuestionID   string       `json:"questionId"`
	QuestionText string       `json:"questionText"`
	Type         QuestionType `json:"type"`
	Answer       string       `json:"answer"`
}

// Answer returns the answer to the question with the given ID.
func (a *SurveyAnswer) Answer(questionID string) (QuestionAnswer, bool) {
	for _, qa := range a.Answers {
		if qa.QuestionID == questionID {
			return qa, true
		}
	}
	return QuestionAnswer{}, false
}

// NewAnswer checks a respondent's answers (each question's Form, by
// question ID) against the survey and builds the SurveyAnswer. A required
// question needs an answer; an optional one left unanswered is left out.
// The error's Fields are keyed by question ID. ID and CreatedOn are left
// for the caller.
func NewAnswer(s *Survey, forms map[string]Form) (SurveyAnswer, error) {
	return NewAnswerWith(s, forms, nil)
}

// NewAnswerWith is NewAnswer for a respondent whose link carried the
// values hidden of the survey's hidden fields: those it declares are
// stored with the answer, and its logic reads them.
func NewAnswerWith(s *Survey, forms map[string]Form, hidden map[string]string) (SurveyAnswer, error) {
	return NewAnswerScreened(s, forms, hidden, nil)
}

// NewAnswerScreened is NewAnswerWith for a respondent screened out of the
// quota cells sc on their way (quota.go): the sections they skipped are
// not on their path, so their questions are not required.
func NewAnswerScreened(s *Survey, forms map[string]Form, hidden map[string]string, sc Screened) (SurveyAnswer, error) {
	a := SurveyAnswer{Tenant: s.Tenant, Slug: s.Slug, Title: s.Title, Hidden: s.KeepHidden(hidden)}
	f, msgs := fieldErrors{}, map[string]Msg{}
	type checked struct {
		v       string
		problem Msg
	}
	got := make([]checked, len(s.Questions))
	// The logic's hidden questions are not required, and their answers
	// are dropped. A survey without logic shows every question that is
	// not hidden (Shown): its path needs no answers to work out.
	logic := s.HasLogic()
	var given map[string]QuestionAnswer
	if logic {
		given = make(map[string]QuestionAnswer, len(s.Questions))
	}
	a.Answers = make([]QuestionAnswer, 0, len(s.Questions))
	for i, q := range s.Questions {
		k, ok := KindOf(q.Type)
		if !ok {
			continue
		}
		v, problem := k.answer(q, cleanForm(forms[q.ID]))
		got[i] = checked{v, problem}
		if logic && problem.IsZero() && v != "" {
			given[q.ID] = QuestionAnswer{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: v}
		}
	}
	var shown map[string]bool
	if logic {
		shown = s.Shown(s.WithScreened(withHidden(given, a.Hidden), sc))
	}
	for i, q := range s.Questions {
		k, ok := KindOf(q.Type)
		if !ok || (logic && !shown[q.ID] && !q.Hidden) {
			continue
		}
		v, problem := got[i].v, got[i].problem
		switch {
		case !problem.IsZero():
			f.add(q.ID, "%s", problem)
			msgs[q.ID] = problem
		case v == "" && !q.Optional:
			f.add(q.ID, "%s", requiredMessage(k, q))
			msgs[q.ID] = requiredMessage(k, q)
		case v != "":
			a.Answers = append(a.Answers, QuestionAnswer{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: v})
		}
	}
	if err := f.err("Your answers"); err != nil {
		err.(*Error).Msgs = msgs
		return SurveyAnswer{}, err
	}
	if len(a.Answers) == 0 {
		a.Answers = nil // as an answer of no question always was
	}
	a.Values = s.Values(a.Answers)
	return a, nil
}

// cleanForm drops control characters, direction overrides and bytes that
// are not UTF-8 from every value (text.go: a respondent never sees them),
// trims white space and drops the values left empty.
func cleanForm(f Form) Form {
	if formIsClean(f) {
		return f // what almost every form is: nothing to drop
	}
	out := make(Form, len(f))
	for k, vs := range f {
		var kept []string
		for _, v := range vs {
			if v = strings.TrimSpace(CleanText(v)); v != "" {
				kept = append(kept, v)
			}
		}
		if kept != nil {
			out[k] = kept
		}
	}
	return out
}

// formIsClean reports whether cleanForm would return f as it is: every
// field has values, none empty, none with what CleanText drops or white
// space around it.
func formIsClean(f Form) bool {
	for _, vs := range f {
		if len(vs) == 0 {
			return false
		}
		for _, v := range vs {
			if v == "" || len(strings.TrimSpace(v)) != len(v) || CleanText(v) != v {
				return false
			}
		}
	}
	return true
}

// requiredMessage is what a respondent reads beside a required question
// they did not answer: the kind's own words, when it has them.
func requiredMessage(k Kind, q Question) Msg {
	if r, ok := k.(interface{ requiredFor(Question) Msg }); ok {
		return r.requiredFor(q)
	}
	if r, ok := k.(interface{ required() Msg }); ok {
		return r.required()
	}
	return M("Please answer this question.")
}
