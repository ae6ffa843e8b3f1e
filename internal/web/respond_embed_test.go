package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestEmbedding: a survey names the sites that may frame it in the
// designer (a bad one is a 422 beside the field, nothing saved); its
// respondent pages then carry those origins as frame-ancestors and no
// X-Frame-Options; every other page, and a survey that names none, keeps
// frame-ancestors 'none'. The share page gives the snippet.
func TestEmbedding(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	path := app.path()
	framing := func(p string, h map[string]string) (csp, xfo string) {
		t.Helper()
		code, hdr, _ := app.do(t, "GET", p, nil, h)
		if code != 200 {
			t.Fatalf("GET %s = %d", p, code)
		}
		return hdr.Get("Content-Security-Policy"), hdr.Get("X-Frame-Options")
	}
	if csp, xfo := framing(path, nil); !strings.Contains(csp, "frame-ancestors 'none'") || xfo != "DENY" {
		t.Fatalf("a survey that names no site: %q, %q", csp, xfo)
	}

	form := func(origins string) url.Values {
		v := url.Values{"title": {app.adatum.Title}, "n": {"1"}, "q.0.text": {"Anything else?"}, "q.0.type": {"SimpleText"}, "q.0.pos": {"1"},
			"embedOrigins": {origins}, "action": {"save"}}
		return v
	}
	before, _ := app.surveys.Get(ctx, "adatum", app.adatum.Slug)
	code, _, body := app.do(t, "POST", "/adatum/surveys/new", form("https://www.adatum.example/page"), cookie)
	if code != 422 || !strings.Contains(body, `id="embedOrigins-err"`) || !strings.Contains(body, "no path") {
		t.Fatalf("a bad site = %d", code)
	}
	if after, _ := app.surveys.List(ctx, "adatum"); len(after) != 1 {
		t.Fatalf("a refused form saved a survey: %d surveys", len(after))
	}

	sv := before
	sv.EmbedOrigins = []string{"https://www.adatum.example", "http://localhost:8080"}
	if err := app.surveys.Update(ctx, sv); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "/thankyou"} {
		csp, xfo := framing(p, nil)
		if !strings.Contains(csp, "frame-ancestors https://www.adatum.example http://localhost:8080;") || xfo != "" {
			t.Errorf("%s of a survey that names two sites: %q, X-Frame-Options %q", p, csp, xfo)
		}
	}
	if csp, xfo := framing("/adatum/surveys/"+sv.Slug+"/analyze", cookie); !strings.Contains(csp, "frame-ancestors 'none'") || xfo != "DENY" {
		t.Errorf("the analysis page: %q, %q", csp, xfo)
	}
	_, _, share := app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/share", nil, cookie)
	if !strings.Contains(share, "&lt;iframe src=&#34;http://") || !strings.Contains(share, "/static/embed.js") || !strings.Contains(share, "<code>https://www.adatum.example</code>") {
		t.Errorf("the share page's snippet:\n%s", share)
	}
	if _, _, page := app.do(t, "GET", path, nil, nil); !strings.Contains(page, "/static/embedded.js") {
		t.Error("the survey page lacks the script that reports its height to the page around it")
	}
}

