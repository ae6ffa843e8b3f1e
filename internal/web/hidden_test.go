package web_test

import (
	"context"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// hiddenSurvey is a published survey with the hidden fields source and
// panel_id and three sections: "Your role" for everyone, "Partners" only
// when the link says source=partner (a rule on a hidden field), "Last
// words" for everyone. Its questions' stored IDs: role, partner, rate.
func (a *testApp) hiddenSurvey(t testing.TB, title string, prefill bool) (*survey.Survey, map[string]string) {
	t.Helper()
	sv := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: title, HiddenFields: []string{"source", "panel_id"}, Prefill: prefill,
		Sections: []survey.Section{
			{ID: "role", Title: "Your role"},
			{ID: "partners", Title: "Partners", ShowIf: &survey.Condition{Rules: []survey.Rule{{Question: survey.HiddenRef("source"), Op: survey.OpEquals, Values: []string{"partner"}}}}},
			{ID: "last", Title: "Last words"},
		},
		Questions: []survey.Question{
			{Text: "What is your role?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Manager", "Engineer"}, Section: "role"},
			{Text: "Which partner sent you?", Type: survey.ShortText, Section: "partners"},
			{Text: "Rate this survey", Type: survey.FiveStars, Section: "last", Optional: true},
		}}
	if err := a.surveys.Create(context.Background(), sv); err != nil {
		t.Fatal(err)
	}
	a.pastCacheTTL()
	ids := map[string]string{}
	for i, name := range []string{"role", "partner", "rate"} {
		ids[name] = sv.Questions[i].ID
	}
	return sv, ids
}

// TestHiddenFieldsCarried: the link's hidden values are kept, sealed,
// through every page of the survey, steer its logic, and are stored with
// the answer; unknown parameters are ignored, a long value is cut to its
// limit, and no value is ever shown in the page.
func TestHiddenFieldsCarried(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", survey.MaxHiddenFieldValue+100)
	for _, c := range []struct {
		name  string
		query string
		steps []logicStep
		want  map[string]string
		lack  []string // never in a page
	}{
		{"across two pages", "?source=newsletter&panel_id=42&utm_medium=mail", []logicStep{
			{"next", []string{"role", "Manager"}, 200, []string{"Page 2 of 2", "Last words"}, []string{"Which partner"}},
			{"submit", []string{"rate", "4"}, 303, nil, nil},
		}, map[string]string{"source": "newsletter", "panel_id": "42"}, []string{"newsletter", "utm_medium"}},
		{"a rule on a hidden field shows a page", "?source=partner", []logicStep{
			{"next", []string{"role", "Engineer"}, 200, []string{"Page 2 of 3", "Which partner sent you?"}, nil},
			{"next", []string{"partner", "Contoso"}, 200, []string{"Page 3 of 3"}, nil},
			{"submit", nil, 303, nil, nil},
		}, map[string]string{"source": "partner"}, nil},
		{"markup is a value like any", "?source=" + url.QueryEscape(`<script>alert(1)</script>`), []logicStep{
			{"next", []string{"role", "Engineer"}, 200, nil, nil},
			{"submit", nil, 303, nil, nil},
		}, map[string]string{"source": `<script>alert(1)</script>`}, []string{"<script>alert(1)", "alert(1)"}},
		{"a value too long is cut", "?panel_id=" + long, []logicStep{
			{"next", []string{"role", "Engineer"}, 200, nil, nil},
			{"submit", nil, 303, nil, nil},
		}, map[string]string{"panel_id": long[:survey.MaxHiddenFieldValue]}, []string{long[:50]}},
		{"no values", "", []logicStep{
			{"next", []string{"role", "Engineer"}, 200, nil, nil},
			{"submit", nil, 303, nil, nil},
		}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			app := newTestApp(t)
			sv, ids := app.hiddenSurvey(t, "Hidden", false)
			path := "/survey/adatum/" + sv.Slug
			code, _, body := app.do(t, "GET", path+c.query, nil, nil)
			if code != 200 {
				t.Fatalf("GET = %d", code)
			}
			mustLack(t, "page 1", body, c.lack...)
			token, state := formOf(t, body)
			if c.want != nil && state == "" {
				t.Fatal("the first page carries no state")
			}
			for i, s := range c.steps {
				var fields []string
				for j := 0; j+1 < len(s.answers); j += 2 {
					fields = append(fields, "q-"+ids[s.answers[j]], s.answers[j+1])
				}
				code, body := app.post(t, path, token, state, s.action, fields...)
				if code != s.code {
					t.Fatalf("step %d = %d, want %d\n%s", i+1, code, s.code, body)
				}
				mustContain(t, s.action, body, s.want...)
				mustLack(t, s.action, body, s.lack...)
				mustLack(t, s.action, body, c.lack...)
				if code == 200 {
					_, state = formOf(t, body)
				}
			}
			got := app.storedAnswers(t, sv.Slug)
			if len(got) != 1 || !reflect.DeepEqual(got[0].Hidden, c.want) {
				t.Fatalf("stored %+v, want hidden %q", got, c.want)
			}
		})
	}
}

