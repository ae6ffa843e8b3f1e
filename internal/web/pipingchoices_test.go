package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestPipedChoices: on the second page, the choices of a question that
// recall the first page's answer read with it in place (a choice, a
// matrix row, a ranking's item), each choice still sending the
// designer's label, which the stored answer keeps.
func TestPipedChoices(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.publish(t, &survey.Survey{Title: "Piped choices",
		Sections: []survey.Section{{ID: "a", Title: "You"}, {ID: "b", Title: "Whom"}},
		Questions: []survey.Question{
			{ID: "name", Text: "Your name?", Type: survey.ShortText, Section: "a"},
			{ID: "greet", Text: "Greet whom?", Type: survey.MultipleChoice, PossibleAnswers: []string{"{{name|You}}", "Everyone"}, Section: "b"},
			{ID: "rate", Text: "Rate", Type: survey.Matrix, Rows: []string{"Friend of {{name}}", "Others"}, PossibleAnswers: []string{"Good", "Bad"}, Section: "b", Optional: true},
			{ID: "pick", Text: "Pick one", Type: survey.Dropdown, PossibleAnswers: []string{"Dear {{name}}", "Nobody"}, Section: "b", Optional: true},
			{ID: "tick", Text: "Tick", Type: survey.Checkboxes, PossibleAnswers: []string{"Tick {{name}}", "Tick me"}, Section: "b", Optional: true},
			{ID: "rank", Text: "Rank", Type: survey.Ranking, PossibleAnswers: []string{"Rank {{name}}", "Rank me"}, Section: "b", Optional: true},
		}})
	app.pastCacheTTL()
	label := sv.Questions[1].PossibleAnswers[0]
	if !strings.HasPrefix(label, "{{"+sv.Questions[0].ID+"|") {
		t.Fatalf("stored choice %q does not name the question's ID", label)
	}
	path := "/survey/adatum/" + sv.Slug
	token := app.token(t, path)
	code, body := app.post(t, path, token, "", "", "q-"+sv.Questions[0].ID, "Ada")
	if code != http.StatusOK {
		t.Fatalf("first page = %d\n%s", code, body)
	}
	mustContain(t, "second page", body, "<span>Ada</span>", `value="`+html.EscapeString(label)+`"`, ">Friend of Ada<", ">Dear Ada</option>", "<span>Tick Ada</span>", "Rank Ada</label>")
	mustLack(t, "second page", body, ">"+html.EscapeString(label)+"<")
	_, state := formOf(t, body)
	code, body = app.post(t, path, token, state, "", "q-"+sv.Questions[1].ID, label, "q-"+sv.Questions[3].ID, sv.Questions[3].PossibleAnswers[0])
	if code != http.StatusSeeOther {
		t.Fatalf("submit = %d\n%s", code, body)
	}
	answers := app.storedAnswers(t, sv.Slug)
	if len(answers) != 1 {
		t.Fatalf("%d answers stored", len(answers))
	}
	for _, q := range []survey.Question{sv.Questions[1], sv.Questions[3]} {
		if qa, _ := answers[0].Answer(q.ID); qa.Answer != q.PossibleAnswers[0] {
			t.Errorf("stored %q for %s, want the designer's label %q", qa.Answer, q.Text, q.PossibleAnswers[0])
		}
	}
}

// TestPipedChoicesDesigner: the designer reads a choice's {{q1}} as the
// first question's ID and shows it again as {{q1}}; a choice recalling a
// question on its own page is refused (422) beside the choices.
func TestPipedChoicesDesigner(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	editor := app.signedIn(t, "adatum", "ed@adatum.example")
	form := url.Values{"title": {"Designed piped choices"}, "n": {"2"}, "ns": {"2"}, "s.0.id": {"a"}, "s.1.id": {"b"},
		"q.0.text": {"Your name?"}, "q.0.type": {"ShortText"}, "q.0.section": {"0"},
		"q.1.text": {"Greet whom?"}, "q.1.type": {"MultipleChoice"}, "q.1.choices": {"{{q1|You}}\nEveryone"}, "q.1.section": {"0"},
		"action": {"save"}}
	code, _, body := app.do(t, "POST", "/adatum/surveys/new", form, editor)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="q1-choices-err"`) || !strings.Contains(body, "{{q1}} names a question on the same page") {
		t.Fatalf("a choice recalling its own page = %d\n%s", code, body)
	}
	form.Set("q.1.section", "1")
	code, h, body := app.do(t, "POST", "/adatum/surveys/new", form, editor)
	if code != http.StatusSeeOther {
		t.Fatalf("save = %d\n%s", code, body)
	}
	slug := strings.Split(h.Get("Location"), "/")[3]
	sv, err := app.surveys.Get(context.Background(), "adatum", slug)
	if err != nil || sv.Questions[1].PossibleAnswers[0] != "{{"+sv.Questions[0].ID+"|You}}" {
		t.Fatalf("saved %q, %v", sv.Questions[1].PossibleAnswers, err)
	}
	_, _, body = app.do(t, "GET", "/adatum/surveys/"+slug+"/edit", nil, editor)
	mustContain(t, "the designer again", body, ">{{q1|You}}\nEveryone</textarea>")
}
