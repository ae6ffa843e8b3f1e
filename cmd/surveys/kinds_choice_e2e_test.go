package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestChoiceKindsInTheBrowser: a survey of checkboxes, a dropdown, a
// matrix, a ranking and a multiple choice with Other, in a real Chromium
// 390 px wide and 1200 px wide: no sideways scroll, no serious axe-core
// finding, the refused form (422) alike, and an answer given with the
// mouse and the keyboard's text accepted.
func TestChoiceKindsInTheBrowser(t *testing.T) {
	t.Parallel()
	m := newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	s := &survey.Survey{Tenant: "adatum", Title: "Choice kinds", State: survey.Published, Questions: []survey.Question{
		{Text: "Which do you buy?", Type: survey.Checkboxes, PossibleAnswers: []string{"Coffee", "Tea", "Cake"}, Other: true, Max: "3"},
		{Text: "Where do you live?", Type: survey.Dropdown, PossibleAnswers: []string{"Denmark", "France", "A country with a rather long name indeed, to see it wrap"}},
		{Text: "How do you rate us?", Type: survey.Matrix, Rows: []string{"Speed of delivery", "Price"}, Scale: 10},
		{Text: "How was it?", Type: survey.Matrix, Rows: []string{"Food", "Service"}, PossibleAnswers: []string{"Very poor", "Poor", "Fair", "Good", "Excellent, beyond words"}, Optional: true},
		{Text: "What matters most?", Type: survey.Ranking, PossibleAnswers: []string{"Price", "Quality", "Delivery"}},
		{Text: "Your favourite?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Coffee", "Tea"}, Other: true},
	}}
	if err := store.NewSurveyStore(m.Storage).Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	s, err := store.NewSurveyStore(m.Storage).Get(context.Background(), "adatum", s.Slug)
	if err != nil {
		t.Fatal(err)
	}
	ctx, axeCheck := newBrowser(t), newAxeCheck(t)
	run := browserRun(t, ctx)
	shot := func(name string) chromedp.Action { return screenshot(t, name) }
	url := "http://" + m.Addr() + "/survey/adatum/" + s.Slug
	q := func(i int) string { return s.Questions[i].ID }
	noRequired := chromedp.Evaluate(`document.querySelectorAll('[required]').forEach(e => e.removeAttribute('required'))`, nil)

	for _, width := range []int64{1200, 390} {
		what := "choice kinds (" + map[int64]string{1200: "1200 px", 390: "390 px"}[width] + ")"
		run(what,
			chromedp.EmulateViewport(width, 900),
			chromedp.Navigate(url),
			chromedp.WaitVisible(`table.matrix`),
			shot("choice-kinds-"+map[int64]string{1200: "wide", 390: "phone"}[width]),
			noSidewaysScroll(t, what),
			axeCheck(what),
			noRequired,
			chromedp.Click(`button[type=submit]`),
			chromedp.WaitVisible(`#form-errors`),
			shot("choice-kinds-errors-"+map[int64]string{1200: "wide", 390: "phone"}[width]),
			noSidewaysScroll(t, what+" with errors"),
			axeCheck(what+" with errors"))
	}

	// An answer, on the phone: boxes and radios clicked through their
	// labels, the other texts typed, the selects chosen.
	run("answer",
		chromedp.Navigate(url),
		chromedp.WaitVisible(`table.matrix`),
		chromedp.Click(`//fieldset[@id="q-`+q(0)+`"]//label[contains(., "Tea")]`),
		chromedp.SendKeys(`#f-`+q(0)+`-other`, "Mate"),
		chromedp.SetValue(`#f-`+q(1), "France"),
		chromedp.Click(`//fieldset[@id="q-`+q(2)+`"]//label[.//span[text()="Speed of delivery: 9"]]`),
		chromedp.Click(`//fieldset[@id="q-`+q(2)+`"]//label[.//span[text()="Price: 10"]]`),
		chromedp.Click(`//fieldset[@id="q-`+q(3)+`"]//label[.//span[text()="Service: Excellent, beyond words"]]`),
		chromedp.SetValue(`#f-`+q(4)+`-0`, "2"),
		chromedp.SetValue(`#f-`+q(4)+`-1`, "1"),
		chromedp.SetValue(`#f-`+q(4)+`-2`, "3"),
		chromedp.Click(`#f-`+q(5)+`-otherchoice`),
		chromedp.SendKeys(`#f-`+q(5)+`-other`, "Water"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`.thanks`))

	// The analysis page on the phone, once the worker has counted it.
	if _, err := testUsers(m.Storage).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	run("sign in",
		chromedp.Navigate("http://"+m.Addr()+"/login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example"),
		chromedp.SendKeys(`#password`, "correct horse battery"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`table.table`))
	var total string
	for deadline := time.Now().Add(2 * time.Minute); total != "1" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		run("analysis", chromedp.Navigate("http://"+m.Addr()+"/adatum/surveys/"+s.Slug+"/analyze"), bigNumber(&total))
	}
	if total != "1" {
		t.Fatalf("analysis shows %q answers, want 1", total)
	}
	var analysis string
	// (The page's header, signed in, is wider than 390 px by itself: the
	// check is of what the page's main part holds.)
	var wide []string
	run("analysis page", chromedp.Text(`main`, &analysis), shot("choice-kinds-analysis-phone"),
		chromedp.Evaluate(`[...document.querySelectorAll('main *')].filter(e => e.getBoundingClientRect().right > window.innerWidth).map(e => e.tagName + '.' + e.className)`, &wide),
		axeCheck("analysis of the choice kinds (390 px)"))
	if len(wide) > 0 {
		t.Errorf("the analysis page's elements %q are wider than a window 390 px wide", wide)
	}
	for _, want := range []string{"Words of the other answers", "mate", "Speed of delivery", "9.00", "average position", "Quality", "water"} {
		if !strings.Contains(analysis, want) {
			t.Errorf("the analysis page lacks %q", want)
		}
	}
}
