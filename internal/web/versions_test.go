package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestEditPublishedSurvey edits a published survey that has answers in the
// designer: a typo fixed at once; hiding an answered question and choice
// asks first, then keeps them for the analysis and exports; changing an
// answered question's kind is refused beside it.
func TestEditPublishedSurvey(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	sv := &survey.Survey{Tenant: "adatum", Title: "Team lunch", State: survey.Published, Questions: []survey.Question{
		{Text: "Rate the fod", Type: survey.FiveStars},
		{Text: "Pick a dessert", Type: survey.MultipleChoice, PossibleAnswers: []string{"Cake", "Fruit"}},
		{Text: "Why?", Type: survey.SimpleText},
	}}
	if err := app.surveys.Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	path := "/survey/adatum/" + sv.Slug
	for i, dessert := range []string{"Cake", "Fruit"} {
		tok := app.token(t, path)
		form := url.Values{"token": {tok}, "q-" + sv.Questions[0].ID: {"4"}, "q-" + sv.Questions[1].ID: {dessert}, "q-" + sv.Questions[2].ID: {"Because " + dessert}}
		if code, _, body := app.do(t, "POST", path, form, nil); code != 303 {
			t.Fatalf("answer %d = %d\n%s", i, code, body)
		}
	}
	app.stored(t)
	c := app.signedIn(t, "adatum", "ed@adatum.example")
	edit := "/adatum/surveys/" + sv.Slug + "/edit"

	code, _, body := app.do(t, "GET", edit, nil, c)
	if code != 200 || !strings.Contains(body, "has 2 answers") || !strings.Contains(body, `name="q.0.id" value="`+sv.Questions[0].ID+`"`) || !strings.Contains(body, `name="q.0.hidden"`) {
		t.Fatalf("designer of a published survey = %d\n%s", code, body)
	}
	// The form as the designer sends it, typo fixed.
	form := func() url.Values {
		v := url.Values{"title": {"Team lunch"}, "n": {"3"}, "action": {"save"}}
		for i, q := range sv.Questions {
			p := "q." + string(rune('0'+i)) + "."
			v.Set(p+"id", q.ID)
			v.Set(p+"text", q.Text)
			v.Set(p+"type", string(q.Type))
			v.Set(p+"choices", strings.Join(q.PossibleAnswers, "\n"))
		}
		v.Set("q.0.text", "Rate the food")
		return v
	}
	if code, h, _ := app.do(t, "POST", edit, form(), c); code != 303 || h.Get("Location") != edit+"?saved=1" {
		t.Fatalf("fixing a typo = %d %q", code, h.Get("Location"))
	}
	got, _ := app.surveys.Get(ctx, "adatum", sv.Slug)
	if got.Questions[0].Text != "Rate the food" || got.Questions[0].ID != sv.Questions[0].ID || got.State != survey.Published {
		t.Fatalf("after the fix: %+v", got.Questions[0])
	}

	// Taking off an answered question and choice, and adding one: first
	// the confirmation, nothing saved.
	v := form()
	v.Set("q.1.choices", "Fruit\nIce cream")
	v.Set("q.2.remove", "1")
	v.Set("n", "4")
	v.Set("q.3.text", "Anything else?")
	v.Set("q.3.type", "SimpleText")
	code, _, body = app.do(t, "POST", edit, v, c)
	if code != 200 || !strings.Contains(body, "has <strong>2 answers</strong>") || !strings.Contains(body, "Question “Why?” (2 answers) will be hidden") ||
		!strings.Contains(body, "Choice “Cake” of question “Pick a dessert” will be hidden") || !strings.Contains(body, `name="confirm" value="1"`) ||
		!strings.Contains(body, `name="q.3.text" value="Anything else?"`) {
		t.Fatalf("confirmation = %d\n%s", code, body)
	}
	if same, _ := app.surveys.Get(ctx, "adatum", sv.Slug); len(same.Questions) != 3 || same.Questions[2].Hidden {
		t.Fatalf("the confirmation saved: %+v", same.Questions)
	}
	// Back to the designer, as typed.
	v.Set("confirm", "1")
	v.Set("action", "back")
	if code, _, body := app.do(t, "POST", edit, v, c); code != 200 || !strings.Contains(body, `value="Anything else?"`) {
		t.Fatalf("back = %d", code)
	}
	v.Set("action", "save")
	if code, h, _ := app.do(t, "POST", edit, v, c); code != 303 || h.Get("Location") != edit+"?saved=1" {
		t.Fatalf("confirmed = %d %q", code, h.Get("Location"))
	}
	got, _ = app.surveys.Get(ctx, "adatum", sv.Slug)
	if len(got.Questions) != 4 || got.Questions[2].Text != "Anything else?" || !got.Questions[3].Hidden || got.Questions[3].ID != sv.Questions[2].ID ||
		strings.Join(got.Questions[1].HiddenChoices, ",") != "Cake" || strings.Join(got.Questions[1].PossibleAnswers, ",") != "Fruit,Ice cream" {
		t.Fatalf("after the confirmed edit: %+v", got.Questions)
	}
	// Respondents see neither; the analysis and exports keep both.
	code, _, body = app.do(t, "GET", path, nil, nil)
	if code != 200 || strings.Contains(body, "Why?") || strings.Contains(body, ">Cake<") || !strings.Contains(body, "Anything else?") || !strings.Contains(body, "Rate the food") {
		t.Fatalf("public page after the edit = %d\n%s", code, body)
	}
	code, _, body = app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/analyze", nil, c)
	if code != 200 || !strings.Contains(body, "Why?") || !strings.Contains(body, "Hidden from respondents") || !strings.Contains(body, "Cake") {
		t.Fatalf("analysis after the edit = %d\n%s", code, body)
	}
	code, _, body = app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/export.csv", nil, c)
	if code != 200 || !strings.Contains(body, "Rate the food,Pick a dessert,Anything else?,Why?") || !strings.Contains(body, "Because Cake") {
		t.Fatalf("export after the edit = %d\n%s", code, body)
	}
	// A new answer to the edited survey is counted with the others.
	tok := app.token(t, path)
	if code, _, body := app.do(t, "POST", path, url.Values{"token": {tok}, "q-" + got.Questions[0].ID: {"5"}, "q-" + got.Questions[1].ID: {"Ice cream"},
		"q-" + got.Questions[2].ID: {"Dessert first"}}, nil); code != 303 {
		t.Fatalf("answer to the edited survey = %d\n%s", code, body)
	}
	app.stored(t)
	sum, _, err := store.NewSurveyAnswersSummaryStore(app.st).Get(ctx, "adatum", sv.Slug)
	if err != nil || sum.TotalAnswers != 3 {
		t.Fatalf("summary after the edit: %+v, %v", sum, err)
	}
	for _, qs := range sum.Questions {
		if want := map[string]int64{got.Questions[0].ID: 3, got.Questions[2].ID: 1, sv.Questions[2].ID: 2}[qs.QuestionID]; want != 0 && qs.Answered != want {
			t.Errorf("question %q has %d answers, want %d", qs.QuestionText, qs.Answered, want)
		}
	}

	// An answered question keeps its kind: refused beside it, nothing saved.
	v = form()
	v.Set("n", "2")
	v.Set("q.0.type", "SimpleText")
	code, _, body = app.do(t, "POST", edit, v, c)
	if code != 422 || !strings.Contains(body, "its kind cannot change") || !strings.Contains(body, `id="q0-type-err"`) {
		t.Fatalf("changing an answered question's kind = %d\n%s", code, body)
	}
	if same, _ := app.surveys.Get(ctx, "adatum", sv.Slug); same.Questions[0].Type != survey.FiveStars || len(same.Questions) != 4 {
		t.Fatalf("a refused edit saved: %+v", same.Questions)
	}
}

