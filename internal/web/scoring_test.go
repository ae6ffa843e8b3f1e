package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// quizSurvey is a published quiz of two pages: a colour with points and
// a yes/no with a correct answer and feedback; the second page, shown
// only when the variable total is more than 4 (a rule on a variable),
// recalls it ({{total}}). Outcomes by total; correct answers shown.
func (a *testApp) quizSurvey(t *testing.T) (*survey.Survey, map[string]string) {
	t.Helper()
	sv := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: "Quiz",
		Scoring: survey.Scoring{ShowCorrect: true,
			Variables: []survey.Variable{{Name: "total", Func: survey.FuncSum, Args: []string{"colour", "wet"}}},
			Outcomes:  []survey.Outcome{{Var: "total", Min: 6, Message: "Top marks, total {{total}}!"}, {Var: "score", Min: 2, Message: "Not bad."}}},
		ThankYou: "Thanks for playing.",
		Sections: []survey.Section{{ID: "one", Title: "Questions"},
			{ID: "two", Title: "Bonus", ShowIf: &survey.Condition{Rules: []survey.Rule{{Question: "var:total", Op: survey.OpGreaterThan, Values: []string{"4"}}}}}},
		Questions: []survey.Question{
			{ID: "colour", Text: "Best colour?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Red", "Blue"}, Points: map[string]float64{"Red": 5, "Blue": 1}, Section: "one"},
			{ID: "wet", Text: "Is water wet?", Type: survey.YesNo, Correct: []string{"Yes"}, Feedback: "It <is>, mostly.", Section: "one"},
			{ID: "bonus", Text: "Your total is {{total}}: how many stars?", Type: survey.FiveStars, Section: "two", Optional: true},
		},
	}
	if err := a.surveys.Create(context.Background(), sv); err != nil {
		t.Fatal(err)
	}
	a.pastCacheTTL()
	ids := map[string]string{}
	for i, n := range []string{"colour", "wet", "bonus"} {
		ids[n] = sv.Questions[i].ID
	}
	return sv, ids
}

// TestScoringRespondent: a rule on a variable shows the bonus page,
// which recalls it; the thank-you page shows the outcome the values
// choose, the score and each quiz answer's result and feedback
// (escaped); the values are stored with the answer and exported as
// columns.
func TestScoringRespondent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name       string
		steps      []logicStep
		want, lack []string
		stored     map[string]string
		csvRow     string
	}{
		{"top marks", []logicStep{
			{"next", []string{"colour", "Red", "wet", "Yes"}, 200, []string{"Your total is 6: how many stars?"}, nil},
			{"submit", []string{"bonus", "4"}, 303, nil, nil},
		}, []string{"Top marks, total 6!", "Your score: 6", "Correct", "It &lt;is&gt;, mostly."}, []string{"Thanks for playing.", "Not correct"},
			map[string]string{"score": "6", "total": "6"}, ",6,6"},
		{"no bonus page, default message", []logicStep{
			{"submit", []string{"colour", "Blue", "wet", "No"}, 303, nil, nil},
		}, []string{"Thanks for playing.", "Your score: 1", "Not correct", "The correct answer: Yes"}, []string{"Top marks", "Not bad."},
			map[string]string{"score": "1", "total": "1"}, ",1,1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			app := newTestApp(t)
			sv, ids := app.quizSurvey(t)
			path := "/survey/adatum/" + sv.Slug
			_, _, body := app.do(t, "GET", path, nil, nil)
			token, state := formOf(t, body)
			var loc string
			for i, s := range c.steps {
				v := url.Values{"token": {token}, "action": {s.action}}
				if state != "" {
					v.Set("state", state)
				}
				for j := 0; j+1 < len(s.answers); j += 2 {
					v.Add("q-"+ids[s.answers[j]], s.answers[j+1])
				}
				code, h, body := app.do(t, "POST", path, v, nil)
				if code != s.code {
					t.Fatalf("step %d = %d\n%s", i+1, code, body)
				}
				mustContain(t, s.action, body, s.want...)
				if code == 200 {
					_, state = formOf(t, body)
				}
				loc = h.Get("Location")
			}
			if !strings.HasPrefix(loc, path+"/thankyou?r=") {
				t.Fatalf("Location %q", loc)
			}
			_, _, thanks := app.do(t, "GET", loc, nil, nil)
			mustContain(t, "thank-you page", thanks, c.want...)
			mustLack(t, "thank-you page", thanks, c.lack...)
			// Without its sealed values, the page shows the default.
			_, _, plain := app.do(t, "GET", path+"/thankyou", nil, nil)
			mustContain(t, "plain thank-you page", plain, "Thanks for playing.")
			mustLack(t, "plain thank-you page", plain, "Your score")

			got := app.storedAnswers(t, sv.Slug)
			if len(got) != 1 || got[0].Values["score"] != c.stored["score"] || got[0].Values["total"] != c.stored["total"] {
				t.Fatalf("stored %+v", got)
			}
			app.storedOf(t, sv.Slug)
			cookie := app.viewerCookie(t)
			_, _, csvBody := app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/export.csv", nil, cookie)
			lines := strings.Split(strings.TrimSpace(strings.TrimPrefix(csvBody, "\uFEFF")), "\n")
			if len(lines) != 2 || !strings.HasSuffix(lines[0], "score (variable),total (variable)") || !strings.HasSuffix(strings.TrimSpace(lines[1]), c.csvRow) {
				t.Errorf("CSV %q", lines)
			}
			_, _, jsonBody := app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/export.json", nil, cookie)
			mustContain(t, "JSON export", jsonBody, `"values":{"score":`+c.stored["score"])
			_, _, analysis := app.do(t, "GET", "/adatum/surveys/"+sv.Slug+"/analyze", nil, cookie)
			mustContain(t, "analysis", analysis, `id="av-score"`, `id="av-total"`, "mean <strong>"+c.stored["total"]+"</strong>",
				`href="/adatum/surveys/`+sv.Slug+`/answers/table?a=`+c.stored["total"]+`&amp;q=var%3Atotal"`)
		})
	}
}