// TestFramedPages: a survey's pages asked for a frame (an embedded
// survey: Sec-Fetch-Dest: iframe) come without the site's header and
// footer, the first page from its own cached form; asked as a page, with
// them. Both say they vary by it.
func TestFramedPages(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	path := app.path()
	for _, c := range []struct {
		dest   string
		framed bool
	}{{"iframe", true}, {"document", false}, {"iframe", true}, {"", false}} {
		code, h, body := app.do(t, "GET", path, nil, map[string]string{"Sec-Fetch-Dest": c.dest})
		if code != 200 || !strings.Contains(strings.Join(h.Values("Vary"), ", "), "Sec-Fetch-Dest") {
			t.Fatalf("GET with Sec-Fetch-Dest %q = %d, Vary %q", c.dest, code, h.Get("Vary"))
		}
		if got := !strings.Contains(body, `class="site-header"`) && strings.Contains(body, `<body class="framed">`); got != c.framed {
			t.Errorf("Sec-Fetch-Dest %q: framed %v, want %v", c.dest, got, c.framed)
		}
		if !strings.Contains(body, `name="token"`) {
			t.Errorf("Sec-Fetch-Dest %q: no form", c.dest)
		}
	}
	// The thank-you page of a framed answer: framed too.
	code, h, _ := app.do(t, "POST", path, app.complete(app.token(t, path)), map[string]string{"Sec-Fetch-Dest": "iframe"})
	if code != http.StatusSeeOther {
		t.Fatalf("answer = %d", code)
	}
	_, _, body := app.do(t, "GET", h.Get("Location"), nil, map[string]string{"Sec-Fetch-Dest": "iframe"})
	if strings.Contains(body, `class="site-header"`) || !strings.Contains(body, `class="framed"`) {
		t.Errorf("the framed thank-you page has the site's header:\n%s", body)
	}
}

// TestAllowEmbedSiteFromSharePage: an editor allows a site from the share
// page (the snippet then works from it; added once, beside those the
// designer lists); a site that is not one is refused beside the field
// (422), nothing saved; a viewer sees no such form and may not post it.
func TestAllowEmbedSiteFromSharePage(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	users := testUsers(app.st)
	if _, err := users.Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if _, err := users.AddMember(ctx, "adatum", "vic@adatum.example", "correct horse battery", survey.Viewer); err != nil {
		t.Fatal(err)
	}
	ana := map[string]string{"Cookie": sessionOf(t, app, "adatum", "ana@adatum.example", survey.Admin)}
	vic := map[string]string{"Cookie": sessionOf(t, app, "adatum", "vic@adatum.example", survey.Viewer)}
	share := "/adatum/surveys/" + app.adatum.Slug + "/share"
	allow := "/adatum/surveys/" + app.adatum.Slug + "/embed-site"

	_, _, page := app.do(t, "GET", share, nil, ana)
	mustContain(t, "share page", page, `action="`+allow+`"`, `id="embed-site"`, "No site may show this survey in a frame yet")
	for _, bad := range []string{"", "https://www.adatum.example/page", "not a site", "https://a.example https://b.example"} {
		code, _, body := app.do(t, "POST", allow, url.Values{"site": {bad}}, ana)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="embed-site-err"`) || !strings.Contains(body, `aria-invalid="true"`) {
			t.Errorf("site %q = %d", bad, code)
		}
	}
	if sv, _ := app.surveys.Get(ctx, "adatum", app.adatum.Slug); len(sv.EmbedOrigins) != 0 {
		t.Fatalf("a refused site was saved: %v", sv.EmbedOrigins)
	}
	for range 2 {
		code, h, _ := app.do(t, "POST", allow, url.Values{"site": {"https://www.adatum.example"}}, ana)
		if code != http.StatusSeeOther || h.Get("Location") != share+"#embed-title" {
			t.Fatalf("allow = %d %q", code, h.Get("Location"))
		}
	}
	if sv, _ := app.surveys.Get(ctx, "adatum", app.adatum.Slug); strings.Join(sv.EmbedOrigins, " ") != "https://www.adatum.example" || sv.EditedBy != "ana@adatum.example" {
		t.Fatalf("allowed: %v by %q", sv.EmbedOrigins, sv.EditedBy)
	}
	_, _, page = app.do(t, "GET", share, nil, ana)
	mustContain(t, "share page after", page, "<code>https://www.adatum.example</code>")
	_, _, page = app.do(t, "GET", share, nil, vic)
	mustLack(t, "a viewer's share page", page, `id="embed-site"`)
	if code, _, _ := app.do(t, "POST", allow, url.Values{"site": {"https://evil.example"}}, vic); code != http.StatusForbidden {
		t.Errorf("a viewer's post = %d, want 403", code)
	}
}