// TestHiddenFieldsOnePage: on a survey of one page, whose form is
// rendered once for everyone (the cached first page), a link with hidden
// values gets a page of its own that carries them, sealed; the cached
// page never holds them, before or after, and an answer sent from it has
// none.
func TestHiddenFieldsOnePage(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: "One page", HiddenFields: []string{"source"},
		Questions: []survey.Question{{Text: "Rate us", Type: survey.FiveStars}}}
	if err := app.surveys.Create(context.Background(), sv); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	path, q := "/survey/adatum/"+sv.Slug, "q-"+sv.Questions[0].ID
	_, _, plain := app.do(t, "GET", path, nil, nil)
	if _, state := formOf(t, plain); state != "" {
		t.Fatal("the shared page has a state")
	}
	_, h, mine := app.do(t, "GET", path+"?source=secret-campaign", nil, nil)
	token, state := formOf(t, mine)
	if state == "" || h.Get("Cache-Control") != "no-store" {
		t.Fatalf("the link's page: state %q, Cache-Control %q", state, h.Get("Cache-Control"))
	}
	mustLack(t, "the link's page", mine, "secret-campaign")
	// The next respondent, without the link's values, gets the shared
	// page again: no state, nothing of the one before.
	_, _, again := app.do(t, "GET", path, nil, nil)
	other, otherState := formOf(t, again)
	if otherState != "" || strings.Contains(again, "secret-campaign") {
		t.Fatalf("the shared page after a link with values: state %q", otherState)
	}
	if code, body := app.post(t, path, token, state, "", q, "5"); code != 303 {
		t.Fatalf("submit = %d\n%s", code, body)
	}
	if code, body := app.post(t, path, other, "", "", q, "3"); code != 303 {
		t.Fatalf("submit without = %d\n%s", code, body)
	}
	byID := map[string]map[string]string{}
	for _, a := range app.storedAnswers(t, sv.Slug) {
		byID[a.ID] = a.Hidden
	}
	if len(byID) != 2 || byID[answerID(token)]["source"] != "secret-campaign" || byID[answerID(other)] != nil {
		t.Fatalf("stored %q", byID)
	}
	// A state of another form does not open: refused, nothing stored.
	if code, _ := app.post(t, path, app.token(t, path), state, "", q, "1"); code != 422 {
		t.Errorf("another form's state = %d, want 422", code)
	}
}

// TestPrefillFromLink: a survey that allows it prefills its questions
// from the link (q-<ID>), only with values their kinds accept; one that
// does not ignores them.
func TestPrefillFromLink(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv, ids := app.hiddenSurvey(t, "Prefilled", true)
	path := "/survey/adatum/" + sv.Slug
	_, _, body := app.do(t, "GET", path+"?q-"+ids["role"]+"=Engineer&source=x", nil, nil)
	mustContain(t, "prefilled", body, `value="Engineer" checked`)
	_, _, body = app.do(t, "GET", path+"?q-"+ids["role"]+"=Astronaut", nil, nil)
	mustLack(t, "not a choice", body, "checked", "Astronaut")
	// A later page's question, prefilled from the first page's link.
	token, state := formOf(t, mustGet(t, app, path+"?q-"+ids["rate"]+"=4"))
	code, page2 := app.post(t, path, token, state, "next", "q-"+ids["role"], "Manager")
	if code != 200 {
		t.Fatalf("next = %d", code)
	}
	mustContain(t, "page 2", page2, `value="4" checked`)

	off, offIDs := app.hiddenSurvey(t, "Not prefilled", false)
	_, _, body = app.do(t, "GET", "/survey/adatum/"+off.Slug+"?q-"+offIDs["role"]+"=Engineer", nil, nil)
	mustLack(t, "not allowed", body, "checked")
}

