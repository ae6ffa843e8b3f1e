package web

import (
	"context"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// benchUploadSize is the file of BenchmarkUpload: 10 MiB.
const benchUploadSize = 10 << 20

// benchDiscardBlobs is storage that keeps no blob: the upload's whole
// path (multipart, sniffing, parts, quota) but for the backend's own work.
// Only the calls an upload makes are implemented.
type benchDiscardBlobs struct{ storage.Storage }

func (benchDiscardBlobs) PutBlob(context.Context, string, string, []byte, storage.PutOptions) (string, error) {
	return `"0x1"`, nil
}

func (benchDiscardBlobs) GetBlob(context.Context, string, string) (storage.Blob, error) {
	return storage.Blob{}, storage.ErrNotFound
}

// benchFileReader gives a PDF of size bytes without holding it.
type benchFileReader struct{ left int }

func (r *benchFileReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.left)
	for i := range p[:n] {
		p[i] = 'x'
	}
	if r.left == benchUploadSize {
		copy(p, "%PDF-1.4\n")
	}
	r.left -= n
	return n, nil
}

// benchMultipart is a request body of a token and one file of size
// bytes, written as it is read (a pipe): the client holds none of it.
func benchMultipart(token, field string, size int) (io.ReadCloser, string) {
	pr, pw := io.Pipe()
	w := multipart.NewWriter(pw)
	go func() {
		err := w.WriteField("token", token)
		if err == nil {
			var part io.Writer
			if part, err = w.CreateFormFile(field, "report.pdf"); err == nil {
				_, err = io.CopyBuffer(part, &benchFileReader{left: size}, make([]byte, 32<<10))
			}
		}
		if err == nil {
			err = w.Close()
		}
		pw.CloseWithError(err)
	}()
	return pr, w.FormDataContentType()
}

// heapPeak samples the heap in use until stop is called, and returns the
// largest sample above the heap at its start.
func heapPeak() (stop func() uint64) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > base && ms.HeapInuse-base > peak.Load() {
				peak.Store(ms.HeapInuse - base)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); <-finished; return peak.Load() }
}

// BenchmarkUpload posts a survey page with a 10 MiB file through the
// router: streamed to blob parts of 1 MiB, never read whole. It reports
// the bytes allocated per upload (B/op, and MB/upload) and the peak of
// the heap in use above its start (peak-heap-MB), for one upload at a
// time to storage that keeps nothing, one to the embedded store (SQLite),
// and 100 uploads at once (the issue's target: under 200 MB).
func BenchmarkUpload(b *testing.B) {
	sv := benchSurvey()
	sv.Questions = append(sv.Questions, survey.Question{ID: "0638800000000000000_900", Text: "Your report", Type: survey.FileUpload,
		PossibleAnswers: []string{"PDF"}, Scale: 10, Optional: true})
	sv.Normalize()
	field := "q-" + sv.Questions[len(sv.Questions)-1].ID + "-file"
	serve := func(b *testing.B, st storage.Storage) (http.Handler, *Server) {
		s, err := New(Deps{
			Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
			Public:   benchPublic{tenant: benchTenant(), survey: sv},
			Notifier: benchNotifier{},
			Uploads:  store.NewUploadStore(st),
		})
		if err != nil {
			b.Fatal(err)
		}
		return s.Handler(), s
	}
	// post sends one page with the file; the answer is refused for the
	// questions left unanswered (422), after the file is stored.
	post := func(b *testing.B, h http.Handler, s *Server) {
		body, ct := benchMultipart(s.signer.issue("adatum", sv.Slug), field, benchUploadSize)
		req := httptest.NewRequest(http.MethodPost, benchPath, body)
		req.Header.Set("Content-Type", ct)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "report.pdf") {
			b.Errorf("POST = %d, without the file received", rec.Code)
		}
	}
	run := func(b *testing.B, st storage.Storage, parallel int) {
		h, s := serve(b, st)
		b.SetBytes(int64(benchUploadSize * parallel))
		b.ReportAllocs()
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		stop := heapPeak()
		for b.Loop() {
			var wg sync.WaitGroup
			for range parallel {
				wg.Go(func() { post(b, h, s) })
			}
			wg.Wait()
		}
		peak := stop()
		runtime.ReadMemStats(&ms1)
		b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N*parallel)/(1<<20), "MB/upload")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	}
	b.Run("discard", func(b *testing.B) { run(b, benchDiscardBlobs{}, 1) })
	b.Run("local", func(b *testing.B) {
		st := backends.Local(b)
		if err := store.Init(context.Background(), st); err != nil {
			b.Fatal(err)
		}
		run(b, st, 1)
	})
	b.Run("discard-100-at-once", func(b *testing.B) { run(b, benchDiscardBlobs{}, 100) })
}
