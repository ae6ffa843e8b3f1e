package survey

import "time"

// Partial answers. A survey that keeps them (Survey.KeepPartial) has what
// a respondent answered on the pages they moved past saved at each page
// move; KeepPartial after the last one, when no answer was submitted, the
// saved answer is queued as an answer marked Partial. It is counted apart
// (SurveyAnswersSummary.Partial), never in TotalAnswers nor in a
// question's counts, so the numbers of complete answers do not move. A
// complete answer submitted later takes its place: see the worker's
// partial rules (internal/worker/partials.go) and docs/architecture.md.

// MinKeepPartial and MaxKeepPartial bound Survey.KeepPartial.
const (
	MinKeepPartial = 5 * time.Minute
	MaxKeepPartial = 7 * 24 * time.Hour
)

// NewPartialAnswer builds the answer a respondent gave so far: the
// questions answered as their kinds accept them, shown by the logic; a
// required question left unanswered and a value a kind refuses are left
// out, never an error; so are files (TakesFiles). It has no answer when nothing was answered.
func NewPartialAnswer(s *Survey, forms map[string]Form, hidden map[string]string) SurveyAnswer {
	return NewPartialAnswerScreened(s, forms, hidden, nil)
}

// NewPartialAnswerScreened is NewPartialAnswer for a respondent screened
// out of the quota cells sc on their way (NewAnswerScreened).
func NewPartialAnswerScreened(s *Survey, forms map[string]Form, hidden map[string]string, sc Screened) SurveyAnswer {
	a := SurveyAnswer{Tenant: s.Tenant, Slug: s.Slug, Title: s.Title, Hidden: s.KeepHidden(hidden), Partial: true}
	given := map[string]QuestionAnswer{}
	for _, q := range s.Questions {
		k, ok := KindOf(q.Type)
		if !ok || TakesFiles(q) {
			// Files are stored under the complete answer's ID, and
			// claimed by it only: a partial answer leaves them out.
			continue
		}
		v, problem := k.answer(q, cleanForm(forms[q.ID]))
		if problem.IsZero() && v != "" {
			given[q.ID] = QuestionAnswer{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: v}
		}
	}
	shown := s.Shown(s.WithScreened(withHidden(given, a.Hidden), sc))
	for _, q := range s.Questions {
		if qa, ok := given[q.ID]; ok && (shown[q.ID] || q.Hidden) {
			a.Answers = append(a.Answers, qa)
		}
	}
	return a
}
