package web_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

var updateGolden = flag.Bool("update", false, "write the golden files of TestSurveyPageGolden")

// goldenVolatile are the parts of a survey page that differ at each
// request (the form's token, the sealed state of the other pages and the
// page's address, which carries both): TestSurveyPageGolden puts a fixed
// word in their place.
var goldenVolatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`name="token" value="[^"]*"`), `name="token" value="TOKEN"`},
	{regexp.MustCompile(`name="state" value="[^"]*"`), `name="state" value="STATE"`},
	{regexp.MustCompile(`data-page-url="[^"]*"`), `data-page-url="PAGE-URL"`},
}

// TestSurveyPageGolden: the respondent's survey page reads byte for byte
// as the golden files under testdata/render say, in the states a page is
// rendered in: the demo survey of every kind unanswered (the form
// rendered once for all), in English and in Arabic (right to left); sent
// back with answers and problems, in both; the second page of Fabrikam's
// demo, whose section and question texts recall the first page's answer,
// unanswered and with a problem; and a page whose choices, rows and items
// recall an answer; a page whose questions show as others are answered,
// with their conditions in words, unanswered in English and French, and
// with a problem. The golden files were written by the code before the
// survey page's inputs were kept rendered (render_inputs.go): what that
// cache serves is what the templates render. go test -run
// TestSurveyPageGolden -update writes them again.
func TestSurveyPageGolden(t *testing.T) {
	st := backends.Local(t)
	app := newTestAppOn(t, st, func(d *web.Deps) {
		// One value of each survey for the whole test (no TTL passes), so
		// that each page is rendered a second time from the inputs kept.
		d.Public = store.NewCachedSurveys(store.NewSurveyStore(st), store.NewTenantStore(st).WithSecrets(testBox), time.Hour)
	})
	ctx := context.Background()
	adatum := app.adatum
	list, err := app.surveys.List(ctx, "fabrikam")
	if err != nil || len(list) != 1 {
		t.Fatalf("fabrikam's demo surveys: %v %v", list, err)
	}
	fabrikam, err := app.surveys.Get(ctx, "fabrikam", list[0].Slug)
	if err != nil {
		t.Fatal(err)
	}
	piped := app.publish(t, &survey.Survey{Title: "Piped choices",
		Sections: []survey.Section{{ID: "a", Title: "You"}, {ID: "b", Title: "Whom, {{name|friend}}?"}},
		Questions: []survey.Question{
			{ID: "name", Text: "Your name?", Type: survey.ShortText, Section: "a"},
			{ID: "greet", Text: "Greet whom, {{name}}?", Help: "Pick one, {{name|friend}}.", Type: survey.MultipleChoice, PossibleAnswers: []string{"{{name|You}}", "Everyone"}, Section: "b"},
			{ID: "rate", Text: "Rate", Type: survey.Matrix, Rows: []string{"Friend of {{name}}", "Others"}, PossibleAnswers: []string{"Good", "Bad"}, Section: "b", Optional: true},
			{ID: "pick", Text: "Pick one", Type: survey.Dropdown, PossibleAnswers: []string{"Dear {{name}}", "Nobody"}, Section: "b", Optional: true},
			{ID: "tick", Text: "Tick", Type: survey.Checkboxes, PossibleAnswers: []string{"Tick {{name}}", "Tick me"}, Section: "b", Optional: true},
			{ID: "rank", Text: "Rank", Type: survey.Ranking, PossibleAnswers: []string{"Rank {{name}}", "Rank me"}, Section: "b", Optional: true},
			{ID: "plain", Text: "Plain stars", Type: survey.FiveStars, Section: "b", Optional: true},
		}})

	// A page whose second question shows as the first is answered
	// (logic.js), with its condition in words.
	yes := &survey.Condition{Match: "all", Rules: []survey.Rule{{Question: "own", Op: "equals", Values: []string{"Yes"}}}}
	live := app.publish(t, &survey.Survey{Title: "Live rules", Questions: []survey.Question{
		{ID: "own", Text: "Do you own a car?", Type: survey.YesNo},
		{ID: "kind", Text: "What kind of car?", Help: "Its make & model.", Type: survey.ShortText, ShowIf: yes},
		{ID: "rate", Text: "Rate it", Type: survey.FiveStars, Optional: true, ShowIf: yes},
	}})
	livePath := "/survey/adatum/" + live.Slug
	lq := func(i int) string { return "q-" + live.Questions[i].ID }

	adatumPath := "/survey/adatum/" + adatum.Slug
	id := func(i int) string { return "q-" + adatum.Questions[i].ID }
	// Answers to the demo's questions in the registry's order of the
	// seed, some of them wrong: the number is no number, the e-mail
	// address no address, and the required recommendation and
	// improvement are missing.
	adatumAnswers := []string{
		id(0), "4",
		id(1), "(other)", id(1) + "-other", `Fax & "telex" <b>`,
		id(4), "Reports", id(4), "Alerts",
		id(5), "3",
		id(6) + "-0", "Good", id(6) + "-2", "Poor",
		id(7) + "-1", "1",
		id(8), "Japan",
		id(9), "many",
		id(10), "2021-03-04",
		id(11), "not an address",
		id(13), "Yes",
		id(14), "accepted",
		id(15) + "-name", "Ana <Lopez>",
		id(16) + "-slider", "12", id(16) + "-set", "1",
	}
	post := func(t *testing.T, path string, fields ...string) string {
		t.Helper()
		_, _, page := app.do(t, "GET", path, nil, nil)
		token, state := formOf(t, page)
		code, body := app.post(t, path, token, state, "", fields...)
		if code != http.StatusUnprocessableEntity {
			t.Fatalf("POST %s = %d, want 422\n%s", path, code, body)
		}
		return body
	}
	// next sends the first page of a survey of pages with fields, and
	// returns the second page, or its form sent back with sent.
	next := func(t *testing.T, path string, fields []string, sent ...string) string {
		t.Helper()
		_, _, page := app.do(t, "GET", path, nil, nil)
		token, state := formOf(t, page)
		code, body := app.post(t, path, token, state, "next", fields...)
		if code != http.StatusOK {
			t.Fatalf("next page of %s = %d\n%s", path, code, body)
		}
		if sent == nil {
			return body
		}
		token, state = formOf(t, body)
		code, body = app.post(t, path, token, state, "next", sent...)
		if code != http.StatusUnprocessableEntity {
			t.Fatalf("second page of %s sent back = %d\n%s", path, code, body)
		}
		return body
	}
	fabrikamPath := "/survey/fabrikam/" + fabrikam.Slug
	fq := func(i int) string { return "q-" + fabrikam.Questions[i].ID }
	fabrikamFirst := []string{fq(0), "Fabrikam Go", fq(1), "Ana", fq(2), "4"}
	pq := func(i int) string { return "q-" + piped.Questions[i].ID }
	pipedPath := "/survey/adatum/" + piped.Slug
	for _, tc := range []struct {
		name string
		page func(t *testing.T) string
	}{
		{"adatum-empty", func(t *testing.T) string { _, _, b := app.do(t, "GET", adatumPath, nil, nil); return b }},
		{"adatum-ar-empty", func(t *testing.T) string { _, _, b := app.do(t, "GET", adatumPath+"?lang=ar", nil, nil); return b }},
		{"adatum-errors", func(t *testing.T) string { return post(t, adatumPath, adatumAnswers...) }},
		{"adatum-ar-errors", func(t *testing.T) string { return post(t, adatumPath+"?lang=ar", adatumAnswers...) }},
		{"fabrikam-piped", func(t *testing.T) string { return next(t, fabrikamPath, fabrikamFirst) }},
		{"fabrikam-piped-errors", func(t *testing.T) string {
			return next(t, fabrikamPath, fabrikamFirst, fq(4), "Two years", fq(6), "Profiles")
		}},
		{"fabrikam-de-piped", func(t *testing.T) string { return next(t, fabrikamPath+"?lang=de", fabrikamFirst) }},
		{"piped-choices", func(t *testing.T) string { return next(t, pipedPath, []string{pq(0), "Ada <3"}) }},
		{"piped-choices-errors", func(t *testing.T) string {
			return next(t, pipedPath, []string{pq(0), "Ada <3"}, pq(4), piped.Questions[4].PossibleAnswers[0], pq(6), "9")
		}},
		{"live", func(t *testing.T) string { _, _, b := app.do(t, "GET", livePath, nil, nil); return b }},
		{"live-fr", func(t *testing.T) string { _, _, b := app.do(t, "GET", livePath+"?lang=fr", nil, nil); return b }},
		{"live-errors", func(t *testing.T) string { return post(t, livePath, lq(0), "Yes", lq(2), "3") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for round := range 2 {
				goldenPage(t, tc.name, round, tc.page(t), adatum, fabrikam, piped, live)
			}
		})
	}
}

// goldenPage compares the survey page got (rendered the round'th time)
// with its golden file, or writes the file with -update.
func goldenPage(t *testing.T, name string, round int, got string, surveys ...*survey.Survey) {
	t.Helper()
	for _, v := range goldenVolatile {
		got = v.re.ReplaceAllString(got, v.with)
	}
	// Question IDs are named after the version the store gave
	// their survey, and pictures by the store.
	for _, sv := range surveys {
		got = strings.ReplaceAll(got, sv.Version, "VERSION")
		for _, q := range sv.Questions {
			for i, p := range q.Pictures {
				got = strings.ReplaceAll(got, p.Image, fmt.Sprintf("picture-%d.png", i))
			}
		}
	}
	file := filepath.Join("testdata", "render", name+".html")
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test -run TestSurveyPageGolden -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("the page rendered the %s time differs from %s:\n%s", []string{"first", "second"}[round], file, firstDifference(string(want), got))
	}
}

// firstDifference shows where got first differs from want, with some
// context around.
func firstDifference(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	from := max(0, i-200)
	return "want …" + want[from:min(len(want), i+200)] + "…\n got …" + got[from:min(len(got), i+200)] + "…"
}
