package web_test

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// carSurvey is a published survey of three sections with logic: "Do you
// own a car?" jumps to the last section on No, and "What kind of car?"
// beside it shows only after Yes (a condition on the same page); the
// second section asks about the car; the last asks "Would you buy it
// again?" only after Yes (a condition on an earlier page) and "Why so
// low?" only for a rating under 3 (the same page). The returned map gives
// the stored ID of each question by its name: own, kind, brand, rate,
// again, why.
func (a *testApp) carSurvey(t testing.TB, title string) (*survey.Survey, map[string]string) {
	t.Helper()
	return a.carSurveyIn(t, title, survey.Published)
}

// carSurveyIn is carSurvey, made in state.
func (a *testApp) carSurveyIn(t testing.TB, title string, state survey.State) (*survey.Survey, map[string]string) {
	t.Helper()
	yes := &survey.Condition{Match: "all", Rules: []survey.Rule{{Question: "own", Op: "equals", Values: []string{"Yes"}}}}
	sv := &survey.Survey{Tenant: "adatum", State: state, Title: title,
		Sections: []survey.Section{
			{ID: "you", Title: "About you", Jumps: []survey.Jump{{If: survey.Condition{Match: "all", Rules: []survey.Rule{{Question: "own", Op: "equals", Values: []string{"No"}}}}, To: "last"}}},
			{ID: "car", Title: "Your car"},
			{ID: "last", Title: "Last words"},
		},
		Questions: []survey.Question{
			{ID: "own", Text: "Do you own a car?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Yes", "No"}, Section: "you"},
			{ID: "kind", Text: "What kind of car?", Type: survey.ShortText, Section: "you", ShowIf: yes},
			{ID: "brand", Text: "Which brand is it?", Type: survey.ShortText, Section: "car"},
			{ID: "rate", Text: "Rate this survey", Type: survey.FiveStars, Section: "last"},
			{ID: "again", Text: "Would you buy the same car again?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Yes", "No"}, Section: "last", ShowIf: yes},
			{ID: "why", Text: "Why so low?", Type: survey.SimpleText, Section: "last",
				ShowIf: &survey.Condition{Match: "all", Rules: []survey.Rule{{Question: "rate", Op: "less_than", Values: []string{"3"}}}}},
		}}
	if err := a.surveys.Create(context.Background(), sv); err != nil {
		t.Fatal(err)
	}
	a.pastCacheTTL()
	ids := map[string]string{}
	for i, name := range []string{"own", "kind", "brand", "rate", "again", "why"} {
		ids[name] = sv.Questions[i].ID
	}
	return sv, ids
}

// logicStep is one page sent: its action and answers (question name,
// value, …), the status wanted, and what the page shown must and must
// not say.
type logicStep struct {
	action     string
	answers    []string
	code       int
	want, lack []string
}

// walk opens the survey and sends each step's page with the token and
// the state of the page before; it returns the last page's state.
func (a *testApp) walk(t *testing.T, path string, ids map[string]string, steps []logicStep) (token, state string) {
	t.Helper()
	_, _, body := a.do(t, "GET", path, nil, nil)
	token, _ = formOf(t, body)
	for i, s := range steps {
		var fields []string
		for j := 0; j+1 < len(s.answers); j += 2 {
			fields = append(fields, "q-"+ids[s.answers[j]], s.answers[j+1])
		}
		code, body := a.post(t, path, token, state, s.action, fields...)
		if code != s.code {
			t.Fatalf("step %d (%s %v) = %d, want %d\n%s", i+1, s.action, s.answers, code, s.code, body)
		}
		what := "step " + strconv.Itoa(i+1) + " " + s.action
		mustContain(t, what, body, s.want...)
		mustLack(t, what, body, s.lack...)
		if code == 200 && tokenRE.MatchString(body) {
			_, state = formOf(t, body)
		}
	}
	return token, state
}

// storedAnswers runs the worker and reads the survey's stored answers.
func (a *testApp) storedAnswers(t *testing.T, slug string) []*survey.SurveyAnswer {
	t.Helper()
	a.storedOf(t, slug)
	ctx := context.Background()
	var out []*survey.SurveyAnswer
	err := a.answers.ListAll(ctx, "adatum", slug, func(id string) error {
		sa, err := a.answers.Get(ctx, "adatum", slug, id)
		out = append(out, sa)
		return err
	})
	if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Fatal(err)
	}
	return out
}

