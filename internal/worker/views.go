package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Views drains the views queue: each message holds the views one instance
// counted in memory since its last flush, for many surveys. A batch of
// messages is summed per survey and applied once per survey: one pointer
// read and one transaction that adds the views and moves the survey in its
// tenant's most-viewed list. The pointer row keeps the IDs of the messages
// applied lately, so a message delivered again (its worker died before
// deleting it) is not counted twice.
type Views struct {
	st    storage.Storage
	ranks *store.RankingStore
	cfg   Config
	log   *slog.Logger

	applied, dropped prometheus.Counter
	lag              *lag
	wake             waker
}

// DefaultViewsConfig is the views worker's configuration in surveys serve:
// an idle queue is polled once a minute (a poll is a billed operation);
// views this instance flushes wake it at once (Wake), those another
// instance flushed wait for a poll.
var DefaultViewsConfig = Config{Batch: 32, Visibility: time.Minute, MaxAttempts: 5, MaxIdle: time.Minute}

// NewViews returns a views worker.
func NewViews(st storage.Storage, cfg Config, log *slog.Logger) *Views {
	if log == nil {
		log = slog.Default()
	}
	return &Views{st: st, ranks: store.NewRankingStore(st), cfg: cfg, log: log, wake: newWaker(),
		applied: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_views_applied_total", Help: "Survey page views added to the ranks."}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_views_dropped_messages_total", Help: "Views messages dropped: undecodable, or failing too often."}),
		lag:     newLag("views"),
	}
}

// Collectors returns the views worker's metrics, to register.
func (v *Views) Collectors() []prometheus.Collector {
	return append([]prometheus.Collector{v.applied, v.dropped}, v.lag.collectors()...)
}

// Run drains the queue until ctx is done; the batch in hand is finished.
func (v *Views) Run(ctx context.Context) error {
	return poll(ctx, func() (int, error) { return v.RunOnce(context.WithoutCancel(ctx)) }, v.cfg.MaxIdle, v.wake, 0, v.log, "views worker: batch failed")
}

// Wake makes Run take the queue now: this instance flushed views. It never
// blocks.
func (v *Views) Wake() { v.wake.Wake() }

// RunOnce takes one batch of view messages and applies it. It returns the
// number of messages taken.
func (v *Views) RunOnce(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, v.cfg.Visibility)
	defer cancel()
	msgs, err := v.st.Dequeue(ctx, store.ViewsQueue, v.cfg.Batch, v.cfg.Visibility)
	if err != nil {
		return 0, err
	}
	v.lag.took(store.ViewsQueue, msgs, time.Now())
	defer v.lag.progressed() // a batch done, or the queue found empty
	if len(msgs) == 0 {
		return 0, nil
	}
	type target struct{ tenant, slug string }
	bySurvey := map[target]map[string]store.ViewCounts{} // survey → message ID → views and funnel
	var order []target
	surveysOf := map[string][]target{}
	keep := make([]bool, len(msgs)) // messages to delete when done
	for i, m := range msgs {
		var vm store.ViewMessage
		if err := json.Unmarshal(m.Data, &vm); err != nil || m.DequeueCount > int64(v.cfg.MaxAttempts) {
			// Views are counts, not records: a bad message is dropped.
			v.log.Warn("views worker: dropping a message", "id", m.ID, "dequeueCount", m.DequeueCount, "decodeErr", err)
			v.dropped.Inc()
			continue
		}
		keep[i] = true
		for _, sv := range vm.Views {
			if survey.ValidateTenantKey(sv.Tenant) != nil || !survey.ValidSlug(sv.Slug) || sv.N < 0 || (sv.N == 0 && len(sv.Pages) == 0) ||
				len(sv.Pages) > store.MaxFunnelPages || slices.ContainsFunc(sv.Pages, func(n int64) bool { return n < 0 }) {
				continue
			}
			t := target{sv.Tenant, sv.Slug}
			if bySurvey[t] == nil {
				bySurvey[t] = map[string]store.ViewCounts{}
				order = append(order, t)
			}
			// The counts' own ID when they carry one (the same counts sent
			// twice, or delivered twice, are applied once); else the
			// queue message's.
			id := vm.ID
			if id == "" {
				id = m.ID
			}
			bySurvey[t][id] = store.ViewCounts{N: sv.N, Pages: sv.Pages}
			surveysOf[m.ID] = append(surveysOf[m.ID], t)
		}
	}
	failed := map[target]bool{}
	var errs []error
	for _, t := range order {
		if err := v.ranks.AddViews(ctx, t.tenant, t.slug, bySurvey[t]); err != nil {
			failed[t] = true
			errs = append(errs, fmt.Errorf("views worker: %s/%s: %w", t.tenant, t.slug, err))
			continue
		}
		for _, c := range bySurvey[t] {
			v.applied.Add(float64(c.N))
		}
	}
	for i, m := range msgs {
		done := true
		for _, t := range surveysOf[m.ID] {
			if failed[t] {
				done = false // delivered again; the surveys applied skip it
			}
		}
		if !done && keep[i] {
			continue
		}
		if err := v.st.DeleteMessage(ctx, store.ViewsQueue, m.ID, m.PopReceipt); err != nil {
			errs = append(errs, fmt.Errorf("views worker: delete message %s: %w", m.ID, err))
		}
	}
	return len(msgs), errors.Join(errs...)
}
