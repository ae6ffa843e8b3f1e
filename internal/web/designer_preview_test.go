package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

var defRE = regexp.MustCompile(`name="def" value="([^"]+)"`)

// previewLink signs in to adatum and follows the survey's preview
// address to its preview link.
func (a *testApp) previewLink(t *testing.T, slug string) string {
	t.Helper()
	if _, err := testUsers(a.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil && survey.ErrorCode(err) != survey.ECONFLICT {
		t.Fatal(err)
	}
	_, c := a.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	code, h, _ := a.do(t, "GET", "/adatum/surveys/"+slug+"/preview", nil, map[string]string{"Cookie": "surveys_session=" + c.Value})
	link := h.Get("Location")
	if code != http.StatusSeeOther || !strings.HasPrefix(link, "/preview/") {
		t.Fatalf("preview = %d %q", code, link)
	}
	return link
}

// TestPreviewRunsTheSurvey: a draft's preview link, opened signed out,
// runs the real survey: one section per page, the jump on No to the last
// page ("Page 2 of 2"), the condition on Yes, Back with the answers kept,
// a required question refused beside it, the languages; its last page
// says nothing was stored, and nothing was: no answer, no saved progress,
// the survey still a draft. Its pages are never cached or indexed.
func TestPreviewRunsTheSurvey(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	sv, ids := app.carSurveyIn(t, "Car preview", survey.Draft)
	link := app.previewLink(t, sv.Slug)

	code, h, body := app.do(t, "GET", link, nil, nil)
	if code != 200 {
		t.Fatalf("GET %s = %d", link, code)
	}
	mustContain(t, "first page", body, "<strong>Preview</strong>", "Nothing entered here is stored", "Page 1 of 3", "Do you own a car?",
		`action="`+link+`"`, `value="next">Next page</button>`, `lang="fr"`)
	mustLack(t, "first page", body, "Save and finish later", "disabled")
	if h.Get("Cache-Control") != "no-store" || !strings.Contains(h.Get("X-Robots-Tag"), "noindex") {
		t.Errorf("preview headers: %v", h)
	}

	// No: the jump to the last page.
	app.walk(t, link, ids, []logicStep{
		{"next", []string{"own", "No"}, 200, []string{"Page 2 of 2", "Last words", `value="submit">Submit answers</button>`}, []string{"Which brand is it?"}},
		{"submit", []string{"rate", "4"}, 200, []string{"Thank you!", "Nothing entered here is stored", "Start the preview again"}, []string{"Submit another answer"}},
	})
	// Yes: every page, the condition on an earlier page, Back, checks.
	app.walk(t, link, ids, []logicStep{
		{"next", []string{"own", "Yes", "kind", "Estate"}, 200, []string{"Page 2 of 3", "Which brand is it?"}, nil},
		{"back", []string{"brand", "Volvo"}, 200, []string{"Page 1 of 3", `value="Estate"`}, nil},
		{"next", []string{"own", "Yes", "kind", "Estate"}, 200, []string{"Page 2 of 3", `value="Volvo"`}, nil},
		{"next", []string{"brand", "Volvo"}, 200, []string{"Page 3 of 3", "Would you buy the same car again?"}, nil},
		{"submit", nil, 422, []string{"Page 3 of 3", "Please give a rating from 1 to 5 stars."}, nil},
		{"lang.fr", []string{"rate", "5"}, 200, []string{`lang="fr"`, "Page 3 sur 3"}, nil},
		{"save", nil, 422, []string{"A preview stores nothing"}, nil},
		{"submit", []string{"rate", "5", "again", "Yes"}, 200, []string{"Nothing entered here is stored"}, nil},
	})
	if n := len(app.storedAnswers(t, sv.Slug)); n != 0 {
		t.Errorf("a preview stored %d answers", n)
	}
	if got, err := app.surveys.Get(ctx, "adatum", sv.Slug); err != nil || got.State != survey.Draft {
		t.Errorf("after the preview: %v %v", got.State, err)
	}
	// Start again: the first page.
	code, body = app.post(t, link, "", "", "")
	mustContain(t, "start again", body, "Page 1 of 3")
	if code != 200 {
		t.Errorf("start again = %d", code)
	}
}

// TestPreviewLinks: a link altered, or naming another tenant's survey,
// opens nothing (404); one past its days says it expired (410); a survey
// in the trash is not shown; the signed-in address needs a member who may
// read results.
func TestPreviewLinks(t *testing.T) {
	t.Parallel()
	clock := &testClock{}
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Clock = clock.Now })
	link := app.previewLink(t, app.adatum.Slug)
	if code, _, _ := app.do(t, "GET", link, nil, nil); code != 200 {
		t.Fatalf("GET %s = %d", link, code)
	}
	body, sig, _ := strings.Cut(strings.TrimPrefix(link, "/preview/"), ".")
	for _, bad := range []string{
		"/preview/" + body + "." + strings.ToUpper(sig),
		"/preview/" + body + "x." + sig,
		"/preview/" + body,
		"/preview/eyJ0IjoiZmFicmlrYW0iLCJzIjoieCIsImUiOjk5OTk5OTk5OTk5fQ." + sig,
	} {
		if code, _, _ := app.do(t, "GET", bad, nil, nil); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", bad, code)
		}
		if code, _, _ := app.do(t, "POST", bad, url.Values{"token": {"preview-x"}}, nil); code != http.StatusNotFound {
			t.Errorf("POST %s = %d, want 404", bad, code)
		}
	}
	if code, _, _ := app.do(t, "GET", "/adatum/surveys/"+app.adatum.Slug+"/preview", nil, nil); code != http.StatusSeeOther {
		t.Errorf("signed out: %d, want the way to sign in", code)
	}
	clock.Advance(8 * 24 * time.Hour)
	if code, _, page := app.do(t, "GET", link, nil, nil); code != http.StatusGone || !strings.Contains(page, "has expired") {
		t.Errorf("after 8 days: %d", code)
	}
	// A fresh link, then the survey goes to the trash.
	link = app.previewLink(t, app.adatum.Slug)
	if err := app.surveys.Trash(context.Background(), "adatum", app.adatum.Slug); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := app.do(t, "GET", link, nil, nil); code != http.StatusNotFound {
		t.Errorf("a trashed survey's preview = %d", code)
	}
}

