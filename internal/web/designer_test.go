package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

func TestDesigner(t *testing.T) {
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := store.NewUserStore(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	post := func(path string, v url.Values) (int, http.Header, string) {
		t.Helper()
		return app.do(t, "POST", path, v, cookie)
	}
	form := url.Values{
		"title": {"Lunch survey"}, "listed": {"1"}, "n": {"4"},
		"q.0.text": {"What did you eat?"}, "q.0.type": {"SimpleText"}, "q.0.pos": {"3"},
		"q.1.text": {"Pick a dessert"}, "q.1.type": {"MultipleChoice"}, "q.1.choices": {"Cake\r\nFruit\r\n\r\nIce cream"}, "q.1.pos": {"1"},
		"q.2.text": {"Rate the food"}, "q.2.type": {"FiveStars"}, "q.2.pos": {"2"},
		"q.3.text": {"Removed one"}, "q.3.type": {"SimpleText"}, "q.3.pos": {"4"}, "q.3.remove": {"1"},
	}

	// Adding a row keeps what was typed.
	v := url.Values{}
	for k, vs := range form {
		v[k] = vs
	}
	v.Set("action", "add")
	code, _, body := post("/adatum/surveys/new", v)
	if code != 200 || !strings.Contains(body, `name="q.3.text"`) || !strings.Contains(body, "Pick a dessert") || strings.Contains(body, "Removed one") {
		t.Fatalf("add a row = %d", code)
	}

	// Invalid: nothing saved, problems beside their fields.
	bad := url.Values{"title": {""}, "n": {"1"}, "q.0.text": {"Pick"}, "q.0.type": {"MultipleChoice"}, "q.0.choices": {"Only one"}, "action": {"save"}}
	code, _, body = post("/adatum/surveys/new", bad)
	if code != 422 || !strings.Contains(body, "Give the survey a title.") || !strings.Contains(body, "at least two possible answers") {
		t.Fatalf("invalid survey = %d\n%s", code, body)
	}
	if list, _ := app.surveys.List(ctx, "adatum"); len(list) != 1 {
		t.Fatalf("an invalid survey was saved: %d surveys", len(list))
	}

	// Save a draft: reordered, the removed row gone.
	form.Set("action", "save")
	code, h, _ := post("/adatum/surveys/new", form)
	if code != 303 || h.Get("Location") != "/adatum/surveys/lunch-survey/edit" {
		t.Fatalf("save = %d %q", code, h.Get("Location"))
	}
	s, err := app.surveys.Get(ctx, "adatum", "lunch-survey")
	if err != nil || s.State != survey.Draft || len(s.Questions) != 3 || s.Questions[0].Text != "Pick a dessert" || s.Questions[2].Text != "What did you eat?" ||
		strings.Join(s.Questions[0].PossibleAnswers, ",") != "Cake,Fruit,Ice cream" {
		t.Fatalf("saved %+v, %v", s, err)
	}
	if code, _, _ := app.get(t, "/survey/adatum/lunch-survey", nil); code != 404 {
		t.Errorf("a draft's public page = %d, want 404", code)
	}
	if code, _, body := app.get(t, "/adatum/surveys/lunch-survey/preview", c); code != 200 || !strings.Contains(body, "Preview: this is how respondents see") ||
		!strings.Contains(body, "Pick a dessert") || !strings.Contains(body, "disabled") {
		t.Errorf("preview = %d", code)
	}

	// Edit the draft, then publish it.
	edit := url.Values{"title": {"Lunch survey"}, "n": {"1"}, "q.0.text": {"Rate the food"}, "q.0.type": {"FiveStars"}, "action": {"publish"}}
	if code, h, _ := post("/adatum/surveys/lunch-survey/edit", edit); code != 303 || h.Get("Location") != "/adatum/surveys" {
		t.Fatalf("publish = %d %q", code, h.Get("Location"))
	}
	time.Sleep(5 * time.Millisecond)
	if code, _, body := app.get(t, "/survey/adatum/lunch-survey", nil); code != 200 || !strings.Contains(body, "Rate the food") || strings.Contains(body, "Pick a dessert") {
		t.Fatalf("published page = %d", code)
	}
	// Published questions are frozen.
	code, _, body = app.get(t, "/adatum/surveys/lunch-survey/edit", c)
	if code != 200 || !strings.Contains(body, "questions are frozen") || strings.Contains(body, `name="q.0.text"`) {
		t.Fatalf("frozen designer = %d", code)
	}
	if code, _, _ := post("/adatum/surveys/lunch-survey/edit", edit); code != http.StatusConflict {
		t.Errorf("editing a published survey = %d, want 409", code)
	}
	// Editing a published survey starts from a copy.
	if code, h, _ := post("/adatum/surveys/lunch-survey/copy", url.Values{}); code != 303 || h.Get("Location") != "/adatum/surveys/lunch-survey-copy/edit" {
		t.Fatalf("copy = %d %q", code, h.Get("Location"))
	}
	if cp, err := app.surveys.Get(ctx, "adatum", "lunch-survey-copy"); err != nil || cp.State != survey.Draft || len(cp.Questions) != 1 || cp.Title != "Lunch survey (copy)" {
		t.Fatalf("copy = %+v, %v", cp, err)
	}
	// Close, then delete.
	if code, _, _ := post("/adatum/surveys/lunch-survey/close", url.Values{}); code != 303 {
		t.Fatalf("close = %d", code)
	}
	time.Sleep(5 * time.Millisecond)
	if code, _, _ := app.get(t, "/survey/adatum/lunch-survey", nil); code != http.StatusGone {
		t.Errorf("closed page = %d", code)
	}
	// Another tenant cannot touch it.
	_, fred := func() (int, *http.Cookie) {
		if _, err := store.NewUserStore(app.st).Add(ctx, "fabrikam", "fred@fabrikam.example", "another long password"); err != nil {
			t.Fatal(err)
		}
		return app.signIn(t, "fabrikam", "fred@fabrikam.example", "another long password")
	}()
	for _, p := range []string{"/adatum/surveys/lunch-survey/delete", "/adatum/surveys/lunch-survey/publish", "/adatum/surveys/lunch-survey/copy", "/adatum/surveys/new"} {
		if code, _, _ := app.do(t, "POST", p, url.Values{"action": {"save"}}, map[string]string{"Cookie": "surveys_session=" + fred.Value}); code != http.StatusForbidden {
			t.Errorf("POST %s as Fabrikam = %d, want 403", p, code)
		}
	}
	for _, p := range []string{"/adatum/surveys/lunch-survey/edit", "/adatum/surveys/lunch-survey/preview", "/adatum/surveys/new", "/adatum/surveys"} {
		if code, _, body := app.get(t, p, fred); code != http.StatusForbidden || strings.Contains(body, "Lunch") {
			t.Errorf("GET %s as Fabrikam = %d", p, code)
		}
	}
	// Fabrikam's own URL with Adatum's slug finds nothing.
	if code, _, _ := app.get(t, "/fabrikam/surveys/lunch-survey/edit", fred); code != http.StatusNotFound {
		t.Errorf("Adatum's slug under Fabrikam = %d, want 404", code)
	}
	if code, _, _ := post("/adatum/surveys/lunch-survey/delete", url.Values{}); code != 303 {
		t.Fatalf("delete = %d", code)
	}
	if _, err := app.surveys.Get(ctx, "adatum", "lunch-survey"); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("after delete: %v", err)
	}
}