// TestPagesFollowLogic walks the car survey along its branches: Yes goes
// through three pages, No jumps from page 1 to the last ("Page 2 of 2"),
// Back goes to the page before on the path with the answers kept, a
// question whose condition looks at an earlier page shows only when it
// holds, one on the same page shows with its condition in words (and the
// script), and the stored answer has only the questions the path showed.
func TestPagesFollowLogic(t *testing.T) {
	t.Parallel()
	page1 := []string{"Page 1 of 3", "Do you own a car?", "What kind of car?", `data-show-if="`, "Answer only if your answer to “Do you own a car?” is “Yes”.", "/static/logic.js?v=", `value="next">Next page</button>`}
	last := func(of string) []string {
		return []string{"Page " + of, "Last words", "Rate this survey", "Answer only if your answer to “Rate this survey” is less than 3.", `value="submit">Submit answers</button>`, `value="back">Back</button>`}
	}
	for _, c := range []struct {
		name  string
		steps []logicStep
		// stored are the questions answered in the stored answer.
		stored []string
	}{
		{"yes, three pages", []logicStep{
			{"next", []string{"own", "Yes", "kind", "Estate"}, 200, []string{"Page 2 of 3", "Your car", "Which brand is it?", `value="back">Back</button>`}, []string{"Do you own a car?", "Last words", "logic.js"}},
			{"next", []string{"brand", "Volvo"}, 200, append(last("3 of 3"), "Would you buy the same car again?"), []string{"Which brand is it?", `value="next"`}},
			{"submit", []string{"rate", "2", "again", "Yes", "why", "Too long"}, 303, nil, nil},
		}, []string{"own", "kind", "brand", "rate", "again", "why"}},
		{"no, jump to the last page", []logicStep{
			{"next", []string{"own", "No", "kind", "Estate"}, 200, last("2 of 2"), []string{"Your car", "Would you buy the same car again?", "Which brand"}},
			{"submit", []string{"rate", "5", "why", "Not low"}, 303, nil, nil},
		}, []string{"own", "rate"}},
		{"back along the path, then the other branch", []logicStep{
			{"next", []string{"own", "Yes", "kind", "Estate"}, 200, []string{"Page 2 of 3"}, nil},
			{"next", []string{"brand", "Volvo"}, 200, []string{"Page 3 of 3"}, nil},
			{"back", []string{"rate", "4"}, 200, []string{"Page 2 of 3", `value="Volvo"`}, nil},
			{"back", []string{"brand", "Volvo"}, 200, append(page1, `value="Yes" checked`, `value="Estate"`), nil},
			// No now: the car's page is skipped, and its answer dropped.
			{"next", []string{"own", "No", "kind", "Estate"}, 200, append(last("2 of 2"), `value="4" checked`), []string{"Would you buy"}},
			{"back", []string{"rate", "4"}, 200, []string{"Page 1 of 2", `value="No" checked`}, nil},
			{"next", []string{"own", "No"}, 200, last("2 of 2"), nil},
			{"submit", []string{"rate", "4"}, 303, nil, nil},
		}, []string{"own", "rate"}},
		{"a page left without its required answer", []logicStep{
			{"next", []string{"own", "Yes"}, 422, []string{"Page 1 of 3", "Please check 1 answer"}, nil},
			{"next", []string{"own", "Yes", "kind", "Estate"}, 200, []string{"Page 2 of 3"}, nil},
			{"next", []string{"brand", "Volvo"}, 200, nil, nil},
			// Would you buy again is required after Yes; Why so low is not
			// asked for 4 stars.
			{"submit", []string{"rate", "4"}, 422, []string{"Page 3 of 3", "Please check 1 answer"}, nil},
			{"submit", []string{"rate", "4", "again", "No", "why", "sent without the script"}, 303, nil, nil},
		}, []string{"own", "kind", "brand", "rate", "again"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			app := newTestApp(t)
			sv, ids := app.carSurvey(t, "Cars")
			path := "/survey/adatum/" + sv.Slug
			_, _, body := app.do(t, "GET", path, nil, nil)
			mustContain(t, "page 1", body, page1...)
			mustLack(t, "page 1", body, "Which brand", "Rate this survey", `value="back"`, "Submit answers")
			app.walk(t, path, ids, c.steps)
			got := app.storedAnswers(t, sv.Slug)
			if len(got) != 1 {
				t.Fatalf("%d answers stored, want 1", len(got))
			}
			var answered []string
			for _, qa := range got[0].Answers {
				for name, id := range ids {
					if id == qa.QuestionID {
						answered = append(answered, name)
					}
				}
			}
			if strings.Join(answered, " ") != strings.Join(c.stored, " ") {
				t.Fatalf("the stored answer has %v, want %v", answered, c.stored)
			}
		})
	}
}

