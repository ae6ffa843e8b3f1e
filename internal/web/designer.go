package web

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// SurveyEditor is what the designer needs of the survey store.
type SurveyEditor interface {
	Create(ctx context.Context, s *survey.Survey) error
	Update(ctx context.Context, s *survey.Survey) error
	SetState(ctx context.Context, tenant, slug string, state survey.State) (*survey.Survey, error)
	SetChallenge(ctx context.Context, tenant, slug string, on bool) error
	Delete(ctx context.Context, tenant, slug string) error
}

type designerPage struct {
	Tenant string
	Survey *survey.Survey // the stored survey when editing; nil when new
	Title  string
	Listed bool
	// Challenge asks respondents' browsers for a proof of work.
	Challenge bool
	CloseOn   string // YYYY-MM-DD, or ""
	Rows      []designerRow
	Errors    map[string]string
	Frozen    bool
	Action    string
	Kinds     []survey.Kind
	Message   string
}

type designerRow struct {
	Pos     int
	Text    string
	Type    survey.QuestionType
	Choices string
	Error   string
}

// defaultKind is the kind of a new question: the registry's first.
func defaultKind() survey.QuestionType { return survey.Kinds()[0].Type() }

// designerForm decodes the designer: the title and rows q.N.*, ordered by
// their position field, without the rows marked for removal.
func designerForm(w http.ResponseWriter, r *http.Request) (title string, listed bool, rows []designerRow, err error) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		return "", false, nil, survey.Errorf(survey.EINVALID, "The form could not be read.")
	}
	f := r.PostForm
	n, _ := strconv.Atoi(f.Get("n"))
	n = min(max(n, 0), survey.MaxQuestions+1)
	for i := 0; i < n; i++ {
		p := "q." + strconv.Itoa(i) + "."
		if f.Get(p+"remove") != "" {
			continue
		}
		pos, err := strconv.Atoi(f.Get(p + "pos"))
		if err != nil {
			pos = i + 1
		}
		rows = append(rows, designerRow{Pos: pos, Text: f.Get(p + "text"), Type: survey.QuestionType(f.Get(p + "type")), Choices: f.Get(p + "choices")})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Pos < rows[j].Pos })
	for i := range rows {
		rows[i].Pos = i + 1
	}
	return f.Get("title"), f.Get("listed") != "", rows, nil
}

// parseCloseOn reads the designer's optional close date: the last day the
// survey takes answers, today or later. It returns a field error message.
func parseCloseOn(v string, now time.Time) (time.Time, string) {
	if v == "" {
		return time.Time{}, ""
	}
	d, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return time.Time{}, "Give the last day as a date, YYYY-MM-DD."
	}
	if today := now.UTC().Truncate(24 * time.Hour); d.Before(today) {
		return time.Time{}, "The last day to answer has passed; choose today or later."
	}
	return d, ""
}

func rowsToQuestions(rows []designerRow) []survey.Question {
	qs := make([]survey.Question, len(rows))
	for i, r := range rows {
		// The kind keeps the possible answers it has (Normalize).
		qs[i] = survey.Question{Text: r.Text, Type: r.Type, PossibleAnswers: strings.Split(strings.ReplaceAll(r.Choices, "\r\n", "\n"), "\n")}
	}
	return qs
}

func questionsToRows(qs []survey.Question) []designerRow {
	rows := make([]designerRow, len(qs))
	for i, q := range qs {
		rows[i] = designerRow{Pos: i + 1, Text: q.Text, Type: q.Type, Choices: strings.Join(q.PossibleAnswers, "\n")}
	}
	return rows
}

func (s *Server) renderDesigner(w http.ResponseWriter, r *http.Request, status int, p designerPage) {
	p.Kinds = survey.Kinds()
	if len(p.Rows) == 0 {
		p.Rows = []designerRow{{Pos: 1, Type: defaultKind()}}
	}
	for i := range p.Rows {
		p.Rows[i].Error = ""
		for _, field := range []string{"text", "type", "choices"} {
			if e := p.Errors["questions."+strconv.Itoa(i)+"."+field]; e != "" && p.Rows[i].Error == "" {
				p.Rows[i].Error = e
			}
		}
	}
	s.render(w, r, status, "designer", p)
}

// newSurvey shows an empty designer.
func (s *Server) newSurvey(w http.ResponseWriter, r *http.Request) error {
	s.renderDesigner(w, r, http.StatusOK, designerPage{Tenant: chi.URLParam(r, "tenant"), Listed: true})
	return nil
}

