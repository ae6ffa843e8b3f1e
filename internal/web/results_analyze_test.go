package web_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/store/storetest"
	"github.com/surveys-dev/surveys/internal/survey"
)

func TestAnalyzeBrowseExport(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	users := testUsers(app.st)
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
	if code, _, body := app.get(t, base+"/answers/table", ana); code != 200 || strings.Count(body, `<tr><td class="received">`) != 3 {
		t.Errorf("answer table = %d with %d rows", code, strings.Count(body, `<tr><td class="received">`))
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
	t.Parallel()
	app := newTestApp(t)
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
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
	// For print: the same code as an SVG, downloaded as a file; sharing
	// by e-mail opens the sender's own mail program with the link.
	code, h, svg := app.get(t, base+"/qr.svg?download=1", ana)
	if code != 200 || h.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "<title>QR code of "+link+"</title>") ||
		strings.Count(svg, "h1v1h-1z") < 100 || h.Get("Content-Disposition") != `attachment; filename="`+app.adatum.Slug+`-qr.svg"` {
		t.Fatalf("qr.svg = %d %q %q", code, h.Get("Content-Type"), h.Get("Content-Disposition"))
	}
	if code, _, _ := app.get(t, base+"/qr.gif", ana); code != http.StatusNotFound {
		t.Errorf("qr.gif = %d", code)
	}
	if !strings.Contains(body, `href="mailto:?subject=`) || !strings.Contains(body, base+"/qr.svg?download=1") {
		t.Errorf("share page without its e-mail link or SVG download:\n%s", body)
	}
	_, fred := func() (int, *http.Cookie) {
		if _, err := testUsers(app.st).Add(context.Background(), "fabrikam", "fred@fabrikam.example", "another long password"); err != nil {
			t.Fatal(err)
		}
		return app.signIn(t, "fabrikam", "fred@fabrikam.example", "another long password")
	}()
	for _, p := range []string{base + "/share", base + "/qr.png", base + "/qr.svg"} {
		if code, _, _ := app.get(t, p, fred); code != http.StatusForbidden {
			t.Errorf("GET %s as Fabrikam = %d", p, code)
		}
	}
}

