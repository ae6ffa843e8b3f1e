package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/theme"
)

type jsonSurvey struct {
	Slug        string       `json:"slug"`
	Title       string       `json:"title"`
	Description string       `json:"description,omitempty"`
	ThankYou    string       `json:"thankYou,omitempty"`
	State       survey.State `json:"state"`
	Listed      bool         `json:"listed"`
	// OnePer is "none", "browser" or "link"; MayChange, that a personal
	// link's answer may be changed until the survey closes.
	OnePer string `json:"onePer"`
	// PublicResults: the charts of the questions InResults are public.
	PublicResults bool       `json:"publicResults,omitempty"`
	MayChange     bool       `json:"mayChange,omitempty"`
	CreatedOn     time.Time  `json:"createdOn"`
	PublishedOn   *time.Time `json:"publishedOn,omitempty"`
	PublicURL     string     `json:"publicUrl"`
	// TrashedOn and PurgeOn: a survey in the trash, and when it goes for good.
	TrashedOn *time.Time `json:"trashedOn,omitempty"`
	PurgeOn   *time.Time `json:"purgeOn,omitempty"`
	// HiddenFields name the values its link may carry (?source=…),
	// stored with each answer; Prefill lets the link prefill questions
	// (?q-<id>=…).
	HiddenFields []string `json:"hiddenFields,omitempty"`
	Prefill      bool     `json:"prefill,omitempty"`
	// SendCopy offers respondents an e-mail of their own answers on the
	// thank-you page.
	SendCopy bool `json:"sendCopy,omitempty"`
	// RetainDays is the survey's retention rule (its privacy page: days
	// after which each answer is deleted; -1 keeps them; absent follows
	// the tenant's default); Receipts, that respondents get a receipt
	// code to see and delete their answer. Read only here.
	RetainDays int  `json:"retainDays,omitempty"`
	Receipts   bool `json:"receipts,omitempty"`
	// Theme is the survey's own theme (its theme page), absent when it
	// takes its organisation's (GET /theme). Read only here.
	Theme *theme.Theme `json:"theme,omitempty"`
	// The score's variables, outcomes and redirect.
	survey.Scoring
	// KeepPartialMinutes keeps partial answers that long after the
	// respondent's last page move (0: none kept).
	KeepPartialMinutes int `json:"keepPartialMinutes,omitempty"`
	// Quotas cap the complete answers per cell of choices (survey.Quota:
	// name, limit, if, message).
	Quotas []survey.Quota `json:"quotas,omitempty"`
	// Sections are the survey's pages; none is one page.
	Sections  []jsonSection  `json:"sections,omitempty"`
	Questions []jsonQuestion `json:"questions,omitempty"`
	// Language is that of the survey's own texts; Translations its texts
	// in other languages, by language (survey.Translation).
	Language     string                        `json:"language,omitempty"`
	Translations map[string]survey.Translation `json:"translations,omitempty"`
}

