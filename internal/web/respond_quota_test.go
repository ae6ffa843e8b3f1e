package web_test

import (
	"context"
	"flag"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// quotaPoll publishes a survey asking a gender (its first question), with
// the quota "women" of limit answers Female.
func (a *testApp) quotaPoll(t testing.TB, title string, limit int) *survey.Survey {
	t.Helper()
	sv := a.publish(t, &survey.Survey{Title: title,
		Questions: []survey.Question{{ID: "g", Text: "Gender", Type: survey.MultipleChoice, PossibleAnswers: []string{"Female", "Male"}}},
		Quotas: []survey.Quota{{Name: "women", Limit: limit, Message: "We have heard from enough women, thank you.",
			If: survey.Condition{Rules: []survey.Rule{{Question: "g", Op: "equals", Values: []string{"Female"}}}}}}})
	a.pastCacheTTL()
	return sv
}

// answerQuota sends one answer of gender to sv through app: its status and
// page.
func (a *testApp) answerQuota(t testing.TB, sv *survey.Survey, gender string) (int, string) {
	t.Helper()
	path := "/survey/adatum/" + sv.Slug
	code, _, body := a.do(t, "POST", path, url.Values{"token": {a.token(t, path)}, "q-" + sv.Questions[0].ID: {gender}}, nil)
	return code, body
}

// TestQuotaFull: once a cell holds its limit, an answer in it gets the
// quota's message (200) and nothing is stored; an answer in no cell is
// taken; deleting an answer of the cell makes room for one more.
func TestQuotaFull(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.quotaPoll(t, "Quota", 2)
	for range 2 {
		if code, body := app.answerQuota(t, sv, "Female"); code != http.StatusSeeOther {
			t.Fatalf("answer in a cell with room = %d\n%s", code, body)
		}
	}
	code, body := app.answerQuota(t, sv, "Female")
	if code != http.StatusOK || !strings.Contains(body, "We have heard from enough women, thank you.") {
		t.Fatalf("answer in a full cell = %d\n%s", code, body)
	}
	if code, _ := app.answerQuota(t, sv, "Male"); code != http.StatusSeeOther {
		t.Fatalf("answer in no cell = %d", code)
	}
	editor := app.signedIn(t, "adatum", "ed@adatum.example")
	if code, _, body := app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/analyze", nil, editor); code != http.StatusOK ||
		!strings.Contains(body, `<th scope="row">women</th><td class="num">2</td><td class="num">2</td><td>Full</td>`) {
		t.Fatalf("analysis = %d without the quota's count\n%s", code, body)
	}
	filed, counted, _ := app.countAnswers(t, sv)
	if filed != 3 || counted != 3 {
		t.Fatalf("%d filed, %d counted; want 3", filed, counted)
	}
	ctx := context.Background()
	qs := store.NewQuotaStore(app.st)
	if c, err := qs.Counts(ctx, "adatum", sv.Slug); err != nil || !reflect.DeepEqual(c, map[string]int{"women": 2}) {
		t.Fatalf("counts %v, %v", c, err)
	}
	// Delete one of the women's answers: its cell has room for one.
	var women []string
	if err := app.answers.ListAll(ctx, "adatum", sv.Slug, func(id string) error {
		a, err := app.answers.Get(ctx, "adatum", sv.Slug, id)
		if err == nil && len(a.Quotas) == 1 {
			women = append(women, id)
		}
		return err
	}); err != nil || len(women) != 2 {
		t.Fatalf("answers naming the cell: %v, %v", women, err)
	}
	full, _ := app.surveys.Get(ctx, "adatum", sv.Slug)
	if err := app.answers.DeleteAnswer(ctx, full, women[0]); err != nil {
		t.Fatal(err)
	}
	if c, _ := qs.Counts(ctx, "adatum", sv.Slug); c["women"] != 1 {
		t.Fatalf("counts after a deletion: %v", c)
	}
	if code, _ := app.answerQuota(t, sv, "Female"); code != http.StatusSeeOther {
		t.Fatalf("answer after a deletion = %d", code)
	}
	if code, _ := app.answerQuota(t, sv, "Female"); code != http.StatusOK {
		t.Fatalf("answer in the cell full again = %d", code)
	}
}

// quotaRuns is how many runs TestQuotaTwoServers makes: 3 by default
// (about 2 s of CPU each under -race), 10 for the target
// (go test ./internal/web -run TestQuotaTwoServers -quota-runs=10).
var quotaRuns = flag.Int("quota-runs", 3, "runs of TestQuotaTwoServers")

// TestQuotaTwoServers: two servers over one Azure storage (Azurite), 50
// respondents at once in a cell of 20, half to each server: exactly 20
// are acknowledged, filed and counted, the others read the quota's
// message; each run a survey of its own (-quota-runs).
func TestQuotaTwoServers(t *testing.T) {
	st := backends.Azure(t)
	a, b := newTestAppOn(t, st), newTestAppOn(t, st)
	const n, limit = 50, 20
	for run := range *quotaRuns {
		sv := a.quotaPoll(t, "Race", limit)
		a.deleteAtEnd(t, sv) // the account is shared with the other tests on Azurite
		b.pastCacheTTL()
		path := "/survey/adatum/" + sv.Slug
		forms := make([]url.Values, n)
		for i := range forms {
			app := []*testApp{a, b}[i%2]
			forms[i] = url.Values{"token": {app.token(t, path)}, "q-" + sv.Questions[0].ID: {"Female"}}
		}
		var wg sync.WaitGroup
		codes, bodies := make([]int, n), make([]string, n)
		for i := range n {
			wg.Go(func() { codes[i], _, bodies[i] = []*testApp{a, b}[i%2].do(t, "POST", path, forms[i], nil) })
		}
		wg.Wait()
		ok, full := 0, 0
		for i, c := range codes {
			switch {
			case c == http.StatusSeeOther:
				ok++
			case c == http.StatusOK && strings.Contains(bodies[i], "We have heard from enough women"):
				full++
			default:
				t.Errorf("run %d: status %d\n%s", run, c, bodies[i])
			}
		}
		filed, counted, _ := a.countAnswers(t, sv)
		if ok != limit || full != n-limit || filed != limit || counted != limit {
			t.Fatalf("run %d: %d acknowledged, %d refused, %d filed, %d counted; want %d, %d, %d, %d", run, ok, full, filed, counted, limit, n-limit, limit, limit)
		}
	}
}

// TestQuotasAPI: the API creates a survey with a quota and reads it back,
// its rule naming the question by its stored ID; a bad quota is a 422
// naming the field, making nothing; the survey's definition carries its
// quotas (rules naming q1 …) and imports with them.
func TestQuotasAPI(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	tok, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	const def = `{"title":"API quota","questions":[{"id":"g","text":"Gender","type":"MultipleChoice","possibleAnswers":["Female","Male"]}],` +
		`"quotas":[{"name":"women","limit":%s,"if":{"rules":[{"question":"g","op":"equals","values":["%s"]}]},"message":"Enough."}]}`
	code, got, raw := app.api(t, "POST", "/api/v1/surveys", tok, fmtDef(def, "5", "Female"))
	if code != http.StatusCreated {
		t.Fatalf("API create = %d %s", code, raw)
	}
	code, got, raw = app.api(t, "GET", "/api/v1/surveys/"+got["slug"].(string), tok, "")
	qs, _ := got["quotas"].([]any)
	if code != http.StatusOK || len(qs) != 1 {
		t.Fatalf("API get = %d %s", code, raw)
	}
	q := qs[0].(map[string]any)
	rule := q["if"].(map[string]any)["rules"].([]any)[0].(map[string]any)
	qid := got["questions"].([]any)[0].(map[string]any)["id"]
	if q["name"] != "women" || q["limit"] != float64(5) || q["message"] != "Enough." || rule["question"] != qid {
		t.Fatalf("quota read back %v (question %v)", q, qid)
	}
	for _, c := range []struct{ limit, value, field string }{{"0", "Female", "quotas.0.limit"}, {"5", "Robot", "quotas.0.if.rules.0.values"}} {
		code, _, raw := app.api(t, "POST", "/api/v1/surveys", tok, fmtDef(def, c.limit, c.value))
		if code != http.StatusUnprocessableEntity || !strings.Contains(raw, c.field) {
			t.Errorf("bad quota (%s) = %d %s", c.field, code, raw)
		}
	}
	// A quota that skips names a later section.
	skip := strings.Replace(def, `"message":"Enough."`, `"message":"Enough.","action":"skip","section":"nowhere"`, 1)
	if code, _, raw := app.api(t, "POST", "/api/v1/surveys", tok, fmtDef(skip, "5", "Female")); code != http.StatusUnprocessableEntity || !strings.Contains(raw, "quotas.0.section") {
		t.Errorf("quota skipping to no section = %d %s", code, raw)
	}
	code, _, raw = app.api(t, "GET", "/api/v1/surveys/"+got["slug"].(string)+"/definition", tok, "")
	if code != http.StatusOK || !strings.Contains(raw, `"quotas":[{"name":"women","limit":5,"if":{"match":"all","rules":[{"question":"q1","op":"equals","values":["Female"]}]},"message":"Enough.","action":"end"}]`) {
		t.Fatalf("definition = %d %s", code, raw)
	}
}

func fmtDef(def, limit, value string) string {
	return strings.Replace(strings.Replace(def, "%s", limit, 1), "%s", value, 1)
}

// TestQuotasDesigner: the designer's Quotas panel adds a quota, saves it
// with the survey (its rule naming the question by its stored ID), shows
// it again, and refuses a bad one (422) beside its field, storing nothing.
func TestQuotasDesigner(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	editor := app.signedIn(t, "adatum", "ed@adatum.example")
	form := url.Values{"title": {"Designed quota"}, "n": {"1"}, "q.0.id": {"g"}, "q.0.text": {"Gender"}, "q.0.type": {"MultipleChoice"}, "q.0.choices": {"Female\nMale"}, "q.0.pos": {"1"},
		"action": {"addquota"}}
	code, _, body := app.do(t, "POST", "/adatum/surveys/new", form, editor)
	if code != http.StatusOK || !strings.Contains(body, `id="quota0-name"`) || !strings.Contains(body, `name="quota.0.if.0.question"`) {
		t.Fatalf("add a quota = %d\n%s", code, body)
	}
	form.Set("action", "save")
	form.Set("nquota", "1")
	form.Set("quota.0.name", "women")
	form.Set("quota.0.limit", "many")
	form.Set("quota.0.message", "Enough women.")
	form.Set("quota.0.if.n", "1")
	form.Set("quota.0.if.0.question", "g")
	form.Set("quota.0.if.0.op", "equals")
	form.Set("quota.0.if.0.values", "Robot")
	before, _ := app.surveys.List(context.Background(), "adatum")
	code, _, body = app.do(t, "POST", "/adatum/surveys/new", form, editor)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="quota0-limit-err"`) || !strings.Contains(body, `id="quota0-if-0-values-err"`) {
		t.Fatalf("bad quota = %d\n%s", code, body)
	}
	if after, _ := app.surveys.List(context.Background(), "adatum"); len(after) != len(before) {
		t.Fatalf("a refused quota stored a survey")
	}
	form.Set("quota.0.limit", "20")
	form.Set("quota.0.if.0.values", "Female")
	code, h, body := app.do(t, "POST", "/adatum/surveys/new", form, editor)
	if code != http.StatusSeeOther {
		t.Fatalf("save = %d\n%s", code, body)
	}
	slug := strings.Split(h.Get("Location"), "/")[3]
	sv, err := app.surveys.Get(context.Background(), "adatum", slug)
	if err != nil || len(sv.Quotas) != 1 || sv.Quotas[0].Limit != 20 || sv.Quotas[0].If.Rules[0].Question != sv.Questions[0].ID || sv.Quotas[0].Message != "Enough women." {
		t.Fatalf("saved %+v, %v", sv.Quotas, err)
	}
	if _, _, body := app.do(t, "GET", "/adatum/surveys/"+slug+"/edit", nil, editor); !strings.Contains(body, `name="quota.0.name" value="women"`) || !strings.Contains(body, `name="quota.0.limit" value="20"`) {
		t.Fatalf("the designer does not show the quota\n%s", body)
	}
}

// TestQuotaFullEarly: on a survey of two pages, a respondent whose first
// page puts them into a full cell reads the quota's message as they leave
// it, not after the last page; another goes on.
func TestQuotaFullEarly(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.publish(t, &survey.Survey{Title: "Two pages",
		Sections: []survey.Section{{ID: "a", Title: "You"}, {ID: "b", Title: "More"}},
		Questions: []survey.Question{{ID: "g", Text: "Gender", Type: survey.MultipleChoice, PossibleAnswers: []string{"Female", "Male"}, Section: "a"},
			{ID: "c", Text: "Comment", Type: survey.SimpleText, Section: "b"}},
		Quotas: []survey.Quota{{Name: "women", Limit: 1, Message: "We have heard from enough women, thank you.",
			If: survey.Condition{Rules: []survey.Rule{{Question: "g", Op: "equals", Values: []string{"Female"}}}}}}})
	app.pastCacheTTL()
	if _, err := store.NewQuotaStore(app.st).Take(context.Background(), "adatum", sv.Slug, []string{"women"}, map[string]int{"women": 1}); err != nil {
		t.Fatal(err)
	}
	code, body := app.answerQuota(t, sv, "Female")
	if code != http.StatusOK || !strings.Contains(body, "We have heard from enough women") {
		t.Fatalf("first page into a full cell = %d\n%s", code, body)
	}
	code, body = app.answerQuota(t, sv, "Male")
	if code != http.StatusOK || strings.Contains(body, "enough women") || !strings.Contains(body, "Comment") {
		t.Fatalf("first page into no cell = %d\n%s", code, body)
	}
}

// deleteAtEnd deletes sv when the test ends: a test on the shared Azurite
// account leaves the demo tenant as it found it (newTestAppOn expects one
// survey).
func (a *testApp) deleteAtEnd(t testing.TB, sv *survey.Survey) {
	t.Helper()
	t.Cleanup(func() {
		if err := a.surveys.Delete(context.Background(), sv.Tenant, sv.Slug); err != nil {
			t.Errorf("delete %s: %v", sv.Slug, err)
		}
	})
}
