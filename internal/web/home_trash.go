package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// trashPage asks before a trashed survey is deleted for good, saying what
// is lost.
type trashPage struct {
	Tenant  string
	Survey  *survey.Survey
	Answers int64
	Lost    string // "N answers"
}

// confirmDelete shows what deleting a trashed survey for good loses.
func (s *Server) confirmDelete(w http.ResponseWriter, r *http.Request) error {
	page, err := s.trashed(r)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "delete", page)
	return nil
}

// deleteForever deletes a trashed survey with its answers, for good.
func (s *Server) deleteForever(w http.ResponseWriter, r *http.Request) error {
	page, err := s.trashed(r)
	if err != nil {
		return err
	}
	if err := s.editor.Delete(r.Context(), page.Tenant, page.Survey.Slug); err != nil {
		return err
	}
	s.audit(r, survey.AuditSurveyDeleted, page.Survey.Slug, page.Lost)
	http.Redirect(w, r, "/"+page.Tenant+"/surveys", http.StatusSeeOther)
	return nil
}

// trashed reads the trashed survey a request names, and its answer count.
func (s *Server) trashed(r *http.Request) (trashPage, error) {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return trashPage{}, err
	}
	if !sv.Trashed() {
		return trashPage{}, survey.Errorf(survey.ECONFLICT, "Only a survey in the trash can be deleted for good: move it to the trash first.")
	}
	page := trashPage{Tenant: tenant, Survey: sv}
	sum, _, err := s.summaries.Get(r.Context(), tenant, slug)
	switch survey.ErrorCode(err) {
	case "":
		page.Answers = sum.TotalAnswers
	case survey.ENOTFOUND:
	default:
		return trashPage{}, err
	}
	page.Lost = survey.Count(page.Answers, "answer")
	return page, nil
}
