package web_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// wrongPlural finds a count of 1 with a plural noun, or another count
// with a singular one, in the text of a page.
var wrongPlural = regexp.MustCompile(`\b1(</strong>)?(<span class="sr-only">)? (answers|questions|surveys|views|pages|rows|stars|days)\b|\b([02-9]|\d\d+)(</strong>)?(<span class="sr-only">)? (answer|question|survey|view|page|row|star|day)\b[^-]`)

// TestPluralsOnPages renders the subscriber's and the public pages with 0,
// 1 and 2 answers to the demo survey: each count has its noun in the right
// number.
func TestPluralsOnPages(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	base := "/adatum/surveys/" + app.adatum.Slug
	for n, want := range []map[string][]string{
		0: {
			base + "/analyze":       {`<strong class="big-number">0</strong> answers so far`, `<strong>0</strong> answers</span>`},
			base + "/answers/table": {`0 answers · page`},
		},
		1: {
			base + "/analyze":       {`<strong class="big-number">1</strong> answer so far`, `<strong>1</strong> answer</span>`, `<strong>1</strong><span class="sr-only"> answer,</span>`},
			base + "/answers/table": {`1 answer · page 1 of 1`},
			base + "/answers":       {`Answer 1 of 1`},
			"/adatum/surveys":       {`<span class="muted">1 answer</span>`},
		},
		2: {
			base + "/analyze":       {`<strong class="big-number">2</strong> answers so far`, `<strong>2</strong> answers</span>`, `<strong>2</strong><span class="sr-only"> answers,</span>`},
			base + "/answers/table": {`2 answers · page 1 of 1`},
			"/adatum/surveys":       {`<span class="muted">2 answers</span>`},
		},
	} {
		if n > 0 {
			if code, _, body := app.do(t, "POST", app.path(), app.complete(app.token(t, app.path())), nil); code != 303 {
				t.Fatalf("answer %d = %d\n%s", n, code, body)
			}
			if got := app.stored(t); got != n {
				t.Fatalf("%d answers stored, want %d", got, n)
			}
		}
		for path, wants := range want {
			code, _, body := app.get(t, path, ana)
			if code != 200 {
				t.Fatalf("%d answers: GET %s = %d", n, path, code)
			}
			for _, w := range wants {
				if !strings.Contains(body, w) {
					t.Errorf("%d answers: %s lacks %q", n, path, w)
				}
			}
		}
		// No page says "1 answers" or "2 answer", whatever the count.
		for _, path := range []string{base + "/analyze", base + "/answers/table", base + "/answers", "/adatum/surveys", "/", app.path()} {
			_, _, body := app.get(t, path, ana)
			if m := wrongPlural.FindString(body); m != "" {
				t.Errorf("%d answers: %s says %q", n, path, m)
			}
		}
	}
}
