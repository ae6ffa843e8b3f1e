package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
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
// tenant keys) are 404 without a storage call, and hundreds of them leave
// the live heap under 8 MiB more than before; valid-looking missing slugs,
// past the survey cache's bound, leave it where it was.
func TestCacheMemoryBounded(t *testing.T) {
	const (
		// longNames are 400 names of 100 KB (three in four of them long):
		// 30 MB of names, were any kept.
		longNames = 400
		heapBound = 8 << 20
		// missingSlugs fill the survey cache's 10,000 entries; as many
		// more would grow an unbounded cache by 3 MiB.
		missingSlugs = 10_000
		missingBound = 2 << 20
	)
	st := counting.New(backends.Local(t))
	// The survey cache as in production (5 s), not the tests' 1 ms: long
	// enough that nothing it holds expires during the test.
	pub := store.NewCachedSurveys(store.NewSurveyStore(st), store.NewTenantStore(st), time.Hour)
	app := newTestAppOn(t, st, func(d *web.Deps) { d.Public = pub })
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
	after := heapAfterGC()
	if after > before && after-before > heapBound {
		t.Fatalf("the live heap grew by %d MiB, want under %d MiB", (after-before)>>20, heapBound>>20)
	}
	t.Logf("invalid names: heap %d MiB → %d MiB", before>>20, after>>20)

	// Valid-looking slugs of missing surveys are looked up once, then
	// remembered as missing for a while: a cache bounded in entries. Past
	// its bound, more of them evict older ones, so the live heap stays
	// where it was; an unbounded cache would keep every one (about 330
	// bytes each: more than 3 MiB for the second round).
	// (Asked of the cache the survey page asks, without the page: the
	// 404 pages would make the test slow under the race detector.)
	ctx := context.Background()
	missing := func(from, to int) {
		for i := from; i < to; i++ {
			slug := fmt.Sprintf("missing-survey-%033d", i) // 48 characters, the longest slug
			if _, err := pub.Survey(ctx, "adatum", slug); survey.ErrorCode(err) != survey.ENOTFOUND {
				t.Fatalf("missing slug %d: %v, want not found", i, err)
			}
		}
	}
	missing(0, missingSlugs) // the cache is full
	full := heapAfterGC()
	missing(missingSlugs, 2*missingSlugs)
	more := heapAfterGC()
	if more > full && more-full > missingBound {
		t.Fatalf("%d more missing slugs grew the live heap by %d KiB, want under %d KiB: the cache is not bounded", missingSlugs, (more-full)>>10, missingBound>>10)
	}
	t.Logf("missing slugs: heap %d KiB full, %d KiB after %d more", full>>10, more>>10, missingSlugs)
	runtime.KeepAlive(app)
}
