package web_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

func TestDesigner(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
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
	code, h, _ = app.get(t, "/adatum/surveys/lunch-survey/preview", c)
	if code != 303 || !strings.HasPrefix(h.Get("Location"), "/preview/") {
		t.Fatalf("preview = %d %q", code, h.Get("Location"))
	}
	if code, _, body := app.get(t, h.Get("Location"), nil); code != 200 || !strings.Contains(body, "<strong>Preview</strong>: the survey as respondents see it") ||
		!strings.Contains(body, "Pick a dessert") {
		t.Errorf("preview = %d", code)
	}

	// Edit the draft, then publish it.
	edit := url.Values{"title": {"Lunch survey"}, "n": {"1"}, "q.0.text": {"Rate the food"}, "q.0.type": {"FiveStars"}, "action": {"publish"}}
	// Publishing lands on the share page: what comes next.
	if code, h, _ := post("/adatum/surveys/lunch-survey/edit", edit); code != 303 || h.Get("Location") != "/adatum/surveys/lunch-survey/share?published=1" {
		t.Fatalf("publish = %d %q", code, h.Get("Location"))
	}
	app.pastCacheTTL()
	if code, _, body := app.get(t, "/survey/adatum/lunch-survey", nil); code != 200 || !strings.Contains(body, "Rate the food") || strings.Contains(body, "Pick a dessert") {
		t.Fatalf("published page = %d", code)
	}
	// A published survey stays editable: its questions keep their IDs.
	pub, err := app.surveys.Get(ctx, "adatum", "lunch-survey")
	if err != nil {
		t.Fatal(err)
	}
	code, _, body = app.get(t, "/adatum/surveys/lunch-survey/edit", c)
	if code != 200 || !strings.Contains(body, "Edit survey") || !strings.Contains(body, `name="q.0.text"`) || !strings.Contains(body, `name="q.0.id" value="`+pub.Questions[0].ID+`"`) {
		t.Fatalf("published designer = %d", code)
	}
	fix := url.Values{"title": {"Lunch survey"}, "n": {"1"}, "q.0.id": {pub.Questions[0].ID}, "q.0.text": {"Rate the meal"}, "q.0.type": {"FiveStars"}, "action": {"save"}}
	if code, h, _ := post("/adatum/surveys/lunch-survey/edit", fix); code != 303 || h.Get("Location") != "/adatum/surveys/lunch-survey/edit?saved=1" {
		t.Fatalf("editing a published survey = %d %q", code, h.Get("Location"))
	}
	if s, err := app.surveys.Get(ctx, "adatum", "lunch-survey"); err != nil || s.State != survey.Published || len(s.Questions) != 1 || s.Questions[0].Text != "Rate the meal" || s.Questions[0].ID != pub.Questions[0].ID {
		t.Fatalf("edited = %+v, %v", s, err)
	}
	// Any survey can be duplicated: a new draft, its designer next.
	if code, h, _ := post("/adatum/surveys/lunch-survey/duplicate", url.Values{}); code != 303 || h.Get("Location") != "/adatum/surveys/copy-of-lunch-survey/edit" {
		t.Fatalf("duplicate = %d %q", code, h.Get("Location"))
	}
	if cp, err := app.surveys.Get(ctx, "adatum", "copy-of-lunch-survey"); err != nil || cp.State != survey.Draft || len(cp.Questions) != 1 || cp.Title != "Copy of Lunch survey" || cp.Questions[0].ID == pub.Questions[0].ID {
		t.Fatalf("duplicate = %+v, %v", cp, err)
	}
	// Close, then delete.
	if code, _, _ := post("/adatum/surveys/lunch-survey/close", url.Values{}); code != 303 {
		t.Fatalf("close = %d", code)
	}
	app.pastCacheTTL()
	if code, _, _ := app.get(t, "/survey/adatum/lunch-survey", nil); code != http.StatusGone {
		t.Errorf("closed page = %d", code)
	}
	// Another tenant cannot touch it.
	_, fred := func() (int, *http.Cookie) {
		if _, err := testUsers(app.st).Add(ctx, "fabrikam", "fred@fabrikam.example", "another long password"); err != nil {
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
	// Delete moves it to the trash: no answers, in the dashboard's trash.
	if code, h, _ := post("/adatum/surveys/lunch-survey/delete", url.Values{}); code != 303 || h.Get("Location") != "/adatum/surveys" {
		t.Fatalf("delete = %d %q", code, h.Get("Location"))
	}
	if sv, err := app.surveys.Get(ctx, "adatum", "lunch-survey"); err != nil || !sv.Trashed() {
		t.Fatalf("after delete: %v, trashed %v", err, sv != nil && sv.Trashed())
	}
	app.pastCacheTTL()
	if code, _, _ := app.get(t, "/survey/adatum/lunch-survey", nil); code != http.StatusNotFound {
		t.Errorf("a trashed survey's public page = %d, want 404", code)
	}
	if code, _, body := app.get(t, "/adatum/surveys", c); code != 200 || !strings.Contains(body, `id="trash-title"`) || !strings.Contains(body, "/adatum/surveys/lunch-survey/delete-forever") {
		t.Errorf("dashboard with a trashed survey = %d, no trash section", code)
	}
	if code, _, _ := post("/adatum/surveys/lunch-survey/publish", url.Values{}); code != http.StatusConflict {
		t.Errorf("publish a trashed survey = %d, want 409", code)
	}
	// Restored, it is back as it was.
	if code, _, _ := post("/adatum/surveys/lunch-survey/restore", url.Values{}); code != 303 {
		t.Fatalf("restore = %d", code)
	}
	app.pastCacheTTL()
	if code, _, _ := app.get(t, "/survey/adatum/lunch-survey", nil); code != http.StatusGone {
		t.Errorf("a restored (closed) survey's public page = %d, want 410", code)
	}
	// A draft can be trashed too.
	if code, _, _ := post("/adatum/surveys/copy-of-lunch-survey/delete", url.Values{}); code != 303 {
		t.Errorf("trash a draft = %d", code)
	}
	// Deleting for good needs the trash first, then a page that says
	// what is lost.
	if code, _, _ := post("/adatum/surveys/lunch-survey/delete-forever", url.Values{}); code != http.StatusConflict {
		t.Errorf("delete for good outside the trash = %d, want 409", code)
	}
	post("/adatum/surveys/lunch-survey/delete", url.Values{})
	if code, _, body := app.get(t, "/adatum/surveys/lunch-survey/delete-forever", c); code != 200 || !strings.Contains(body, "0 answers") || !strings.Contains(body, "cannot be undone") {
		t.Errorf("confirmation = %d: %s", code, body)
	}
	if code, _, _ := post("/adatum/surveys/lunch-survey/delete-forever", url.Values{}); code != 303 {
		t.Fatalf("delete for good = %d", code)
	}
	if _, err := app.surveys.Get(ctx, "adatum", "lunch-survey"); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("after delete for good: %v", err)
	}
}

// TestDesignerSettings: every setting of the kinds registered today and
// the survey's own texts go through the designer's form to the store, back
// to the form, into a preview of unsaved edits (saving nothing) and into a
// copy; the buttons land on the question they are about.
func TestDesignerSettings(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	post := func(path string, v url.Values, action string) (int, http.Header, string) {
		t.Helper()
		w := url.Values{}
		for k, vs := range v {
			w[k] = vs
		}
		w.Set("action", action)
		return app.do(t, "POST", path, w, cookie)
	}
	form := url.Values{
		"title": {"Team lunch"}, "description": {"Two minutes.\r\nThank you!"}, "thankYou": {"See you at lunch."}, "n": {"3"},
		"q.0.text": {"Pick a dessert"}, "q.0.type": {"MultipleChoice"}, "q.0.help": {"Just one"}, "q.0.optional": {"1"},
		"q.0.choices": {"Cake\r\nFruit"}, "q.0.other": {"1"}, "q.0.shuffle": {"1"}, "q.0.pos": {"1"},
		"q.1.text": {"Rate the food"}, "q.1.type": {"FiveStars"}, "q.1.pos": {"2"},
		"q.2.text": {"Anything else?"}, "q.2.type": {"SimpleText"}, "q.2.help": {"Say it all"}, "q.2.pos": {"3"},
	}
	want := []survey.Question{
		{Text: "Pick a dessert", Type: survey.MultipleChoice, Help: "Just one", Optional: true, PossibleAnswers: []string{"Cake", "Fruit"}, Other: true, Shuffle: true},
		{Text: "Rate the food", Type: survey.FiveStars},
		{Text: "Anything else?", Type: survey.SimpleText, Help: "Say it all"},
	}
	before, _ := app.surveys.List(ctx, "adatum")

	// The buttons: each lands on its question (the fragment of the URL it
	// posts to, and the control focused there), keeping what was typed.
	buttons := []struct {
		action string
		edit   func(v url.Values)
		want   []string // in the page
		absent []string
	}{
		{"add", nil, []string{`id="q-4"`, `name="q.3.text"`, `id="q3-text" name="q.3.text" value="" maxlength="500" autofocus`, `formaction="/adatum/surveys/new#q-5"`, "Pick a dessert", "Say it all"}, nil},
		{"up.1", nil, []string{`id="q0-down"`, `value="Rate the food" maxlength="500"`}, nil},
		{"down.0", nil, []string{`id="q1-down"`}, nil},
		{"remove.1", nil, []string{`name="n" value="2"`, "Anything else?"}, []string{"Rate the food"}},
		// A copy just after it, with its kind and settings, its text
		// focused; the others keep their places.
		{"dup.0", nil, []string{`name="n" value="4"`, `id="q1-text" name="q.1.text" value="Pick a dessert (copy)" maxlength="500" autofocus`,
			`id="q1-choices"`, `name="q.1.choices"`, `id="q2-text" name="q.2.text" value="Rate the food"`}, nil},
		// A new kind shows its settings at once; the old kind's are kept,
		// hidden, and come back with it.
		{"refresh.1", func(v url.Values) { v.Set("q.1.type", "MultipleChoice") }, []string{`id="q1-choices"`, `id="q1-type" name="q.1.type" class="dq-type" data-apply="q1-apply" autofocus`}, nil},
		{"refresh.0", func(v url.Values) { v.Set("q.0.type", "FiveStars") }, []string{`<input type="hidden" name="q.0.choices" value="Cake`, `<input type="hidden" name="q.0.other" value="1">`, `<input type="hidden" name="q.0.shuffle" value="1">`, `value="Just one"`}, []string{`id="q0-choices"`, `id="q0-other"`}},
	}
	for _, b := range buttons {
		v := url.Values{}
		for k, vs := range form {
			v[k] = vs
		}
		if b.edit != nil {
			b.edit(v)
		}
		code, _, body := post("/adatum/surveys/new", v, b.action)
		if code != 200 {
			t.Errorf("%s = %d", b.action, code)
			continue
		}
		for _, w := range b.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the page lacks %s", b.action, w)
			}
		}
		for _, w := range b.absent {
			if strings.Contains(body, w) {
				t.Errorf("%s: the page has %s", b.action, w)
			}
		}
	}
	// The page before a press posts each button to its question's place.
	_, _, body := post("/adatum/surveys/new", form, "refresh.0")
	for _, w := range []string{`value="add" formaction="/adatum/surveys/new#q-4"`, `value="up.2" formaction="/adatum/surveys/new#q-2"`, `value="down.0" formaction="/adatum/surveys/new#q-2"`} {
		if !strings.Contains(body, w) {
			t.Errorf("the page lacks %s", w)
		}
	}
	for _, k := range survey.Kinds() {
		if k.Label() == string(k.Type()) {
			continue // a name that is both ("Number")
		}
		if strings.Contains(body, ">"+string(k.Type())+"<") || strings.Contains(body, "("+string(k.Type())+")") {
			t.Errorf("the page names %s by its Go name", k.Type())
		}
	}

	// A preview shows the unsaved edits and saves nothing.
	code, _, body := post("/adatum/surveys/new", form, "preview")
	if code != 200 || !strings.Contains(body, "<strong>Preview</strong> of unsaved edits") || !strings.Contains(body, "Pick a dessert") || !strings.Contains(body, "Fruit") {
		t.Errorf("preview = %d\n%s", code, body)
	}
	if after, _ := app.surveys.List(ctx, "adatum"); len(after) != len(before) {
		t.Errorf("a preview saved a survey: %d surveys, was %d", len(after), len(before))
	}

	// Saved, every setting is stored and shown again.
	code, h, _ := post("/adatum/surveys/new", form, "save")
	if code != 303 || h.Get("Location") != "/adatum/surveys/team-lunch/edit" {
		t.Fatalf("save = %d %q", code, h.Get("Location"))
	}
	saved, err := app.surveys.Get(ctx, "adatum", "team-lunch")
	if err != nil {
		t.Fatal(err)
	}
	if saved.Description != "Two minutes.\nThank you!" || saved.ThankYou != "See you at lunch." || !sameQuestions(saved.Questions, want) {
		t.Fatalf("saved %q %q %+v", saved.Description, saved.ThankYou, saved.Questions)
	}
	_, _, body = app.get(t, "/adatum/surveys/team-lunch/edit", c)
	for _, w := range []string{"Two minutes.\nThank you!</textarea>", "See you at lunch.</textarea>", `value="Just one"`, "Cake\nFruit</textarea>",
		`name="q.0.optional" value="1" checked`, `name="q.0.other" value="1" checked`, `name="q.0.shuffle" value="1" checked`, `name="q.2.optional" value="1">`} {
		if !strings.Contains(body, w) {
			t.Errorf("the saved draft's designer lacks %q", w)
		}
	}
	// An unsaved edit of a draft shows in its preview; the draft is unchanged.
	edit := url.Values{}
	for k, vs := range form {
		edit[k] = vs
	}
	edit.Set("q.1.text", "Rate the soup")
	if code, _, body := post("/adatum/surveys/team-lunch/edit", edit, "preview"); code != 200 || !strings.Contains(body, "Rate the soup") {
		t.Errorf("preview of an edit = %d", code)
	}
	if s, _ := app.surveys.Get(ctx, "adatum", "team-lunch"); s.Questions[1].Text != "Rate the food" {
		t.Errorf("a preview saved the edit: %q", s.Questions[1].Text)
	}

	// A copy keeps every setting.
	if code, h, _ := app.do(t, "POST", "/adatum/surveys/team-lunch/duplicate", url.Values{}, cookie); code != 303 || h.Get("Location") != "/adatum/surveys/copy-of-team-lunch/edit" {
		t.Fatalf("copy = %d %q", code, h.Get("Location"))
	}
	cp, err := app.surveys.Get(ctx, "adatum", "copy-of-team-lunch")
	if err != nil || cp.Description != saved.Description || cp.ThankYou != saved.ThankYou || !sameQuestions(cp.Questions, want) {
		t.Fatalf("copy = %+v, %v", cp, err)
	}
}

