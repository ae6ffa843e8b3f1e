package web_test

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/formfill"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
	"github.com/surveys-dev/surveys/internal/worker"
)

// BenchmarkAnswerPath is cmd/loadgen's closed loop in one process, without
// the network: respondents GET the demo survey (18 questions, one of every
// kind) and POST a complete answer (303), through the real handler over
// the embedded store, while the answers worker files and merges them; the
// benchmark ends when the worker has merged every answer, so its share is
// counted. It reports the process's CPU time per answer (user and system,
// the figure that sets the answers a second a server's cores can take)
// besides the wall time and the allocations.
//
//	go test ./internal/web -run '^$' -bench BenchmarkAnswerPath -benchtime 2000x
func BenchmarkAnswerPath(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := backends.Local(b)
	for _, f := range []func(context.Context) error{
		func(ctx context.Context) error { return store.Init(ctx, st) },
		func(ctx context.Context) error { return worker.Init(ctx, st) },
		func(ctx context.Context) error { _, err := store.Seed(ctx, st); return err },
	} {
		if err := f(ctx); err != nil {
			b.Fatal(err)
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	surveys, tenants := store.NewSurveyStore(st), store.NewTenantStore(st)
	notifier := store.NewNotifier(store.NewSurveyAnswerStore(st), 2)
	srv, err := web.New(web.Deps{
		Logger: log, Surveys: surveys, Tenants: tenants, Storage: st,
		Public:   store.NewCachedSurveys(surveys, tenants, 5*time.Second),
		Notifier: notifier, Uploads: store.NewUploadStore(st), Quotas: store.NewQuotaStore(st),
	})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	metrics := worker.NewMetrics()
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.Collectors()...)
	w := worker.New(st, worker.DefaultConfig, log, metrics)
	notifier.Queued = w.WakeFor
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil && ctx.Err() == nil {
			b.Error(err)
		}
	}()

	const path = "/survey/adatum/adatum-customer-satisfaction"
	// get and respond return their failure: respond runs in RunParallel's
	// goroutines, where b.Fatal may not be called.
	get := func(buf *bytes.Buffer) error {
		rec := httptest.NewRecorder()
		rec.Body = buf
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			return fmt.Errorf("GET %s = %d", path, rec.Code)
		}
		return nil
	}
	// The answers sent: complete, varied, each with the token of the
	// page just served (read from the page as a browser would submit it,
	// formfill; the bodies are made once, so that the client's work is
	// little of what is measured).
	var buf bytes.Buffer
	if err := get(&buf); err != nil {
		b.Fatal(err)
	}
	form, err := formfill.Parse(buf.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var bodies []string
	for range 64 {
		v := form.Answer(r, func(r *rand.Rand) string {
			return []string{"Faster pages, please", "All good", "More dark themes"}[r.IntN(3)]
		})
		v.Del("token")
		bodies = append(bodies, v.Encode())
	}
	tokenAttr := []byte(`name="token" value="`)
	var sent atomic.Int64
	respond := func(i int, buf *bytes.Buffer) error {
		buf.Reset()
		if err := get(buf); err != nil {
			return err
		}
		page := buf.Bytes()
		at := bytes.Index(page, tokenAttr)
		if at < 0 {
			return fmt.Errorf("GET %s: no token", path)
		}
		token, _, _ := bytes.Cut(page[at+len(tokenAttr):], []byte(`"`))
		body := "token=" + url.QueryEscape(html.UnescapeString(string(token))) + "&" + bodies[i%len(bodies)]
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusSeeOther {
			return fmt.Errorf("POST %s = %d\n%s", path, rec.Code, rec.Body)
		}
		sent.Add(1)
		return nil
	}
	merged := func() int64 {
		mfs, err := reg.Gather()
		if err != nil {
			b.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == "surveys_worker_answers_total" {
				return int64(mf.GetMetric()[0].GetCounter().GetValue())
			}
		}
		return 0
	}
	waitMerged := func(n int64) {
		for deadline := time.Now().Add(time.Minute); merged() < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatalf("the worker merged %d answers of %d", merged(), n)
			}
		}
	}
	// Warm up: caches, the answers container, the survey's summary.
	for i := range 20 {
		if err := respond(i, &buf); err != nil {
			b.Fatal(err)
		}
	}
	waitMerged(sent.Load())

	b.SetParallelism(32) // 64 respondents on two cores, as loadgen's step
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		var buf bytes.Buffer
		for pb.Next() {
			if err := respond(int(next.Add(1)), &buf); err != nil {
				b.Error(err)
				return
			}
		}
	})
	waitMerged(sent.Load())
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/answer")
}

// acceptAll is a notifier that takes every answer and keeps none.
type acceptAll struct{}

func (acceptAll) Notify(context.Context, survey.SurveyAnswer, survey.Plan) error { return nil }

// BenchmarkAnswerPOST is BenchmarkAnswerPath's POST alone, to a notifier
// that keeps nothing: the handler's own cost (reading the form, the
// survey from the cache, the turn, validation, the redirect) for the demo
// survey's complete answers, without the GET, the queue or the worker.
//
//	go test ./internal/web -run '^$' -bench BenchmarkAnswerPOST -cpuprofile cpu.out
func BenchmarkAnswerPOST(b *testing.B) {
	ctx := context.Background()
	st := backends.Local(b)
	for _, f := range []func(context.Context) error{
		func(ctx context.Context) error { return store.Init(ctx, st) },
		func(ctx context.Context) error { _, err := store.Seed(ctx, st); return err },
	} {
		if err := f(ctx); err != nil {
			b.Fatal(err)
		}
	}
	surveys, tenants := store.NewSurveyStore(st), store.NewTenantStore(st)
	srv, err := web.New(web.Deps{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Surveys: surveys, Tenants: tenants, Storage: st,
		Public:   store.NewCachedSurveys(surveys, tenants, time.Hour),
		Notifier: acceptAll{}, Uploads: store.NewUploadStore(st), Quotas: store.NewQuotaStore(st),
	})
	if err != nil {
		b.Fatal(err)
	}
	h := srv.Handler()
	const path = "/survey/adatum/adatum-customer-satisfaction"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	form, err := formfill.Parse(rec.Body.Bytes())
	if err != nil {
		b.Fatal(err)
	}
	// Each body with a token of its own (the token's ID is the answer's).
	r := rand.New(rand.NewPCG(1, 2))
	var bodies []string
	for range 64 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		page := rec.Body.Bytes()
		at := bytes.Index(page, []byte(`name="token" value="`))
		if at < 0 {
			b.Fatal("no token")
		}
		token, _, _ := bytes.Cut(page[at+len(`name="token" value="`):], []byte(`"`))
		v := form.Answer(r, func(r *rand.Rand) string {
			return []string{"Faster pages, please", "All good", "More dark themes"}[r.IntN(3)]
		})
		v.Set("token", html.UnescapeString(string(token)))
		bodies = append(bodies, v.Encode())
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	i := 0
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(bodies[i%len(bodies)]))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusSeeOther {
			b.Fatalf("POST %s = %d\n%s", path, rec.Code, rec.Body)
		}
		i++
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/answer")
}
