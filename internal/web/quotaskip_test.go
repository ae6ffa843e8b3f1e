package web_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// skipPoll publishes a survey of three pages: gender (g) on the first,
// a required story (s) on the second and an optional last word (l) on
// the third; its quota "women" of limit answers Female skips to the third
// page when full.
func (a *testApp) skipPoll(t testing.TB, title string, limit int) *survey.Survey {
	t.Helper()
	sv := a.publish(t, &survey.Survey{Title: title,
		Sections: []survey.Section{{ID: "you", Title: "You"}, {ID: "story", Title: "Your story"}, {ID: "last", Title: "Last words"}},
		Questions: []survey.Question{
			{ID: "g", Text: "Gender", Type: survey.MultipleChoice, PossibleAnswers: []string{"Female", "Male"}, Section: "you"},
			{ID: "s", Text: "Tell us your story", Type: survey.SimpleText, Section: "story"},
			{ID: "l", Text: "Anything else?", Type: survey.SimpleText, Optional: true, Section: "last"},
		},
		Quotas: []survey.Quota{{Name: "women", Limit: limit, Message: "We have heard enough stories from women.", Action: survey.QuotaSkip, Section: "last",
			If: survey.Condition{Rules: []survey.Rule{{Question: "g", Op: "equals", Values: []string{"Female"}}}}}}})
	a.pastCacheTTL()
	return sv
}

// skipStep sends one page of sv with the form's token and the state of
// the page before: its status, page and the page's state.
func (a *testApp) skipStep(t testing.TB, sv *survey.Survey, token, state string, fields ...string) (int, string, string) {
	t.Helper()
	code, body := a.post(t, "/survey/adatum/"+sv.Slug, token, state, "", fields...)
	if code == http.StatusOK && tokenRE.MatchString(body) {
		_, state = formOf(t, body)
	}
	return code, body, state
}

// TestQuotaSkip: a respondent whose first page puts them into the full
// cell of a quota that skips goes from it to the quota's section (the
// story page, required, is skipped), and their answer is stored over
// quota: not counted in the cell, named on the answer, in the answer page
// and in the export's "over quota" column. One whose cell fills up after
// their last page step is also accepted over quota, never refused; the
// cell's count stays its limit.
func TestQuotaSkip(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.skipPoll(t, "Skip", 1)
	path := "/survey/adatum/" + sv.Slug
	ids := map[string]string{}
	for _, q := range sv.Questions {
		ids[q.Text] = "q-" + q.ID
	}
	g, s, l := ids["Gender"], ids["Tell us your story"], ids["Anything else?"]

	// The first woman fills the cell, through every page.
	tok := app.token(t, path)
	code, body, st := app.skipStep(t, sv, tok, "", g, "Female")
	if code != http.StatusOK {
		t.Fatalf("first woman's first page = %d\n%s", code, body)
	}
	mustContain(t, "first woman, page 1", body, "Tell us your story")
	_, body, st = app.skipStep(t, sv, tok, st, s, "Mine.")
	mustContain(t, "first woman, page 2", body, "Anything else?")
	if code, body, _ = app.skipStep(t, sv, tok, st, l, "No."); code != http.StatusSeeOther {
		t.Fatalf("first woman's submit = %d\n%s", code, body)
	}

	// The second skips the story: page 2 of 2, and accepted.
	tok2 := app.token(t, path)
	code, body, st = app.skipStep(t, sv, tok2, "", g, "Female")
	if code != http.StatusOK {
		t.Fatalf("second woman's first page = %d\n%s", code, body)
	}
	mustContain(t, "second woman, page 1", body, "Anything else?", "Page 2 of 2")
	mustLack(t, "second woman, page 1", body, "Tell us your story", "We have heard enough")
	if code, body, _ = app.skipStep(t, sv, tok2, st); code != http.StatusSeeOther {
		t.Fatalf("second woman's submit = %d\n%s", code, body)
	}

	// A man goes through every page whatever the cell.
	tok3 := app.token(t, path)
	_, body, _ = app.skipStep(t, sv, tok3, "", g, "Male")
	mustContain(t, "a man, page 1", body, "Tell us your story")

	// The third woman's cell fills up after her last page step: the
	// cell is given room (the first woman's answer deleted), she goes
	// through every page, then another answer takes the place.
	ctx := context.Background()
	qs := store.NewQuotaStore(app.st)
	app.storedOf(t, sv.Slug)
	full, _ := app.surveys.Get(ctx, "adatum", sv.Slug)
	if err := app.answers.DeleteAnswer(ctx, full, answerID(tok)); err != nil {
		t.Fatal(err)
	}
	if c, _ := qs.Counts(ctx, "adatum", sv.Slug); c["women"] != 0 {
		t.Fatalf("counts after the deletion %v", c)
	}
	tok4 := app.token(t, path)
	_, body, st = app.skipStep(t, sv, tok4, "", g, "Female")
	mustContain(t, "third woman, page 1", body, "Tell us your story")
	_, body, st = app.skipStep(t, sv, tok4, st, s, "Hers.")
	mustContain(t, "third woman, page 2", body, "Anything else?")
	if _, err := qs.Take(ctx, "adatum", sv.Slug, []string{"women"}, map[string]int{"women": 1}); err != nil {
		t.Fatal(err)
	}
	if code, body, _ = app.skipStep(t, sv, tok4, st); code != http.StatusSeeOther {
		t.Fatalf("third woman's submit into a cell full meanwhile = %d\n%s", code, body)
	}

	answers := app.storedAnswers(t, sv.Slug)
	byID := map[string]*survey.SurveyAnswer{}
	for _, a := range answers {
		byID[a.ID] = a
	}
	for _, c := range []struct {
		token string
		what  string
		story bool
	}{{tok2, "second woman", false}, {tok4, "third woman", true}} {
		a := byID[answerID(c.token)]
		if a == nil {
			t.Fatalf("%s's answer not stored", c.what)
		}
		if !reflect.DeepEqual(a.OverQuota, []string{"women"}) || len(a.Quotas) != 0 {
			t.Errorf("%s: over quota %v, quotas %v", c.what, a.OverQuota, a.Quotas)
		}
		if _, ok := a.Answer(sv.Questions[1].ID); ok != c.story {
			t.Errorf("%s: story answered %v", c.what, ok)
		}
	}
	if c, _ := qs.Counts(ctx, "adatum", sv.Slug); c["women"] != 1 {
		t.Errorf("the cell's count %v, want its limit 1", c)
	}

	editor := app.signedIn(t, "adatum", "ed@adatum.example")
	code, _, body = app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/export.csv", nil, editor)
	if code != http.StatusOK {
		t.Fatalf("export = %d", code)
	}
	lines := strings.Split(strings.TrimSpace(body), "\n")
	if !strings.HasSuffix(strings.TrimSpace(lines[0]), ",over quota") {
		t.Errorf("export header %q", lines[0])
	}
	over := 0
	for _, line := range lines[1:] {
		if strings.HasSuffix(strings.TrimSpace(line), ",women") {
			over++
		}
	}
	if over != 2 {
		t.Errorf("%d rows over quota in the export, want 2\n%s", over, body)
	}
	found := false
	for i := range answers {
		_, _, page := app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/answers?i="+strconv.Itoa(i), nil, editor)
		if strings.Contains(page, "Screened out of the full “women” quota") {
			found = true
		}
	}
	if !found {
		t.Error("no answer page says an answer is over quota")
	}
}