// TestLogicSummary: two answers along the two branches; the summary
// counts two answers, and the questions shown on one branch only once.
func TestLogicSummary(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv, ids := app.carSurvey(t, "Cars counted")
	path := "/survey/adatum/" + sv.Slug
	app.walk(t, path, ids, []logicStep{
		{"next", []string{"own", "Yes", "kind", "Estate"}, 200, nil, nil},
		{"next", []string{"brand", "Volvo"}, 200, nil, nil},
		{"submit", []string{"rate", "5", "again", "Yes", "why", "dropped"}, 303, nil, nil},
	})
	app.walk(t, path, ids, []logicStep{
		{"next", []string{"own", "No", "kind", "dropped"}, 200, nil, nil},
		{"submit", []string{"rate", "1", "why", "Too long", "again", "dropped"}, 303, nil, nil},
	})
	app.storedOf(t, sv.Slug)
	sum, _, err := store.NewSurveyAnswersSummaryStore(app.st).Get(context.Background(), "adatum", sv.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if sum.TotalAnswers != 2 {
		t.Fatalf("%d answers counted, want 2", sum.TotalAnswers)
	}
	want := map[string]int64{"own": 2, "kind": 1, "brand": 1, "rate": 2, "again": 1, "why": 1}
	for _, q := range sum.Questions {
		for name, id := range ids {
			if id == q.QuestionID && q.Answered != want[name] {
				t.Errorf("%s answered %d times, want %d", name, q.Answered, want[name])
			}
		}
	}
}

// TestLogicSkippedSection: a section whose condition fails is skipped
// (and counted out of "Page N of M"); a survey of one section with a
// condition on the same page shows the question with its condition, and
// drops its answer when the condition fails.
func TestLogicSkippedSection(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	yes := func() *survey.Condition { // one each: a survey's creation renames its rules' questions
		return &survey.Condition{Match: "any", Rules: []survey.Rule{{Question: "pet", Op: "one_of", Values: []string{"Cat", "Dog"}}}}
	}
	sv := app.publish(t, &survey.Survey{Title: "Pets",
		Sections: []survey.Section{{ID: "one", Title: "You"}, {ID: "pets", Title: "Your pet", ShowIf: yes()}, {ID: "last", Title: "The end"}},
		Questions: []survey.Question{
			{ID: "pet", Text: "Which pet?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Cat", "Dog", "None"}, Section: "one"},
			{ID: "name", Text: "Its name?", Type: survey.ShortText, Section: "pets"},
			{ID: "more", Text: "Anything else?", Type: survey.ShortText, Section: "last", Optional: true},
		}})
	one := app.publish(t, &survey.Survey{Title: "One section",
		Sections: []survey.Section{{ID: "only", Title: "Only"}},
		Questions: []survey.Question{
			{ID: "pet", Text: "Which pet?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Cat", "None"}},
			{ID: "name", Text: "Its name?", Type: survey.ShortText, ShowIf: yes()},
		}})
	app.pastCacheTTL()
	ids := map[string]string{"pet": sv.Questions[0].ID, "name": sv.Questions[1].ID, "more": sv.Questions[2].ID}
	path := "/survey/adatum/" + sv.Slug
	app.walk(t, path, ids, []logicStep{
		{"next", []string{"pet", "None"}, 200, []string{"Page 2 of 2", "The end", "Anything else?"}, []string{"Its name?"}},
		{"back", nil, 200, []string{"Page 1 of 2"}, nil},
		{"next", []string{"pet", "Dog"}, 200, []string{"Page 2 of 3", "Your pet", "Its name?"}, nil},
		{"next", []string{"name", "Rex"}, 200, []string{"Page 3 of 3"}, nil},
		{"submit", nil, 303, nil, nil},
	})
	if got := app.storedAnswers(t, sv.Slug); len(got) != 1 || len(got[0].Answers) != 2 {
		t.Fatalf("stored %+v, want one answer of 2 questions", got)
	}

	onePath := "/survey/adatum/" + one.Slug
	_, _, body := app.do(t, "GET", onePath, nil, nil)
	mustContain(t, "one section", body, "Its name?", "Answer only if your answer to “Which pet?” is one of “Cat”, “Dog”.", "logic.js")
	mustLack(t, "one section", body, "Page 1 of", `name="state"`)
	oneIDs := map[string]string{"pet": one.Questions[0].ID, "name": one.Questions[1].ID}
	app.walk(t, onePath, oneIDs, []logicStep{
		{"", []string{"pet", "Cat"}, 422, []string{"Please check 1 answer"}, nil},
	})
	app.walk(t, onePath, oneIDs, []logicStep{
		{"", []string{"pet", "None", "name", "Rex"}, 303, nil, nil},
	})
	if got := app.storedAnswers(t, one.Slug); len(got) != 1 || len(got[0].Answers) != 1 {
		t.Fatalf("stored %+v, want one answer of 1 question", got)
	}
}

