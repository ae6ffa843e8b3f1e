package worker_test

import (
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/worker"
)

// TestSummaryCacheBounded: the summaries a worker keeps stay within its
// byte bound, and a worker that can keep none (every summary read again)
// still counts every answer once and moves the ranked lists to the count,
// which it no longer takes from the cache.
func TestSummaryCacheBounded(t *testing.T) {
	st := backends.Local(t)
	f := newListedFixture(t, st, 9, 2)
	w := worker.New(st, testConfig, quiet, nil)
	worker.SetSummaryCache(w, 10, 1) // no summary fits one byte
	drain(t, st, w)
	f.check(t)
	if msg := f.rankDiff(true); msg != "" {
		t.Fatal(msg)
	}
	if n, b := worker.SummaryCache(w); n != 0 || b != 0 {
		t.Fatalf("%d summaries of %d bytes kept in a cache of one byte", n, b)
	}

	// Many surveys through one worker with room for two summaries.
	w = worker.New(st, testConfig, quiet, nil)
	probe := newFixture(t, st, newTenant(), 1, 1)
	drain(t, st, w)
	probe.check(t)
	_, one := worker.SummaryCache(w)
	worker.SetSummaryCache(w, 100, 2*one)
	var fixtures []*fixture
	for range 5 {
		fixtures = append(fixtures, newFixture(t, st, newTenant(), 3, 1))
	}
	drain(t, st, w)
	for _, f := range fixtures {
		f.check(t)
	}
	if n, b := worker.SummaryCache(w); n > 2 || b > 2*one {
		t.Fatalf("%d summaries of %d bytes kept, at most %d bytes", n, b, 2*one)
	}
}
