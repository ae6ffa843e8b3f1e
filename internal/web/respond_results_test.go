package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
)

// TestPublicResults: a survey shows no results until the subscriber ticks
// "Show the results publicly"; then its results page shows the charts of
// the questions marked for it, and nothing else (no other question, no
// written answer), and the thank-you page links to it. The designer saves
// both settings.
func TestPublicResults(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	results := app.path() + "/results"
	if code, _, _ := app.do(t, "GET", results, nil, nil); code != 404 {
		t.Fatalf("the results of a survey that does not show them = %d", code)
	}
	if code, _, _ := app.do(t, "GET", "/survey/adatum/no-such-survey/results", nil, nil); code != 404 {
		t.Fatalf("the results of no survey = %d", code)
	}
	sv, err := app.surveys.Get(ctx, "adatum", app.adatum.Slug)
	if err != nil {
		t.Fatal(err)
	}
	q := sv.Questions
	sv.PublicResults = true
	sv.Questions[1].InResults = true // the multiple choice
	sv.Questions[3].InResults = false
	if err := app.surveys.Update(ctx, sv); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if code, _, _ := app.do(t, "POST", app.path(), app.complete(app.token(t, app.path())), nil); code != 303 {
			t.Fatal("answer refused")
		}
	}
	app.stored(t)
	code, h, page := app.do(t, "GET", results, nil, nil)
	if code != 200 || !strings.Contains(h.Get("Cache-Control"), "public") {
		t.Fatalf("the results = %d %q", code, h.Get("Cache-Control"))
	}
	mustContain(t, "results", page, q[1].Text, "Mobile app", `<strong class="big-number">2</strong> answers so far`)
	mustLack(t, "results", page, q[0].Text, q[2].Text, q[3].Text, "Faster pages", "/adatum/surveys/", "?i=", "chart.png", "chart.svg", "Copy the figures")
	_, _, thanks := app.do(t, "GET", app.path()+"/thankyou", nil, nil)
	mustContain(t, "thank-you", thanks, `href="`+results+`">See the results so far</a>`)

	// The designer's two settings.
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	form := url.Values{"title": {"Lunch poll"}, "n": {"2"}, "publicResults": {"1"}, "action": {"save"},
		"q.0.text": {"Pick a dish"}, "q.0.type": {"MultipleChoice"}, "q.0.choices": {"Soup\nSalad"}, "q.0.pos": {"1"}, "q.0.inResults": {"1"},
		"q.1.text": {"Anything else?"}, "q.1.type": {"SimpleText"}, "q.1.pos": {"2"}}
	if code, _, body := app.do(t, "POST", "/adatum/surveys/new", form, map[string]string{"Cookie": "surveys_session=" + c.Value}); code != 303 {
		t.Fatalf("save = %d\n%s", code, body)
	}
	got, err := app.surveys.Get(ctx, "adatum", "lunch-poll")
	if err != nil || !got.PublicResults || !got.Questions[0].InResults || got.Questions[1].InResults {
		t.Fatalf("saved %+v, %v", got, err)
	}

	// And through the API, both ways.
	token, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	code, v, raw := app.api(t, "POST", "/api/v1/surveys", token, `{"title":"API poll","publicResults":true,"questions":[
		{"text":"Pick one","type":"MultipleChoice","possibleAnswers":["A","B"],"inResults":true},{"text":"Why?","type":"SimpleText"}]}`)
	if code != 201 || v["publicResults"] != true {
		t.Fatalf("create = %d %s", code, raw)
	}
	code, v, raw = app.api(t, "GET", "/api/v1/surveys/"+v["slug"].(string), token, "")
	qs, _ := v["questions"].([]any)
	if code != 200 || v["publicResults"] != true || len(qs) != 2 || qs[0].(map[string]any)["inResults"] != true || qs[1].(map[string]any)["inResults"] != nil {
		t.Fatalf("get = %d %s", code, raw)
	}
}

// TestPublicResultsShowNoWrittenWords: whatever the subscriber ticks, the
// public results page shows nothing a respondent wrote: a text question
// marked for it shows no words of its answers, and a choice question's
// "Other (please specify)" texts show neither as words nor otherwise;
// the question's title and its choices' bars still show.
func TestPublicResultsShowNoWrittenWords(t *testing.T) {
	app := newTestApp(t)
	ctx := context.Background()
	sv, err := app.surveys.Get(ctx, "adatum", app.adatum.Slug)
	if err != nil {
		t.Fatal(err)
	}
	q := sv.Questions
	sv.PublicResults = true
	sv.Questions[1].InResults, sv.Questions[1].Other = true, true // the multiple choice, with Other
	sv.Questions[3].InResults = true                              // the written answer
	if err := app.surveys.Update(ctx, sv); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ text, other string }{
		{"alice 6789 myssn alice 6789 myssn", ""},
		{"Alice again, 6789 myssn", "zorblatt quuxish"},
	} {
		v := app.complete(app.token(t, app.path()))
		v.Set("q-"+q[3].ID, c.text)
		if c.other != "" {
			v.Set("q-"+q[1].ID, "")
			v.Set("q-"+q[1].ID+"-other", c.other)
		}
		if code, _, body := app.do(t, "POST", app.path(), v, nil); code != 303 {
			t.Fatalf("answer refused:\n%s", body)
		}
	}
	app.stored(t)
	code, _, page := app.do(t, "GET", app.path()+"/results", nil, nil)
	if code != 200 {
		t.Fatalf("the results = %d", code)
	}
	mustContain(t, "results", page, q[1].Text, "Mobile app", `<strong class="big-number">2</strong> answers so far`)
	mustLack(t, "results", page, "alice", "Alice", "6789", "myssn", "zorblatt", "quuxish", "Most used words", "Words of the other answers")
}
