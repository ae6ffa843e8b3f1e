package web_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

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
// it stays flat because the export holds at most two segments at a time.
func BenchmarkExport100k(b *testing.B) {
	st := counting.New(backends.Local(b))
	app := newTestAppOn(b, st)
	start := time.Now()
	putAnswers(b, app, 100_000)
	b.Logf("stored 100000 answers in %s", time.Since(start).Round(time.Millisecond))
	benchExport(b, app, st, 100_000, "csv")
}

// BenchmarkExportXLSX100k is BenchmarkExport100k as an XLSX workbook
// (export.xlsx): the peak heap stays flat too, as excelize's stream writer
// keeps at most 16 MiB of the sheet in memory and the rest on a
// temporary file until it zips it into the response.
func BenchmarkExportXLSX100k(b *testing.B) {
	st := counting.New(backends.Local(b))
	app := newTestAppOn(b, st)
	start := time.Now()
	putAnswers(b, app, 100_000)
	b.Logf("stored 100000 answers in %s", time.Since(start).Round(time.Millisecond))
	benchExport(b, app, st, 100_000, "xlsx")
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
	benchExport(b, app, st, 100_000, "csv")
}

// benchExport exports n answers of app's Adatum survey as format (csv or
// xlsx), st counting its storage calls.
func benchExport(b *testing.B, app *testApp, st *counting.Store, n int, format string) {
	ctx := context.Background()
	if _, err := store.NewUserStore(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		b.Fatal(err)
	}
	_, c := app.signIn(b, "adatum", "ana@adatum.example", "correct horse battery")
	var peak, exported, ops, runs int64
	// The last workbook, kept on disk to be counted after the runs.
	workbook := filepath.Join(b.TempDir(), "export.xlsx")
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
		req, _ := http.NewRequest("GET", app.srv.URL+"/adatum/surveys/"+app.adatum.Slug+"/export."+format, nil)
		req.AddCookie(c)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("export = %d", resp.StatusCode)
		}
		lines := 0
		var out io.Writer = io.Discard
		if format == "xlsx" {
			fw, err := os.Create(workbook)
			if err != nil {
				b.Fatal(err)
			}
			defer fw.Close()
			out = fw
		}
		buf := make([]byte, 32<<10)
		for {
			k, err := resp.Body.Read(buf)
			exported += int64(k)
			lines += bytes.Count(buf[:k], []byte("\n"))
			_, _ = out.Write(buf[:k])
			if err != nil {
				break
			}
		}
		resp.Body.Close()
		ops += st.Total("") - before
		close(done)
		if format == "csv" && lines != n+1 {
			b.Fatalf("export has %d lines, want %d", lines, n+1)
		}
		peak = max(peak, int64(high.Load())-min(int64(high.Load()), int64(base.HeapInuse)))
		runs++
	}
	if format == "xlsx" {
		// Outside the runs measured: the workbook has a row per answer.
		if rows := countRows(b, workbook); rows != n+1 {
			b.Fatalf("the workbook has %d rows, want %d", rows, n+1)
		}
	}
	b.ReportMetric(float64(n*int(runs))/b.Elapsed().Seconds(), "answers/s")
	b.ReportMetric(float64(ops)/float64(n*int(runs)), "storage-ops/answer")
	b.ReportMetric(float64(exported/runs)/(1<<20), "MB-exported")
	b.ReportMetric(float64(peak)/(1<<20), "MB-peak-heap-growth")
}

// countRows counts the rows of the workbook's sheet "Answers", reading
// them one at a time.
func countRows(b *testing.B, path string) int {
	f, err := excelize.OpenFile(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	rows, err := f.Rows("Answers")
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Error(); err != nil {
		b.Fatal(err)
	}
	return n
}
