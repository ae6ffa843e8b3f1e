package web

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Summaries reads survey summaries.
type Summaries interface {
	Get(ctx context.Context, tenant, slug string) (*store.StoredSummary, string, error)
}

type dashboardPage struct {
	User    *store.Session
	Tenant  *survey.Tenant
	Surveys []dashboardRow
	// The plan: its limits, what is used, and why publishing is stopped.
	Limits    survey.PlanLimits
	Published int
	TrialEnds time.Time
	Inactive  string
}

type dashboardRow struct {
	Slug, Title string
	State       survey.State
	CreatedOn   time.Time
	Answers     int64
}

// dashboard lists the tenant's surveys with their state and answers so far.
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) error {
	tenant := chi.URLParam(r, "tenant")
	t, err := s.tenants.Get(r.Context(), tenant)
	if err != nil {
		return err
	}
	list, err := s.surveys.List(r.Context(), tenant)
	if err != nil {
		return err
	}
	page := dashboardPage{User: sessionFrom(r.Context()), Tenant: t, Limits: t.Plan.Limits(), TrialEnds: t.TrialEnds()}
	if err := t.CheckActive(time.Now()); err != nil {
		page.Inactive = survey.ErrorMessage(err)
	}
	for _, sv := range list {
		if sv.State == survey.Published {
			page.Published++
		}
		row := dashboardRow{Slug: sv.Slug, Title: sv.Title, State: sv.State, CreatedOn: sv.CreatedOn}
		if sum, _, err := s.summaries.Get(r.Context(), tenant, sv.Slug); err == nil {
			row.Answers = sum.TotalAnswers
		} else if survey.ErrorCode(err) != survey.ENOTFOUND {
			return err
		}
		page.Surveys = append(page.Surveys, row)
	}
	s.render(w, r, http.StatusOK, "dashboard", page)
	return nil
}
