package web_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestPagerEndsAndCurrentTab: the answers' first / previous / next / last
// are links only where they lead elsewhere (at the ends, disabled and not
// links to the page itself), and a survey's tabs mark the current one.
func TestPagerEndsAndCurrentTab(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	for i := 0; i < 26; i++ { // two pages of the table (25 a page)
		if code, _, body := app.do(t, "POST", app.path(), app.complete(app.token(t, app.path())), nil); code != 303 {
			t.Fatalf("answer %d = %d\n%s", i, code, body)
		}
	}
	if n := app.stored(t); n != 26 {
		t.Fatalf("%d answers stored", n)
	}
	base := "/adatum/surveys/" + app.adatum.Slug
	off := func(label string) string { return `<a role="link" aria-disabled="true">` + label + `</a>` }
	for _, tc := range []struct {
		path      string
		want      []string
		notLinked string // no link to the page itself
	}{
		{base + "/answers/table", []string{off("« First page"), off("‹ Previous page"), `<a href="?page=2" rel="next">Next page ›</a>`, `<a href="?page=2" rel="last">Last page »</a>`}, `href="?page=1"`},
		{base + "/answers/table?page=2", []string{`<a href="?page=1" rel="first">« First page</a>`, `<a href="?page=1" rel="prev">‹ Previous page</a>`, off("Next page ›"), off("Last page »")}, `href="?page=2"`},
		{base + "/answers", []string{off("« First"), off("‹ Previous"), `<a href="?i=1" rel="next">Next ›</a>`, `<a href="?i=25" rel="last">Last »</a>`}, `href="?i=0"`},
		{base + "/answers?i=12", []string{`<a href="?i=0" rel="first">« First</a>`, `<a href="?i=11" rel="prev">‹ Previous</a>`, `<a href="?i=13" rel="next">Next ›</a>`, `<a href="?i=25" rel="last">Last »</a>`}, `href="?i=12"`},
		{base + "/answers?i=25", []string{`<a href="?i=0" rel="first">« First</a>`, `<a href="?i=24" rel="prev">‹ Previous</a>`, off("Next ›"), off("Last »")}, `href="?i=25"`},
	} {
		code, _, body := app.get(t, tc.path, ana)
		if code != 200 {
			t.Fatalf("GET %s = %d", tc.path, code)
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %s", tc.path, w)
			}
		}
		if strings.Contains(body, tc.notLinked) {
			t.Errorf("%s links to itself (%s)", tc.path, tc.notLinked)
		}
		if n := strings.Count(body, `aria-disabled="true"`); n%2 != 0 || strings.Count(body, "<a role=\"link\" aria-disabled=\"true\" href") > 0 {
			t.Errorf("%s: %d disabled links", tc.path, n)
		}
	}

	// The tabs: one current, the page's own.
	code, _, analysis := app.get(t, base+"/analyze", ana)
	written := regexp.MustCompile(`class="written-all" href="([^"]+)"`).FindStringSubmatch(analysis)
	if code != 200 || written == nil {
		t.Fatalf("analysis = %d, with no link to written answers", code)
	}
	current := regexp.MustCompile(`<a href="[^"]*/([a-z./]+)" aria-current="(page|true)">([^<]+)</a>`)
	for _, tc := range []struct{ path, tab, how string }{
		{base + "/analyze", "Analysis", "page"},
		{base + "/share", "Share", "page"},
		{base + "/answers", "Answers", "page"},
		{base + "/answers?i=3", "Answers", "page"},
		{base + "/answers/table", "Table", "page"},
		{written[1], "Analysis", "true"},
		{base + "/crosstab", "Analysis", "true"},
	} {
		_, _, body := app.get(t, tc.path, ana)
		// The tabs only: the table's order links mark theirs too.
		body = regexp.MustCompile(`(?s)<nav class="tabs".*?</nav>`).FindString(body)
		got := current.FindAllStringSubmatch(body, -1)
		if len(got) != 1 || got[0][3] != tc.tab || got[0][2] != tc.how || strings.Count(body, "aria-current") != 1 {
			t.Errorf("%s marks %v as current, want only %s (aria-current=%q)", tc.path, got, tc.tab, tc.how)
		}
	}
}
