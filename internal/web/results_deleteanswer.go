package web

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// AnswerRemover reads and deletes single answers.
type AnswerRemover interface {
	// Get returns one stored answer of a survey.
	Get(ctx context.Context, tenant, slug, id string) (*survey.SurveyAnswer, error)
	DeleteAnswer(ctx context.Context, sv *survey.Survey, id string) error
}

// deleteAnswerPage asks before an answer is deleted, showing what it
// holds (what is lost).
type deleteAnswerPage struct {
	Role   survey.Role
	Tenant string
	Survey *survey.Survey
	Answer *survey.SurveyAnswer
	// Index is where the answer was shown among the answers (?i=), and
	// Filter the filter it was shown under: both go back with "Keep it".
	Index  int
	Filter url.Values
	Back   string
}

// answerFilter is the valid filter of form values v ("" keys when none).
func answerFilter(sv *survey.Survey, v url.Values) url.Values {
	if f, err := survey.ParseAnswerFilter(sv, v); err == nil && f.Active() {
		return f.Values()
	}
	return url.Values{}
}

// confirmDeleteAnswer shows the answer a delete would lose, with the
// button that deletes it: deleting takes two steps, so a double click on
// "Delete this answer" deletes nothing.
func (s *Server) confirmDeleteAnswer(w http.ResponseWriter, r *http.Request) error {
	page, err := s.answerToDelete(r, r.URL.Query())
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "deleteanswer", page)
	return nil
}

// answerToDelete reads the survey and the answer a request names.
func (s *Server) answerToDelete(r *http.Request, form url.Values) (deleteAnswerPage, error) {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return deleteAnswerPage{}, err
	}
	a, err := s.remover.Get(r.Context(), tenant, slug, chi.URLParam(r, "answer"))
	if err != nil {
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			return deleteAnswerPage{}, notFound("No such answer: it may have been deleted already.")
		}
		return deleteAnswerPage{}, err
	}
	i, _ := strconv.Atoi(form.Get("i"))
	page := deleteAnswerPage{Role: roleOf(r), Tenant: tenant, Survey: sv.Everything(nil), Answer: a, Index: max(i, 0), Filter: answerFilter(sv, form)}
	back := url.Values{}
	for k, v := range page.Filter {
		back[k] = v
	}
	back.Set("i", strconv.Itoa(page.Index))
	page.Back = "/" + tenant + "/surveys/" + slug + "/answers?" + back.Encode()
	return page, nil
}

// deleteAnswer deletes one answer (spam) from the survey's summary,
// tables and exports, once its confirmation page was sent (confirm=1; a
// form without it gets that page and deletes nothing), then shows the
// table of answers with a notice: never the next answer, whose own
// "Delete" would be where the cursor is.
func (s *Server) deleteAnswer(w http.ResponseWriter, r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return survey.Errorf(survey.EINVALID, "The form could not be read.")
	}
	if r.PostForm.Get("confirm") != "1" {
		page, err := s.answerToDelete(r, r.PostForm)
		if err != nil {
			return err
		}
		s.render(w, r, http.StatusOK, "deleteanswer", page)
		return nil
	}
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	err = s.remover.DeleteAnswer(r.Context(), sv, chi.URLParam(r, "answer"))
	s.forgetResults(tenant, slug) // whatever came of it: the summary may have changed
	if err != nil {
		return err
	}
	s.audit(r, survey.AuditAnswerDeleted, slug, "answer "+chi.URLParam(r, "answer"))
	// To the table of answers as they were filtered (a bad filter is
	// dropped).
	to := url.Values{"deleted": {"1"}}
	for k, v := range answerFilter(sv, r.PostForm) {
		to[k] = v
	}
	http.Redirect(w, r, "/"+tenant+"/surveys/"+slug+"/answers/table?"+to.Encode(), http.StatusSeeOther)
	return nil
}