// TestDuplicateEverywhere: the dashboard offers to duplicate each survey,
// and the API duplicates one: a new draft, "Copy of …", with the questions
// respondents see and no answers.
func TestDuplicateEverywhere(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	c := app.signedIn(t, "adatum", "ed@adatum.example")
	if code, _, body := app.do(t, "GET", "/adatum/surveys", nil, c); code != 200 || !strings.Contains(body, `action="/adatum/surveys/`+app.adatum.Slug+`/duplicate"`) {
		t.Fatalf("dashboard = %d, no duplicate button", code)
	}
	tok, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	code, v, raw := app.api(t, "POST", "/api/v1/surveys/"+app.adatum.Slug+"/duplicate", tok, "")
	if code != 201 || v["title"] != "Copy of "+app.adatum.Title || v["state"] != "draft" || v["slug"] == app.adatum.Slug {
		t.Fatalf("API duplicate = %d %s", code, raw)
	}
	cp, err := app.surveys.Get(ctx, "adatum", v["slug"].(string))
	if err != nil || len(cp.Questions) != len(app.adatum.Questions) || cp.Questions[0].ID == app.adatum.Questions[0].ID {
		t.Fatalf("the copy: %+v, %v", cp, err)
	}
	if code, _, _ := app.api(t, "POST", "/api/v1/surveys/no-such-survey/duplicate", tok, ""); code != 404 {
		t.Errorf("duplicate of a missing survey = %d", code)
	}
}