// TestLogicStateRefused: a state altered, or of another survey, is
// refused (422) on a path with a jump, nothing stored.
func TestLogicStateRefused(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv, ids := app.carSurvey(t, "Cars refused")
	other, _ := app.carSurvey(t, "Other cars")
	path := "/survey/adatum/" + sv.Slug
	token, state := app.walk(t, path, ids, []logicStep{{"next", []string{"own", "No"}, 200, []string{"Page 2 of 2"}, nil}})
	b := []byte(state)
	b[len(b)/2] ^= 1
	_, _, obody := app.do(t, "GET", "/survey/adatum/"+other.Slug, nil, nil)
	otok, _ := formOf(t, obody)
	_, obody = app.post(t, "/survey/adatum/"+other.Slug, otok, "", "next", "q-"+other.Questions[0].ID, "No")
	_, ost := formOf(t, obody)
	for name, st := range map[string]string{"altered": string(b), "another survey's": ost} {
		for _, action := range []string{"submit", "back", "next"} {
			code, body := app.post(t, path, token, st, action, "q-"+ids["rate"], "5")
			if code != 422 || !strings.Contains(body, "could not be read") {
				t.Errorf("%s state, %s = %d", name, action, code)
			}
		}
	}
	if n := app.storedOf(t, sv.Slug); n != 0 {
		t.Fatalf("%d answers stored", n)
	}
}

// TestLogicResume: progress saved after a jump comes back on the page the
// jump led to, "Page 2 of 2", and Back from it goes to page 1.
func TestLogicResume(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv, ids := app.carSurvey(t, "Cars later")
	path := "/survey/adatum/" + sv.Slug
	token, state := app.walk(t, path, ids, []logicStep{{"next", []string{"own", "No"}, 200, []string{"Page 2 of 2"}, nil}})
	code, body := app.post(t, path, token, state, "save", "q-"+ids["rate"], "3")
	m := resumeRE.FindStringSubmatch(body)
	if code != 200 || m == nil {
		t.Fatalf("save = %d, link %v", code, m)
	}
	_, _, body = app.do(t, "GET", m[1], nil, nil)
	mustContain(t, "resumed", body, "Page 2 of 2", "Last words", `value="3" checked`)
	mustLack(t, "resumed", body, "Would you buy")
	tok, st := formOf(t, body)
	if code, body = app.post(t, path, tok, st, "back", "q-"+ids["rate"], "3"); code != 200 {
		t.Fatalf("back = %d", code)
	}
	mustContain(t, "resumed, back", body, "Page 1 of 2", `value="No" checked`)
	_, st = formOf(t, body)
	_, body = app.post(t, path, tok, st, "next", "q-"+ids["own"], "No")
	_, st = formOf(t, body)
	if code, _ = app.post(t, path, tok, st, "submit", "q-"+ids["rate"], "3"); code != 303 {
		t.Fatalf("submit = %d", code)
	}
	if n := app.blobs(t, store.ResumeContainer); n != 0 {
		t.Errorf("%d saved blobs after the submit", n)
	}
	if n := app.storedOf(t, sv.Slug); n != 1 {
		t.Errorf("%d answers", n)
	}
}

