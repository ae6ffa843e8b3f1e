package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
)

// TestCountsAgreeAfterDeletes: 7 answers, 2 of them deleted from the
// answer pages: every page that shows the survey's count of answers shows
// 5, once: the dashboard's row, completion rate and most answered list,
// the home page's most answered, the designer, the analysis, the table of
// answers and the public results.
func TestCountsAgreeAfterDeletes(t *testing.T) {
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := store.NewUserStore(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + ana.Value}
	sv, err := app.surveys.Get(ctx, "adatum", app.adatum.Slug)
	if err != nil {
		t.Fatal(err)
	}
	sv.PublicResults = true
	if err := app.surveys.Update(ctx, sv); err != nil {
		t.Fatal(err)
	}
	// 10 views of the form, 7 answers.
	var ids []string
	for i := range 10 {
		token := app.token(t, app.path())
		if i >= 7 {
			continue
		}
		if code, _, _ := app.do(t, "POST", app.path(), app.complete(token), nil); code != 303 {
			t.Fatal("answer refused")
		}
		ids = append(ids, answerID(token))
	}
	app.stored(t)
	app.flushViews(t)
	base := "/adatum/surveys/" + app.adatum.Slug
	title := app.adatum.Title
	check := func(answers, completion string) {
		t.Helper()
		_, _, dash := app.get(t, "/adatum/surveys", ana)
		i := strings.Index(dash, title)
		row := dash[i:]
		row = row[:strings.Index(row, "</tr>")]
		_, _, home := app.do(t, "GET", "/", nil, nil)
		_, _, designer := app.get(t, base+"/edit", ana)
		_, _, analysis := app.get(t, base+"/analyze", ana)
		_, _, table := app.get(t, base+"/answers/table", ana)
		_, _, results := app.do(t, "GET", app.path()+"/results", nil, nil)
		for _, c := range []struct{ page, body, want string }{
			{"dashboard row", row, `<td class="num">` + answers + `</td>
      <td class="num">10</td>
      <td class="num">` + completion + `</td>`},
			{"dashboard most answered", section(dash, "most-answered"), title + `</a> <span class="muted">` + answers + ` answers`},
			{"dashboard most viewed", section(dash, "most-viewed"), "10 views · " + completion + " completed"},
			{"home most answered", section(home, "most-answered"), answers + " answers"},
			{"designer", designer, "has " + answers + " answers"},
			{"analysis", analysis, `<strong class="big-number">` + answers + `</strong>`},
			{"table", table, answers + " answers · page 1 of 1"},
			{"results", results, `<strong class="big-number">` + answers + `</strong> answers so far`},
		} {
			if !strings.Contains(c.body, c.want) {
				t.Errorf("%s lacks %q:\n%s", c.page, c.want, c.body)
			}
		}
		if n := strings.Count(section(home, "most-answered"), ">"+title+"<"); n != 1 {
			t.Errorf("home most answered lists the survey %d times", n)
		}
		if n := strings.Count(section(dash, "most-answered"), ">"+title+"<"); n != 1 {
			t.Errorf("dashboard most answered lists the survey %d times", n)
		}
	}
	check("7", "70%")
	for _, id := range []string{ids[1], ids[4]} {
		if code, _, body := app.do(t, "POST", base+"/answers/"+id+"/delete", url.Values{"confirm": {"1"}}, cookie); code != http.StatusSeeOther {
			t.Fatalf("delete = %d\n%s", code, body)
		}
	}
	check("5", "50%")
}
