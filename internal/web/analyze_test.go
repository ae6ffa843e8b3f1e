package web_test

import (
	"context"
	"encoding/csv"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
)

func TestAnalyzeBrowseExport(t *testing.T) {
	app := newTestApp(t)
	ctx := context.Background()
	users := store.NewUserStore(app.st)
	for _, u := range [][3]string{{"adatum", "ana@adatum.example", "correct horse battery"}, {"fabrikam", "fred@fabrikam.example", "another long password"}} {
		if _, err := users.Add(ctx, u[0], u[1], u[2]); err != nil {
			t.Fatal(err)
		}
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	_, fred := app.signIn(t, "fabrikam", "fred@fabrikam.example", "another long password")
	q := app.adatum.Questions
	for _, text := range []string{`He said "hi", then left`, "Fast, friendly service", "Fast checkout\nand more"} {
		v := app.complete(app.token(t, app.path()))
		v.Set("q-"+q[3].ID, text)
		if code, _, _ := app.do(t, "POST", app.path(), v, nil); code != 303 {
			t.Fatal("answer refused")
		}
	}
	app.stored(t)
	base := "/adatum/surveys/" + app.adatum.Slug

	code, _, body := app.get(t, base+"/analyze", ana)
	for _, want := range []string{"<strong class=\"big-number\">3</strong>", `<span class="bars-label">Mobile app</span>`, `<strong>3</strong><span class="sr-only"> answers,</span> <span class="bars-share">100%</span>`, "<dd>4.00 <span", "<span>fast</span>", "Fast checkout\nand more</blockquote>"} {
		if !strings.Contains(body, want) {
			t.Errorf("analysis page (%d) lacks %q", code, want)
		}
	}
	if code, _, body := app.get(t, base+"/answers?i=2", ana); code != 200 || !strings.Contains(body, "Answer 3 of 3") || !strings.Contains(body, "Fast checkout\nand more") {
		t.Errorf("third answer = %d", code)
	}
	if code, _, body := app.get(t, base+"/answers", ana); code != 200 || !strings.Contains(body, "Answer 1 of 3") || !strings.Contains(body, "He said &#34;hi&#34;, then left") {
		t.Errorf("first answer = %d\n%s", code, body)
	}
	if code, _, _ := app.get(t, base+"/answers?i=7", ana); code != 404 {
		t.Errorf("answer past the end = %d", code)
	}
	if code, _, body := app.get(t, base+"/answers/table", ana); code != 200 || strings.Count(body, "<tr><td>") != 3 {
		t.Errorf("answer table = %d with %d rows", code, strings.Count(body, "<tr><td>"))
	}

	code, h, body := app.get(t, base+"/export.csv", ana)
	if code != 200 || h.Get("Content-Type") != "text/csv; charset=utf-8" || !strings.HasPrefix(body, "\uFEFF") {
		t.Fatalf("csv = %d %q", code, h.Get("Content-Type"))
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\uFEFF"))).ReadAll()
	if err != nil || len(rows) != 4 || rows[0][2] != q[0].Text || rows[1][5] != `He said "hi", then left` || rows[3][5] != "Fast checkout\nand more" {
		t.Fatalf("csv rows = %q, %v", rows, err)
	}
	if code, _, body := app.get(t, base+"/export.json", ana); code != 200 || strings.Count(body, "\n") != 3 || !strings.Contains(body, `"answer":"Mobile app"`) {
		t.Errorf("json export = %d\n%s", code, body)
	}

	// Every one of these routes, as Fabrikam: 403 and none of Adatum's answers.
	for _, p := range []string{"/analyze", "/answers", "/answers?i=1", "/answers/table", "/export.csv", "/export.json", "/edit"} {
		code, _, body := app.get(t, base+p, fred)
		if code != http.StatusForbidden || strings.Contains(body, "Fast") || strings.Contains(body, "Mobile app") {
			t.Errorf("GET %s as Fabrikam = %d", p, code)
		}
		// And Adatum's slug under Fabrikam's own tenant finds nothing.
		code, _, body = app.get(t, "/fabrikam/surveys/"+app.adatum.Slug+p, fred)
		if code != http.StatusNotFound || strings.Contains(body, "Fast") {
			t.Errorf("GET Adatum's survey under /fabrikam%s = %d", p, code)
		}
	}
}

func TestShare(t *testing.T) {
	app := newTestApp(t)
	if _, err := store.NewUserStore(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	base := "/adatum/surveys/" + app.adatum.Slug
	code, _, body := app.get(t, base+"/share", ana)
	link := app.srv.URL + "/survey/adatum/" + app.adatum.Slug
	if code != 200 || !strings.Contains(body, `value="`+link+`"`) || !strings.Contains(body, "data-copy") || !strings.Contains(body, base+"/qr.png") {
		t.Fatalf("share page = %d\n%s", code, body)
	}
	code, h, png := app.get(t, base+"/qr.png", ana)
	if code != 200 || h.Get("Content-Type") != "image/png" || !strings.HasPrefix(png, "\x89PNG") {
		t.Fatalf("qr = %d %q", code, h.Get("Content-Type"))
	}
	_, fred := func() (int, *http.Cookie) {
		if _, err := store.NewUserStore(app.st).Add(context.Background(), "fabrikam", "fred@fabrikam.example", "another long password"); err != nil {
			t.Fatal(err)
		}
		return app.signIn(t, "fabrikam", "fred@fabrikam.example", "another long password")
	}()
	for _, p := range []string{base + "/share", base + "/qr.png"} {
		if code, _, _ := app.get(t, p, fred); code != http.StatusForbidden {
			t.Errorf("GET %s as Fabrikam = %d", p, code)
		}
	}
}

// TestExportOutlastsWriteTimeout: the server's write timeout bounds pages,
// not exports. An export that takes far longer than it to write, a batch
// at a time, arrives whole.
func TestExportOutlastsWriteTimeout(t *testing.T) {
	const n = 5000
	app := newTestApp(t)
	putAnswers(t, app, n)
	if _, err := store.NewUserStore(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	srv := httptest.NewUnstartedServer(app.web.Handler())
	srv.Config.WriteTimeout = 20 * time.Millisecond // reading 5,000 answers takes longer
	srv.Start()
	t.Cleanup(srv.Close)

	for _, format := range []string{"csv", "json"} {
		req, _ := http.NewRequest("GET", srv.URL+"/adatum/surveys/"+app.adatum.Slug+"/export."+format, nil)
		req.AddCookie(c)
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		lines := strings.Count(string(body), "\n")
		want := map[string]int{"csv": n + 1, "json": n}[format]
		if err != nil || resp.StatusCode != http.StatusOK || lines != want {
			t.Fatalf("%s export over a server with a %s write timeout: %d, %d lines in %s, %v; want %d lines",
				format, srv.Config.WriteTimeout, resp.StatusCode, lines, time.Since(start), err, want)
		}
		t.Logf("%s: %d lines in %s", format, lines, time.Since(start))
	}
}
