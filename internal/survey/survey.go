package survey

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/surveys-dev/surveys/internal/theme"
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
	MaxHelpLength     = 500
	// MaxListsLength bounds the characters of all the possible answers
	// and rows of a survey, so that its questions stay within one table
	// transaction (4 MiB) whatever their kinds.
	MaxListsLength = 60000
	// MaxDescriptionLength bounds a survey's description and its
	// thank-you message.
	MaxDescriptionLength = 2000
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
	// PublicResults shows the charts of the questions InResults on a
	// public page (/survey/{tenant}/{slug}/results), linked from the
	// thank-you page; nothing else of the survey or its answers.
	PublicResults bool
	// EmbedOrigins are the sites allowed to show the survey in a frame
	// (ParseEmbedOrigins); none: no site may.
	EmbedOrigins []string
	// OnePer keeps to one answer per browser or per personal link
	// (personal.go); MayChange lets the holder of a used personal link
	// change their answer until the survey closes.
	OnePer    OnePer
	MayChange bool
	// Description is shown under the title (lines of text); ThankYou is
	// the thank-you page's message. Both may be empty.
	Description string
	ThankYou    string
	// HiddenFields name the values the respondent's link may carry
	// (?source=newsletter), stored with the answer (hidden.go); Prefill
	// lets the link prefill the questions (?q-<ID>=value).
	HiddenFields []string
	Prefill      bool
	// SendCopy offers the respondent, on the thank-you page, an e-mail
	// of their own answers (web/respond_copy.go). Off unless the designer turns
	// it on.
	SendCopy bool
	// Theme is the survey's own look, over its tenant's (ThemeOf); nil:
	// the tenant's.
	Theme *theme.Theme
	// Scoring: the survey's variables, outcomes, quiz feedback and
	// redirect (scoring.go).
	Scoring
	// KeepPartial, when set, keeps what a respondent of a multi-page
	// survey answered on the pages they moved past when they leave
	// without submitting: KeepPartial after their last page move it
	// becomes an answer marked partial (partial.go). Zero: not kept.
	KeepPartial time.Duration
	// Quotas cap the complete answers per cell of choices (quota.go).
	Quotas []Quota
	// Sections are the survey's pages (section.go); none is one page.
	Sections  []Section
	Questions []Question
	// Language is the language of the survey's own texts ("" for
	// English); Translations are its texts in other languages, by
	// language (translation.go).
	Language     string
	Translations map[string]Translation
	// Version names the stored definition: set by the store when it
	// reads or saves one. An Update that names a version is refused
	// (ECONFLICT) when the survey was saved since, so that two editors
	// never overwrite each other silently; one that names none is not
	// checked. EditedBy is who saved it last, EditedOn when ("" and zero
	// for a survey saved before they were kept).
	Version  string
	EditedBy string
	EditedOn time.Time
	// RetainDays is the survey's retention rule (retention.go): answers
	// older than that many days are deleted; 0 follows the tenant's
	// default, KeepAnswers keeps them whatever the default. Receipts
	// shows each respondent a receipt code on the thank-you page, with
	// which they may see their answer and delete it. Both are set on the
	// survey's privacy page only (an edit of the definition keeps them).
	RetainDays int
	Receipts   bool
	// TrashedOn, when set, is when the survey was moved to the trash: it
	// takes no answers and shows nowhere but the trash, and is deleted for
	// good TrashDays later unless restored.
	TrashedOn time.Time
}

// TrashDays is how long a survey stays in the trash.
const TrashDays = 30

// Trashed reports whether the survey is in the trash.
func (s *Survey) Trashed() bool { return !s.TrashedOn.IsZero() }

