package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestPipingPages: a page's texts recall the answers of earlier pages and
// the link's hidden values, escaped, with their fallbacks when there are
// none; the cached first page shows the fallbacks, and a link's values
// never reach it.
func TestPipingPages(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: "Recall", HiddenFields: []string{"source"},
		Sections: []survey.Section{{ID: "a"}, {ID: "b", Title: "About {{name}}", Description: "From {{source|somewhere}}."}},
		Questions: []survey.Question{
			{ID: "name", Text: "Your name?", Help: "You came from {{source|the web}}.", Type: survey.ShortText, Section: "a"},
			{ID: "pet", Text: "Your pet?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Cat", "Dog"}, Section: "a", Optional: true},
			{ID: "why", Text: "Why a {{pet|pet}}, {{name}}?", Type: survey.SimpleText, Section: "b"},
		},
		Translations: map[string]survey.Translation{"fr": {Questions: map[string]survey.QuestionText{"why": {Text: "Pourquoi un {{pet|animal}}, {{name}} ?"}}}}}
	if err := app.surveys.Create(context.Background(), sv); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	path := "/survey/adatum/" + sv.Slug
	q := func(i int) string { return "q-" + sv.Questions[i].ID }

	plain := mustGet(t, app, path)
	mustContain(t, "the shared first page", plain, "You came from the web.")
	mine := mustGet(t, app, path+"?source="+"%3Ci%3Email")
	mustContain(t, "the link's first page", mine, "You came from &lt;i&gt;mail.")
	mustLack(t, "the link's first page", mine, "<i>mail")
	again := mustGet(t, app, path)
	mustContain(t, "the shared first page again", again, "You came from the web.")
	mustLack(t, "the shared first page again", again, "mail")

	token, state := formOf(t, mine)
	code, page2 := app.post(t, path, token, state, "next", q(0), "<b>Ann</b>", q(1), "Dog")
	if code != 200 {
		t.Fatalf("next = %d\n%s", code, page2)
	}
	mustContain(t, "page 2", page2, "Why a Dog, &lt;b&gt;Ann&lt;/b&gt;?", `<h2 class="section-title">About &lt;b&gt;Ann&lt;/b&gt;</h2>`, "<p>From &lt;i&gt;mail.</p>")
	mustLack(t, "page 2", page2, "<b>Ann", "{{")

	token, state = formOf(t, plain)
	code, page2 = app.post(t, path, token, state, "next", q(0), "Bo")
	if code != 200 {
		t.Fatalf("next = %d", code)
	}
	mustContain(t, "page 2 without a pet or a source", page2, "Why a pet, Bo?", "<p>From somewhere.</p>")

	// In French, the translation recalls the same answers.
	token, state = formOf(t, mustGet(t, app, path+"?lang=fr"))
	code, page2 = app.post(t, path+"?lang=fr", token, state, "next", q(0), "Cleo", q(1), "Cat")
	if code != 200 {
		t.Fatalf("next in French = %d", code)
	}
	mustContain(t, "page 2 in French", page2, "Pourquoi un Cat, Cleo ?")
}

