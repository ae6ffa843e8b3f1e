package web_test

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/pdfreport/pdftext"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// BenchmarkReportPDF makes the PDF report of a survey of 20 questions
// (one of each of the 18 kinds, and a second multiple choice and NPS) with 100,000 answers,
// through the API and the embedded store: from the stored summary
// ("summary"), and filtered (?status=complete, which picks every answer:
// "filtered"), which counts the answers again from their segments. It
// reports the time of a report (and the process's CPU time), its pages
// and size, the storage calls it
// made (a handful, whatever the answers: never a read per answer) and
// the peak heap growth while it is made.
func BenchmarkReportPDF(b *testing.B) {
	const n = 100_000
	st := counting.New(backends.Local(b))
	app := newTestAppOn(b, st)
	ctx := context.Background()
	sv, forms := surveytest.ExampleSurvey("adatum", "report-bench")
	for _, t := range []survey.QuestionType{survey.MultipleChoice, survey.NetPromoterScore} {
		q, form, _ := surveytest.Lookup(t)
		q.ID = "q" + strconv.Itoa(len(sv.Questions)+1)
		sv.Questions = append(sv.Questions, q)
		// The question's ID when the form is made: Create gives new ones.
		prev, j := forms, len(sv.Questions)-1
		forms = func(r *rand.Rand) map[string]survey.Form {
			m := prev(r)
			m[sv.Questions[j].ID] = form(r)
			return m
		}
	}
	if len(sv.Questions) != 20 {
		b.Fatalf("%d questions, want 20", len(sv.Questions))
	}
	// 1,000 distinct answers, each given 100 times, a millisecond apart.
	storeRepeated(b, app, sv, forms, n, 5, time.Now().UTC().Add(-n*time.Millisecond), time.Millisecond, nil)
	token, err := store.NewTokenStore(app.st).CreateWithRole(ctx, "adatum", "bench", survey.Viewer, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, query string }{{"summary", ""}, {"filtered", "?status=complete"}} {
		b.Run(c.name, func(b *testing.B) {
			benchReport(b, app, st, "/api/v1/surveys/"+sv.Slug+"/report.pdf"+c.query, token)
		})
	}
}

// benchReport asks for the report at path with token, b.N times.
func benchReport(b *testing.B, app *testApp, st *counting.Store, path, token string) {
	var peak, size, ops, pages, runs int64
	var cpu time.Duration
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
		before, cpuBefore := st.Total(""), cpuTime()
		req, _ := http.NewRequest("GET", app.srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("report = %d, %v", resp.StatusCode, err)
		}
		ops += st.Total("") - before
		cpu += cpuTime() - cpuBefore
		close(done)
		peak = max(peak, int64(high.Load())-min(int64(high.Load()), int64(base.HeapInuse)))
		b.StopTimer()
		d, err := pdftext.Read(body)
		if err != nil {
			b.Fatal(err)
		}
		pages, size = int64(len(d.Pages)), int64(len(body))
		b.StartTimer()
		runs++
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(runs), "s/report")
	// The process's CPU time (server, client, collector) a report: the
	// wall time above is longer on a machine shared with other work.
	b.ReportMetric(cpu.Seconds()/float64(runs), "cpu-s/report")
	b.ReportMetric(float64(ops)/float64(runs), "storage-ops/report")
	b.ReportMetric(float64(pages), "pages")
	b.ReportMetric(float64(size)/(1<<10), "KB-pdf")
	b.ReportMetric(float64(peak)/(1<<20), "MB-peak-heap-growth")
}
