package worker_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/worker"
)

// lostDelete fails the first deletes of views messages, as a worker that
// died after applying a batch: the messages come back.
type lostDelete struct {
	storage.Storage
	left atomic.Int64
}

func (l *lostDelete) DeleteMessage(ctx context.Context, q, id, pr string) error {
	if q == store.ViewsQueue && l.left.Add(-1) >= 0 {
		return errors.New("injected: delete lost")
	}
	return l.Storage.DeleteMessage(ctx, q, id, pr)
}

// drainViews runs the views worker until the views queue is empty.
func drainViews(t *testing.T, st storage.Storage, v *worker.Views) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if n, _ := v.RunOnce(ctx); n == 0 {
			if left, err := st.ApproximateCount(ctx, store.ViewsQueue); err == nil && left == 0 {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	t.Fatal("the views queue did not drain")
}

// TestViews counts views in memory, flushes them in a few messages, and
// applies them once each, though every message is delivered twice.
func TestViews(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		ctx := context.Background()
		f := newFixture(t, st, newTenant(), 0, 1)
		other := newFixture(t, st, newTenant(), 0, 1)
		vc := store.NewViewCounter(st, time.Hour)
		for flush := 0; flush < 3; flush++ {
			for i := 0; i < 100; i++ {
				vc.Add(f.survey.Tenant, f.survey.Slug)
			}
			vc.Add(other.survey.Tenant, other.survey.Slug)
			vc.Add(f.survey.Tenant, "no-such-survey")
			if err := vc.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
		lossy := &lostDelete{Storage: st}
		lossy.left.Store(3)
		drainViews(t, st, worker.NewViews(lossy, testConfig, quiet))
		for _, c := range []struct {
			f    *fixture
			want int64
		}{{f, 300}, {other, 3}} {
			tr, err := store.NewRankingStore(st).Tenant(ctx, c.f.survey.Tenant, 5)
			if err != nil {
				t.Fatal(err)
			}
			if got := tr.Counts[c.f.survey.Slug].Views; got != c.want {
				t.Errorf("%s has %d views, want %d (each message once)", c.f.survey.Slug, got, c.want)
			}
			if len(tr.MostViewed) != 1 || tr.MostViewed[0].Slug != c.f.survey.Slug || tr.MostViewed[0].Views != c.want {
				t.Errorf("most viewed of %s = %+v", c.f.survey.Tenant, tr.MostViewed)
			}
		}
	})
}
