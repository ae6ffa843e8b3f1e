package web_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
)

// heapAfterGC is the live heap.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestCacheMemoryBounded: names no survey can have (100 KB slugs and
// tenant keys) are 404 without a storage call, and thousands of them, and
// of valid-looking missing slugs, leave the live heap under 32 MiB more than
// before.
func TestCacheMemoryBounded(t *testing.T) {
	const (
		longNames    = 2000
		missingSlugs = 3000
		heapBound    = 32 << 20
	)
	st := counting.New(backends.Local(t))
	app := newTestAppOn(t, st)
	h := app.web.Handler()
	serve := func(method, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec
	}
	if rec := serve("GET", app.path()); rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d", app.path(), rec.Code)
	}
	before := heapAfterGC()
	calls := st.Total("")
	long := strings.Repeat("a", 100<<10)
	for i := range longNames {
		name := long + strconv.Itoa(i) // each one new
		path := []string{
			"/survey/adatum/" + name,
			"/survey/" + name + "/" + app.adatum.Slug,
			"/survey/adatum/" + name + "/thankyou",
			"/survey/adatum/Not-A-Slug-" + strconv.Itoa(i),
		}[i%4]
		method := "GET"
		if i%8 == 1 {
			method = "POST"
		}
		if rec := serve(method, path); rec.Code != http.StatusNotFound {
			t.Fatalf("%s %.60s… = %d, want 404", method, path, rec.Code)
		}
	}
	if n := st.Total(""); n != calls {
		t.Fatalf("invalid names made %d storage calls, want none", n-calls)
	}
	for i := range missingSlugs {
		if rec := serve("GET", "/survey/adatum/missing-survey-"+strconv.Itoa(i)); rec.Code != http.StatusNotFound {
			t.Fatalf("missing slug %d = %d, want 404", i, rec.Code)
		}
	}
	after := heapAfterGC()
	if after > before && after-before > heapBound {
		t.Fatalf("the live heap grew by %d MiB, want under %d MiB", (after-before)>>20, heapBound>>20)
	}
	t.Logf("heap %d MiB → %d MiB", before>>20, after>>20)
	runtime.KeepAlive(app)
}
