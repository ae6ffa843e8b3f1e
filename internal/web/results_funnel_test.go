package web_test

import (
	"context"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/worker"
)

// TestFunnel: of three respondents of a three-page survey, one stops on
// page 1, one on page 2, one answers (going Back and Next on the way,
// counted once); the counts travel with the views (in memory, flushed, the
// views worker) and the analysis page shows where each stopped.
func TestFunnel(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	sv := app.threePages(t, "Funnel")
	path := "/survey/adatum/" + sv.Slug
	q := sv.Questions
	open := func() string {
		t.Helper()
		_, _, body := app.do(t, "GET", path, nil, nil)
		token, _ := formOf(t, body)
		return token
	}
	page1 := []string{"q-" + q[0].ID, "Ada", "q-" + q[1].ID, "4"}

	// Ada answers, going back once.
	token := open()
	_, body := app.post(t, path, token, "", "next", page1...)
	_, st := formOf(t, body)
	_, body = app.post(t, path, token, st, "back", "q-"+q[2].ID, "Soup")
	_, st = formOf(t, body)
	_, body = app.post(t, path, token, st, "next", page1...)
	_, st = formOf(t, body)
	_, body = app.post(t, path, token, st, "next", "q-"+q[2].ID, "Soup")
	_, st = formOf(t, body)
	if code, _ := app.post(t, path, token, st, "submit", "q-"+q[3].ID, "5"); code != 303 {
		t.Fatalf("submit = %d", code)
	}
	// Bob stops on page 2, Cy on page 1.
	token = open()
	app.post(t, path, token, "", "next", page1...)
	open()

	if err := app.views.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	vw := worker.NewViews(app.st, worker.Config{Batch: 32, Visibility: time.Minute, MaxAttempts: 5, MaxIdle: time.Millisecond}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := vw.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if n := app.storedOf(t, sv.Slug); n != 1 {
		t.Fatalf("%d answers stored, want 1", n)
	}
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	_, _, page := app.get(t, "/adatum/surveys/"+sv.Slug+"/analyze", ana)
	rows := regexp.MustCompile(`<tr><th scope="row">(\d)\. ([^<]+)</th><td class="num">(\d+)</td><td class="num">([^<]+)</td><td class="num">(\d+)</td></tr>`).FindAllStringSubmatch(page, -1)
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join(r[1:], " "))
	}
	want := []string{"1 About you 3 100% 1", "2 The food 2 67% 1", "3 Last words 1 33% 0"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the funnel = %q, want %q", got, want)
	}
	mustContain(t, "funnel", page, "Where respondents stop", "3 views of the first page, 1 answer sent")

	// A one-page survey has no funnel.
	_, _, page = app.get(t, "/adatum/surveys/"+app.adatum.Slug+"/analyze", ana)
	mustLack(t, "one page", page, "Where respondents stop")
}
