package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
)

// TestAnalyzeLive: the analysis page has no Refresh header but a Refresh
// link and the script that asks …/analyze/live?since=N, which is 204 while
// the survey has N answers and the summary block, with the new count, once
// an answer is merged. A filtered page does not ask.
func TestAnalyzeLive(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	answer := func() {
		t.Helper()
		if code, _, _ := app.do(t, "POST", app.path(), app.complete(app.token(t, app.path())), nil); code != 303 {
			t.Fatal("answer refused")
		}
		app.stored(t)
	}
	answer()
	answer()
	base := "/adatum/surveys/" + app.adatum.Slug + "/analyze"

	code, h, body := app.get(t, base, ana)
	for _, want := range []string{`data-live="` + base + `/live"`, `data-total="2"`, `<strong class="big-number">2</strong>`, `/static/analyze.js?v=`, `href="` + base + `">Refresh</a>`, `class="live-news" role="status"`} {
		if !strings.Contains(body, want) {
			t.Errorf("analysis page (%d) lacks %q", code, want)
		}
	}
	if h.Get("Refresh") != "" {
		t.Errorf("analysis page reloads itself: Refresh %q", h.Get("Refresh"))
	}

	if code, _, body := app.get(t, base+"/live?since=2", ana); code != http.StatusNoContent || body != "" {
		t.Errorf("live with nothing new = %d %q, want 204", code, body)
	}
	answer()
	code, h, body = app.get(t, base+"/live?since=2", ana)
	if code != http.StatusOK || !strings.HasPrefix(body, `<div class="analysis-summary" data-total="3">`) || !strings.Contains(body, `<strong class="big-number">3</strong>`) ||
		strings.Contains(body, "<html") || strings.Contains(body, "survey-bar") || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Errorf("live after an answer = %d %q:\n%s", code, h.Get("Content-Type"), body)
	}
	if code, _, _ := app.get(t, base+"/live?since=3", ana); code != http.StatusNoContent {
		t.Errorf("live, up to date again = %d, want 204", code)
	}
	// A bad since is answered with the summary.
	if code, _, body := app.get(t, base+"/live?since=x", ana); code != http.StatusOK || !strings.Contains(body, `data-total="3"`) {
		t.Errorf("live?since=x = %d", code)
	}
	// Signed out: no fragment, the sign-in page's redirect.
	if code, _, _ := app.get(t, base+"/live?since=0", nil); code != http.StatusSeeOther {
		t.Errorf("live signed out = %d, want 303", code)
	}
	q := app.adatum.Questions[1].ID
	if _, _, body := app.get(t, base+"?q="+q+"&a=Mobile+app", ana); strings.Contains(body, "data-live") || strings.Contains(body, "analyze.js") {
		t.Errorf("a filtered analysis asks for updates")
	}
}

