package worker

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/storage"
)

// lag measures how far behind a worker is: how long messages waited in
// their queue before it took them, and how long ago it last finished a
// batch or found its queues empty. A stuck worker shows as a growing
// surveys_worker_seconds_since_progress; a slow one as long waits.
type lag struct {
	wait  *prometheus.HistogramVec
	last  atomic.Int64 // unix nanoseconds of the last progress
	since prometheus.GaugeFunc
	now   func() time.Time // time.Now; tests move it
}

// newLag returns the lag metrics of one kind of worker ("answers", "views").
func newLag(worker string) *lag {
	l := &lag{
		wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:        "surveys_worker_queue_wait_seconds",
			Help:        "How long a message waited in its queue before a worker took it (dequeue time minus insertion time), by worker and queue.",
			ConstLabels: prometheus.Labels{"worker": worker},
			Buckets:     []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600},
		}, []string{"queue"}),
		now: time.Now,
	}
	l.last.Store(l.now().UnixNano())
	l.since = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "surveys_worker_seconds_since_progress",
		Help:        "Time since the worker last finished a batch or found its queue empty; it grows when the worker is stuck or storage fails.",
		ConstLabels: prometheus.Labels{"worker": worker},
	}, func() float64 { return l.now().Sub(time.Unix(0, l.last.Load())).Seconds() })
	return l
}

func (l *lag) collectors() []prometheus.Collector { return []prometheus.Collector{l.wait, l.since} }

// took records the waits of messages taken from queue at now.
func (l *lag) took(queue string, msgs []storage.Message, now time.Time) {
	if len(msgs) == 0 {
		return
	}
	o := l.wait.WithLabelValues(queue)
	for _, m := range msgs {
		if !m.InsertedAt.IsZero() {
			o.Observe(max(0, now.Sub(m.InsertedAt).Seconds()))
		}
	}
}

// progressed records that the worker finished a batch or found no work.
func (l *lag) progressed() { l.last.Store(l.now().UnixNano()) }