// saveSurvey handles the designer's buttons: add a question row, save a
// draft, or save and publish. A new survey is created; a draft is updated.
func (s *Server) saveSurvey(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	title, listed, rows, err := designerForm(w, r)
	if err != nil {
		return err
	}
	page := designerPage{Tenant: tenant, Title: title, Listed: listed, Challenge: r.PostForm.Get("challenge") != "", Rows: rows, CloseOn: strings.TrimSpace(r.PostForm.Get("closeOn"))}
	closeOn, closeErr := parseCloseOn(page.CloseOn, time.Now())
	if slug != "" {
		cur, err := s.surveys.Get(r.Context(), tenant, slug)
		if err != nil {
			return err
		}
		page.Survey = cur
	}
	switch action := r.PostForm.Get("action"); action {
	case "add":
		if len(page.Rows) < survey.MaxQuestions {
			page.Rows = append(page.Rows, designerRow{Pos: len(page.Rows) + 1, Type: defaultKind()})
		}
		s.renderDesigner(w, r, http.StatusOK, page)
		return nil
	case "save", "publish":
		if closeErr != "" {
			page.Errors, page.Message = map[string]string{"closeOn": closeErr}, "Please check the close date."
			s.renderDesigner(w, r, http.StatusUnprocessableEntity, page)
			return nil
		}
		sv := &survey.Survey{Tenant: tenant, Title: title, Listed: listed, Challenge: page.Challenge, CloseOn: closeOn, Questions: rowsToQuestions(rows), State: survey.Draft}
		if page.Survey == nil {
			if action == "publish" {
				sv.State = survey.Published
			}
			err = s.editor.Create(r.Context(), sv)
		} else {
			sv.Slug = slug
			if err = s.editor.Update(r.Context(), sv); err == nil && action == "publish" {
				_, err = s.editor.SetState(r.Context(), tenant, slug, survey.Published)
			}
		}
		// Invalid, or beyond the plan: the form comes back as typed.
		var e *survey.Error
		if errors.As(err, &e) && (e.Code == survey.EINVALID || e.Code == survey.EFORBIDDEN) {
			page.Errors, page.Message = e.Fields, e.Message
			status := http.StatusUnprocessableEntity
			if e.Code == survey.EFORBIDDEN {
				status = http.StatusForbidden
			}
			s.renderDesigner(w, r, status, page)
			return nil
		}
		if err != nil {
			return err
		}
		if action == "publish" {
			http.Redirect(w, r, "/"+tenant+"/surveys", http.StatusSeeOther)
		} else {
			http.Redirect(w, r, "/"+tenant+"/surveys/"+sv.Slug+"/edit", http.StatusSeeOther)
		}
		return nil
	default:
		return survey.Errorf(survey.EINVALID, "Unknown action %q.", action)
	}
}

// editSurvey shows a survey in the designer; a published or closed one is
// shown frozen.
func (s *Server) editSurvey(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	p := designerPage{Tenant: tenant, Survey: sv, Title: sv.Title, Listed: sv.Listed, Challenge: sv.Challenge,
		Rows: questionsToRows(sv.Questions), Frozen: sv.State != survey.Draft}
	if !sv.CloseOn.IsZero() {
		p.CloseOn = sv.CloseOn.Format(time.DateOnly)
	}
	s.renderDesigner(w, r, http.StatusOK, p)
	return nil
}

// surveyAction publishes, closes or deletes a survey, then returns to the
// dashboard.
func (s *Server) surveyAction(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	var err error
	switch chi.URLParam(r, "action") {
	case "publish":
		_, err = s.editor.SetState(r.Context(), tenant, slug, survey.Published)
	case "close":
		_, err = s.editor.SetState(r.Context(), tenant, slug, survey.Closed)
	case "delete":
		err = s.editor.Delete(r.Context(), tenant, slug)
	case "challenge-on", "challenge-off":
		// Switched on a live survey too: that is when robots come.
		if err = s.editor.SetChallenge(r.Context(), tenant, slug, chi.URLParam(r, "action") == "challenge-on"); err == nil {
			http.Redirect(w, r, "/"+tenant+"/surveys/"+slug+"/edit", http.StatusSeeOther)
			return nil
		}
	case "copy":
		// A published survey's questions are frozen: editing starts from a copy.
		src, err := s.surveys.Get(r.Context(), tenant, slug)
		if err != nil {
			return err
		}
		cp := &survey.Survey{Tenant: tenant, Title: src.Title + " (copy)", Listed: src.Listed, Challenge: src.Challenge, State: survey.Draft}
		for _, q := range src.Questions {
			cp.Questions = append(cp.Questions, survey.Question{Text: q.Text, Type: q.Type, PossibleAnswers: q.PossibleAnswers})
		}
		if err := s.editor.Create(r.Context(), cp); err != nil {
			return err
		}
		http.Redirect(w, r, "/"+tenant+"/surveys/"+cp.Slug+"/edit", http.StatusSeeOther)
		return nil
	default:
		return notFound("Page not found.")
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/"+tenant+"/surveys", http.StatusSeeOther)
	return nil
}

// preview shows a survey as a respondent sees it, drafts included, with a
// form that posts nowhere.
func (s *Server) preview(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	t, err := s.tenants.Get(r.Context(), tenant)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "survey", surveyPage{Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Preview: true})
	return nil
}
