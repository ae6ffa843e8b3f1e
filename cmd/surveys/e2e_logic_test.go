package main

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestBrowserLogic: a respondent on a phone (390 px) walks a survey of
// three sections with logic by keyboard. "Do you own a car?" Yes shows
// "What kind of car?" on the same page (the page's script), goes through
// the car's page to the last page, which then asks "Would you buy the
// same car again?" (a condition on page 1); Back goes along the path with
// the answers kept. No hides the kind (and Tab passes over it), jumps
// from page 1 to the last ("Page 2 of 2"), which does not ask about the
// car again. Both answers are sent; the summary counts two answers, and
// the questions of one branch once. Every page passes axe-core and does
// not scroll sideways; screenshots go to artifacts/logic-NN-*.png.
func TestBrowserLogic(t *testing.T) {
	t.Parallel()
	m := newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	yes := func() *survey.Condition {
		return &survey.Condition{Match: survey.MatchAll, Rules: []survey.Rule{{Question: "own", Op: survey.OpEquals, Values: []string{"Yes"}}}}
	}
	sv := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: "Cars and you",
		Sections: []survey.Section{
			{ID: "you", Title: "About you", Jumps: []survey.Jump{{If: survey.Condition{Match: survey.MatchAll, Rules: []survey.Rule{{Question: "own", Op: survey.OpEquals, Values: []string{"No"}}}}, To: "last"}}},
			{ID: "car", Title: "Your car"},
			{ID: "last", Title: "Last words"},
		},
		Questions: []survey.Question{
			{ID: "own", Text: "Do you own a car?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Yes", "No"}, Section: "you"},
			{ID: "kind", Text: "What kind of car?", Type: survey.ShortText, Section: "you", ShowIf: yes()},
			{ID: "brand", Text: "Which brand is it?", Type: survey.ShortText, Section: "car"},
			{ID: "rate", Text: "Rate this survey", Type: survey.FiveStars, Section: "last"},
			{ID: "again", Text: "Would you buy the same car again?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Yes", "No"}, Section: "last", ShowIf: yes()},
		}}
	ctx := context.Background()
	if err := store.NewSurveyStore(m.Storage).Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	own, kind, brand, rate, again := sv.Questions[0].ID, sv.Questions[1].ID, sv.Questions[2].ID, sv.Questions[3].ID, sv.Questions[4].ID
	run := browserRun(t, newBrowser(t))
	axeCheck := newAxeCheck(t)
	url := "http://" + m.Addr() + "/survey/adatum/" + sv.Slug

	var progress, got string
	var hidden bool
	// check reads the progress, checks the page at 390 px and takes its
	// screenshot.
	check := func(what, shot string) chromedp.Tasks {
		return chromedp.Tasks{
			chromedp.Text(`#page-progress`, &progress),
			noSidewaysScroll(t, what),
			axeCheck(what + " (390 px)"),
			screenshot(t, shot),
		}
	}
	wantProgress := func(what, want string) {
		t.Helper()
		if progress != want {
			t.Errorf("%s: progress %q, want %q", what, progress, want)
		}
	}
	isHidden := func(id string) chromedp.Action {
		return chromedp.Evaluate(`document.getElementById('q-`+id+`').hidden`, &hidden)
	}

	// Yes: pages 1, 2, 3.
	run("page 1",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(url),
		chromedp.WaitVisible(`#q-`+own),
		isHidden(kind),
		check("logic page 1", "logic-01-page1"))
	wantProgress("page 1", "Page 1 of 3")
	if !hidden {
		t.Error("What kind of car? shows before Yes")
	}
	run("yes",
		chromedp.Focus(`input[name="q-`+own+`"][value="Yes"]`, chromedp.ByQuery),
		chromedp.KeyEvent(" "),
		chromedp.WaitVisible(`#f-`+kind),
		chromedp.Evaluate(`[...document.querySelectorAll('.logic-hint')].every(h => h.hidden)`, &hidden),
		chromedp.KeyEvent(kb.Tab),
		chromedp.Evaluate(`document.activeElement.id`, &got))
	if !hidden {
		t.Error("the hints of the conditions show with the script")
	}
	if got != "f-"+kind {
		t.Errorf("Tab from Yes reaches %q, want the kind of car", got)
	}
	run("yes, kind",
		chromedp.KeyEvent("Estate"),
		check("logic page 1, Yes", "logic-02-page1-yes"),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#f-`+brand),
		check("logic page 2 (Yes)", "logic-03-page2"))
	wantProgress("page 2", "Page 2 of 3")
	run("page 3",
		chromedp.Focus(`#f-`+brand, chromedp.ByQuery),
		chromedp.KeyEvent("Volvo"),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#q-`+again),
		check("logic page 3 (Yes)", "logic-04-page3-yes"))
	wantProgress("page 3", "Page 3 of 3")

	// Back along the path, the answers kept.
	run("back to 2",
		chromedp.Focus(`button[value="back"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#f-`+brand),
		chromedp.Text(`#page-progress`, &progress),
		chromedp.Value(`#f-`+brand, &got))
	wantProgress("back", "Page 2 of 3")
	if got != "Volvo" {
		t.Errorf("after Back the brand is %q", got)
	}
	run("back to 1",
		chromedp.Focus(`button[value="back"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#f-`+kind),
		chromedp.Value(`#f-`+kind, &got),
		check("logic page 1 again", "logic-05-back-page1"))
	wantProgress("back to 1", "Page 1 of 3")
	if got != "Estate" {
		t.Errorf("after Back the kind is %q", got)
	}
	run("yes, to the end",
		chromedp.Focus(`button[value="next"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#f-`+brand),
		chromedp.Focus(`button[value="next"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#q-`+again),
		chromedp.Focus(`input[name="q-`+rate+`"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.ArrowRight),
		chromedp.KeyEvent(kb.ArrowRight),
		chromedp.KeyEvent(kb.ArrowRight),
		chromedp.Focus(`input[name="q-`+again+`"][value="Yes"]`, chromedp.ByQuery),
		chromedp.KeyEvent(" "),
		chromedp.Focus(`button[value="submit"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`.thanks`))

	// No: page 1, then the last page, "Page 2 of 2".
	run("no",
		chromedp.Navigate(url),
		chromedp.WaitVisible(`#q-`+own),
		chromedp.Focus(`input[name="q-`+own+`"][value="Yes"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.Evaluate(`document.querySelector('input[name="q-`+own+`"]:checked')?.value ?? ''`, &got))
	if got != "No" {
		t.Fatalf("after ↓ the answer is %q, want No", got)
	}
	run("no, tab",
		isHidden(kind),
		chromedp.KeyEvent(kb.Tab),
		chromedp.Evaluate(`document.activeElement.value`, &got))
	if !hidden || got != "next" {
		t.Errorf("after No: kind hidden %v, Tab reaches %q, want the Next button", hidden, got)
	}
	var asked int
	run("no, last page",
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#q-`+rate),
		chromedp.Evaluate(`document.querySelectorAll('#q-`+again+`, #q-`+brand+`').length`, &asked),
		check("logic last page (No)", "logic-06-no-page2of2"))
	wantProgress("no", "Page 2 of 2")
	if asked != 0 {
		t.Errorf("the last page after No asks about the car (%d questions)", asked)
	}
	run("no, submit",
		chromedp.Focus(`input[name="q-`+rate+`"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.ArrowRight),
		chromedp.Focus(`button[value="submit"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`.thanks`))

	// Two answers; the questions of the Yes branch counted once.
	want := map[string]int64{own: 2, kind: 1, brand: 1, rate: 2, again: 1}
	sums := store.NewSurveyAnswersSummaryStore(m.Storage)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		sum, _, err := sums.Get(ctx, "adatum", sv.Slug)
		if err == nil && sum.TotalAnswers == 2 {
			for _, q := range sum.Questions {
				if q.Answered != want[q.QuestionID] {
					t.Errorf("%q answered %d times, want %d", q.QuestionText, q.Answered, want[q.QuestionID])
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not two answers in the summary: %v %v", sum, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The worker writes the summary before the answers' list: wait for
	// the list too.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		n, _ := store.NewSurveyAnswerStore(m.Storage).Count(ctx, "adatum", sv.Slug)
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d answers stored, want 2", n)
		}
	}
}
