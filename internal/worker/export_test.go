package worker

import (
	"context"
	"time"

	"github.com/surveys-dev/surveys/internal/lrucache"
)

// SetSummaryCache bounds a worker's summary cache, for the tests.
func SetSummaryCache(w *Worker, entries int, bytes int64) {
	w.cache = lrucache.New(entries, bytes, cachedSummaryTTL, func(_ string, c cached) int64 { return summaryBytes(c.sum) })
}

// SummaryCache returns how many summaries a worker keeps and their bytes.
func SummaryCache(w *Worker) (int, int64) { return w.cache.Len(), w.cache.Bytes() }

// SetSegmentsRetry sets a segment builder's waits after failures and its
// tries per survey, for the tests.
func SetSegmentsRetry(s *Segments, base, most time.Duration, attempts int) {
	s.retryBase, s.retryMax, s.maxAttempts = base, most, attempts
}

// SegmentsWaiting is the number of surveys waiting for a segment builder.
func SegmentsWaiting(s *Segments) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.need)
}

// SegmentsPass runs a segment builder's start-up pass.
func SegmentsPass(s *Segments, ctx context.Context) { s.pass(ctx) }

// Poll is one of Run's polls: RunOnce, leaving out the queues found empty
// lately and not woken since.
func Poll(w *Worker, ctx context.Context) (int, error) { return w.runOnce(ctx, true) }

// SetLagClock sets the clock of the answers workers' lag metrics, from
// which the time since progress is counted; call it before m is used.
func SetLagClock(m *Metrics, now func() time.Time) {
	m.lag.now = now
	m.lag.last.Store(now().UnixNano())
}

// SetNow sets a worker's clock.
func SetNow(w *Worker, now func() time.Time) { w.now = now }

// EmptyRecheck is how long a poll leaves out a queue found empty.
const EmptyRecheck = emptyRecheck

// SetWebhooksClock sets a webhook worker's clock, for the tests.
func SetWebhooksClock(w *Webhooks, now func() time.Time) { w.now = now }
