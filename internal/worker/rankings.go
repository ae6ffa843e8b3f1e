package worker

import (
	"context"
	"fmt"

	"github.com/surveys-dev/surveys/internal/store"
)

// rank moves a survey in the ranked lists (the tenant's and the home
// page's most answered) to the count of the summary apply just wrote or
// found. It runs before the batch's messages are deleted: if it fails, or
// the process dies part-way, the messages come back, apply finds them
// merged, and rank runs again, repairing the half-done move (see
// store.RankingStore).
func (w *Worker) rank(ctx context.Context, key, tenant, slug string, sum *store.StoredSummary) error {
	if err := w.ranks.SetCount(ctx, tenant, slug, sum.TotalAnswers, sum.DeletedCount()); err != nil {
		return fmt.Errorf("worker: ranks of %s: %w", key, err)
	}
	return nil
}