// PurgeOn is when a trashed survey is deleted for good.
func (s *Survey) PurgeOn() time.Time { return s.TrashedOn.Add(TrashDays * 24 * time.Hour) }

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
// Which of the settings after Optional a question uses is its kind's
// (Kind.Settings); the kind's normalize clears the others.
type Question struct {
	ID   string
	Text string
	Type QuestionType
	// Section is the ID of the section the question is in ("" for the
	// first).
	Section string
	// ShowIf, when set, shows the question only when it holds for the
	// answers to earlier questions (logic.go).
	ShowIf *Condition
	// Help is an optional line shown under the question.
	Help string
	// Optional questions may be left unanswered; questions are required
	// by default (and were always, before this setting).
	Optional bool

	// PossibleAnswers are the choices of a choice question, the columns
	// of a matrix, the items of a ranking.
	PossibleAnswers []string
	// Rows are the rows of a matrix.
	Rows []string
	// Other adds "Other (please specify)" with a line of text.
	Other bool
	// Shuffle shows the choices in a new order to each respondent.
	Shuffle bool
	// Min and Max bound an answer, as text: a length, a number, a date
	// (YYYY-MM-DD) or a count of selections, per the kind. Empty: none.
	Min, Max string
	// Integer numbers only.
	Integer bool
	// Format of a short text: "" (free), "email" or "url".
	Format string
	// Scale is the top of a linear scale (2 to 10), or of a matrix's
	// rating scale (its columns 1 to Scale) when it has no choices.
	Scale int
	// LowLabel and HighLabel name the ends of a scale.
	LowLabel, HighLabel string
	// Pattern is a regular expression (RE2, Go's regexp) a short text
	// answer must match whole; PatternMessage is what a respondent whose
	// answer does not match reads (and sees as the field's hint).
	Pattern, PatternMessage string
	// Parts are the parts a contact question asks (ContactParts' keys),
	// each PartOptional or PartRequired; a part it does not name is not
	// asked.
	Parts map[string]string
	// Step is the step of a slider, from Min to Max (a whole number).
	Step string
	// Pictures are a picture choice question's choices: each a label (a
	// possible answer), an alt text and an uploaded image. Multiple lets
	// a respondent choose several of them.
	Pictures []Picture
	Multiple bool
	// Statement is what a consent question's respondent agrees to by
	// ticking its box (lines of text).
	Statement string

	// Hidden questions are not shown to respondents: a question of a
	// published survey that has answers is hidden rather than deleted, so
	// that its answers keep their meaning in the analysis and exports.
	Hidden bool
	// HiddenChoices and HiddenRows are the possible answers and rows taken
	// off a published question that already had answers (revise.go):
	// respondents no longer see them; the analysis and exports do.
	HiddenChoices, HiddenRows []string
	// InResults puts the question's chart on the survey's public results
	// page (Survey.PublicResults).
	InResults bool

	// Points are the points of the choices of a choice question (by
	// choice; none: 0), Correct its correct choices (a quiz), and
	// Feedback what the thank-you page says of it (scoring.go).
	Points   map[string]float64
	Correct  []string
	Feedback string
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
	s.Description = strings.TrimSpace(CleanText(strings.ReplaceAll(s.Description, "\r\n", "\n")))
	s.ThankYou = strings.TrimSpace(CleanText(strings.ReplaceAll(s.ThankYou, "\r\n", "\n")))
	if s.OnePer != OnePerLink {
		s.MayChange = false // only a personal link says who is changing
	}
	for i := range s.Questions {
		q := &s.Questions[i]
		q.Text = strings.TrimSpace(CleanLine(q.Text))
		q.Help = strings.TrimSpace(CleanLine(q.Help))
		k, ok := KindOf(q.Type)
		if !ok {
			*q = Question{ID: q.ID, Text: q.Text, Type: q.Type, Section: q.Section, ShowIf: q.ShowIf, Help: q.Help, Optional: q.Optional, Hidden: q.Hidden}
			continue
		}
		normalizeSettings(q, k.Settings())
		k.normalize(q)
		q.HiddenChoices = hiddenLines(q.HiddenChoices, q.PossibleAnswers)
		q.HiddenRows = hiddenLines(q.HiddenRows, q.Rows)
	}
	s.normalizeHiddenFields()
	s.normalizeScoring()
	s.normalizeLogic()
	s.normalizeQuotas()
	s.normalizeSections()
	s.normalizeTranslations()
}

