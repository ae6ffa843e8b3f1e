package web_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestDesignerLive: the designer's script gets its block alone (the form
// and its problems, no page around it) for every button but Save,
// Publish and Preview; a new survey is made by its first autosave, a
// draft saved by the next; an invalid draft is not saved and the reply
// says why; a survey saved by another editor since the form was made is
// never overwritten (autosave and Save alike), and the reply names who.
func TestDesignerLive(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	for _, who := range []string{"ana@adatum.example", "bo@adatum.example"} {
		if _, err := testUsers(app.st).Add(ctx, "adatum", who, "correct horse battery"); err != nil {
			t.Fatal(err)
		}
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	_, bo := app.signIn(t, "adatum", "bo@adatum.example", "correct horse battery")
	as := func(c string, live bool) map[string]string {
		h := map[string]string{"Cookie": "surveys_session=" + c}
		if live {
			h["X-Designer"] = "live"
		}
		return h
	}
	form := url.Values{"title": {"Live lunch"}, "n": {"1"}, "q.0.text": {"What did you eat?"}, "q.0.type": {"SimpleText"}}
	with := func(v url.Values, kv ...string) url.Values {
		out := url.Values{}
		for k, vs := range v {
			out[k] = append([]string(nil), vs...)
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	autosave := func(path string, v url.Values, c string) (int, map[string]string) {
		t.Helper()
		code, h, body := app.do(t, "POST", path, with(v, "action", "autosave"), as(c, false))
		if h.Get("Content-Type") != "application/json" {
			t.Fatalf("autosave answered %s:\n%s", h.Get("Content-Type"), body)
		}
		var reply map[string]string
		if err := json.Unmarshal([]byte(body), &reply); err != nil {
			t.Fatal(err)
		}
		return code, reply
	}

	// A button, live: the block alone, as the page would show it.
	code, h, body := app.do(t, "POST", "/adatum/surveys/new", with(form, "action", "add"), as(ana.Value, true))
	if code != 200 || h.Get("X-Designer") != "live" || strings.Contains(body, "<html") || strings.Contains(body, "site-header") ||
		!strings.Contains(body, `<form method="post" action="/adatum/surveys/new"`) || !strings.Contains(body, `id="q1-text"`) || !strings.Contains(body, "What did you eat?") {
		t.Fatalf("add, live = %d %q:\n%s", code, h.Get("X-Designer"), body)
	}
	// Without the header: the whole page, as before.
	if _, _, body := app.do(t, "POST", "/adatum/surveys/new", with(form, "action", "add"), as(ana.Value, false)); !strings.Contains(body, "<html") {
		t.Fatal("add without the header is not a page")
	}
	// A problem, live: 422 and the block with its summary.
	code, _, body = app.do(t, "POST", "/adatum/surveys/new", with(form, "action", "refresh.0", "q.0.type", "MultipleChoice"), as(ana.Value, true))
	if code != 200 || strings.Contains(body, "<html") || !strings.Contains(body, `id="q0-choices"`) {
		t.Fatalf("change kind, live = %d:\n%s", code, body)
	}

	// An invalid new survey: not made, and the reply says what to fix.
	before, _ := app.surveys.List(ctx, "adatum")
	code, reply := autosave("/adatum/surveys/new", with(form, "title", ""), ana.Value)
	if code != 422 || reply["state"] != "invalid" || !strings.Contains(reply["message"], "Not saved") || reply["field"] != "title" {
		t.Fatalf("invalid autosave = %d %v", code, reply)
	}
	if list, _ := app.surveys.List(ctx, "adatum"); len(list) != len(before) {
		t.Fatalf("an invalid draft was saved: %d surveys", len(list))
	}
	// The first autosave makes the draft, and says where it is.
	code, reply = autosave("/adatum/surveys/new", form, ana.Value)
	if code != 200 || reply["state"] != "saved" || reply["edit"] != "/adatum/surveys/live-lunch/edit" || reply["version"] == "" {
		t.Fatalf("first autosave = %d %v", code, reply)
	}
	v1 := reply["version"]
	// The next saves it, naming the version it came from.
	code, reply = autosave("/adatum/surveys/live-lunch/edit", with(form, "version", v1, "q.0.text", "What did you drink?"), ana.Value)
	if code != 200 || reply["state"] != "saved" || reply["version"] == v1 || reply["edit"] != "" {
		t.Fatalf("second autosave = %d %v", code, reply)
	}
	v2 := reply["version"]
	sv, err := app.surveys.Get(ctx, "adatum", "live-lunch")
	if err != nil || sv.Questions[0].Text != "What did you drink?" || sv.State != survey.Draft || sv.EditedBy != "ana@adatum.example" || sv.Version != v2 {
		t.Fatalf("saved %+v, %v", sv, err)
	}
	// The designer opened now names that version.
	if _, _, body := app.get(t, "/adatum/surveys/live-lunch/edit", ana); !strings.Contains(body, `name="version" value="`+v2+`"`) || !strings.Contains(body, `data-autosave="1"`) {
		t.Fatal("the designer does not carry the survey's version")
	}

	// Bo saves from a form of v2; Ana's tab, still on v1, is refused with
	// Bo's name, autosaving or pressing Save, and Bo's edit stays.
	if code, reply := autosave("/adatum/surveys/live-lunch/edit", with(form, "version", v2, "q.0.text", "Bo's question"), bo.Value); code != 200 {
		t.Fatalf("bo's autosave = %d %v", code, reply)
	}
	code, reply = autosave("/adatum/surveys/live-lunch/edit", with(form, "version", v2, "q.0.text", "Ana's question"), ana.Value)
	if code != 409 || reply["state"] != "conflict" || !strings.Contains(reply["message"], "bo@adatum.example") || !strings.Contains(reply["message"], "Reload") {
		t.Fatalf("a stale autosave = %d %v", code, reply)
	}
	code, _, body = app.do(t, "POST", "/adatum/surveys/live-lunch/edit", with(form, "version", v2, "q.0.text", "Ana's question", "action", "save"), as(ana.Value, false))
	if code != 409 || !strings.Contains(body, "bo@adatum.example") || !strings.Contains(body, "Reload the saved version") || !strings.Contains(body, "Ana&#39;s question") {
		t.Fatalf("a stale save = %d:\n%s", code, body)
	}
	if sv, _ := app.surveys.Get(ctx, "adatum", "live-lunch"); sv.Questions[0].Text != "Bo's question" {
		t.Fatalf("overwritten: %q", sv.Questions[0].Text)
	}

	// A published survey is not saved automatically: its button saves it,
	// with the confirmation of what it would hide.
	if code, _, _ := app.do(t, "POST", "/adatum/surveys/live-lunch/publish", url.Values{}, as(ana.Value, false)); code != 303 {
		t.Fatalf("publish = %d", code)
	}
	code, reply = autosave("/adatum/surveys/live-lunch/edit", with(form, "q.0.text", "Changed live"), ana.Value)
	if code != 409 || !strings.Contains(reply["message"], "use its Save button") {
		t.Fatalf("autosave of a published survey = %d %v", code, reply)
	}
	if _, _, body := app.get(t, "/adatum/surveys/live-lunch/edit", ana); strings.Contains(body, `data-autosave`) {
		t.Fatal("a published survey's designer autosaves")
	}
}