// viewerCookie signs in a new viewer of adatum.
func (a *testApp) viewerCookie(t *testing.T) map[string]string {
	t.Helper()
	if _, err := testUsers(a.st).AddMember(context.Background(), "adatum", "vic@adatum.example", "correct horse battery", survey.Viewer); err != nil {
		t.Fatal(err)
	}
	_, c := a.signIn(t, "adatum", "vic@adatum.example", "correct horse battery")
	return map[string]string{"Cookie": "surveys_session=" + c.Value}
}

// TestScoringRedirect: an answer to a survey with a redirect goes to the
// designer's https address, with the values and hidden fields appended
// (escaped) when the designer ticked it.
func TestScoringRedirect(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: "Go on", HiddenFields: []string{"source"},
		Scoring:   survey.Scoring{Redirect: "https://example.com/next", RedirectFields: true},
		Questions: []survey.Question{{Text: "Pick", Type: survey.MultipleChoice, PossibleAnswers: []string{"A", "B"}, Points: map[string]float64{"A": 2}}}}
	if err := app.surveys.Create(context.Background(), sv); err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	path := "/survey/adatum/" + sv.Slug
	token, state := formOf(t, mustGet(t, app, path+"?source="+url.QueryEscape("a b&c")))
	v := url.Values{"token": {token}, "state": {state}, "q-" + sv.Questions[0].ID: {"A"}}
	code, h, _ := app.do(t, "POST", path, v, nil)
	if loc := h.Get("Location"); code != http.StatusSeeOther || loc != "https://example.com/next?score=2&source=a+b%26c" {
		t.Fatalf("submit = %d, Location %q", code, loc)
	}
}

// TestDesignerScoring: the designer saves points, a correct answer,
// variables (naming questions as q<N>) and outcomes as typed, shows them
// again as typed, and refuses bad ones with a 422 beside the field,
// saving nothing.
func TestDesignerScoring(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	form := url.Values{"title": {"Scored"}, "n": {"2"},
		"q.0.text": {"Colour?"}, "q.0.type": {"MultipleChoice"}, "q.0.choices": {"Red\nBlue"}, "q.0.points": {"Red = 3\nBlue = 1"},
		"q.1.text": {"Wet?"}, "q.1.type": {"YesNo"}, "q.1.correct": {"Yes"}, "q.1.feedback": {"Water is wet."},
		"variables": {"total = sum(q1, q2, 2)\nbest = max(total, q1)"}, "outcomes": {"total >= 5: Great\nscore >= 1: Fine"},
		"showCorrect": {"1"}, "action": {"save"}}
	code, h, body := app.do(t, "POST", "/adatum/surveys/new", form, cookie)
	if code != http.StatusSeeOther {
		t.Fatalf("save = %d\n%s", code, problems(body))
	}
	slug := strings.TrimSuffix(strings.TrimPrefix(h.Get("Location"), "/adatum/surveys/"), "/edit")
	sv, err := app.surveys.Get(ctx, "adatum", slug)
	if err != nil {
		t.Fatal(err)
	}
	q0, q1 := sv.Questions[0].ID, sv.Questions[1].ID
	if sv.Questions[0].Points["Red"] != 3 || sv.Questions[1].Correct[0] != "Yes" || sv.Questions[1].Feedback != "Water is wet." || !sv.ShowCorrect ||
		len(sv.Variables) != 2 || strings.Join(sv.Variables[0].Args, ",") != q0+","+q1+",2" || strings.Join(sv.Variables[1].Args, ",") != "var:total,"+q0 ||
		len(sv.Outcomes) != 2 || sv.Outcomes[0].Min != 5 {
		t.Fatalf("saved %+v", sv)
	}
	_, _, body = app.do(t, "GET", "/adatum/surveys/"+slug+"/edit", nil, cookie)
	mustContain(t, "designer", body, "total = sum(q1, q2, 2)\nbest = max(total, q1)", "total &gt;= 5: Great", "Red = 3\nBlue = 1", `value="Water is wet."`)

	for _, bad := range []struct{ field, value, want string }{
		{"variables", "total = sum(q1, q9)", "neither a question"},
		{"variables", "a = sum(var:b)\nb = sum(var:a)", "depends on itself"},
		{"variables", "Total! = sum(q1)", "not allowed"},
		{"outcomes", "nope >= 1: x", "neither the score"},
		{"q.0.points", "Green = 2", "not one of"},
		{"redirect", "http://example.com", "https://"},
	} {
		v := with(form, bad.field, bad.value)
		before, _ := app.surveys.List(ctx, "adatum")
		code, _, body := app.do(t, "POST", "/adatum/surveys/new", v, cookie)
		after, _ := app.surveys.List(ctx, "adatum")
		if code != http.StatusUnprocessableEntity || len(after) != len(before) {
			t.Errorf("%s %q = %d", bad.field, bad.value, code)
			continue
		}
		mustContain(t, bad.field, body, bad.want)
	}
}