// TestPreviewOfUnsavedEdits: the designer's Preview runs the survey its
// form defines, unsaved, page by page (the definition sealed in the
// preview's form); a definition altered on the way, or moved to another
// preview link, is refused (422) and nothing is saved.
func TestPreviewOfUnsavedEdits(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	link := app.previewLink(t, app.adatum.Slug) // signs ana in
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	before, _ := app.surveys.List(context.Background(), "adatum")
	form := url.Values{"title": {"Paged lunch"}, "n": {"2"}, "ns": {"2"}, "s.0.id": {"s1"}, "s.1.id": {"s2"}, "s.1.title": {"Food"},
		"q.0.text": {"Your name"}, "q.0.type": {"SimpleText"}, "q.0.section": {"0"},
		"q.1.text": {"Rate the food"}, "q.1.type": {"FiveStars"}, "q.1.section": {"1"}, "action": {"preview"}}
	code, _, body := app.do(t, "POST", "/adatum/surveys/new", form, cookie)
	if code != 200 {
		t.Fatalf("preview = %d\n%s", code, body)
	}
	mustContain(t, "unsaved preview", body, "<strong>Preview</strong> of unsaved edits", "Page 1 of 2", "Your name", `action="/preview/`)
	m := defRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no definition in the preview's form")
	}
	def := html.UnescapeString(m[1])
	action := html.UnescapeString(regexp.MustCompile(`<form method="post" action="([^"]+)"`).FindStringSubmatch(body)[1])
	token, _ := formOf(t, body)
	step := func(to, def string, fields ...string) (int, string) {
		v := url.Values{"token": {token}, "def": {def}, "action": {"next"}}
		for i := 0; i+1 < len(fields); i += 2 {
			v.Set(fields[i], fields[i+1])
		}
		code, _, body := app.do(t, "POST", to, v, nil)
		return code, body
	}
	code, body = step(action, def, "q-preview_1", "Ana")
	if code != 200 {
		t.Fatalf("next = %d\n%s", code, body)
	}
	mustContain(t, "page 2", body, "Page 2 of 2", "Rate the food", "of unsaved edits")
	mustLack(t, "page 2", body, "data-page-url")
	if code, body := step(action, def[:len(def)-4]+"AAAA"); code != http.StatusUnprocessableEntity || !strings.Contains(body, "could not be read") {
		t.Errorf("an altered definition = %d", code)
	}
	if code, _ := step(link, def); code != http.StatusUnprocessableEntity {
		t.Errorf("the definition on another link = %d", code)
	}
	if after, _ := app.surveys.List(context.Background(), "adatum"); len(after) != len(before) {
		t.Errorf("a preview saved a survey: %d surveys, was %d", len(after), len(before))
	}
}

// TestPreviewPageFromHistory: a preview's pages, like a respondent's,
// carry the address that shows them again for the browser's Back and
// Forward (the survey as saved; a preview of unsaved edits has none);
// opened, the page comes back with its answers, stores nothing; altered,
// it is refused.
func TestPreviewPageFromHistory(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv, ids := app.carSurveyIn(t, "Car preview history", survey.Draft)
	link := app.previewLink(t, sv.Slug)
	_, _, again := app.carPage2(t, link, ids)
	if !strings.HasPrefix(again, link+"?") {
		t.Fatalf("page 2's address: %s", again)
	}
	code, h, body := app.do(t, "GET", again, nil, nil)
	if code != 200 || !strings.Contains(h.Get("X-Robots-Tag"), "noindex") {
		t.Fatalf("GET page 2's address = %d", code)
	}
	mustContain(t, "page 2 again", body, "<strong>Preview</strong>", "Page 2 of 3", "Which brand is it?", `action="`+link+`"`)
	if code, _, _ := app.do(t, "GET", strings.Replace(again, "s=", "s=x", 1), nil, nil); code != http.StatusUnprocessableEntity {
		t.Errorf("an altered address = %d, want 422", code)
	}
	if n := len(app.storedAnswers(t, sv.Slug)); n != 0 {
		t.Errorf("the preview stored %d answers", n)
	}
}

// TestPreviewPath: a preview's page learns where the answers lead as they
// are given (path.js), from the survey as saved or from the unsaved
// definition its form carries.
func TestPreviewPath(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv, ids := app.carSurveyIn(t, "Car preview path", survey.Draft)
	link := app.previewLink(t, sv.Slug)
	_, _, first := app.do(t, "GET", link, nil, nil)
	mustContain(t, "preview's first page", first, `data-path="`+link+`/path"`, "/static/path.js")
	token, _ := formOf(t, first)
	code, _, body := app.do(t, "POST", link+"/path", url.Values{"token": {token}, "q-" + ids["own"]: {"No"}}, nil)
	if code != 200 || !strings.Contains(body, `"progress":"Page 1 of 2"`) {
		t.Errorf("path of No = %d %s", code, body)
	}
	if n := len(app.storedAnswers(t, sv.Slug)); n != 0 {
		t.Errorf("asking stored %d answers", n)
	}
}
