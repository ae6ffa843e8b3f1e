package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/surveys-dev/surveys/internal/store"
)

// TestBrowserEmbed: the share page's snippet, pasted into a page of a site
// the survey allows (another origin: another port), shows the survey in a
// frame that embed.js fits to its height; pasted into a page of a site it
// does not allow, the browser refuses to frame it.
func TestBrowserEmbed(t *testing.T) {
	t.Parallel()
	m := newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	base := "http://" + m.Addr()
	// A site's page with the snippet, as the share page gives it.
	site := func() *httptest.Server {
		var snippet string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Adatum intranet</title></head><body><h1>Tell us</h1>` + snippet + `</body></html>`))
		}))
		t.Cleanup(srv.Close)
		surveys := store.NewSurveyStore(m.Storage)
		list, err := surveys.List(ctx, "adatum")
		if err != nil || len(list) == 0 {
			t.Fatalf("demo surveys: %v", err)
		}
		snippet = "<iframe src=\"" + base + "/survey/adatum/" + list[0].Slug + "\" title=\"Survey\" data-surveys-embed width=\"100%\" height=\"640\"></iframe>\n<script src=\"" + base + "/static/embed.js\" async></script>"
		return srv
	}
	allowed, other := site(), site()
	surveys := store.NewSurveyStore(m.Storage)
	list, _ := surveys.List(ctx, "adatum")
	sv, err := surveys.Get(ctx, "adatum", list[0].Slug)
	if err != nil {
		t.Fatal(err)
	}
	sv.EmbedOrigins = []string{allowed.URL}
	if err := surveys.Update(ctx, sv); err != nil {
		t.Fatal(err)
	}
	// The public cache sees the change within its TTL (this test changes
	// the store, not the designer, which would drop it at once).
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(base + "/survey/adatum/" + sv.Slug)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if strings.Contains(resp.Header.Get("Content-Security-Policy"), "frame-ancestors "+allowed.URL) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the survey page never allowed the site")
		}
	}

	run := browserRun(t, newBrowser(t))
	height := func(page string, wait time.Duration) string {
		t.Helper()
		var h string
		run("open "+page, chromedp.EmulateViewport(390, 844), chromedp.Navigate(page), chromedp.WaitVisible(`iframe`, chromedp.ByQuery))
		for deadline := time.Now().Add(wait); h == "" && time.Now().Before(deadline); {
			run("frame height", chromedp.Evaluate(`document.querySelector("iframe").getAttribute("data-surveys-height") || ""`, &h))
			if h == "" {
				time.Sleep(100 * time.Millisecond)
			}
		}
		return h
	}
	if h := height(allowed.URL, 15*time.Second); h == "" || h == "640" {
		t.Fatalf("in an allowed site's page the frame was not fitted to the survey (height %q)", h)
	} else {
		t.Logf("the survey's frame in an allowed site's page: %s px high", h)
	}
	run("screenshot", screenshot(t, "embed-allowed"))
	if h := height(other.URL, 3*time.Second); h != "" {
		t.Fatalf("a site the survey does not allow framed it (height %q)", h)
	}
	if !strings.HasPrefix(allowed.URL, "http://127.0.0.1:") {
		t.Fatalf("the site's origin %q", allowed.URL)
	}
}