// TestDesignerPiping: the designer shows the references of the texts by
// the questions' numbers ({{q1}}), saves them by the questions' IDs
// (which follow a question moved), and refuses one to a later or unknown
// question (422 beside the field, its number in the message).
func TestDesignerPiping(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	form := func(text2 string) url.Values {
		return url.Values{"title": {"Piped in the designer"}, "n": {"2"}, "ns": {"2"}, "hiddenFields": {"source"},
			"s.0.id": {"s1"}, "s.1.id": {"s2"}, "s.1.title": {"About {{q1}}"},
			"q.0.text": {"Your name?"}, "q.0.type": {"ShortText"}, "q.0.pos": {"1"}, "q.0.section": {"0"},
			"q.1.text": {text2}, "q.1.type": {"SimpleText"}, "q.1.pos": {"2"}, "q.1.section": {"1"}, "thankYou": {"Bye, {{q1|you}}."}, "action": {"save"}}
	}
	code, _, body := app.do(t, "POST", "/adatum/surveys/new", form("Why, {{q2}}?"), cookie)
	if code != 422 || !strings.Contains(body, "{{q2}} names a question on the same page or a later one") {
		t.Fatalf("a reference to itself = %d\n%s", code, body)
	}
	code, _, body = app.do(t, "POST", "/adatum/surveys/new", form("Why, {{q7}}?"), cookie)
	if code != 422 || !strings.Contains(body, "{{q7}} names no question") {
		t.Fatalf("a reference to no question = %d", code)
	}
	mustContain(t, "the refused form", body, `value="Why, {{q7}}?"`)
	code, _, body = app.do(t, "POST", "/adatum/surveys/new", form("Why, {{q1|friend}}, from {{source}}?"), cookie)
	if code != 303 {
		t.Fatalf("save = %d\n%s", code, body)
	}
	var sv *survey.Survey
	list, _ := app.surveys.List(ctx, "adatum")
	for _, s := range list {
		if s.Title == "Piped in the designer" {
			sv, _ = app.surveys.Get(ctx, "adatum", s.Slug)
		}
	}
	if sv == nil || len(sv.Questions) != 2 || sv.Questions[1].Text != "Why, {{"+sv.Questions[0].ID+"|friend}}, from {{source}}?" || sv.ThankYou != "Bye, {{"+sv.Questions[0].ID+"|you}}." {
		t.Fatalf("stored %+v", sv)
	}
	_, _, edit := app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/edit", nil, cookie)
	mustContain(t, "the designer", edit, `value="Why, {{q1|friend}}, from {{source}}?"`, `value="About {{q1}}"`, ">Bye, {{q1|you}}.</textarea>")
	mustLack(t, "the designer", edit, "{{"+sv.Questions[0].ID)

	// A question added at the top: the reference follows "Your name?",
	// now the second.
	moved := url.Values{"title": {sv.Title}, "n": {"3"}, "ns": {"2"}, "hiddenFields": {"source"},
		"s.0.id": {"s1"}, "s.1.id": {"s2"}, "s.1.title": {"About {{q1}}"},
		"q.0.id": {sv.Questions[0].ID}, "q.0.text": {"Your name?"}, "q.0.type": {"ShortText"}, "q.0.pos": {"1"}, "q.0.section": {"0"},
		"q.1.id": {sv.Questions[1].ID}, "q.1.text": {"Why, {{q1|friend}}?"}, "q.1.type": {"SimpleText"}, "q.1.pos": {"2"}, "q.1.section": {"1"},
		"q.2.text": {"First of all?"}, "q.2.type": {"ShortText"}, "q.2.pos": {"1"}, "q.2.section": {"0"}, "action": {"save"}}
	if code, _, body := app.do(t, "POST", "/adatum/surveys/"+sv.Slug+"/edit", moved, cookie); code != 303 {
		t.Fatalf("save with a question added at the top = %d\n%s", code, body)
	}
	sv, _ = app.surveys.Get(ctx, "adatum", sv.Slug)
	if len(sv.Questions) != 3 || sv.Questions[1].Text != "Your name?" || sv.Questions[2].Text != "Why, {{"+sv.Questions[1].ID+"|friend}}?" || sv.Sections[1].Title != "About {{"+sv.Questions[1].ID+"}}" {
		t.Fatalf("stored %+v", sv.Questions)
	}
	_, _, edit = app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/edit", nil, cookie)
	mustContain(t, "the designer after the move", edit, `value="Why, {{q2|friend}}?"`, `value="About {{q2}}"`)
	// The results' pages and exports name them so too.
	for _, page := range []string{"/analyze", "/answers/table", "/export.csv"} {
		_, _, body := app.do(t, "GET", "/adatum/surveys/"+sv.Slug+page, nil, cookie)
		mustContain(t, page, body, "Why, {{q2|friend}}?")
		mustLack(t, page, body, "{{"+sv.Questions[1].ID)
	}
}

// TestPipingThankYou: the thank-you page recalls the answer it follows,
// escaped, from its sealed address: an address altered, or of another
// survey, recalls nothing (the fallbacks), and the page is never cached.
func TestPipingThankYou(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	mk := func(title string) *survey.Survey {
		sv := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: title, HiddenFields: []string{"source"},
			ThankYou:  "Thanks, {{name|friend}}, from {{source|the web}}!",
			Questions: []survey.Question{{ID: "name", Text: "Your name?", Type: survey.ShortText}}}
		if err := app.surveys.Create(ctx, sv); err != nil {
			t.Fatal(err)
		}
		return sv
	}
	sv, other := mk("Thanks"), mk("Other thanks")
	app.pastCacheTTL()
	path := "/survey/adatum/" + sv.Slug
	token, state := formOf(t, mustGet(t, app, path+"?source=mail"))
	v := url.Values{"token": {token}, "state": {state}, "q-" + sv.Questions[0].ID: {"<b>Ann</b>"}}
	code, h, _ := app.do(t, "POST", path, v, nil)
	loc := h.Get("Location")
	if code != 303 || !strings.HasPrefix(loc, path+"/thankyou?r=") || strings.Contains(loc, "Ann") || strings.Contains(loc, "mail") {
		t.Fatalf("submit = %d, Location %q", code, loc)
	}
	_, hh, thanks := app.do(t, "GET", loc, nil, nil)
	mustContain(t, "the thank-you page", thanks, "Thanks, &lt;b&gt;Ann&lt;/b&gt;, from mail!")
	mustLack(t, "the thank-you page", thanks, "<b>Ann", "{{")
	if hh.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", hh.Get("Cache-Control"))
	}
	sealed := strings.TrimPrefix(loc, path+"/thankyou?r=")
	for _, u := range []string{path + "/thankyou", path + "/thankyou?r=x" + sealed, "/survey/adatum/" + other.Slug + "/thankyou?r=" + sealed} {
		mustContain(t, u, mustGet(t, app, u), "Thanks, friend, from the web!")
	}
	// A survey whose thank-you message recalls nothing sends no r.
	token = app.token(t, "/survey/adatum/"+app.adatum.Slug)
	_, h, _ = app.do(t, "POST", "/survey/adatum/"+app.adatum.Slug, app.complete(token), nil)
	if loc := h.Get("Location"); strings.Contains(loc, "r=") {
		t.Errorf("the demo survey's thank-you address %q", loc)
	}
}
