package web_test

import (
	"context"
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
		}}
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
}