// Problems are the problems Validate finds in a copy of s normalized as
// the store would, by Validate's keys; nil when there are none. s is left
// as it is.
func (s *Survey) Problems() map[string]string {
	cp := *s
	cp.Questions = append([]Question(nil), s.Questions...)
	cp.Sections = append([]Section(nil), s.Sections...)
	cp.HiddenFields = append([]string(nil), s.HiddenFields...)
	cp.Variables = cloneVariables(s.Variables)
	cp.Outcomes = slices.Clone(s.Outcomes)
	for i := range cp.Questions {
		cp.Questions[i].Points = maps.Clone(cp.Questions[i].Points)
	}
	cp.Quotas = cloneQuotas(s.Quotas)
	cp.Normalize()
	var e *Error
	if err := cp.Validate(); errors.As(err, &e) && len(e.Fields) > 0 {
		return maps.Clone(e.Fields)
	}
	return nil
}

// Validate checks a survey definition. The error's Fields are keyed
// "title", "description", "thankYou", "questions", and "questions.N.text",
// ".type", ".help" and the kind's settings (".choices", ".rows", ".min",
// ".max", ".scale", ".format", ".labels", ".section") for question N (from
// 0), and "sections", "sections.N" and "sections.N.id", ".title",
// ".description" for section N (section.go), and the keys of the logic
// (logic.go: "questions.N.showIf.rules.M.question", "sections.N.jumps.M.to"),
// and "hiddenFields" (hidden.go), and "quotas…" (quota.go).
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
	visible := 0
	for _, q := range s.Questions {
		if !q.Hidden {
			visible++
		}
	}
	switch {
	case visible == 0:
		f.add("questions", "Add at least one question.")
	case len(s.Questions) > MaxQuestions:
		f.add("questions", "A survey has at most %d questions (it has %d).", MaxQuestions, len(s.Questions))
	}
	for _, d := range []struct{ key, what, text string }{{"description", "description", s.Description}, {"thankYou", "thank-you message", s.ThankYou}} {
		switch n := utf8.RuneCountInString(d.text); {
		case n > MaxDescriptionLength:
			f.add(d.key, "Keep the %s to %d characters (it has %d).", d.what, MaxDescriptionLength, n)
		case !IsCleanText(d.text):
			f.add(d.key, "The %s may not contain control characters or direction overrides.", d.what)
		}
	}
	addThemeProblems(f, s.Theme, s.Tenant)
	if s.KeepPartial != 0 && (s.KeepPartial < MinKeepPartial || s.KeepPartial > MaxKeepPartial) {
		f.add("keepPartial", "Keep partial answers after %d minutes to %d days.", int(MinKeepPartial/time.Minute), int(MaxKeepPartial/(24*time.Hour)))
	}
	if _, ok := ParseOnePer(string(s.OnePer)); !ok || s.OnePer == "none" {
		f.add("onePer", "Choose none, one per browser or personal links.")
	}
	switch s.State {
	case Draft, Published, Closed:
	default:
		f.add("state", "Unknown state %q.", s.State)
	}
	lists := 0
	for _, q := range s.Questions {
		for _, l := range [][]string{q.PossibleAnswers, q.Rows, q.HiddenChoices, q.HiddenRows} {
			for _, c := range l {
				lists += utf8.RuneCountInString(c)
			}
		}
		for _, p := range q.Pictures {
			lists += utf8.RuneCountInString(p.Alt) + utf8.RuneCountInString(p.Image)
		}
	}
	if lists > MaxListsLength {
		f.add("questions", "A survey's possible answers and rows hold at most %d characters in all (these hold %d).", MaxListsLength, lists)
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
		switch n := utf8.RuneCountInString(q.Help); {
		case n > MaxHelpLength:
			f.add(key+".help", "Keep the help text to %d characters (it has %d).", MaxHelpLength, n)
		case !IsCleanLine(q.Help):
			f.add(key+".help", "The help text may not contain control characters or direction overrides.")
		}
		k, ok := KindOf(q.Type)
		if !ok {
			f.add(key+".type", "Choose a kind of question.")
			continue
		}
		k.validate(q, key, f)
		if tv, ok := k.(interface {
			validateTenant(tenant string, q Question, key string, f fieldErrors)
		}); ok && s.Tenant != "" {
			tv.validateTenant(s.Tenant, q, key, f)
		}
	}
	s.validateHiddenFields(f)
	s.validateScoring(f)
	s.validateSections(f)
	s.validateLogic(f)
	s.validateQuotas(f)
	s.validatePiping(f)
	s.validateTranslations(f)
	return f.err("The survey")
}
