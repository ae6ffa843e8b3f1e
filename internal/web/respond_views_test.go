package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// create makes a published survey of one question.
func (a *testApp) create(t *testing.T, tenant, title string, listed bool, closeOn time.Time) *survey.Survey {
	t.Helper()
	s := &survey.Survey{Tenant: tenant, Title: title, State: survey.Published, Listed: listed, CloseOn: closeOn,
		Questions: []survey.Question{{Text: "Why?", Type: survey.SimpleText}}}
	if err := a.surveys.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s
}

// answer submits n answers to a one-question survey and lets the worker
// count them.
func (a *testApp) answer(t *testing.T, s *survey.Survey, n int) {
	t.Helper()
	path := "/survey/" + s.Tenant + "/" + s.Slug
	for i := 0; i < n; i++ {
		tok := a.token(t, path)
		s, _ := a.surveys.Get(context.Background(), s.Tenant, s.Slug)
		if code, _, body := a.do(t, "POST", path, url.Values{"token": {tok}, "q-" + s.Questions[0].ID: {"Because"}}, nil); code != 303 {
			t.Fatalf("answer = %d\n%s", code, body)
		}
	}
	a.stored(t)
}

// flushViews puts the counted views on the queue and applies them.
func (a *testApp) flushViews(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if err := a.views.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	v := worker.NewViews(a.st, worker.Config{Batch: 32, Visibility: time.Minute, MaxAttempts: 5, MaxIdle: time.Millisecond}, nil)
	for {
		n, err := v.RunOnce(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// section returns the part of body from the element with id to the end of
// its section.
func section(body, id string) string {
	i := strings.Index(body, `id="`+id+`"`)
	if i < 0 {
		return ""
	}
	rest := body[i:]
	if j := strings.Index(rest, "</section>"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

func TestHomePage(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	popular := app.create(t, "adatum", "Popular poll", true, time.Time{})
	closing := app.create(t, "adatum", "Closing poll", true, today.AddDate(0, 0, 2))
	app.create(t, "adatum", "Hidden poll", false, time.Time{})
	past := app.create(t, "fabrikam", "Past poll", true, today.AddDate(0, 0, -3))
	quick := app.create(t, "fabrikam", "Quick poll", true, time.Time{})
	app.answer(t, popular, 3)
	app.answer(t, quick, 1)

	code, _, body := app.do(t, "GET", "/", nil, nil)
	if code != 200 {
		t.Fatalf("GET / = %d", code)
	}
	most, newest, soon := section(body, "most-answered"), section(body, "newest"), section(body, "closing-soon")
	for _, c := range []struct {
		name, part string
		order      []string
		absent     []string
	}{
		{"most answered", most, []string{"Popular poll", "3 answers", "Quick poll", "1 answer"}, []string{"Hidden poll", "Past poll"}},
		{"newest", newest, []string{"Quick poll", "Closing poll", "Popular poll", "Fabrikam product feedback"}, []string{"Hidden poll", "Past poll"}},
		{"closing soon", soon, []string{"Closing poll", "Open until <time datetime=\"" + today.AddDate(0, 0, 2).Format(time.DateOnly) + "\">" + today.AddDate(0, 0, 2).Format("2 January 2006") + "</time>"}, []string{"Popular poll", "Past poll"}},
	} {
		at := 0
		for _, s := range c.order {
			i := strings.Index(c.part[at:], s)
			if i < 0 {
				t.Errorf("%s: %q missing or out of order\n%s", c.name, s, c.part)
				break
			}
			at += i
		}
		for _, s := range c.absent {
			if strings.Contains(c.part, s) {
				t.Errorf("%s shows %q", c.name, s)
			}
		}
	}
	// A past close date: the survey page is closed too.
	if code, _, _ := app.do(t, "GET", "/survey/fabrikam/"+past.Slug, nil, nil); code != http.StatusGone {
		t.Errorf("a survey past its close date = %d, want 410", code)
	}
	// Closing and deleting take surveys off the home page.
	if _, err := app.surveys.SetState(ctx, "adatum", popular.Slug, survey.Closed); err != nil {
		t.Fatal(err)
	}
	if err := app.surveys.Delete(ctx, "adatum", closing.Slug); err != nil {
		t.Fatal(err)
	}
	_, _, body = app.do(t, "GET", "/", nil, nil)
	if strings.Contains(body, "Popular poll") || strings.Contains(body, "Closing poll") || !strings.Contains(body, "Quick poll") {
		t.Errorf("after closing and deleting, the home page is\n%s", body)
	}
}

func TestDashboardRanks(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	users := testUsers(app.st)
	if _, err := users.Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Add(ctx, "fabrikam", "fred@fabrikam.example", "another long password"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	_, fred := app.signIn(t, "fabrikam", "fred@fabrikam.example", "another long password")
	second := app.create(t, "adatum", "Second survey", false, time.Time{})
	// The demo survey: 8 views, 2 answers; the second: 1 view, 1 answer.
	for i := 0; i < 6; i++ {
		app.token(t, app.path())
	}
	for i := 0; i < 2; i++ {
		if code, _, _ := app.do(t, "POST", app.path(), app.complete(app.token(t, app.path())), nil); code != 303 {
			t.Fatal("answer refused")
		}
	}
	app.answer(t, second, 1)
	app.flushViews(t)

	code, _, body := app.get(t, "/adatum/surveys", ana)
	if code != 200 {
		t.Fatalf("dashboard = %d", code)
	}
	row := func(title string) string {
		i := strings.Index(body, title)
		if i < 0 {
			return ""
		}
		end := strings.Index(body[i:], "</tr>")
		if end < 0 {
			return body[i:]
		}
		return body[i : i+end]
	}
	for _, c := range []struct{ title, want string }{
		{"Adatum customer satisfaction", `<td class="num">2</td>
      <td class="num">8</td>
      <td class="num">25%</td>`},
		{"Second survey", `<td class="num">1</td>
      <td class="num">1</td>
      <td class="num">100%</td>`},
	} {
		if !strings.Contains(row(c.title), c.want) {
			t.Errorf("dashboard row of %s lacks %q:\n%s", c.title, c.want, row(c.title))
		}
	}
	most, viewed := section(body, "most-answered"), section(body, "most-viewed")
	if strings.Index(most, "Adatum customer satisfaction") > strings.Index(most, "Second survey") || !strings.Contains(most, "2 answers") {
		t.Errorf("most answered:\n%s", most)
	}
	if !strings.Contains(viewed, "8 views · 25% completed") {
		t.Errorf("most viewed:\n%s", viewed)
	}
	// Isolation: Fabrikam's dashboard lists none of Adatum's surveys.
	_, _, theirs := app.get(t, "/fabrikam/surveys", fred)
	for _, s := range []string{"Adatum customer satisfaction", "Second survey"} {
		if strings.Contains(theirs, s) {
			t.Errorf("Fabrikam's dashboard shows %q", s)
		}
	}
	if !strings.Contains(section(theirs, "most-viewed")+section(theirs, "most-answered")+theirs, "Fabrikam product feedback") {
		t.Error("Fabrikam's dashboard lacks its own survey")
	}
}

func TestDesignerCloseDate(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	form := func(closeOn string) url.Values {
		return url.Values{"title": {"Dated"}, "n": {"1"}, "q.0.text": {"Why?"}, "q.0.type": {"SimpleText"}, "closeOn": {closeOn}, "action": {"save"}}
	}
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	next := time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly)
	for _, tc := range []struct {
		closeOn, want string
		code          int
	}{
		{"31/12/2030", "YYYY-MM-DD", 422},
		{yesterday, "has passed", 422},
		{next, "", 303},
	} {
		code, _, body := app.do(t, "POST", "/adatum/surveys/new", form(tc.closeOn), cookie)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("close date %q = %d, want %d with %q", tc.closeOn, code, tc.code, tc.want)
		}
	}
	sv, err := app.surveys.Get(ctx, "adatum", "dated")
	if err != nil || sv.CloseOn.Format(time.DateOnly) != next {
		t.Fatalf("stored close date = %v, %v; want %s", sv, err, next)
	}
	if _, _, body := app.do(t, "GET", "/adatum/surveys/dated/edit", nil, cookie); !strings.Contains(body, `value="`+next+`"`) {
		t.Error("the designer does not show the close date")
	}
	if list, _ := app.surveys.List(ctx, "adatum"); len(list) != 2 {
		t.Errorf("%d surveys: a refused form was saved", len(list))
	}
}
