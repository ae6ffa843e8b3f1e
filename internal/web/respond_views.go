package web

import (
	"context"
	"fmt"

	"github.com/surveys-dev/surveys/internal/store"
)

// ViewCounter counts public survey page views in memory (they are flushed
// to a queue in bulk, so a view costs no storage call).
type ViewCounter interface {
	Add(tenant, slug string)
	// AddPage counts a respondent leaving page (from 1) of a multi-page
	// survey for the next, for its funnel.
	AddPage(tenant, slug string, page int)
}

// Ranks reads a tenant's ranked lists, for its dashboard, and a survey's
// funnel, for its analysis.
type Ranks interface {
	Tenant(ctx context.Context, tenant string, n int) (*store.TenantRanks, error)
	Funnel(ctx context.Context, tenant, slug string) (views int64, pages []int64, err error)
}

// HomeLists reads the public home page's lists.
type HomeLists interface {
	Home(ctx context.Context) (*store.HomeLists, error)
}

// completion is answers / views as a percentage, or "—" without views.
func completion(answers, views int64) string {
	if views <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(answers)/float64(views))
}
