package web

import (
	"context"
	"net/http"

	"github.com/surveys-dev/surveys/internal/survey"
)

// PartialStore keeps the progress of respondents of surveys that keep
// partial answers (store.PartialStore): saved at each page move, deleted
// when they submit; the promoter (worker/partials.go) queues what is left.
type PartialStore interface {
	Save(ctx context.Context, plan survey.Plan, a *survey.SurveyAnswer) error
	Delete(ctx context.Context, tenant, slug, id string) error
}

// savePartial saves what the respondent answered so far, as they move
// past a page of a survey that keeps partial answers: one storage write
// (a page move is an answer POST, under the answers' rate limit). A
// failure is logged and the respondent goes on: the answer they submit
// does not depend on it.
func (s *Server) savePartial(r *http.Request, page surveyPage, id string, st pageState) {
	sv := page.Survey
	if s.partials == nil || sv.KeepPartial <= 0 || page.Preview != "" || id == "" {
		return
	}
	a := survey.NewPartialAnswerScreened(sv, st.Values, st.Hidden, st.Screened)
	if len(a.Answers) == 0 {
		return
	}
	a.ID = id
	if err := s.partials.Save(r.Context(), page.Tenant.Plan, &a); err != nil {
		s.log.Warn("save a partial answer", "tenant", page.Tenant.Key, "survey", sv.Slug, "err", err)
	}
}

// dropPartial deletes the progress saved for the answer id, now
// submitted. One left by a failure is queued by the promoter, and the
// worker discards it: the complete answer is filed (worker/partials.go).
func (s *Server) dropPartial(r *http.Request, sv *survey.Survey, id string) {
	if s.partials == nil || sv.KeepPartial <= 0 {
		return
	}
	if err := s.partials.Delete(r.Context(), sv.Tenant, sv.Slug, id); err != nil {
		s.log.Warn("delete a partial answer", "tenant", sv.Tenant, "survey", sv.Slug, "err", err)
	}
}
