package worker_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/worker"
)

// lagFigures gathers reg: the wait histogram's sample count by
// "worker queue", and the seconds since progress by worker.
func lagFigures(t *testing.T, reg *prometheus.Registry) (waits map[string]uint64, since map[string]float64) {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	waits, since = map[string]uint64{}, map[string]float64{}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			switch f.GetName() {
			case "surveys_worker_queue_wait_seconds":
				waits[l["worker"]+" "+l["queue"]] += m.GetHistogram().GetSampleCount()
			case "surveys_worker_seconds_since_progress":
				since[l["worker"]] = m.GetGauge().GetValue()
			}
		}
	}
	return waits, since
}

// failDequeue fails every dequeue, as storage that cannot be reached.
type failDequeue struct{ storage.Storage }

func (failDequeue) Dequeue(context.Context, string, int, time.Duration) ([]storage.Message, error) {
	return nil, errors.New("injected: storage unreachable")
}

// TestLag: each message taken is measured by the queue it waited in, and
// the time since progress grows while a worker cannot dequeue and drops
// when it finds work or an empty queue again.
func TestLag(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		ctx := context.Background()
		f := newFixture(t, st, newTenant(), 4, 1) // four messages
		vc := store.NewViewCounter(st, time.Hour)
		vc.Add(f.survey.Tenant, f.survey.Slug)
		if err := vc.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		m := worker.NewMetrics()
		var skew atomic.Int64 // the lag's clock runs ahead by this
		worker.SetLagClock(m, func() time.Time { return time.Now().Add(time.Duration(skew.Load())) })
		views := worker.NewViews(st, testConfig, quiet)
		reg := prometheus.NewRegistry()
		reg.MustRegister(m.Collectors()...)
		reg.MustRegister(views.Collectors()...)

		drain(t, st, worker.New(st, testConfig, quiet, m))
		drainViews(t, st, views)
		waits, since := lagFigures(t, reg)
		if waits["answers surveyanswers"] < 4 || waits["views surveyviews"] < 1 {
			t.Errorf("waits measured %v, want at least 4 answers messages and 1 views message", waits)
		}
		if since["answers"] > 5 || since["views"] > 5 {
			t.Errorf("seconds since progress after draining = %v, want about 0", since)
		}

		stuck := worker.New(failDequeue{st}, testConfig, quiet, m)
		skew.Add(int64(time.Second)) // a second passes without progress
		if _, err := stuck.RunOnce(ctx); err == nil {
			t.Fatal("RunOnce with a failing dequeue returned no error")
		}
		if _, since := lagFigures(t, reg); since["answers"] < 0.3 {
			t.Errorf("seconds since progress of a worker that cannot dequeue = %v, want at least 0.3", since["answers"])
		}
		if _, err := worker.New(st, testConfig, quiet, m).RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		if _, since := lagFigures(t, reg); since["answers"] >= 0.3 {
			t.Errorf("seconds since progress after finding the queue empty = %v, want about 0", since["answers"])
		}
	})
}
