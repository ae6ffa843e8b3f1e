package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
	"github.com/surveys-dev/surveys/internal/worker"
)

// BenchmarkViewCost serves survey pages through the real handler over the
// embedded store wrapped in the counting layer, with the caches and the
// view counter configured as surveys serve configures them, and reports
// every storage operation the views cause (page reads on cache misses,
// the flushes' enqueues, the views worker's dequeues, pointer reads,
// transactions and deletes) per view. A flush every `perFlush` views
// stands for the 5-second flush at perFlush/5 views per second per
// instance; the views are spread over `surveys` surveys.
func BenchmarkViewCost(b *testing.B) {
	for _, c := range []struct{ surveys, perFlush int }{{1, 100}, {10, 1000}, {10, 10000}} {
		b.Run(fmt.Sprintf("surveys=%d/perFlush=%d", c.surveys, c.perFlush), func(b *testing.B) {
			benchViews(b, c.surveys, c.perFlush)
		})
	}
}

func benchViews(b *testing.B, surveys, perFlush int) {
	ctx := context.Background()
	st := counting.New(backends.Local(b))
	if err := store.Init(ctx, st); err != nil {
		b.Fatal(err)
	}
	if _, err := store.Seed(ctx, st); err != nil {
		b.Fatal(err)
	}
	ss, ts := store.NewSurveyStore(st), store.NewTenantStore(st)
	var paths []string
	for i := 0; i < surveys; i++ {
		s := &survey.Survey{Tenant: "adatum", Title: fmt.Sprintf("Viewed %d", i), State: survey.Published, Listed: true,
			Questions: []survey.Question{{Text: "Why?", Type: survey.SimpleText}}}
		if err := ss.Create(ctx, s); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, "/survey/adatum/"+s.Slug)
	}
	views := store.NewViewCounter(st, time.Hour) // flushed by hand below
	srv, err := web.New(web.Deps{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Public: store.NewCachedSurveys(ss, ts, 5*time.Second), Views: views,
	})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	vw := worker.NewViews(st, worker.DefaultViewsConfig, nil)
	apply := func() {
		if err := views.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		for {
			n, err := vw.RunOnce(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if n == 0 {
				return
			}
		}
	}
	// Warm the caches and create the surveys' pointer rows, as a running
	// server has.
	for _, p := range paths {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, p, nil))
	}
	apply()
	before := st.Total("")
	b.ResetTimer()
	n := 0
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, paths[n%len(paths)], nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET = %d", rec.Code)
		}
		n++
		if n%perFlush == 0 {
			apply()
		}
	}
	apply()
	b.StopTimer()
	ops := st.Total("") - before
	b.ReportMetric(float64(ops)/float64(n), "ops/view")
	// Every view is counted.
	tr, err := store.NewRankingStore(st).Tenant(ctx, "adatum", 100)
	if err != nil {
		b.Fatal(err)
	}
	var counted int64
	for _, c := range tr.Counts {
		counted += c.Views
	}
	if counted != int64(n+len(paths)) {
		b.Fatalf("%d views counted, %d served", counted, n+len(paths))
	}
}