// TestExportOutlastsWriteTimeout: the server's write timeout bounds pages,
// not exports. An export that takes far longer than it to write, a batch
// at a time, arrives whole.
func TestExportOutlastsWriteTimeout(t *testing.T) {
	t.Parallel()
	const n = 5000
	app := newTestApp(t)
	putAnswers(t, app, n)
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
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

// TestWrittenAnswers: the page of what the answers to a text question
// wrote lists them newest first, 20 answers a page, reading the segment
// that holds them (and single blobs for the newest, merged but not yet in
// a segment): with 45 answers, page 1 holds the 20 newest (one of which
// wrote nothing), page 3 the 5 oldest; a page that is not there is a 404,
// and so is a question whose answers hold no text.
func TestWrittenAnswers(t *testing.T) {
	t.Parallel()
	st := counting.New(backends.Local(t))
	app := newTestAppOn(t, st)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	q := app.adatum.Questions
	var answers []*survey.SurveyAnswer
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := 1; i <= 45; i++ {
		a := &survey.SurveyAnswer{ID: store.NewAnswerID(start.Add(time.Duration(i) * time.Minute)), Tenant: "adatum", Slug: app.adatum.Slug,
			CreatedOn: start.Add(time.Duration(i) * time.Minute), Answers: []survey.QuestionAnswer{{QuestionID: q[0].ID, Type: q[0].Type, Answer: "4"}}}
		if i != 44 {
			a.Answers = append(a.Answers, survey.QuestionAnswer{QuestionID: q[3].ID, Type: q[3].Type, Answer: fmt.Sprintf("Answer number %d", i)})
		}
		answers = append(answers, a)
	}
	// The newest two are merged into the summary but not listed yet.
	if err := storetest.PutAnswers(ctx, app.st, app.adatum, answers, 2); err != nil {
		t.Fatal(err)
	}
	// texts are the numbers of the answers a page lists, in its order.
	texts := func(body string) []int {
		var out []int
		for _, m := range regexp.MustCompile(`Answer number (\d+)</blockquote>`).FindAllStringSubmatch(body, -1) {
			n, _ := strconv.Atoi(m[1])
			out = append(out, n)
		}
		return out
	}
	span := func(from, to int, except ...int) []int {
		var out []int
		for n := from; n >= to; n-- {
			if !slices.Contains(except, n) {
				out = append(out, n)
			}
		}
		return out
	}
	blobReads := func() (n int64) {
		for _, c := range st.Snapshot() {
			if c.Op.Service == "blob" && (c.Op.Kind == "get" || c.Op.Kind == "list") {
				n += c.Calls
			}
		}
		return n
	}
	tableOps := func() int64 { return st.Total("table") }
	base := "/adatum/surveys/" + app.adatum.Slug + "/analyze/" + q[3].ID
	for _, c := range []struct {
		query string
		code  int
		texts []int
		want  []string
		not   []string
	}{
		{"", 200, span(45, 26, 44), []string{"Answers 1–20 of 45 · page 1 of 3", "page 1 of 3 · 1 of them wrote nothing here", `href="?page=2" rel="next">Older`,
			`href="/adatum/surveys/` + app.adatum.Slug + `/answers?i=44">Answer 45</a> · 1 Mar 2026 09:45 UTC`}, []string{"Newer"}},
		{"?page=1", 200, span(45, 26, 44), nil, nil},
		{"?page=2", 200, span(25, 6), []string{"Answers 21–40 of 45 · page 2 of 3", `href="?page=1" rel="prev">← Newer`, `href="?page=3" rel="next">Older`}, []string{"wrote nothing"}},
		{"?page=3", 200, span(5, 1), []string{"Answers 41–45 of 45 · page 3 of 3", `href="?page=2" rel="prev">← Newer`}, []string{"Older"}},
		{"?page=4", 404, nil, []string{"There is no page 4: these answers fill 3 pages."}, nil},
		{"?page=0", 404, nil, []string{"Pages of answers are numbered from 1."}, nil},
		{"?page=two", 404, nil, nil, nil},
		{"?page=-1", 404, nil, nil, nil},
	} {
		before, tables := blobReads(), tableOps()
		code, _, body := app.get(t, base+c.query, ana)
		reads, tables := blobReads()-before, tableOps()-tables
		if code != c.code || !slices.Equal(texts(body), c.texts) {
			t.Errorf("GET %s = %d with answers %v; want %d with %v", c.query, code, texts(body), c.code, c.texts)
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s lacks %q", c.query, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(body, w) {
				t.Errorf("GET %s has %q", c.query, w)
			}
		}
		// The summary (the number of answers), the segments' names and the
		// one segment that holds the page's answers; for the newest page
		// also the list's chunk names and chunk, the summary again and
		// the two answers not listed yet, each from its blob (and the
		// tenant's blob, when the cache of it, of a millisecond here, has
		// expired): never a read per answer of the page.
		want := int64(3)
		if c.query == "" || c.query == "?page=1" {
			want = 8
		}
		if code == 200 && (reads < want || reads > want+1) {
			t.Errorf("GET %s read blobs %d times; want %d", c.query, reads, want)
		}
		t.Logf("GET %s: %d blob reads, %d table operations", c.query, reads, tables)
	}
	// Questions without written answers, and no question at all.
	for _, p := range []string{"/adatum/surveys/" + app.adatum.Slug + "/analyze/" + q[0].ID, "/adatum/surveys/" + app.adatum.Slug + "/analyze/nope"} {
		if code, _, _ := app.get(t, p, ana); code != 404 {
			t.Errorf("GET %s = %d, want 404", p, code)
		}
	}
}
