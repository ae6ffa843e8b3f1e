package web_test

import (
	"context"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestAnswerTableView: the answers table newest first or oldest first,
// its rows linking to each answer's page; the column picker's questions
// only; both kept by the pager and beside the filter; an unknown column
// left out.
func TestAnswerTableView(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	q := app.adatum.Questions
	texts := make([]string, 27) // two pages of 25
	for i := range texts {
		texts[i] = "Answer number " + string(rune('A'+i%26)) + strings.Repeat("!", i/26)
		v := app.complete(app.token(t, app.path()))
		v.Set("q-"+q[3].ID, texts[i])
		if code, _, _ := app.do(t, "POST", app.path(), v, nil); code != 303 {
			t.Fatal("answer refused")
		}
	}
	app.stored(t)
	table := "/adatum/surveys/" + app.adatum.Slug + "/answers/table"
	rowLink := regexp.MustCompile(`<td class="received"><a href="/adatum/surveys/[^/]+/answers\?([^"]*)"`)
	get := func(query string) string {
		t.Helper()
		code, _, body := app.get(t, table+query, ana)
		if code != 200 {
			t.Fatalf("%s = %d", query, code)
		}
		return body
	}
	// firstRow is the page's first row's answer (?i=) and its text.
	firstRow := func(body string) (string, int) {
		t.Helper()
		m := rowLink.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no row links:\n%s", body)
		}
		v, _ := url.ParseQuery(html.UnescapeString(m[1]))
		return v.Get("i"), strings.Count(body, `<td class="received">`)
	}

	for _, tc := range []struct {
		name, query, firstI string
		rows                int
		first, absent       string
	}{
		{"oldest first", "", "0", 25, texts[0], texts[26]},
		{"oldest, page 2", "?page=2", "25", 2, texts[25], texts[0]},
		{"newest first", "?order=newest", "26", 25, texts[26], texts[0]},
		{"newest, page 2", "?order=newest&page=2", "1", 2, texts[1], texts[26]},
	} {
		body := get(tc.query)
		i, rows := firstRow(body)
		if i != tc.firstI || rows != tc.rows || !strings.Contains(body, html.EscapeString(tc.first)) || strings.Contains(body, ">"+html.EscapeString(tc.absent)+"<") {
			t.Errorf("%s: first row ?i=%s, %d rows; want ?i=%s, %d rows, %q shown and not %q", tc.name, i, rows, tc.firstI, tc.rows, tc.first, tc.absent)
		}
		// The row's link opens that answer.
		if _, _, page := app.get(t, "/adatum/surveys/"+app.adatum.Slug+"/answers?i="+i, ana); !strings.Contains(page, html.EscapeString(tc.first)) {
			t.Errorf("%s: the first row's answer page lacks %q", tc.name, tc.first)
		}
	}

	// The columns picked, newest first: the pager keeps both.
	body := get("?order=newest&col=" + q[3].ID + "&col=" + q[0].ID + "&col=nosuch")
	heads := regexp.MustCompile(`<th scope="col"[^>]*>([^<]*)<`).FindAllStringSubmatch(body, -1)
	if len(heads) != 3 || heads[1][1] != html.EscapeString(q[0].Text) || heads[2][1] != html.EscapeString(q[3].Text) {
		t.Errorf("picked columns: headings %q", heads)
	}
	for _, want := range []string{
		`rel="next"`, "col=" + q[0].ID, "order=newest",
		`<input type="checkbox" name="col" value="` + q[3].ID + `" checked>`,
		`<input type="checkbox" name="col" value="` + q[1].ID + `">`,
		`<input type="hidden" name="order" value="newest">`,
		"Columns: 2 of ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("picked columns: the page lacks %q", want)
		}
	}
	next := regexp.MustCompile(`<a href="([^"]*)" rel="next">`).FindStringSubmatch(body)
	if next == nil || !strings.Contains(html.UnescapeString(next[1]), "col="+q[3].ID) || !strings.Contains(next[1], "order=newest") || !strings.Contains(next[1], "page=2") {
		t.Errorf("the next page's link drops the view: %q", next)
	}
	// A filter, newest first: the filter's answers only, its query kept
	// by the order's links.
	body = get("?q=" + q[3].ID + "&a=" + url.QueryEscape(texts[2]) + "&order=newest")
	if i, rows := firstRow(body); rows != 1 || i != "0" || !strings.Contains(body, texts[2]) {
		t.Errorf("filtered, newest first: %d rows, first ?i=%s", rows, i)
	}
	if !regexp.MustCompile(`<a href="\?[^"]*q=` + q[3].ID + `[^"]*">Oldest first</a>`).MatchString(body) {
		t.Errorf("the order's link drops the filter")
	}
}
