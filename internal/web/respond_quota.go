package web

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// Quotas counts the complete answers in each survey's quota cells
// (store.QuotaStore): Take before an answer is acknowledged, all of its
// cells or none, and Give back when it is then not acknowledged.
type Quotas interface {
	TakeCells(ctx context.Context, tenant, slug string, names []string, limits map[string]int, skip map[string]bool) (full string, over []string, err error)
	Give(ctx context.Context, tenant, slug string, names []string) error
	Counts(ctx context.Context, tenant, slug string) (map[string]int, error)
}

// takeQuotas takes answer a's quota cells before it is acknowledged and
// names them in a (a.Quotas), so that deleting it gives them back. When
// one of a quota that ends is full nothing is taken and full is that
// quota. A cell of a quota that skips is not taken when the respondent
// was screened out of it on their way (screened: their path skipped its
// section), nor when it is full now (it filled up meanwhile): the answer
// is accepted over quota in that cell, named in a.OverQuota.
func (s *Server) takeQuotas(ctx context.Context, t *survey.Tenant, sv *survey.Survey, a *survey.SurveyAnswer, screened survey.Screened) (full *survey.Quota, err error) {
	cells := sv.QuotaCells(a)
	if len(cells) == 0 || s.quotas == nil {
		return nil, nil
	}
	over := sv.OverQuota(cells, screened)
	var take []string
	skip := map[string]bool{}
	for _, n := range cells {
		if slices.Contains(over, n) {
			continue
		}
		take = append(take, n)
		if q, _ := sv.Quota(n); q.Skips() {
			skip[n] = true
		}
	}
	name, overNow, err := s.quotas.TakeCells(ctx, t.Key, sv.Slug, take, sv.QuotaLimits(take), skip)
	if err != nil {
		return nil, err
	}
	if name != "" {
		q, _ := sv.Quota(name)
		return &q, nil
	}
	a.Quotas, a.OverQuota = nil, nil
	for _, n := range cells {
		if slices.Contains(over, n) || slices.Contains(overNow, n) {
			a.OverQuota = append(a.OverQuota, n)
		} else {
			a.Quotas = append(a.Quotas, n)
		}
	}
	return nil, nil
}

// giveQuotas gives back the cells answer a took, when it was refused
// before it was enqueued. A failure leaves the counts one too high (the
// safe side), and is logged.
func (s *Server) giveQuotas(t *survey.Tenant, sv *survey.Survey, a *survey.SurveyAnswer) {
	if len(a.Quotas) == 0 || s.quotas == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.quotas.Give(ctx, t.Key, sv.Slug, a.Quotas); err != nil {
		s.log.Warn("quota cells not given back", "tenant", t.Key, "survey", sv.Slug, "err", err)
	}
	a.Quotas = nil
}

// quotaFull shows the page of a respondent whose answers fall into a full
// quota cell (200: nothing is wrong with the request; nothing is stored).
func (s *Server) quotaFull(w http.ResponseWriter, r *http.Request, p surveyPage, q *survey.Quota) error {
	p.QuotaFull = q
	s.render(w, r, http.StatusOK, "quotafull", p)
	return nil
}

// quotaViews are sv's quotas with their cells' counts (one read), for the
// analysis page; none for a survey without quotas.
func (s *Server) quotaViews(ctx context.Context, sv *survey.Survey) ([]quotaView, error) {
	if len(sv.Quotas) == 0 || s.quotas == nil {
		return nil, nil
	}
	counts, err := s.quotas.Counts(ctx, sv.Tenant, sv.Slug)
	if err != nil {
		return nil, err
	}
	out := make([]quotaView, len(sv.Quotas))
	for i, q := range sv.Quotas {
		out[i] = quotaView{Name: q.Name, Count: counts[q.Name], Limit: q.Limit}
	}
	return out, nil
}

// fullSoFar is the first full quota that ends the survey whose cell the
// answers so far fall into (the page that completes its condition was
// sent), nil when none, and the full cells of quotas that skip they fall
// into: a respondent learns it before the pages after. One read, for a
// survey with quotas only; the final submit takes the cells for good.
func (s *Server) fullSoFar(ctx context.Context, t *survey.Tenant, sv *survey.Survey, answers map[string]survey.QuestionAnswer) (full *survey.Quota, skips []string, err error) {
	if len(sv.Quotas) == 0 || s.quotas == nil {
		return nil, nil, nil
	}
	cells := sv.QuotaCellsOf(answers)
	if len(cells) == 0 {
		return nil, nil, nil
	}
	counts, err := s.quotas.Counts(ctx, t.Key, sv.Slug)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range cells {
		q, ok := sv.Quota(n)
		switch {
		case !ok || counts[n] < q.Limit:
		case q.Skips():
			skips = append(skips, n)
		default:
			return &q, nil, nil
		}
	}
	return nil, skips, nil
}
