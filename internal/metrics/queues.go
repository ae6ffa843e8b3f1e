package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/storage"
)

// QueueRefresh is how long a scrape reuses the queue figures read by an
// earlier one. Each refresh costs two storage calls per queue (a count and
// a one-message peek), so at most 2 × queues × 60/15 calls a minute,
// however often /metrics is scraped, and none when it is not.
const QueueRefresh = 15 * time.Second

// QueueCollector reports each queue's depth and the age of its oldest
// visible message. It reads them at a scrape, at most once per refresh
// interval, and reports the figures it last read in between.
type QueueCollector struct {
	st      storage.Queues
	queues  []string
	refresh time.Duration
	now     func() time.Time
	depth   *prometheus.Desc
	age     *prometheus.Desc

	mu   sync.Mutex
	read time.Time // when the figures were read; zero before the first read
	figs map[string]queueFigures
}

type queueFigures struct {
	depth int
	age   float64
}

// NewQueueCollector reports on queues of st, read at most once per refresh.
func NewQueueCollector(st storage.Queues, queues []string, refresh time.Duration) *QueueCollector {
	return &QueueCollector{
		st: st, queues: queues, refresh: refresh, now: time.Now, figs: map[string]queueFigures{},
		depth: prometheus.NewDesc("surveys_queue_depth",
			"Approximate number of messages in the queue, visible or not (read at most every refresh interval).", []string{"queue"}, nil),
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
	if now := c.now(); c.read.IsZero() || now.Sub(c.read) >= c.refresh {
		c.read = now
		c.readQueues(now)
	}
	for _, q := range c.queues {
		f, ok := c.figs[q]
		if !ok {
			continue // never read: storage failed
		}
		ch <- prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, float64(f.depth), q)
		ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, f.age, q)
	}
}

// readQueues reads every queue at once; a queue that fails keeps its
// last figures (the failure is counted by the counting layer).
func (c *QueueCollector) readQueues(now time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for _, q := range c.queues {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := c.st.ApproximateCount(ctx, q)
			if err != nil {
				return
			}
			msgs, err := c.st.PeekMessages(ctx, q, 1)
			if err != nil {
				return
			}
			f := queueFigures{depth: n}
			if len(msgs) == 1 && !msgs[0].InsertedAt.IsZero() {
				f.age = max(0, now.Sub(msgs[0].InsertedAt).Seconds())
			}
			mu.Lock()
			c.figs[q] = f
			mu.Unlock()
		}()
	}
	wg.Wait()
}
