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
	// MostAnswered and MostViewed are the first rows of the tenant's
	// ranked lists.
	MostAnswered, MostViewed []dashboardRow
	// Trash holds the surveys in the trash, with when each goes for good.
	Trash     []dashboardRow
	TrashDays int
}

type dashboardRow struct {
	Slug, Title    string
	State          survey.State
	CreatedOn      time.Time
	Answers, Views int64
	Completion     string // answers / views
	PurgeOn        time.Time
}

// dashboardTop is the length of the dashboard's ranked lists.
const dashboardTop = 5

// dashboard lists the tenant's surveys with their state, answers, views and
// completion rate, and its most answered and most viewed surveys.
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
	ranks := &store.TenantRanks{}
	if s.ranks != nil {
		if ranks, err = s.ranks.Tenant(r.Context(), tenant, dashboardTop); err != nil {
			return err
		}
	}
	page := dashboardPage{User: sessionFrom(r.Context()), Tenant: t, Limits: t.Plan.Limits(), TrialEnds: t.TrialEnds(), TrashDays: survey.TrashDays}
	if err := t.CheckActive(time.Now()); err != nil {
		page.Inactive = survey.ErrorMessage(err)
	}
	exists := map[string]bool{}
	for _, sv := range list {
		if sv.Trashed() {
			if time.Now().After(sv.PurgeOn()) {
				// Its time in the trash is over: deleted now, as the
				// trash promised.
				if err := s.editor.Delete(r.Context(), tenant, sv.Slug); err != nil {
					return err
				}
				continue
			}
			page.Trash = append(page.Trash, dashboardRow{Slug: sv.Slug, Title: sv.Title, State: sv.State, CreatedOn: sv.CreatedOn, PurgeOn: sv.PurgeOn()})
			continue
		}
		exists[sv.Slug] = true
		if sv.State == survey.Published {
			page.Published++
		}
		row := dashboardRow{Slug: sv.Slug, Title: sv.Title, State: sv.State, CreatedOn: sv.CreatedOn}
		if c, ok := ranks.Counts[sv.Slug]; ok {
			row.Answers, row.Views = c.Answers, c.Views
		} else if sum, _, err := s.summaries.Get(r.Context(), tenant, sv.Slug); err == nil {
			// Not ranked yet (answered before the ranks were kept).
			row.Answers = sum.TotalAnswers
		} else if survey.ErrorCode(err) != survey.ENOTFOUND {
			return err
		}
		row.Completion = completion(row.Answers, row.Views)
		page.Surveys = append(page.Surveys, row)
	}
	for _, l := range []struct {
		in  []store.RankedSurvey
		out *[]dashboardRow
	}{{ranks.MostAnswered, &page.MostAnswered}, {ranks.MostViewed, &page.MostViewed}} {
		for _, rs := range l.in {
			if exists[rs.Slug] { // a survey deleted a moment ago may linger
				c := ranks.Counts[rs.Slug]
				*l.out = append(*l.out, dashboardRow{Slug: rs.Slug, Title: rs.Title, State: rs.State,
					Answers: c.Answers, Views: c.Views, Completion: completion(c.Answers, c.Views)})
			}
		}
	}
	s.render(w, r, http.StatusOK, "dashboard", page)
	return nil
}