// TestAnswerFilters: one filter (days, one answer) on the analysis, the
// browse and table pages, the exports and the API; their links and export
// buttons keep it; a bad one is 422 beside its field (a JSON error from
// the API); and every count is of the answers left after a deletion.
func TestAnswerFilters(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	token, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	q := app.adatum.Questions
	var ids []string
	for _, product := range []string{"Mobile app", "Web portal", "Mobile app", "Mobile app"} {
		tok := app.token(t, app.path())
		v := app.complete(tok)
		v.Set("q-"+q[1].ID, product)
		if code, _, _ := app.do(t, "POST", app.path(), v, nil); code != 303 {
			t.Fatal("answer refused")
		}
		ids = append(ids, answerID(tok))
	}
	app.stored(t)
	base := "/adatum/surveys/" + app.adatum.Slug
	today := time.Now().UTC().Format(time.DateOnly)
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	mobile := url.Values{"q": {q[1].ID}, "a": {"Mobile app"}}.Encode()
	web := url.Values{"q": {q[1].ID}, "a": {"web PORTAL"}}.Encode()
	// A query in an attribute, as html/template writes it.
	attr := strings.NewReplacer("&", "&amp;", "+", "&#43;").Replace

	code, _, body := app.get(t, base+"/analyze?"+mobile, ana)
	for _, want := range []string{"Filtered: <strong class=\"big-number\">3</strong> of 4 answers", "is “Mobile app”",
		`<span class="bars-label">Mobile app</span>`, `<strong>3</strong><span class="sr-only"> answers,</span> <span class="bars-share">100%</span>`,
		`href="` + base + `/export.csv?` + attr(mobile) + `">Export CSV (filtered)`,
		`href="` + base + `/answers/table?` + attr(mobile) + `"`,
		`<option value="` + q[1].ID + `" selected>`, `value="Mobile app" list="f-choices"`} {
		if !strings.Contains(body, want) {
			t.Errorf("filtered analysis (%d) lacks %q", code, want)
		}
	}
	if code, _, body := app.get(t, base+"/analyze?from="+today+"&to="+today+"&"+web, ana); code != 200 || !strings.Contains(body, "Filtered: <strong class=\"big-number\">1</strong> of 4 answers") {
		t.Errorf("analysis of today's web portal answers = %d", code)
	}
	if code, _, body := app.get(t, base+"/analyze?from="+tomorrow, ana); code != 200 || !strings.Contains(body, "Filtered: <strong class=\"big-number\">0</strong> of 4 answers") {
		t.Errorf("analysis from tomorrow = %d", code)
	}

	code, _, body = app.get(t, base+"/answers/table?"+web, ana)
	if code != 200 || strings.Count(body, `<tr><td class="received">`) != 1 || !strings.Contains(body, "Filtered: 1 of 4 answers · page 1 of 1") {
		t.Errorf("filtered table = %d with %d rows", code, strings.Count(body, `<tr><td class="received">`))
	}
	code, _, body = app.get(t, base+"/answers?i=1&"+mobile, ana)
	if code != 200 || !strings.Contains(body, "Answer 2 of 3 (filtered, of 4 answers)") || !strings.Contains(body, `href="`+attr("?a=Mobile+app&i=2&q="+q[1].ID)+`" rel="next"`) ||
		!strings.Contains(body, `<input type="hidden" name="a" value="Mobile app">`) {
		t.Errorf("filtered browse = %d", code)
	}
	if code, _, _ := app.get(t, base+"/answers?i=3&"+mobile, ana); code != 404 {
		t.Errorf("filtered browse past the end = %d", code)
	}

	code, _, body = app.get(t, base+"/export.csv?"+mobile, ana)
	if code != 200 || strings.Count(body, "\n") != 4 || strings.Contains(body, ids[1]) || !strings.Contains(body, ids[3]) {
		t.Errorf("filtered CSV = %d:\n%s", code, body)
	}
	if code, _, body := app.get(t, base+"/export.json?from="+tomorrow, ana); code != 200 || body != "" {
		t.Errorf("JSON export from tomorrow = %d %q", code, body)
	}
	if code, v, raw := app.api(t, "GET", "/api/v1/surveys/"+app.adatum.Slug+"/answers?"+web, token, ""); code != 200 || v["total"] != 1.0 || !strings.Contains(raw, ids[1]) {
		t.Errorf("API answers filtered = %d %s", code, raw)
	}
	if code, _, raw := app.api(t, "GET", "/api/v1/surveys/"+app.adatum.Slug+"/export?format=csv&to="+today+"&"+mobile, token, ""); code != 200 || strings.Count(raw, "\n") != 4 {
		t.Errorf("API export filtered = %d %s", code, raw)
	}

	// Bad filters: 422, the problem beside its field, no answers shown.
	for _, p := range []string{"/analyze?from=2026-13-01", "/answers?from=2026-13-01", "/answers/table?from=2026-13-01"} {
		code, _, body := app.get(t, base+p, ana)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, `aria-invalid="true" aria-describedby="f-from-error"`) ||
			!strings.Contains(body, `<p class="field-error" id="f-from-error">Give a day as YYYY-MM-DD`) || strings.Contains(body, "big-number") || strings.Contains(body, `<tr><td class="received">`) {
			t.Errorf("GET %s = %d", p, code)
		}
	}
	if code, _, body := app.get(t, base+"/answers/table?a=Mobile+app", ana); code != 422 || !strings.Contains(body, `id="f-q-error">Choose the question`) {
		t.Errorf("an answer without its question = %d", code)
	}
	if code, _, body := app.get(t, base+"/export.csv?to=soon", ana); code != 422 || !strings.Contains(body, "to: Give a day as YYYY-MM-DD") {
		t.Errorf("export with a bad filter = %d", code)
	}
	code, v, raw := app.api(t, "GET", "/api/v1/surveys/"+app.adatum.Slug+"/answers?q=nope&a=1", token, "")
	if fields, _ := v["fields"].(map[string]any); code != 422 || fields["q"] != "This survey has no such question." {
		t.Errorf("API answers with a bad filter = %d %s", code, raw)
	}
	if code, _, raw := app.api(t, "GET", "/api/v1/surveys/"+app.adatum.Slug+"/export?from=x", token, ""); code != 422 || !strings.Contains(raw, `"from":"Give a day`) {
		t.Errorf("API export with a bad filter = %d %s", code, raw)
	}

	// Delete the web portal answer from the filtered browse page: to the
	// table with the same filter, and every count is of the 3 answers left.
	code, h, _ := app.do(t, "POST", base+"/answers/"+ids[1]+"/delete", url.Values{"i": {"0"}, "q": {q[1].ID}, "a": {"Web portal"}, "confirm": {"1"}}, map[string]string{"Cookie": "surveys_session=" + ana.Value})
	if want := base + "/answers/table?a=Web+portal&deleted=1&q=" + q[1].ID; code != 303 || h.Get("Location") != want {
		t.Errorf("delete = %d to %q, want %q", code, h.Get("Location"), want)
	}
	if code, _, body := app.get(t, base+"/answers/table", ana); code != 200 || !strings.Contains(body, "3 answers · page 1 of 1") || strings.Count(body, `<tr><td class="received">`) != 3 {
		t.Errorf("table after a deletion = %d with %d rows", code, strings.Count(body, `<tr><td class="received">`))
	}
	if code, _, body := app.get(t, base+"/answers?i=2", ana); code != 200 || !strings.Contains(body, "Answer 3 of 3") || !strings.Contains(body, `<a role="link" aria-disabled="true">Last »</a>`) {
		t.Errorf("last answer after a deletion = %d", code)
	}
	if code, _, _ := app.get(t, base+"/answers?i=3", ana); code != 404 {
		t.Errorf("browse past the answers left = %d", code)
	}
	// The latest answers' links number them among those left.
	if code, _, body := app.get(t, base+"/analyze", ana); code != 200 || !strings.Contains(body, `<strong class="big-number">3</strong>`) ||
		!strings.Contains(body, `/answers?i=2">Answer 3</a>`) || strings.Contains(body, `/answers?i=3"`) {
		t.Errorf("analysis after a deletion = %d", code)
	}
	if code, _, body := app.get(t, base+"/analyze?"+web, ana); code != 200 || !strings.Contains(body, "Filtered: <strong class=\"big-number\">0</strong> of 3 answers") {
		t.Errorf("filtered analysis after a deletion = %d", code)
	}
	if code, v, raw := app.api(t, "GET", "/api/v1/surveys/"+app.adatum.Slug+"/answers", token, ""); code != 200 || v["total"] != 3.0 || strings.Contains(raw, ids[1]) {
		t.Errorf("API answers after a deletion = %d %s", code, raw)
	}
}
