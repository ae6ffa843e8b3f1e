package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/storage/counting"
)

// How often a scrape reads a queue's figures again (two storage calls: a
// count, and a one-message peek when the count is not 0):
//   - a queue this process's worker last found empty is not read at all:
//     nothing waits in it, so it reports 0 (the workers' polls already pay
//     for knowing that);
//   - a queue this process put work on, or took work from, since the last
//     read: at most once per QueueRefresh;
//   - any other queue (a poison queue, a queue only other instances use):
//     once per QueueQuietRefresh, so what other instances do shows too.
//
// So an idle instance's scrapes cost about one count per quiet queue every
// five minutes, however often /metrics is scraped, and a busy one at most
// two calls per queue a minute.
const (
	QueueRefresh      = time.Minute
	QueueQuietRefresh = 5 * time.Minute
)

// QueueCollector reports each queue's depth and the age of its oldest
// visible message, read at a scrape as often as the rules above allow, and
// reports the figures it last had in between.
type QueueCollector struct {
	st      *counting.Store
	queues  []string
	refresh time.Duration
	quiet   time.Duration
	now     func() time.Time
	depth   *prometheus.Desc
	age     *prometheus.Desc

	mu   sync.Mutex
	figs map[string]queueFigures
}

type queueFigures struct {
	ok    bool      // the figures were read (or known) at least once
	depth int       // messages, visible or not
	age   float64   // seconds, of the oldest visible message
	at    time.Time // when they were read or known, or a read last failed
	seq   int64     // the queue events (counting.Store.Now) they take in
}

// NewQueueCollector reports on queues of st, read through it (so the
// reads are counted) and skipped where st's own calls tell enough.
func NewQueueCollector(st *counting.Store, queues []string) *QueueCollector {
	return &QueueCollector{
		st: st, queues: queues, refresh: QueueRefresh, quiet: QueueQuietRefresh, now: time.Now,
		figs: make(map[string]queueFigures, len(queues)),
		depth: prometheus.NewDesc("surveys_queue_depth",
			"Approximate number of messages in the queue, visible or not; 0 when this instance's worker last found it empty (read at most once a minute while busy, every 5 minutes while quiet).", []string{"queue"}, nil),
		age: prometheus.NewDesc("surveys_queue_oldest_message_age_seconds",
			"Age of the oldest visible message in the queue, 0 when none is visible (messages being worked on are hidden).", []string{"queue"}, nil),
	}
}

func (c *QueueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.depth
	ch <- c.age
}

func (c *QueueCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	var stale []string
	for _, q := range c.queues {
		f, seen := c.figs[q], c.st.Seen(q)
		switch since := now.Sub(f.at); {
		case seen.Idle() && seen.Empty > f.seq:
			// Found empty since the figures were had: nothing waits.
			c.figs[q] = queueFigures{ok: true, at: now, seq: seen.Empty}
		case f.at.IsZero(), since >= c.quiet, seen.Busy(f.seq) && since >= c.refresh:
			stale = append(stale, q)
		}
	}
	c.readQueues(now, stale)
	for _, q := range c.queues {
		if f := c.figs[q]; f.ok {
			ch <- prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, float64(f.depth), q)
			ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, f.age, q)
		}
	}
}

// readQueues reads the queues named at once; a queue that fails keeps its
// last figures until its next refresh (the failure is counted by the
// counting layer).
func (c *QueueCollector) readQueues(now time.Time, queues []string) {
	if len(queues) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	seq := c.st.Now() // before the reads: later events are not in them
	read := make([]queueFigures, len(queues))
	var wg sync.WaitGroup
	for i, q := range queues {
		read[i] = c.figs[q]
		read[i].at = now
		wg.Go(func() {
			n, err := c.st.ApproximateCount(ctx, q)
			if err != nil {
				return
			}
			f := queueFigures{ok: true, depth: n, at: now, seq: seq}
			if n > 0 {
				msgs, err := c.st.PeekMessages(ctx, q, 1)
				if err != nil {
					return
				}
				if len(msgs) == 1 && !msgs[0].InsertedAt.IsZero() {
					f.age = max(0, now.Sub(msgs[0].InsertedAt).Seconds())
				}
			}
			read[i] = f
		})
	}
	wg.Wait()
	for i, q := range queues {
		c.figs[q] = read[i]
	}
}
