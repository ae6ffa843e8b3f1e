package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// logicQuestions are a survey with logic as the API takes it: "team"
// only for managers, "food" only when an age is given, and after "about"
// anyone under 18 goes to the end. Its rules name the ids the request
// gives its questions.
const logicQuestions = `"sections":[
		{"id":"about","jumps":[{"if":{"rules":[{"question":"age","op":"less_than","values":["18"]}]},"to":"end"}]},
		{"id":"food","showIf":{"match":"any","rules":[{"question":"age","op":"answered"}]}}],
	"questions":[
		{"id":"role","text":"Role","type":"MultipleChoice","possibleAnswers":["Manager","Engineer"],"section":"about"},
		{"id":"age","text":"Age","type":"Number","optional":true,"section":"about"},
		{"id":"team","text":"Team size","type":"Number","section":"about","showIf":{"rules":[{"question":"role","op":"equals","values":["Manager"]}]}},
		{"text":"Lunch","type":"SimpleText","section":"food"}]`

// TestAPILogic: /api/v1 takes a survey's conditions and jumps, returns
// them naming the survey's own question IDs, refuses bad logic with a 422
// keyed by field (nothing made), and the definition carries the logic out
// and back in.
func TestAPILogic(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	tok, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	code, v, raw := app.api(t, "POST", "/api/v1/surveys", tok, `{"title":"Logic",`+logicQuestions+`}`)
	if code != http.StatusCreated || v["slug"] != "logic" {
		t.Fatalf("create = %d %s", code, raw)
	}
	check := func(what string, sv *survey.Survey) {
		t.Helper()
		role, age := sv.Questions[0].ID, sv.Questions[1].ID
		if role == "role" || sv.Questions[2].ShowIf == nil || sv.Questions[2].ShowIf.Rules[0].Question != role ||
			sv.Sections[0].Jumps[0].If.Rules[0].Question != age || sv.Sections[0].Jumps[0].To != "end" ||
			sv.Sections[1].ShowIf == nil || sv.Sections[1].ShowIf.Match != "any" || sv.Sections[1].ShowIf.Rules[0].Question != age {
			t.Errorf("%s: %+v %+v", what, sv.Sections, sv.Questions)
		}
	}
	sv, err := app.surveys.Get(ctx, "adatum", "logic")
	if err != nil {
		t.Fatal(err)
	}
	check("stored", sv)
	_, _, raw = app.api(t, "GET", "/api/v1/surveys/logic", tok, "")
	if !strings.Contains(raw, `"showIf":{"match":"all","rules":[{"question":"`+sv.Questions[0].ID+`","op":"equals","values":["Manager"]}]}`) ||
		!strings.Contains(raw, `"jumps":[{"if":{"match":"all","rules":[{"question":"`+sv.Questions[1].ID+`","op":"less_than","values":["18"]}]},"to":"end"}]`) {
		t.Errorf("get: %s", raw)
	}

	// The definition names its questions q1, q2 … and its rules follow.
	code, _, def := app.api(t, "GET", "/api/v1/surveys/logic/definition", tok, "")
	if code != 200 || !strings.Contains(def, `"question":"q1"`) || !strings.Contains(def, `"question":"q2"`) || strings.Contains(def, sv.Questions[0].ID) {
		t.Fatalf("definition = %d %s", code, def)
	}
	code, v, raw = app.api(t, "POST", "/api/v1/surveys/import", tok, def)
	if code != http.StatusCreated {
		t.Fatalf("import = %d %s", code, raw)
	}
	imported, err := app.surveys.Get(ctx, "adatum", v["slug"].(string))
	if err != nil {
		t.Fatal(err)
	}
	check("imported", imported)

	before, _ := app.surveys.List(ctx, "adatum")
	for _, c := range []struct{ name, from, to, field string }{
		{"a later question", `"question":"role","op":"equals"`, `"question":"team","op":"equals"`, "questions.2.showIf.rules.0.question"},
		{"a missing question", `"question":"role","op":"equals"`, `"question":"gone","op":"equals"`, "questions.2.showIf.rules.0.question"},
		{"an unknown op", `"op":"equals"`, `"op":"like"`, "questions.2.showIf.rules.0.op"},
		{"a number op on a choice", `"question":"role","op":"equals"`, `"question":"role","op":"greater_than"`, "questions.2.showIf.rules.0.op"},
		{"a jump backwards", `"to":"end"`, `"to":"about"`, "sections.0.jumps.0.to"},
		{"a jump to nowhere", `"to":"end"`, `"to":"later"`, "sections.0.jumps.0.to"},
		{"no rules", `"showIf":{"match":"any","rules":[{"question":"age","op":"answered"}]}`, `"showIf":{"rules":[]}`, "sections.1.showIf.rules"},
	} {
		body := strings.Replace(`{"title":"Bad logic",`+logicQuestions+`}`, c.from, c.to, 1)
		code, v, raw := app.api(t, "POST", "/api/v1/surveys", tok, body)
		if fields, _ := v["fields"].(map[string]any); code != 422 || fields[c.field] == nil {
			t.Errorf("%s: %d %s, want 422 at %s", c.name, code, raw, c.field)
		}
		def := strings.Replace(`{"format":"surveys.definition/1","title":"Bad logic",`+logicQuestions+`}`, c.from, c.to, 1)
		code, v, raw = app.api(t, "POST", "/api/v1/surveys/import", tok, def)
		if fields, _ := v["fields"].(map[string]any); code != 422 || fields[c.field] == nil {
			t.Errorf("import %s: %d %s, want 422 at %s", c.name, code, raw, c.field)
		}
	}
	if code, _, raw := app.api(t, "POST", "/api/v1/surveys", tok, strings.Replace(`{"title":"Bad",`+logicQuestions+`}`, `"op":"equals"`, `"op":"equals","colour":"red"`, 1)); code != 422 || !strings.Contains(raw, "colour") {
		t.Errorf("unknown field in a rule = %d %s", code, raw)
	}
	if after, _ := app.surveys.List(ctx, "adatum"); len(after) != len(before) {
		t.Errorf("bad logic made %d surveys", len(after)-len(before))
	}
}