// jsonSection is a section: a page for respondents. Its ID is optional on
// the way in (a new one is s1, s2 …, the first free); a question names
// its section by ID ("section"; none is the first section).
type jsonSection struct {
	ID          string `json:"id,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Shuffle     bool   `json:"shuffle,omitempty"`
	// ShowIf shows the section only when it holds; Jumps say where to go
	// after it: the first whose condition holds wins (survey/logic.go).
	ShowIf *survey.Condition `json:"showIf,omitempty"`
	Jumps  []survey.Jump     `json:"jumps,omitempty"`
}

func jsonSections(in []survey.Section) []jsonSection {
	var out []jsonSection
	for _, sc := range in {
		out = append(out, jsonSection{ID: sc.ID, Title: sc.Title, Description: sc.Description, Shuffle: sc.Shuffle, ShowIf: sc.ShowIf, Jumps: sc.Jumps})
	}
	return out
}

func surveySections(in []jsonSection) []survey.Section {
	var out []survey.Section
	for _, sc := range in {
		out = append(out, survey.Section{ID: sc.ID, Title: sc.Title, Description: sc.Description, Shuffle: sc.Shuffle, ShowIf: sc.ShowIf, Jumps: sc.Jumps})
	}
	return out
}

// jsonQuestion is a question with every setting a kind may have; a setting
// at its zero value is left out, and a setting the question's kind does
// not have is dropped (survey.Normalize). On the way in, ID is optional:
// it names the question in the new survey's rules only (the survey's
// questions are given IDs of their own when it is made).
type jsonQuestion struct {
	ID              string              `json:"id,omitempty"`
	Text            string              `json:"text"`
	Type            survey.QuestionType `json:"type"`
	Section         string              `json:"section,omitempty"`
	Help            string              `json:"help,omitempty"`
	Optional        bool                `json:"optional,omitempty"`
	PossibleAnswers []string            `json:"possibleAnswers,omitempty"`
	Rows            []string            `json:"rows,omitempty"`
	Other           bool                `json:"other,omitempty"`
	Shuffle         bool                `json:"shuffle,omitempty"`
	Min             jsonBound           `json:"min,omitempty"`
	Max             jsonBound           `json:"max,omitempty"`
	Integer         bool                `json:"integer,omitempty"`
	Format          string              `json:"format,omitempty"`
	Scale           int                 `json:"scale,omitempty"`
	LowLabel        string              `json:"lowLabel,omitempty"`
	HighLabel       string              `json:"highLabel,omitempty"`
	// Statement is a consent question's statement.
	Statement string `json:"statement,omitempty"`
	// Step is a slider's step from min to max.
	Step jsonBound `json:"step,omitempty"`
	// Pattern is a short text's regular expression (RE2) and
	// PatternMessage what a respondent whose answer does not match reads.
	Pattern        string `json:"pattern,omitempty"`
	PatternMessage string `json:"patternMessage,omitempty"`
	// Points are a choice question's points by choice, Correct its
	// correct choices (a quiz), Feedback shown after the answer.
	Points   map[string]float64 `json:"points,omitempty"`
	Correct  []string           `json:"correct,omitempty"`
	Feedback string             `json:"feedback,omitempty"`
	// Parts are a contact question's parts: part → "optional" or
	// "required".
	Parts map[string]string `json:"parts,omitempty"`
	// Pictures are a picture choice question's choices (label, alt text,
	// image name), Multiple whether several may be chosen.
	Pictures []survey.Picture `json:"pictures,omitempty"`
	Multiple bool             `json:"multiple,omitempty"`
	// ShowIf shows the question only when it holds for the answers to
	// earlier questions.
	ShowIf *survey.Condition `json:"showIf,omitempty"`
	// Hidden, HiddenChoices and HiddenRows are what an edit of the
	// published survey took from respondents but kept for its answers
	// (read only: a new survey has none).
	Hidden        bool     `json:"hidden,omitempty"`
	HiddenChoices []string `json:"hiddenChoices,omitempty"`
	HiddenRows    []string `json:"hiddenRows,omitempty"`
	// InResults puts the question's chart on the public results page.
	InResults bool `json:"inResults,omitempty"`
}

// jsonBound is a question's min or max: a JSON number or a string in, and
// out a JSON number when it is one (a length, a number, a count of
// selections), else a string (a date, YYYY-MM-DD).
type jsonBound string

func (b *jsonBound) UnmarshalJSON(data []byte) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return err
	}
	switch v := v.(type) {
	case nil:
		*b = ""
	case string:
		*b = jsonBound(v)
	case json.Number:
		*b = jsonBound(v.String())
	default:
		return errors.New("min and max are numbers or strings")
	}
	return nil
}

func (b jsonBound) MarshalJSON() ([]byte, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if dec.Decode(&v) == nil && !dec.More() {
		if _, ok := v.(json.Number); ok {
			return []byte(b), nil
		}
	}
	return json.Marshal(string(b))
}

func (q jsonQuestion) question() survey.Question {
	return survey.Question{ID: q.ID, ShowIf: q.ShowIf, Text: q.Text, Type: q.Type, Section: q.Section, Help: q.Help, Optional: q.Optional, PossibleAnswers: q.PossibleAnswers, Rows: q.Rows,
		Other: q.Other, Shuffle: q.Shuffle, Min: string(q.Min), Max: string(q.Max), Integer: q.Integer, Format: q.Format, Scale: q.Scale,
		LowLabel: q.LowLabel, HighLabel: q.HighLabel, Statement: q.Statement, Step: string(q.Step), Parts: q.Parts, Pictures: q.Pictures, Multiple: q.Multiple, Pattern: q.Pattern, PatternMessage: q.PatternMessage, InResults: q.InResults,
		Points: q.Points, Correct: q.Correct, Feedback: q.Feedback}
}

func jsonQuestionOf(q survey.Question) jsonQuestion {
	return jsonQuestion{ID: q.ID, ShowIf: q.ShowIf, Text: q.Text, Type: q.Type, Section: q.Section, Help: q.Help, Optional: q.Optional, PossibleAnswers: q.PossibleAnswers, Rows: q.Rows,
		Other: q.Other, Shuffle: q.Shuffle, Min: jsonBound(q.Min), Max: jsonBound(q.Max), Integer: q.Integer, Format: q.Format, Scale: q.Scale,
		LowLabel: q.LowLabel, HighLabel: q.HighLabel, Statement: q.Statement, Step: jsonBound(q.Step), Parts: q.Parts, Pictures: q.Pictures, Multiple: q.Multiple, Pattern: q.Pattern, PatternMessage: q.PatternMessage, Hidden: q.Hidden, HiddenChoices: q.HiddenChoices, HiddenRows: q.HiddenRows, InResults: q.InResults,
		Points: q.Points, Correct: q.Correct, Feedback: q.Feedback}
}

// toJSON is sv as the API writes it; its publicUrl is on the tenant's
// verified custom domain when it has one.
func (s *server) toJSON(ctx context.Context, sv *survey.Survey) jsonSurvey {
	public := "/survey/" + sv.Tenant + "/" + sv.Slug
	if s.SurveyBase != nil {
		public = s.SurveyBase(ctx, sv.Tenant) + public
	}
	a := jsonSurvey{Slug: sv.Slug, Title: sv.Title, Description: sv.Description, ThankYou: sv.ThankYou, State: sv.State, Listed: sv.Listed,
		OnePer: sv.OnePer.Name(), MayChange: sv.MayChange, PublicResults: sv.PublicResults, CreatedOn: sv.CreatedOn, PublicURL: public,
		RetainDays: sv.RetainDays, Receipts: sv.Receipts, Theme: sv.Theme}
	if sv.Trashed() {
		trashed, purge := sv.TrashedOn, sv.PurgeOn()
		a.TrashedOn, a.PurgeOn = &trashed, &purge
	}
	if !sv.PublishedOn.IsZero() {
		p := sv.PublishedOn
		a.PublishedOn = &p
	}
	a.Sections = jsonSections(sv.Sections)
	for _, q := range sv.Questions {
		a.Questions = append(a.Questions, jsonQuestionOf(q))
	}
	a.HiddenFields, a.Prefill, a.SendCopy = sv.HiddenFields, sv.Prefill, sv.SendCopy
	a.Scoring = sv.Scoring
	a.KeepPartialMinutes = int(sv.KeepPartial / time.Minute)
	a.Quotas = sv.Quotas
	a.Language, a.Translations = sv.Language, sv.Translations
	return a
}

func (s *server) listSurveys(w http.ResponseWriter, r *http.Request) (int, any, error) {
	list, err := s.Surveys.List(r.Context(), tenantOf(r))
	if err != nil {
		return 0, nil, err
	}
	out := make([]jsonSurvey, 0, len(list))
	for _, sv := range list {
		out = append(out, s.toJSON(r.Context(), sv))
	}
	return http.StatusOK, map[string]any{"surveys": out}, nil
}

// createSurvey creates a survey from a JSON definition: {"title",
// "description", "thankYou", "listed", "publish", "sections": [jsonSection],
// "questions": [jsonQuestion]}.
// A bad definition is a 422 with the problems by field
// ("questions.0.choices"); an unknown type's problem lists the known ones.
func (s *server) createSurvey(w http.ResponseWriter, r *http.Request) (int, any, error) {
	var in struct {
		Title       string        `json:"title"`
		Description string        `json:"description"`
		ThankYou    string        `json:"thankYou"`
		Listed      bool          `json:"listed"`
		Publish     bool          `json:"publish"`
		Sections    []jsonSection `json:"sections"`
		OnePer      string        `json:"onePer"`
		MayChange   bool          `json:"mayChange"`
		// PublicResults shows the charts of the questions marked
		// inResults at /survey/{tenant}/{slug}/results.
		PublicResults bool           `json:"publicResults"`
		Questions     []jsonQuestion `json:"questions"`
		// HiddenFields and Prefill: the values the link may carry, and
		// whether it may prefill questions.
		HiddenFields []string `json:"hiddenFields"`
		Prefill      bool     `json:"prefill"`
		// SendCopy: respondents may e-mail themselves a copy of their
		// answers from the thank-you page.
		SendCopy bool `json:"sendCopy"`
		survey.Scoring
		// KeepPartialMinutes: partial answers kept that long after the
		// last page move (0: none).
		KeepPartialMinutes int `json:"keepPartialMinutes"`
		// Quotas: the limits on complete answers per cell, rules naming
		// questions by their id here.
		Quotas []survey.Quota `json:"quotas"`
		// Language and Translations: the survey's texts' language and
		// their translations, questions named by their id here.
		Language     string                        `json:"language"`
		Translations map[string]survey.Translation `json:"translations"`
	}
	if err := readBody(w, r, 1<<20, &in, "a survey definition"); err != nil {
		return 0, nil, err
	}
	sv := &survey.Survey{Tenant: tenantOf(r), Title: in.Title, Description: in.Description, ThankYou: in.ThankYou, Listed: in.Listed, State: survey.Draft,
		OnePer: survey.OnePer(in.OnePer), MayChange: in.MayChange, PublicResults: in.PublicResults, Sections: surveySections(in.Sections),
		HiddenFields: in.HiddenFields, Prefill: in.Prefill, SendCopy: in.SendCopy, Quotas: in.Quotas, Language: in.Language, Translations: in.Translations,
		KeepPartial: time.Duration(in.KeepPartialMinutes) * time.Minute}
	sv.Scoring = in.Scoring
	if o, ok := survey.ParseOnePer(in.OnePer); ok {
		sv.OnePer = o
	}
	if in.Publish {
		sv.State = survey.Published
	}
	for _, q := range in.Questions {
		sv.Questions = append(sv.Questions, q.question())
	}
	if errs := sv.Problems(); errs != nil {
		for i, q := range sv.Questions {
			if !q.Type.Valid() {
				errs["questions."+strconv.Itoa(i)+".type"] = fmt.Sprintf("Unknown type %q; the types are %s.", q.Type, knownTypes())
			}
		}
		return 0, nil, &survey.Error{Code: survey.EINVALID, Message: "The survey has problems; see each field.", Fields: errs}
	}
	if err := s.Editor.Create(r.Context(), sv); err != nil {
		return 0, nil, err
	}
	s.audit(r, survey.AuditSurveyCreated, sv.Slug, "")
	return http.StatusCreated, s.toJSON(r.Context(), sv), nil
}

// knownTypes lists the registered kinds' types, for an error message.
func knownTypes() string {
	var names []string
	for _, k := range survey.Kinds() {
		names = append(names, string(k.Type()))
	}
	return strings.Join(names, ", ")
}

func (s *server) getSurvey(w http.ResponseWriter, r *http.Request) (int, any, error) {
	sv, err := s.Surveys.Get(r.Context(), tenantOf(r), chi.URLParam(r, "slug"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, s.toJSON(r.Context(), sv), nil
}

func (s *server) setState(state survey.State) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) (int, any, error) {
		if _, err := s.Editor.SetState(r.Context(), tenantOf(r), chi.URLParam(r, "slug"), state); err != nil {
			return 0, nil, err
		}
		action := survey.AuditSurveyPublished
		if state == survey.Closed {
			action = survey.AuditSurveyClosed
		}
		s.audit(r, action, chi.URLParam(r, "slug"), "")
		return s.getSurvey(w, r)
	}
}

// duplicateSurvey makes a new draft of the survey ("Copy of <title>", the
// same questions and settings, no answers) and returns it (201).
func (s *server) duplicateSurvey(w http.ResponseWriter, r *http.Request) (int, any, error) {
	src, err := s.Surveys.Get(r.Context(), tenantOf(r), chi.URLParam(r, "slug"))
	if err != nil {
		return 0, nil, err
	}
	cp := src.Duplicate(time.Now())
	if err := s.Editor.Create(r.Context(), cp); err != nil {
		return 0, nil, err
	}
	s.audit(r, survey.AuditSurveyCreated, cp.Slug, "a copy of "+src.Slug)
	return http.StatusCreated, s.toJSON(r.Context(), cp), nil
}

// deleteSurvey moves a survey to the trash, as the dashboard does (restore
// it with POST …/restore within survey.TrashDays days); ?forever=true
// deletes it and its answers at once, trashed or not.
func (s *server) deleteSurvey(w http.ResponseWriter, r *http.Request) (int, any, error) {
	tenant, slug := tenantOf(r), chi.URLParam(r, "slug")
	var err error
	switch r.URL.Query().Get("forever") {
	case "", "false":
		err = s.Editor.Trash(r.Context(), tenant, slug)
	case "true":
		err = s.Editor.Delete(r.Context(), tenant, slug)
	default:
		err = &survey.Error{Code: survey.EINVALID, Message: "forever is true or false.", Fields: map[string]string{"forever": "Use true or false."}}
	}
	if err != nil {
		return 0, nil, err
	}
	if r.URL.Query().Get("forever") == "true" {
		s.audit(r, survey.AuditSurveyDeleted, slug, "")
	} else {
		s.audit(r, survey.AuditSurveyTrashed, slug, "")
	}
	return http.StatusNoContent, nil, nil
}

// restoreSurvey takes a survey out of the trash.
func (s *server) restoreSurvey(w http.ResponseWriter, r *http.Request) (int, any, error) {
	tenant, slug := tenantOf(r), chi.URLParam(r, "slug")
	if err := s.Editor.Restore(r.Context(), tenant, slug); err != nil {
		return 0, nil, err
	}
	s.audit(r, survey.AuditSurveyRestored, slug, "")
	return s.getSurvey(w, r)
}

func (s *server) getSummary(w http.ResponseWriter, r *http.Request) (int, any, error) {
	tenant, slug := tenantOf(r), chi.URLParam(r, "slug")
	sv, err := s.Surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return 0, nil, err
	}
	sum := survey.NewSummary(sv)
	if stored, _, err := s.Summaries.Get(r.Context(), tenant, slug); err == nil {
		sum = &stored.SurveyAnswersSummary
	} else if survey.ErrorCode(err) != survey.ENOTFOUND {
		return 0, nil, err
	}
	return http.StatusOK, sum, nil
}

// answersReadDetail is the audit detail of a read of the answers page by
// page (GET /surveys/{slug}/answers).
const answersReadDetail = "answers read page by page (API)"

// listAnswers pages through answers: ?offset=0&limit=50 (at most 100),
// filtered by ?from=&to= (days) and ?q=&a= (one answer; see
// survey.AnswerFilter). total counts the answers picked.
func (s *server) listAnswers(w http.ResponseWriter, r *http.Request) (int, any, error) {
	tenant, slug := tenantOf(r), chi.URLParam(r, "slug")
	sv, err := s.Surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return 0, nil, err
	}
	f, err := survey.AnswerFilterOf(sv, r.URL.Query())
	if err != nil {
		return 0, nil, err
	}
	offset, _ := strconv.Atoi(r.URL.Query().Get("offset"))
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil || limit <= 0 {
		limit = 50
	}
	page, total, _, err := s.AnswersPicked(r.Context(), tenant, slug, f, max(offset, 0), min(limit, 100))
	if err != nil {
		return 0, nil, err
	}
	if offset <= 0 {
		// A read of the answers through the API is an export: noted once
		// per pass, at its first page (not once per page).
		s.audit(r, survey.AuditExport, slug, answersReadDetail)
	}
	// Each answer as the JSON export gives it: a typed value per question.
	answers := make([]survey.ExportedAnswer, 0, len(page))
	for _, a := range page {
		answers = append(answers, survey.ExportAnswer(sv, a))
	}
	return http.StatusOK, map[string]any{"total": total, "offset": max(offset, 0), "answers": answers}, nil
}

// exportAnswers streams every answer, one JSON object per line (or CSV with
// ?format=csv, an XLSX workbook with ?format=xlsx, a zip of the coded data
// and the SPSS syntax or R script with ?format=spss or ?format=r), or
// those the filter picks (as listAnswers').
func (s *server) exportAnswers(w http.ResponseWriter, r *http.Request) {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "json"
	}
	err := s.Export(w, r, tenantOf(r), chi.URLParam(r, "slug"), format)
	s.auditExport(r, chi.URLParam(r, "slug"), format, err)
	if err != nil {
		s.handle(func(http.ResponseWriter, *http.Request) (int, any, error) { return 0, nil, err })(w, r)
	}
}

// report writes the survey's results as a PDF document (of the answers
// the filter picks, as exportAnswers').
func (s *server) report(w http.ResponseWriter, r *http.Request) {
	err := s.Report(w, r, tenantOf(r), chi.URLParam(r, "slug"))
	s.auditExport(r, chi.URLParam(r, "slug"), "pdf report", err)
	if err != nil {
		s.handle(func(http.ResponseWriter, *http.Request) (int, any, error) { return 0, nil, err })(w, r)
	}
}
