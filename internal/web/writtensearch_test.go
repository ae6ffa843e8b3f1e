package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestWrittenSearch: the written answers of a question searched for a
// word, ignoring case, newest first, a page at a time with the search
// kept by the pager; an empty search lists them all; a search too long
// is refused.
func TestWrittenSearch(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	q := app.adatum.Questions[3] // "What should we improve?"
	for i := range 45 {
		text := "Speed of the app"
		if i%2 == 0 {
			text = fmt.Sprintf("The PRICE is high, answer %02d", i)
		}
		v := app.complete(app.token(t, app.path()))
		v.Set("q-"+q.ID, text)
		if code, _, _ := app.do(t, "POST", app.path(), v, nil); code != 303 {
			t.Fatal("answer refused")
		}
	}
	app.stored(t)
	base := "/adatum/surveys/" + app.adatum.Slug + "/analyze/" + q.ID
	code, _, body := app.get(t, base+"?search=price", ana)
	if code != 200 || !strings.Contains(body, "23 answers wrote “price”.") || strings.Count(body, `<blockquote class="written-text">`) != 20 ||
		!strings.Contains(body, "answer 44") || strings.Contains(body, "Speed of the app") || !strings.Contains(body, `href="?page=2&amp;search=price"`) {
		t.Fatalf("search = %d:\n%s", code, body)
	}
	// Newest first: the last answer's text leads.
	if strings.Index(body, "answer 44") > strings.Index(body, "answer 42") {
		t.Errorf("the matches are not newest first")
	}
	_, _, body = app.get(t, base+"?search=price&page=2", ana)
	if strings.Count(body, `<blockquote class="written-text">`) != 3 || !strings.Contains(body, "answer 00<") {
		t.Errorf("the second page of matches:\n%s", body)
	}
	_, _, body = app.get(t, base+"?search=nothing+like+it", ana)
	if !strings.Contains(body, "0 answers wrote “nothing like it”.") {
		t.Errorf("no match:\n%s", body)
	}
	if _, _, body := app.get(t, base+"?search=", ana); strings.Count(body, `<blockquote class="written-text">`) != 20 {
		t.Errorf("an empty search does not list every answer")
	}
	if code, _, _ := app.get(t, base+"?search="+strings.Repeat("x", 201), ana); code != 422 {
		t.Errorf("a search too long = %d", code)
	}
}
