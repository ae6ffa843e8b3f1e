package web_test

import (
	"bytes"
	"context"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/store/storetest"
	"github.com/surveys-dev/surveys/internal/survey"
)

// putAnswers stores n answers to Adatum's survey as the worker does: each
// its own blob, then the answer list, the segments and the summary.
func putAnswers(tb testing.TB, app *testApp, n int) {
	tb.Helper()
	if err := storetest.PutAnswers(context.Background(), app.st, app.adatum, adatumAnswers(app, n), 0); err != nil {
		tb.Fatal(err)
	}
}

// adatumAnswers are n answers to Adatum's survey as respondents give them
// (each question's text and kind with the answer), a millisecond apart.
func adatumAnswers(app *testApp, n int) []*survey.SurveyAnswer {
	sv := app.adatum
	values := []string{"4", "API", "5", "Answer text, with a comma and \"quotes\""}
	start := time.Now().UTC().Add(-time.Duration(n) * time.Millisecond)
	out := make([]*survey.SurveyAnswer, n)
	for i := range out {
		on := start.Add(time.Duration(i) * time.Millisecond)
		a := &survey.SurveyAnswer{ID: store.NewAnswerID(on), Tenant: sv.Tenant, Slug: sv.Slug, Title: sv.Title, CreatedOn: on}
		for j, v := range values {
			q := sv.Questions[j]
			a.Answers = append(a.Answers, survey.QuestionAnswer{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: v})
		}
		out[i] = a
	}
	return out
}

// BenchmarkExport100k exports 100,000 answers of Adatum's survey as CSV
// through the real handler and the embedded store, and reports answers/s,
// the storage operations made per answer exported (every call of the
// request: the session, the survey, the segments …), and the peak heap:
// it stays flat because the export holds at most three segments at a time.
func BenchmarkExport100k(b *testing.B) {
	st := counting.New(backends.Local(b))
	app := newTestAppOn(b, st)
	start := time.Now()
	putAnswers(b, app, 100_000)
	b.Logf("stored 100000 answers in %s", time.Since(start).Round(time.Millisecond))
	benchExport(b, app, st, 100_000)
}

// BenchmarkExport100kAzurite is BenchmarkExport100k against Azurite. The
// answers are written to the list, the segments and the summary only, not
// each to its own blob as well: the export does not read those (it reads
// the segments), and Azurite takes minutes to write 100,000 blobs here
// (about 500 a second on two shared cores).
func BenchmarkExport100kAzurite(b *testing.B) {
	st := counting.New(backends.Azure(b))
	app := newTestAppOn(b, st)
	start := time.Now()
	if err := storetest.PutSegmented(context.Background(), app.st, app.adatum, adatumAnswers(app, 100_000)); err != nil {
		b.Fatal(err)
	}
	b.Logf("stored 100000 answers in segments in %s", time.Since(start).Round(time.Millisecond))
	benchExport(b, app, st, 100_000)
}

// benchExport exports n answers of app's Adatum survey, st counting its
// storage calls.
func benchExport(b *testing.B, app *testApp, st *counting.Store, n int) {
	ctx := context.Background()
	if _, err := store.NewUserStore(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		b.Fatal(err)
	}
	_, c := app.signIn(b, "adatum", "ana@adatum.example", "correct horse battery")
	var peak, exported, ops, runs int64
	for b.Loop() {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		var high atomic.Uint64
		done := make(chan struct{})
		go func() {
			var m runtime.MemStats
			for {
				select {
				case <-done:
					return
				case <-time.After(20 * time.Millisecond):
					runtime.ReadMemStats(&m)
					if m.HeapInuse > high.Load() {
						high.Store(m.HeapInuse)
					}
				}
			}
		}()
		before := st.Total("")
		req, _ := http.NewRequest("GET", app.srv.URL+"/adatum/surveys/"+app.adatum.Slug+"/export.csv", nil)
		req.AddCookie(c)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		lines := 0
		buf := make([]byte, 32<<10)
		for {
			k, err := resp.Body.Read(buf)
			exported += int64(k)
			lines += bytes.Count(buf[:k], []byte("\n"))
			if err != nil {
				break
			}
		}
		resp.Body.Close()
		ops += st.Total("") - before
		close(done)
		if lines != n+1 {
			b.Fatalf("export has %d lines, want %d", lines, n+1)
		}
		peak = max(peak, int64(high.Load())-min(int64(high.Load()), int64(base.HeapInuse)))
		runs++
	}
	b.ReportMetric(float64(n*int(runs))/b.Elapsed().Seconds(), "answers/s")
	b.ReportMetric(float64(ops)/float64(n*int(runs)), "storage-ops/answer")
	b.ReportMetric(float64(exported/runs)/(1<<20), "MB-exported")
	b.ReportMetric(float64(peak)/(1<<20), "MB-peak-heap-growth")
}