func mustGet(t *testing.T, app *testApp, path string) string {
	t.Helper()
	code, _, body := app.do(t, "GET", path, nil, nil)
	if code != 200 {
		t.Fatalf("GET %s = %d", path, code)
	}
	return body
}

// TestDesignerHiddenFields: the designer saves a survey's hidden fields
// and its prefill switch, shows them again, and refuses a bad name or a
// name twice (422 beside the field), saving nothing.
func TestDesignerHiddenFields(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	form := func(fields, prefill string) url.Values {
		return url.Values{"title": {"With hidden fields"}, "n": {"1"}, "q.0.text": {"Anything else?"}, "q.0.type": {"SimpleText"}, "q.0.pos": {"1"},
			"hiddenFields": {fields}, "prefill": {prefill}, "action": {"save"}}
	}
	for _, bad := range []struct{ fields, says string }{
		{"source\nSource", "named twice"},
		{"utm.source", "is not allowed"},
		{"lang", "uses itself"},
		{strings.Repeat("a", 41), "40 characters"},
		{"<b>x</b>", "is not allowed"},
	} {
		code, _, body := app.do(t, "POST", "/adatum/surveys/new", form(bad.fields, ""), cookie)
		if code != 422 || !strings.Contains(body, `id="hiddenFields-err"`) || !strings.Contains(body, bad.says) || !strings.Contains(body, `href="#hiddenFields"`) {
			t.Errorf("hidden fields %q = %d, want 422 saying %q beside the field", bad.fields, code, bad.says)
		}
		mustLack(t, "a bad name", body, "<b>x</b>")
	}
	if list, _ := app.surveys.List(ctx, "adatum"); len(list) != 1 {
		t.Fatalf("a refused form saved a survey: %d surveys", len(list))
	}
	if code, _, body := app.do(t, "POST", "/adatum/surveys/new", form("source\n panel_id ", "1"), cookie); code != 303 {
		t.Fatalf("save = %d\n%s", code, body)
	}
	list, _ := app.surveys.List(ctx, "adatum")
	var sv *survey.Survey
	for _, s := range list {
		if s.Title == "With hidden fields" {
			sv, _ = app.surveys.Get(ctx, "adatum", s.Slug)
		}
	}
	if sv == nil || !reflect.DeepEqual(sv.HiddenFields, []string{"source", "panel_id"}) || !sv.Prefill {
		t.Fatalf("saved %+v", sv)
	}
	_, _, edit := app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/edit", nil, cookie)
	mustContain(t, "the designer", edit, "source\npanel_id</textarea>", `name="prefill" value="1" aria-describedby="prefill-hint" checked`, "/survey/adatum/"+sv.Slug+"?source=…")
	// A rule on a hidden field shows it in its select, chosen.
	hs, _ := app.hiddenSurvey(t, "Rules on a link", false)
	_, _, edit = app.do(t, "GET", "/adatum/surveys/"+hs.Slug+"/edit", nil, cookie)
	mustContain(t, "the logic editor", edit, `<option value="hidden:source" selected>Hidden field “source”</option>`, `<option value="hidden:panel_id">Hidden field “panel_id”</option>`)
}

