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

// NewAnswer checks a respondent's answers (by question ID) against the
// survey and builds the SurveyAnswer. Every question needs an answer. The
// error's Fields are keyed by question ID. ID and CreatedOn are left for
// the caller.
func NewAnswer(s *Survey, answers map[string]string) (SurveyAnswer, error) {
	a := SurveyAnswer{Tenant: s.Tenant, Slug: s.Slug, Title: s.Title}
	f := fieldErrors{}
	for _, q := range s.Questions {
		// Control characters, direction overrides and bytes that are not
		// UTF-8 are dropped (text.go): a respondent never sees them.
		v := strings.TrimSpace(CleanText(answers[q.ID]))
		if k, ok := KindOf(q.Type); ok {
			var problem string
			if v, problem = k.answer(q, v); problem != "" {
				f.add(q.ID, "%s", problem)
			}
		}
		a.Answers = append(a.Answers, QuestionAnswer{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: v})
	}
	if err := f.err("Your answers"); err != nil {
		return SurveyAnswer{}, err
	}
	return a, nil
}