// TestScoringTranslated: the translations page carries the outcomes'
// messages and a quiz question's feedback; a French respondent reads
// them, and the thank-you page's own words, in French.
func TestScoringTranslated(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	sv, ids := app.quizSurvey(t)
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	page := "/adatum/surveys/" + sv.Slug + "/translations"
	_, _, body := app.do(t, "GET", page+"?lang=fr", nil, ana)
	mustContain(t, "translations page", body, `name="outcomes.0"`, `name="questions.`+ids["wet"]+`.feedback"`, "Top marks, total {{total}}!")
	v := url.Values{"lang": {"fr"}, "language": {"en"}, "outcomes.0": {"Bravo, {{total}} !"}, "questions." + ids["wet"] + ".feedback": {"Elle l'est."}}
	if code, _, body := app.do(t, "POST", page, v, ana); code != http.StatusSeeOther {
		t.Fatalf("save = %d\n%s", code, body)
	}
	got, _ := app.surveys.Get(ctx, "adatum", sv.Slug)
	if fr := got.Translations["fr"]; len(fr.Outcomes) != 2 || fr.Outcomes[0] != "Bravo, {{total}} !" || fr.Questions[ids["wet"]].Feedback != "Elle l'est." {
		t.Fatalf("saved %+v", got.Translations)
	}
	app.pastCacheTTL()
	path := "/survey/adatum/" + sv.Slug
	token, _ := formOf(t, mustGet(t, app, path+"?lang=fr"))
	form := url.Values{"token": {token}, "action": {"submit"}, "lang": {"fr"}, "q-" + ids["colour"]: {"Red"}, "q-" + ids["wet"]: {"Yes"}}
	_, _, body = app.do(t, "POST", path+"?lang=fr", form, nil)
	_, state := formOf(t, body)
	form.Set("state", state)
	form.Del("q-" + ids["colour"])
	form.Del("q-" + ids["wet"])
	code, h, body := app.do(t, "POST", path+"?lang=fr", form, nil)
	if code != http.StatusSeeOther {
		t.Fatalf("submit = %d\n%s", code, body)
	}
	_, _, thanks := app.do(t, "GET", h.Get("Location"), nil, nil)
	mustContain(t, "French thank-you page", thanks, "Bravo, 6 !", "Votre score : 6", "Elle l&#39;est.")
}

// TestDesignerRuleOnVariable: a rule's question select offers the score
// and the variables, and a rule on one saves.
func TestDesignerRuleOnVariable(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ana := app.signedIn(t, "adatum", "ana@adatum.example")
	form := url.Values{"title": {"Scored"}, "n": {"2"}, "ns": {"2"}, "s.0.id": {"s1"}, "s.1.id": {"s2"},
		"q.0.text": {"Colour?"}, "q.0.type": {"MultipleChoice"}, "q.0.choices": {"Red\nBlue"}, "q.0.points": {"Red = 3"}, "q.0.section": {"0"},
		"q.1.text": {"Why?"}, "q.1.type": {"SimpleText"}, "q.1.section": {"1"},
		"q.1.if.match": {"all"}, "q.1.if.n": {"1"}, "q.1.if.0.question": {"var:total"}, "q.1.if.0.op": {"greater_than"}, "q.1.if.0.value": {"2"},
		"variables": {"total = sum(q1)"}, "action": {"save"}}
	code, h, body := app.do(t, "POST", "/adatum/surveys/new", form, ana)
	if code != http.StatusSeeOther {
		t.Fatalf("save = %d\n%s", code, problems(body))
	}
	_, _, body = app.do(t, "GET", h.Get("Location"), nil, ana)
	mustContain(t, "designer", body, `<option value="var:total" selected>Variable “total”</option>`, `<option value="var:score">Variable “score”</option>`)
}