// answerWithLink answers the hidden survey from a link with query: a
// role, then the last page (and the partners' page when shown).
func (a *testApp) answerWithLink(t *testing.T, path, query string, ids map[string]string, role string) {
	t.Helper()
	token, state := formOf(t, mustGet(t, a, path+query))
	for range 3 {
		code, body := a.post(t, path, token, state, "", "q-"+ids["role"], role, "q-"+ids["partner"], "Contoso", "q-"+ids["rate"], "4")
		if code == 303 {
			return
		}
		if code != 200 {
			t.Fatalf("answer = %d\n%s", code, body)
		}
		_, state = formOf(t, body)
	}
	t.Fatal("the survey did not end")
}

// TestHiddenFieldsInResults: the hidden fields are columns of the
// exports (after the questions; CSV cells escaped as any), of the answers
// table and the answer page, and a filter like any question's.
func TestHiddenFieldsInResults(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	sv, ids := app.hiddenSurvey(t, "Results", false)
	path := "/survey/adatum/" + sv.Slug
	app.answerWithLink(t, path, "?source=newsletter&panel_id=42", ids, "Manager")
	app.answerWithLink(t, path, "?source="+url.QueryEscape("=cmd|' /C calc'!A0"), ids, "Engineer")
	app.answerWithLink(t, path, "", ids, "Engineer")
	if n := app.storedOf(t, sv.Slug); n != 3 {
		t.Fatalf("%d answers stored", n)
	}
	if _, err := testUsers(app.st).AddMember(ctx, "adatum", "vera@adatum.example", "correct horse battery", survey.Viewer); err != nil {
		t.Fatal(err)
	}
	_, vera := app.signIn(t, "adatum", "vera@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + vera.Value}
	base := "/adatum/surveys/" + sv.Slug

	_, _, csvBody := app.do(t, "GET", base+"/export.csv", nil, cookie)
	lines := strings.Split(strings.TrimSpace(strings.TrimPrefix(csvBody, "\uFEFF")), "\n")
	if len(lines) != 4 || !strings.HasSuffix(strings.TrimSpace(lines[0]), ",source (hidden field),panel_id (hidden field)") {
		t.Fatalf("CSV:\n%s", csvBody)
	}
	for i, want := range []string{",newsletter,42", `,'=cmd|' /C calc'!A0,`, ",,"} {
		if !strings.HasSuffix(strings.TrimSpace(lines[i+1]), want) {
			t.Errorf("CSV row %d = %q, want it to end %q", i+1, lines[i+1], want)
		}
	}
	_, _, csvFiltered := app.do(t, "GET", base+"/export.csv?q=hidden:source&a=NEWSLETTER", nil, cookie)
	if n := strings.Count(strings.TrimSpace(csvFiltered), "\n"); n != 1 || !strings.Contains(csvFiltered, ",newsletter,42") {
		t.Errorf("CSV filtered by a hidden field:\n%s", csvFiltered)
	}
	_, _, jsonBody := app.do(t, "GET", base+"/export.json", nil, cookie)
	if !strings.Contains(jsonBody, `"hidden":{"panel_id":"42","source":"newsletter"}`) || strings.Count(jsonBody, `"hidden"`) != 2 {
		t.Errorf("JSON:\n%s", jsonBody)
	}
	_, _, xlsx := app.do(t, "GET", base+"/export.xlsx", nil, cookie)
	rows := openXLSX(t, "xlsx", xlsx)
	last := len(rows[0]) - 1
	if rows[0][last-1].value != "source (hidden field)" || rows[0][last].value != "panel_id (hidden field)" ||
		rows[1][last-1].value != "newsletter" || rows[1][last].value != "42" || rows[1][last].typ != excelize.CellTypeInlineString ||
		rows[2][last-1].value != "=cmd|' /C calc'!A0" || rows[2][last-1].formula != "" || rows[3][last].value != "" {
		t.Errorf("XLSX rows %+v", rows)
	}

	code, _, table := app.do(t, "GET", base+"/answers/table?q=hidden:source&a=newsletter", nil, cookie)
	if code != 200 {
		t.Fatalf("table = %d", code)
	}
	mustContain(t, "the filtered table", table, "source <span class=\"muted\">(hidden field)</span></th>", `<td data-label="source (hidden field)">newsletter</td><td data-label="panel_id (hidden field)">42</td>`, "Filtered: 1 of 3 answers",
		`<option value="hidden:source" selected>Hidden field “source”</option>`)
	mustLack(t, "the filtered table", table, "=cmd")
	_, _, table = app.do(t, "GET", base+"/answers/table", nil, cookie)
	mustContain(t, "the table", table, `<td data-label="source (hidden field)">=cmd|&#39; /C calc&#39;!A0</td>`)
	code, _, bad := app.do(t, "GET", base+"/answers/table?q=hidden:medium&a=x", nil, cookie)
	if code != 422 || !strings.Contains(bad, "no hidden field") {
		t.Errorf("a filter on an unknown hidden field = %d", code)
	}
	_, _, analysis := app.do(t, "GET", base+"/analyze", nil, cookie)
	mustContain(t, "the analysis", analysis, `<h2 class="qtitle" id="ah-source">source</h2>`, "<strong>2</strong> answers carried a value",
		`<a href="/adatum/surveys/`+sv.Slug+`/answers/table?a=newsletter&amp;q=hidden%3Asource">newsletter</a></td><td class="num">1</td>`,
		"<strong>1</strong> answer carried a value", ">=cmd|&#39; /C calc&#39;!A0</a>")
	_, _, filtered := app.do(t, "GET", base+"/analyze?q=hidden:source&a=newsletter", nil, cookie)
	mustContain(t, "the filtered analysis", filtered, "hidden field “source” is “newsletter”", `id="ah-panel_id">panel_id</h2>`, "<strong>1</strong> answer carried a value")
	_, _, one := app.do(t, "GET", base+"/answers?q=hidden:panel_id&a=42", nil, cookie)
	mustContain(t, "the answer page", one, "<dt>source <span class=\"muted\">(hidden field)</span></dt><dd>newsletter</dd>", "<dd>42</dd>")
}

// TestAPIHiddenFields: the API makes a survey with hidden fields and the
// prefill switch and gives them back, refuses a bad name (422 by field),
// carries them in a definition (exported, imported), and gives each
// answer's hidden values.
func TestAPIHiddenFields(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	token, err := store.NewTokenStore(app.st).Create(context.Background(), "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	code, v, raw := app.api(t, "POST", "/api/v1/surveys", token, `{"title":"API hidden","publish":true,"hiddenFields":["source","panel_id"],"prefill":true,
		"sections":[{"id":"a"},{"id":"b","showIf":{"rules":[{"question":"hidden:source","op":"equals","values":["partner"]}]}}],
		"questions":[{"id":"q1","text":"Rate","type":"FiveStars","section":"a"},{"id":"q2","text":"Which partner?","type":"SimpleText","section":"b"}]}`)
	if code != 201 || !reflect.DeepEqual(v["hiddenFields"], []any{"source", "panel_id"}) || v["prefill"] != true {
		t.Fatalf("create = %d %s", code, raw)
	}
	slug := v["slug"].(string)
	code, v, _ = app.api(t, "GET", "/api/v1/surveys/"+slug, token, "")
	if code != 200 || !reflect.DeepEqual(v["hiddenFields"], []any{"source", "panel_id"}) {
		t.Errorf("get = %d %v", code, v)
	}
	code, v, raw = app.api(t, "POST", "/api/v1/surveys", token, `{"title":"Bad","hiddenFields":["Source","source"],"questions":[{"text":"Rate","type":"FiveStars"}]}`)
	if fields, _ := v["fields"].(map[string]any); code != 422 || fields["hiddenFields"] == nil {
		t.Errorf("a name twice = %d %s", code, raw)
	}
	code, v, raw = app.api(t, "POST", "/api/v1/surveys", token, `{"title":"Bad rule","questions":[{"text":"Rate","type":"FiveStars","showIf":{"rules":[{"question":"hidden:source","op":"answered"}]}}]}`)
	if fields, _ := v["fields"].(map[string]any); code != 422 || fields["questions.0.showIf.rules.0.question"] == nil {
		t.Errorf("a rule on an undeclared hidden field = %d %s", code, raw)
	}

	code, def, raw := app.api(t, "GET", "/api/v1/surveys/"+slug+"/definition", token, "")
	if code != 200 || !reflect.DeepEqual(def["hiddenFields"], []any{"source", "panel_id"}) || def["prefill"] != true || !strings.Contains(raw, `"question":"hidden:source"`) {
		t.Fatalf("definition = %d %s", code, raw)
	}
	code, v, raw = app.api(t, "POST", "/api/v1/surveys/import", token, raw)
	if code != 201 || !reflect.DeepEqual(v["hiddenFields"], []any{"source", "panel_id"}) || !strings.Contains(raw, `"question":"hidden:source"`) {
		t.Fatalf("import = %d %s", code, raw)
	}

	app.pastCacheTTL()
	path := "/survey/adatum/" + slug
	sv, err := app.surveys.Get(context.Background(), "adatum", slug)
	if err != nil {
		t.Fatal(err)
	}
	token2, state := formOf(t, mustGet(t, app, path+"?panel_id=7&source=partner"))
	code, body := app.post(t, path, token2, state, "next", "q-"+sv.Questions[0].ID, "5")
	if code != 200 || !strings.Contains(body, "Which partner?") {
		t.Fatalf("next = %d", code)
	}
	_, state = formOf(t, body)
	if code, _ := app.post(t, path, token2, state, "submit", "q-"+sv.Questions[1].ID, "Contoso"); code != 303 {
		t.Fatalf("submit = %d", code)
	}
	app.storedOf(t, slug)
	code, _, raw = app.api(t, "GET", "/api/v1/surveys/"+slug+"/answers", token, "")
	if code != 200 || !strings.Contains(raw, `"hidden":{"panel_id":"7","source":"partner"}`) {
		t.Errorf("answers = %d %s", code, raw)
	}
	code, _, raw = app.api(t, "GET", "/api/v1/surveys/"+slug+"/summary", token, "")
	if code != 200 || !strings.Contains(raw, `"hidden":{"panel_id":{"answered":1,"values":{"7":1}},"source":{"answered":1,"values":{"partner":1}}}`) {
		t.Errorf("summary = %d %s", code, raw)
	}
	code, _, raw = app.api(t, "GET", "/api/v1/surveys/"+slug+"/answers?q=hidden:source&a=web", token, "")
	if code != 200 || !strings.Contains(raw, `"total":0`) {
		t.Errorf("answers filtered by a hidden field = %d %s", code, raw)
	}
}

// TestPersonalLinkChangeKeepsHidden: a respondent who changes their
// answer through their personal link keeps the hidden values of the
// answer it replaces.
func TestPersonalLinkChangeKeepsHidden(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.publish(t, &survey.Survey{Title: "Changeable with a source", OnePer: survey.OnePerLink, MayChange: true, HiddenFields: []string{"source"},
		Questions: []survey.Question{{Text: "Rate the talk", Type: survey.FiveStars}}})
	app.pastCacheTTL()
	editor := app.signedIn(t, "adatum", "ed@adatum.example")
	k := app.makeLinks(t, sv, editor, 1)[0]
	path := "/survey/adatum/" + sv.Slug
	star := "q-" + sv.Questions[0].ID
	token, state := formOf(t, mustGet(t, app, path+"?k="+k+"&source=mail"))
	if code, _, body := app.do(t, "POST", path, url.Values{"token": {token}, "state": {state}, "k": {k}, star: {"2"}}, nil); code != 303 {
		t.Fatalf("answer = %d\n%s", code, body)
	}
	app.storedOf(t, sv.Slug)
	token, state = formOf(t, mustGet(t, app, path+"?k="+k))
	if state == "" {
		t.Fatal("the form to change the answer carries no state")
	}
	if code, _, body := app.do(t, "POST", path, url.Values{"token": {token}, "state": {state}, "k": {k}, star: {"5"}}, nil); code != 303 {
		t.Fatalf("change = %d\n%s", code, body)
	}
	for _, a := range app.storedAnswers(t, sv.Slug) {
		if a.Hidden["source"] != "mail" {
			t.Errorf("answer %s (%v) has hidden values %q", a.ID, a.Answers, a.Hidden)
		}
	}
}