// TestLogicFunnel: the funnel counts each page a respondent reaches once,
// whichever branch: Ada goes Yes (pages 1, 2, 3), Bob No (1, 3), Cy No,
// then back and Yes (1, 3, 2, 3 again: each once); Dan stops on page 1.
// A survey whose sections jump says nothing of where people stopped.
func TestLogicFunnel(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv, ids := app.carSurvey(t, "Cars funnel")
	path := "/survey/adatum/" + sv.Slug
	yes := []logicStep{
		{"next", []string{"own", "Yes", "kind", "Estate"}, 200, nil, nil},
		{"next", []string{"brand", "Volvo"}, 200, nil, nil},
		{"submit", []string{"rate", "5", "again", "Yes"}, 303, nil, nil},
	}
	app.walk(t, path, ids, yes)
	app.walk(t, path, ids, []logicStep{
		{"next", []string{"own", "No"}, 200, nil, nil},
		{"submit", []string{"rate", "5"}, 303, nil, nil},
	})
	app.walk(t, path, ids, append([]logicStep{
		{"next", []string{"own", "No"}, 200, nil, nil},
		{"back", []string{"rate", "5"}, 200, nil, nil},
	}, yes...))
	app.do(t, "GET", path, nil, nil)

	if n := app.storedOf(t, sv.Slug); n != 3 {
		t.Fatalf("%d answers stored, want 3", n)
	}
	page := app.analysisWithViews(t, sv.Slug)
	rows := regexp.MustCompile(`<tr><th scope="row">(\d)\. ([^<]+)</th><td class="num">(\d+)</td><td class="num">([^<]+)</td><td class="num">([^<]+)</td></tr>`).FindAllStringSubmatch(page, -1)
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join(r[1:], " "))
	}
	want := []string{"1 About you 4 100% —", "2 Your car 2 50% —", "3 Last words 3 75% —"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("the funnel = %q, want %q", got, want)
	}
}

var pageURLRE = regexp.MustCompile(`data-page-url="([^"]+)"`)

// carPage2 opens the car survey (or its preview) at path and answers Yes
// on page 1: the form's token, page 2, and the address that shows page 2
// again (pageURL).
func (a *testApp) carPage2(t *testing.T, path string, ids map[string]string) (token, page2, again string) {
	t.Helper()
	_, _, first := a.do(t, "GET", path, nil, nil)
	token, _ = formOf(t, first)
	code, page2 := a.post(t, path, token, "", "next", "q-"+ids["own"], "Yes", "q-"+ids["kind"], "Estate")
	m := pageURLRE.FindStringSubmatch(page2)
	if code != 200 || m == nil {
		t.Fatalf("page 2 = %d, with no address to show it again", code)
	}
	return token, page2, html.UnescapeString(m[1])
}