// sameQuestions compares questions without their IDs.
func sameQuestions(got, want []survey.Question) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g := got[i]
		g.ID = ""
		if !reflect.DeepEqual(g, want[i]) {
			return false
		}
	}
	return true
}

// TestDesignerRefused: a bad definition is a 422 that saves nothing, with
// each problem beside its field (aria-invalid, aria-describedby) and in
// the summary at the top, linked to the field.
func TestDesignerRefused(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	base := url.Values{"title": {"Ok"}, "n": {"1"}, "q.0.text": {"Pick"}, "q.0.type": {"MultipleChoice"}, "q.0.choices": {"A\nB"}}
	cases := []struct {
		name          string
		set           map[string]string
		field, errID  string
		action, words string
	}{
		{"no title", map[string]string{"title": ""}, "title", "title-err", "save", "Give the survey a title."},
		{"no question text", map[string]string{"q.0.text": " "}, "q0-text", "q0-text-err", "save", "Write the question."},
		{"one choice", map[string]string{"q.0.choices": "Only"}, "q0-choices", "q0-choices-err", "publish", "at least two possible answers"},
		{"help too long", map[string]string{"q.0.help": strings.Repeat("h", survey.MaxHelpLength+1)}, "q0-help", "q0-help-err", "save", "Keep the help text"},
		{"description too long", map[string]string{"description": strings.Repeat("d", survey.MaxDescriptionLength+1)}, "description", "description-err", "save", "Keep the description"},
		{"thank-you too long", map[string]string{"thankYou": strings.Repeat("t", survey.MaxDescriptionLength+1)}, "thankYou", "thankYou-err", "save", "Keep the thank-you message"},
		{"unknown kind", map[string]string{"q.0.type": "Telepathy"}, "q0-type", "q0-type-err", "save", "Choose a kind of question."},
		{"past close date", map[string]string{"closeOn": "2001-01-01"}, "closeOn", "closeOn-err", "save", "has passed"},
		{"a preview of a bad definition", map[string]string{"q.0.text": ""}, "q0-text", "q0-text-err", "preview", "Write the question."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := url.Values{"action": {tc.action}}
			for k, vs := range base {
				v[k] = vs
			}
			for k, s := range tc.set {
				v.Set(k, s)
			}
			before, _ := app.surveys.List(ctx, "adatum")
			code, _, body := app.do(t, "POST", "/adatum/surveys/new", v, cookie)
			if code != 422 || !strings.Contains(body, tc.words) {
				t.Fatalf("= %d, want 422 with %q", code, tc.words)
			}
			ctl := regexp.MustCompile(`<(input|textarea|select) id="` + tc.field + `"[^>]*>`).FindString(body)
			if !strings.Contains(ctl, `aria-invalid="true"`) || !regexp.MustCompile(`aria-describedby="[^"]*\b`+tc.errID+`\b`).MatchString(ctl) {
				t.Errorf("control: %s", ctl)
			}
			if !strings.Contains(body, `<p class="field-error" id="`+tc.errID+`">`) || !strings.Contains(body, `<a href="#`+tc.field+`">`) {
				t.Errorf("no problem beside %s, or no link to it", tc.field)
			}
			if after, _ := app.surveys.List(ctx, "adatum"); len(after) != len(before) {
				t.Errorf("a refused survey was saved")
			}
		})
	}
}
