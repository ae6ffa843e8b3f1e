package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// countingWriter discards what is written and counts it.
type countingWriter struct {
	h http.Header
	n atomic.Int64
}

func (c *countingWriter) Header() http.Header         { return c.h }
func (c *countingWriter) Write(p []byte) (int, error) { c.n.Add(int64(len(p))); return len(p), nil }
func (c *countingWriter) WriteHeader(int)             {}

// putAnswers stores n answers to Adatum's survey as the worker files
// them (the export reads the answer blobs), 32 at a time.
func putAnswers(tb testing.TB, app *testApp, n int64) {
	tb.Helper()
	ctx := context.Background()
	container := store.AnswersContainer("adatum", app.adatum.Slug)
	if err := app.st.CreateContainer(ctx, container, false); err != nil {
		tb.Fatal(err)
	}
	q := app.adatum.Questions
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= n; i = next.Add(1) {
				a := survey.SurveyAnswer{ID: store.NewAnswerID(time.Now()), Tenant: "adatum", Slug: app.adatum.Slug, CreatedOn: time.Now().UTC(), Answers: []survey.QuestionAnswer{
					{QuestionID: q[0].ID, Answer: "4"}, {QuestionID: q[1].ID, Answer: "API"}, {QuestionID: q[2].ID, Answer: "5"},
					{QuestionID: q[3].ID, Answer: "Answer text, with a comma and \"quotes\""},
				}}
				data, _ := json.Marshal(a)
				if _, err := app.st.PutBlob(ctx, container, a.ID, data, storage.PutOptions{}); err != nil {
					tb.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkExport100k exports 100,000 answers as CSV through the real
// handler and store, and reports the peak heap: it stays flat because the
// export reads and writes one answer at a time.
func BenchmarkExport100k(b *testing.B) {
	const n = 100_000
	app := newTestApp(b)
	ctx := context.Background()
	putAnswers(b, app, n)
	if _, err := store.NewUserStore(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		b.Fatal(err)
	}
	_, c := app.signIn(b, "adatum", "ana@adatum.example", "correct horse battery")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		var peak atomic.Uint64
		done := make(chan struct{})
		go func() {
			var m runtime.MemStats
			for {
				select {
				case <-done:
					return
				case <-time.After(20 * time.Millisecond):
					runtime.ReadMemStats(&m)
					if m.HeapInuse > peak.Load() {
						peak.Store(m.HeapInuse)
					}
				}
			}
		}()
		req, _ := http.NewRequest("GET", app.srv.URL+"/adatum/surveys/"+app.adatum.Slug+"/export.csv", nil)
		req.AddCookie(c)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		cw := &countingWriter{h: http.Header{}}
		buf := make([]byte, 32<<10)
		for {
			k, err := resp.Body.Read(buf)
			cw.Write(buf[:k])
			if err != nil {
				break
			}
		}
		resp.Body.Close()
		close(done)
		b.ReportMetric(float64(cw.n.Load())/(1<<20), "MB-exported")
		b.ReportMetric(float64(peak.Load()-min(peak.Load(), base.HeapInuse))/(1<<20), "MB-peak-heap-growth")
	}
}
