package worker

import (
	"github.com/surveys-dev/surveys/internal/lrucache"
)

// SetSummaryCache bounds a worker's summary cache, for the tests.
func SetSummaryCache(w *Worker, entries int, bytes int64) {
	w.cache = lrucache.New(entries, bytes, cachedSummaryTTL, func(_ string, c cached) int64 { return summaryBytes(c.sum) })
}

// SummaryCache returns how many summaries a worker keeps and their bytes.
func SummaryCache(w *Worker) (int, int64) { return w.cache.Len(), w.cache.Bytes() }
