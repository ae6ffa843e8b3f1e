package worker_test

import (
	"context"
	"errors"
	"slices"
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

// lostAck stores the first views messages it is given, then says the
// enqueue failed, as a timeout after the service stored the message.
type lostAck struct {
	storage.Storage
	left atomic.Int64
}

func (l *lostAck) Enqueue(ctx context.Context, q string, data []byte, o storage.EnqueueOptions) (string, error) {
	id, err := l.Storage.Enqueue(ctx, q, data, o)
	if err == nil && q == store.ViewsQueue && l.left.Add(-1) >= 0 {
		return "", errors.New("injected: the answer to an enqueue was lost")
	}
	return id, err
}

// drainViews runs the views worker until the views queue is empty.
func drainViews(t *testing.T, st storage.Storage, v *worker.Views) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(2 * time.Minute)
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
			// The funnel: 3 left page 1, 1 left page 2; in the other
			// survey, one left page 1 (flushed without a view).
			for _, p := range []int{1, 1, 2, 1, 0, store.MaxFunnelPages + 1} {
				vc.AddPage(f.survey.Tenant, f.survey.Slug, p)
			}
			if flush == 2 {
				vc.AddPage(other.survey.Tenant, other.survey.Slug, 1)
			}
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
		for _, c := range []struct {
			f    *fixture
			want []int64
		}{{f, []int64{9, 3}}, {other, []int64{1}}} {
			if _, pages, err := store.NewRankingStore(st).Funnel(ctx, c.f.survey.Tenant, c.f.survey.Slug); err != nil || !slices.Equal(pages, c.want) {
				t.Errorf("%s's funnel = %v, %v; want %v (each message once)", c.f.survey.Slug, pages, err, c.want)
			}
		}
	})
}

// TestViewsSentAgain: a flush whose enqueue seemed to fail (but stored the
// message) sends the same counts again at the next flush, with the same ID,
// and the worker applies them once; so are counts a migration copied twice.
func TestViewsSentAgain(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		ctx := context.Background()
		f := newFixture(t, st, newTenant(), 0, 1)
		lossy := &lostAck{Storage: st}
		lossy.left.Store(1)
		vc := store.NewViewCounter(lossy, time.Hour)
		for i := 0; i < 40; i++ {
			vc.Add(f.survey.Tenant, f.survey.Slug)
		}
		if err := vc.Flush(ctx); err == nil {
			t.Fatal("Flush over a lost acknowledgement returned no error")
		}
		if n := vc.Pending(); n != 40 {
			t.Fatalf("pending after the failed flush = %d, want 40", n)
		}
		vc.Add(f.survey.Tenant, f.survey.Slug) // one more, in a message of its own
		if err := vc.Flush(ctx); err != nil || vc.Pending() != 0 {
			t.Fatalf("second Flush = %v, pending %d", err, vc.Pending())
		}
		// As a migration that copied the first message twice more.
		msgs, err := st.PeekMessages(ctx, store.ViewsQueue, 32)
		if err != nil || len(msgs) != 3 {
			t.Fatalf("queued views messages = %d, %v; want 3 (the first one twice)", len(msgs), err)
		}
		if _, err := st.Enqueue(ctx, store.ViewsQueue, msgs[0].Data, storage.EnqueueOptions{}); err != nil {
			t.Fatal(err)
		}
		drainViews(t, st, worker.NewViews(st, testConfig, quiet))
		tr, err := store.NewRankingStore(st).Tenant(ctx, f.survey.Tenant, 5)
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.Counts[f.survey.Slug].Views; got != 41 {
			t.Errorf("%d views applied, want 41 (each count once)", got)
		}
	})
}