// TestQuotaSkipTwoServers: two servers over one Azure storage (Azurite),
// 50 women who all passed their page steps while the cell of 20 was
// empty submit at once, half to each server: all 50 are acknowledged,
// filed and counted, exactly 20 take the cell and 30 are over quota, and
// the cell counts 20.
func TestQuotaSkipTwoServers(t *testing.T) {
	st := backends.Azure(t)
	a, b := newTestAppOn(t, st), newTestAppOn(t, st)
	const n, limit = 50, 20
	sv := a.skipPoll(t, "Skip race", limit)
	a.deleteAtEnd(t, sv)
	b.pastCacheTTL()
	path := "/survey/adatum/" + sv.Slug
	tokens, states := make([]string, n), make([]string, n)
	for i := range n {
		app := []*testApp{a, b}[i%2]
		tokens[i] = app.token(t, path)
		_, _, st := app.skipStep(t, sv, tokens[i], "", "q-"+sv.Questions[0].ID, "Female")
		code, body, st := app.skipStep(t, sv, tokens[i], st, "q-"+sv.Questions[1].ID, "A story.")
		if code != http.StatusOK || !strings.Contains(body, "Anything else?") {
			t.Fatalf("respondent %d's second page = %d\n%s", i, code, body)
		}
		states[i] = st
	}
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Go(func() { codes[i], _, _ = []*testApp{a, b}[i%2].skipStep(t, sv, tokens[i], states[i]) })
	}
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusSeeOther {
			t.Errorf("respondent %d's submit = %d", i, c)
		}
	}
	filed, counted, _ := a.countAnswers(t, sv)
	ctx := context.Background()
	taken, over := 0, 0
	if err := a.answers.ListAll(ctx, "adatum", sv.Slug, func(id string) error {
		ans, err := a.answers.Get(ctx, "adatum", sv.Slug, id)
		if err == nil {
			taken += len(ans.Quotas)
			over += len(ans.OverQuota)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	c, err := store.NewQuotaStore(st).Counts(ctx, "adatum", sv.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if filed != n || counted != n || taken != limit || over != n-limit || c["women"] != limit {
		t.Fatalf("%d filed, %d counted, %d taken, %d over quota, cell count %d; want %d, %d, %d, %d, %d", filed, counted, taken, over, c["women"], n, n, limit, n-limit, limit)
	}
}

// TestQuotaSkipDesigner: the designer's quota has a select of what a full
// cell does and one of the section to skip to; a quota that skips to a
// section before its rules' question is refused (422) beside the section
// select, storing nothing; one to a later section saves, and shows again.
func TestQuotaSkipDesigner(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	editor := app.signedIn(t, "adatum", "ed@adatum.example")
	form := url.Values{"title": {"Designed skip"}, "n": {"2"}, "ns": {"2"}, "s.0.id": {"you"}, "s.0.title": {"You"}, "s.1.id": {"more"}, "s.1.title": {"More"},
		"q.0.id": {"g"}, "q.0.text": {"Gender"}, "q.0.type": {"MultipleChoice"}, "q.0.choices": {"Female\nMale"}, "q.0.section": {"0"},
		"q.1.id": {"c"}, "q.1.text": {"Comment"}, "q.1.type": {"SimpleText"}, "q.1.section": {"1"},
		"action": {"addquota"}}
	code, _, body := app.do(t, "POST", "/adatum/surveys/new", form, editor)
	if code != http.StatusOK {
		t.Fatalf("add a quota = %d\n%s", code, body)
	}
	mustContain(t, "a new quota", body, `name="quota.0.action"`, `<option value="skip">Skip to a section`, `name="quota.0.section"`, `<option value="more">Section 2: More</option>`)
	form = with(form, "action", "save", "nquota", "1", "quota.0.name", "women", "quota.0.limit", "5", "quota.0.if.n", "1",
		"quota.0.if.0.question", "g", "quota.0.if.0.op", "equals", "quota.0.if.0.values", "Female", "quota.0.action", "skip", "quota.0.section", "you")
	before, _ := app.surveys.List(context.Background(), "adatum")
	code, _, body = app.do(t, "POST", "/adatum/surveys/new", form, editor)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="quota0-section-err"`) {
		t.Fatalf("a quota skipping backwards = %d\n%s", code, body)
	}
	if after, _ := app.surveys.List(context.Background(), "adatum"); len(after) != len(before) {
		t.Fatal("a refused quota stored a survey")
	}
	code, h, body := app.do(t, "POST", "/adatum/surveys/new", with(form, "quota.0.section", "more"), editor)
	if code != http.StatusSeeOther {
		t.Fatalf("save = %d\n%s", code, body)
	}
	slug := strings.Split(h.Get("Location"), "/")[3]
	sv, err := app.surveys.Get(context.Background(), "adatum", slug)
	if err != nil || len(sv.Quotas) != 1 || !sv.Quotas[0].Skips() || sv.Quotas[0].Section != "more" {
		t.Fatalf("saved %+v, %v", sv.Quotas, err)
	}
	_, _, body = app.do(t, "GET", "/adatum/surveys/"+slug+"/edit", nil, editor)
	mustContain(t, "the designer again", body, `<option value="skip" selected>`, `<option value="more" selected>`)
	// A quota that ends keeps no section, whatever its select says.
	code, _, body = app.do(t, "POST", "/adatum/surveys/"+slug+"/edit", with(form, "quota.0.action", "end", "quota.0.section", "more", "title", "Designed end"), editor)
	if code != http.StatusSeeOther {
		t.Fatalf("save as end = %d\n%s", code, body)
	}
	if sv, _ := app.surveys.Get(context.Background(), "adatum", slug); sv.Quotas[0].Skips() || sv.Quotas[0].Section != "" {
		t.Fatalf("saved as end %+v", sv.Quotas)
	}
}

// TestQuotaMessageTranslated: the translations page carries a quota's
// message; a French respondent in its full cell reads it in French.
func TestQuotaMessageTranslated(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.quotaPoll(t, "Translated quota", 1)
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	page := "/adatum/surveys/" + sv.Slug + "/translations"
	_, _, body := app.do(t, "GET", page+"?lang=fr", nil, ana)
	mustContain(t, "translations page", body, `name="quotas.0"`, "We have heard from enough women, thank you.")
	v := url.Values{"lang": {"fr"}, "language": {"en"}, "quotas.0": {"Nous avons assez de réponses de femmes."}}
	if code, _, body := app.do(t, "POST", page, v, ana); code != http.StatusSeeOther {
		t.Fatalf("save = %d\n%s", code, body)
	}
	app.pastCacheTTL()
	if code, _ := app.answerQuota(t, sv, "Female"); code != http.StatusSeeOther {
		t.Fatalf("first answer = %d", code)
	}
	path := "/survey/adatum/" + sv.Slug + "?lang=fr"
	token, _ := formOf(t, mustGet(t, app, path))
	code, _, body := app.do(t, "POST", path, url.Values{"token": {token}, "q-" + sv.Questions[0].ID: {"Female"}}, nil)
	if code != http.StatusOK {
		t.Fatalf("answer into the full cell = %d\n%s", code, body)
	}
	mustContain(t, "French quota page", body, "Nous avons assez de réponses de femmes.")
}