// analysisWithViews files the views counted so far and returns the
// survey's analysis page, as Ana (added to Adatum) sees it.
func (a *testApp) analysisWithViews(t *testing.T, slug string) string {
	t.Helper()
	ctx := context.Background()
	if err := a.views.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	vw := worker.NewViews(a.st, worker.Config{Batch: 32, Visibility: time.Minute, MaxAttempts: 5, MaxIdle: time.Millisecond}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := vw.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := testUsers(a.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := a.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	_, _, page := a.get(t, "/adatum/surveys/"+slug+"/analyze", ana)
	return page
}

// TestPageFromHistory: each page after the first carries the address that
// shows it again (pages.js puts it in the browser's history in place of
// the POST); opened, it is the same page with its answers and token, on
// the respondent's path, and it counts no view; the survey goes on from
// it to one stored answer. An address whose state was altered, or made
// for another form, is refused (422).
func TestPageFromHistory(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv, ids := app.carSurvey(t, "Car history")
	path := "/survey/adatum/" + sv.Slug
	token, page2, again := app.carPage2(t, path, ids)
	if !strings.HasPrefix(again, path+"?") || !strings.Contains(page2, "/static/pages.js") {
		t.Fatalf("page 2's address: %s", again)
	}
	// Back on page 1 (the POST of Back), its address keeps page 1's answers.
	_, state := formOf(t, page2)
	_, page1 := app.post(t, path, token, state, "back", "q-"+ids["brand"], "Volvo")
	back := html.UnescapeString(pageURLRE.FindStringSubmatch(page1)[1])
	for range 3 {
		code, h, body := app.do(t, "GET", again, nil, nil)
		if code != 200 || h.Get("Cache-Control") != "no-store" {
			t.Fatalf("GET page 2's address = %d", code)
		}
		mustContain(t, "page 2 again", body, "Page 2 of 3", "Which brand is it?", `value="`+token+`"`)
	}
	_, _, body := app.do(t, "GET", back, nil, nil)
	mustContain(t, "page 1 again", body, "Page 1 of 3", `value="Estate"`, `value="Yes" checked`)
	// From page 1 shown again, on to the end.
	_, state = formOf(t, body)
	code, body := app.post(t, path, token, state, "next", "q-"+ids["own"], "Yes", "q-"+ids["kind"], "Estate")
	if code != 200 {
		t.Fatalf("next from page 1 = %d", code)
	}
	mustContain(t, "on from page 1", body, "Page 2 of 3", `value="Volvo"`)
	_, state = formOf(t, body)
	if code, body = app.post(t, path, token, state, "next", "q-"+ids["brand"], "Volvo"); code != 200 {
		t.Fatalf("next from page 2 = %d", code)
	}
	_, state = formOf(t, body)
	if code, _ = app.post(t, path, token, state, "submit", "q-"+ids["rate"], "4", "q-"+ids["again"], "Yes"); code != 303 {
		t.Fatalf("submit = %d", code)
	}
	got := app.storedAnswers(t, sv.Slug)
	if len(got) != 1 || len(got[0].Answers) != 5 {
		t.Fatalf("stored %d answers: %+v", len(got), got)
	}
	// Altered, or another form's: refused.
	for _, bad := range []string{strings.Replace(again, "s=", "s=x", 1), strings.Replace(again, "t="+url.QueryEscape(token), "t=other", 1)} {
		if code, _, _ := app.do(t, "GET", bad, nil, nil); code != http.StatusUnprocessableEntity {
			t.Errorf("GET %s = %d, want 422", bad, code)
		}
	}
	// One view of page 1, one of page 2: the pages shown again count none.
	analysis := app.analysisWithViews(t, sv.Slug)
	mustContain(t, "funnel", analysis, `<tr><th scope="row">1. About you</th><td class="num">1</td>`, `<tr><th scope="row">2. Your car</th><td class="num">1</td>`)
}

// TestPathProbe: as the respondent answers, the page learns where the
// answers lead (path.js): "Page 1 of 1" and "Submit answers" when a jump
// ends the survey after this page, "Page 1 of 2" and "Next page"
// otherwise, in the respondent's language; and the button sends the
// answers from there. Nothing is stored by asking; a state that does not
// open is refused.
func TestPathProbe(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	no := survey.Condition{Match: "all", Rules: []survey.Rule{{Question: "own", Op: "equals", Values: []string{"No"}}}}
	sv := app.publish(t, &survey.Survey{Title: "Short cut",
		Sections: []survey.Section{{ID: "you", Jumps: []survey.Jump{{If: no, To: survey.JumpEnd}}}, {ID: "car", Title: "Your car"}},
		Questions: []survey.Question{
			{ID: "own", Text: "Do you own a car?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Yes", "No"}, Section: "you"},
			{ID: "brand", Text: "Which brand is it?", Type: survey.ShortText, Section: "car"},
		}})
	app.pastCacheTTL()
	own := "q-" + sv.Questions[0].ID
	path := "/survey/adatum/" + sv.Slug
	_, _, first := app.do(t, "GET", path, nil, nil)
	token, _ := formOf(t, first)
	mustContain(t, "first page", first, `data-path="`+path+`/path"`, "/static/path.js", `id="page-progress" aria-live="polite"`, `id="page-go"`)
	for _, c := range []struct {
		lang, answer, want string
	}{
		{"", "No", `{"progress":"Page 1 of 1","page":1,"pages":1,"last":true,"button":"Submit answers"}`},
		{"", "Yes", `{"progress":"Page 1 of 2","page":1,"pages":2,"last":false,"button":"Next page"}`},
		{"", "", `{"progress":"Page 1 of 2","page":1,"pages":2,"last":false,"button":"Next page"}`},
		{"fr", "No", `{"progress":"Page 1 sur 1","page":1,"pages":1,"last":true,"button":"Envoyer les réponses"}`},
	} {
		to := path + "/path"
		if c.lang != "" {
			to += "?lang=" + c.lang
		}
		code, h, body := app.do(t, "POST", to, url.Values{"token": {token}, own: {c.answer}}, nil)
		if code != 200 || strings.TrimSpace(body) != c.want || h.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s = %d %s, want %s", c.lang, c.answer, code, body, c.want)
		}
	}
	if code, _, _ := app.do(t, "POST", path+"/path", url.Values{"token": {token}, "state": {"v1:garbage"}}, nil); code != http.StatusUnprocessableEntity {
		t.Errorf("a state that does not open = %d", code)
	}
	if n := len(app.storedAnswers(t, sv.Slug)); n != 0 {
		t.Fatalf("asking stored %d answers", n)
	}
	// The button as path.js left it: submit, from page 1.
	if code, _ := app.post(t, path, token, "", "submit", own, "No"); code != 303 {
		t.Fatalf("submit from page 1 = %d", code)
	}
	if got := app.storedAnswers(t, sv.Slug); len(got) != 1 {
		t.Fatalf("stored %d answers, want 1", len(got))
	}
}
