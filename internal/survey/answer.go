package survey

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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
		switch q.Type {
		case SimpleText:
			switch n := utf8.RuneCountInString(v); {
			case v == "":
				f.add(q.ID, "Please answer this question.")
			case n > MaxTextAnswerLength:
				f.add(q.ID, "Please keep your answer to %d characters (it has %d).", MaxTextAnswerLength, n)
			}
		case MultipleChoice:
			switch {
			case v == "":
				f.add(q.ID, "Please choose one answer.")
			case !contains(q.PossibleAnswers, v):
				f.add(q.ID, "Please choose one of the answers offered.")
			}
		case FiveStars:
			n, err := strconv.Atoi(v)
			switch {
			case v == "":
				f.add(q.ID, "Please give a rating from 1 to 5 stars.")
			case err != nil || n < 1 || n > 5:
				f.add(q.ID, "A rating is from 1 to 5 stars.")
			default:
				v = strconv.Itoa(n)
			}
		}
		a.Answers = append(a.Answers, QuestionAnswer{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: v})
	}
	if err := f.err("Your answers"); err != nil {
		return SurveyAnswer{}, err
	}
	return a, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