// TestDesignerKeepsLogic: a survey the API gave conditions and jumps,
// shown in the designer and saved as shown, keeps them; an edit that
// removes the question a rule looks at is a 422 beside the rule,
// nothing saved.
func TestDesignerKeepsLogic(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	tok, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	if code, _, raw := app.api(t, "POST", "/api/v1/surveys", tok, `{"title":"Logic",`+logicQuestions+`}`); code != http.StatusCreated {
		t.Fatalf("create = %d %s", code, raw)
	}
	sv, _ := app.surveys.Get(ctx, "adatum", "logic")
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	_, _, body := app.do(t, "GET", "/adatum/surveys/logic/edit", nil, cookie)
	form := designerFormOf(t, body)
	form.Set("title", "Logic, edited")
	form.Set("action", "save")
	if code, _, body := app.do(t, "POST", "/adatum/surveys/logic/edit", form, cookie); code != http.StatusSeeOther {
		t.Fatalf("save = %d\n%s", code, problems(body))
	}
	got, _ := app.surveys.Get(ctx, "adatum", "logic")
	if got.Title != "Logic, edited" || got.Questions[2].ShowIf == nil || got.Questions[2].ShowIf.Rules[0].Question != got.Questions[0].ID || got.Questions[0].ID == sv.Questions[0].ID ||
		len(got.Sections[0].Jumps) != 1 || got.Sections[1].ShowIf == nil {
		t.Fatalf("after the save: %+v %+v", got.Sections, got.Questions)
	}
	// (A draft's questions are numbered afresh by each save; their rules
	// follow.) Without the role question, the team size's rule has
	// nothing to look at.
	_, _, body = app.do(t, "GET", "/adatum/surveys/logic/edit", nil, cookie)
	form = designerFormOf(t, body)
	form.Set("q.0.remove", "1")
	form.Set("action", "save")
	code, _, body := app.do(t, "POST", "/adatum/surveys/logic/edit", form, cookie)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `<p class="field-error" id="q1-if-0-question-err">This survey no longer has that question`) {
		t.Fatalf("removing a question a rule looks at = %d\n%s", code, problems(body))
	}
	if again, _ := app.surveys.Get(ctx, "adatum", "logic"); len(again.Questions) != 4 {
		t.Errorf("the refused edit saved %d questions", len(again.Questions))
	}
}
