package survey

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// QuestionType names a kind of question (kinds.go); each kind is one
// file, kind_*.go.
type QuestionType string

const (
	SimpleText     QuestionType = "SimpleText"
	MultipleChoice QuestionType = "MultipleChoice"
	FiveStars      QuestionType = "FiveStars"
)

// Valid reports whether t is a known type: a registered kind (kinds.go).
func (t QuestionType) Valid() bool {
	_, ok := KindOf(t)
	return ok
}

// State is where a survey is in its life.
type State string

const (
	Draft     State = "draft"
	Published State = "published"
	Closed    State = "closed"
)

// Limits of a survey definition. MaxQuestions keeps a draft's replacement
// (delete the old questions, insert the new) within one table transaction.
const (
	MaxTitleLength    = 200
	MaxQuestionLength = 500
	MaxQuestions      = 50
	MaxChoices        = 20
	MaxChoiceLength   = 200
)

// Survey is a survey definition.
type Survey struct {
	Tenant      string
	Slug        string
	Title       string
	State       State
	CreatedOn   time.Time
	PublishedOn time.Time
	// Listed surveys appear on the public home page.
	Listed bool
	// CloseOn, when set, is the last day (00:00 UTC) the survey takes
	// answers: it closes at the end of that day.
	CloseOn time.Time
	// Challenge asks each respondent's browser to solve a proof-of-work
	// puzzle before an answer is accepted (a check against robots; it
	// needs JavaScript).
	Challenge bool
	Questions []Question
}

// ClosesAt is when a survey with a close date stops taking answers (the
// zero time when it has none).
func (s *Survey) ClosesAt() time.Time {
	if s.CloseOn.IsZero() {
		return time.Time{}
	}
	return s.CloseOn.Add(24 * time.Hour)
}

// Open reports whether the survey takes answers at now: published, and not
// past its close date.
func (s *Survey) Open(now time.Time) bool {
	return s.State == Published && (s.CloseOn.IsZero() || now.Before(s.ClosesAt()))
}

// Question is one question of a survey. ID is unique within the survey and
// orders its questions; answers and summaries refer to questions by ID.
type Question struct {
	ID              string
	Text            string
	Type            QuestionType
	PossibleAnswers []string
}

// Question returns the question with the given ID.
func (s *Survey) Question(id string) (Question, bool) {
	for _, q := range s.Questions {
		if q.ID == id {
			return q, true
		}
	}
	return Question{}, false
}

// Normalize cleans the title and question texts (CleanLine: no control
// characters, direction overrides or bytes that are not UTF-8) and trims
// their white space; each question's kind normalizes its settings.
func (s *Survey) Normalize() {
	s.Title = strings.TrimSpace(CleanLine(s.Title))
	for i := range s.Questions {
		q := &s.Questions[i]
		q.Text = strings.TrimSpace(CleanLine(q.Text))
		if k, ok := KindOf(q.Type); ok {
			k.normalize(q)
		} else {
			q.PossibleAnswers = nil
		}
	}
}

// Validate checks a survey definition. The error's Fields are keyed
// "title", "questions", and "questions.N.text" / ".type" / ".choices" for
// question N (from 0).
func (s *Survey) Validate() error {
	f := fieldErrors{}
	switch n := utf8.RuneCountInString(s.Title); {
	case strings.TrimSpace(s.Title) == "":
		f.add("title", "Give the survey a title.")
	case n > MaxTitleLength:
		f.add("title", "Keep the title to %d characters (it has %d).", MaxTitleLength, n)
	case !IsCleanLine(s.Title):
		f.add("title", "The title may not contain control characters or direction overrides.")
	}
	switch {
	case len(s.Questions) == 0:
		f.add("questions", "Add at least one question.")
	case len(s.Questions) > MaxQuestions:
		f.add("questions", "A survey has at most %d questions (it has %d).", MaxQuestions, len(s.Questions))
	}
	switch s.State {
	case Draft, Published, Closed:
	default:
		f.add("state", "Unknown state %q.", s.State)
	}
	for i, q := range s.Questions {
		key := "questions." + strconv.Itoa(i)
		switch n := utf8.RuneCountInString(q.Text); {
		case strings.TrimSpace(q.Text) == "":
			f.add(key+".text", "Write the question.")
		case n > MaxQuestionLength:
			f.add(key+".text", "Keep the question to %d characters (it has %d).", MaxQuestionLength, n)
		case !IsCleanLine(q.Text):
			f.add(key+".text", "The question may not contain control characters or direction overrides.")
		}
		k, ok := KindOf(q.Type)
		if !ok {
			f.add(key+".type", "Choose a question type.")
			continue
		}
		k.validate(q, key, f)
	}
	return f.err("The survey")
}
