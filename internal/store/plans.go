package store

import (
	"context"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// PlanGuard is the SurveyStore as a subscriber uses it: creating, editing
// and publishing surveys within the limits of the tenant's plan (questions
// per survey, published surveys at a time) while the tenant is active (not
// suspended, trial not ended). A refused change changes nothing.
//
// The answers-per-survey limit is kept by the worker, which closes a survey
// once its summary reaches it (see worker), so that a respondent's answer
// costs no extra storage read.
type PlanGuard struct {
	*SurveyStore
	tenants *TenantStore
	now     func() time.Time
}

// NewPlanGuard returns a PlanGuard over surveys and tenants.
func NewPlanGuard(surveys *SurveyStore, tenants *TenantStore) *PlanGuard {
	return &PlanGuard{SurveyStore: surveys, tenants: tenants, now: time.Now}
}

// Create stores a new survey, draft or published, within the plan.
func (g *PlanGuard) Create(ctx context.Context, s *survey.Survey) error {
	t, err := g.tenants.Get(ctx, s.Tenant)
	if err != nil {
		return err
	}
	if err := t.Plan.CheckQuestions(len(s.Questions)); err != nil {
		return err
	}
	if s.State == survey.Published {
		if err := g.checkPublish(ctx, t); err != nil {
			return err
		}
	}
	return g.SurveyStore.Create(ctx, s)
}

// Update replaces a draft's definition, within the plan.
func (g *PlanGuard) Update(ctx context.Context, s *survey.Survey) error {
	t, err := g.tenants.Get(ctx, s.Tenant)
	if err != nil {
		return err
	}
	if err := t.Plan.CheckQuestions(len(s.Questions)); err != nil {
		return err
	}
	return g.SurveyStore.Update(ctx, s)
}

// SetState publishes (within the plan), closes or reopens a survey.
// Closing is always allowed.
func (g *PlanGuard) SetState(ctx context.Context, tenant, slug string, state survey.State) (*survey.Survey, error) {
	if state == survey.Published {
		t, err := g.tenants.Get(ctx, tenant)
		if err != nil {
			return nil, err
		}
		cur, err := g.SurveyStore.Get(ctx, tenant, slug)
		if err != nil {
			return nil, err
		}
		if cur.State == survey.Published {
			return cur, nil
		}
		if err := t.Plan.CheckQuestions(len(cur.Questions)); err != nil {
			return nil, err
		}
		if err := g.checkPublish(ctx, t); err != nil {
			return nil, err
		}
	}
	return g.SurveyStore.SetState(ctx, tenant, slug, state)
}

// checkPublish says why the tenant may not publish one more survey now.
// Two publishes racing may both pass: the limit is a plan's, not a
// safety property, and the next publish sees both.
func (g *PlanGuard) checkPublish(ctx context.Context, t *survey.Tenant) error {
	if err := t.CheckActive(g.now()); err != nil {
		return err
	}
	if t.Plan.Limits().ActiveSurveys == 0 {
		return nil
	}
	list, err := g.SurveyStore.List(ctx, t.Key)
	if err != nil {
		return err
	}
	active := 0
	for _, s := range list {
		if s.State == survey.Published {
			active++
		}
	}
	return t.Plan.CheckPublish(active)
}
