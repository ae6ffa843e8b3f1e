package web

import (
	"context"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// AnswerRemover deletes single answers.
type AnswerRemover interface {
	DeleteAnswer(ctx context.Context, sv *survey.Survey, id string) error
}

// deleteAnswer deletes one answer (spam) from the survey's summary,
// tables and exports, and goes back to the answers, where it was (the
// next answer is now the one it showed), with the same filter.
func (s *Server) deleteAnswer(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	if err := s.remover.DeleteAnswer(r.Context(), sv, chi.URLParam(r, "answer")); err != nil {
		return err
	}
	i, _ := strconv.Atoi(r.FormValue("i"))
	to := "/" + tenant + "/surveys/" + slug + "/answers?deleted=1&i=" + strconv.Itoa(max(i, 0))
	// Back to the answers as they were filtered (a bad filter is dropped).
	if f, err := survey.ParseAnswerFilter(sv, r.PostForm); err == nil && f.Active() {
		to += "&" + f.Values().Encode()
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}
