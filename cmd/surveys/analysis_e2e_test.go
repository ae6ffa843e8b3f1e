package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestBrowserAnalysisOnAPhone: the analysis page of a survey with answers
// (choices with labels longer than a phone's line, stars, an optional text
// question) and its page of written answers fit a window 390 px wide with
// no sideways scroll, pass axe-core, and show the bars' labels, counts and
// shares as text. Answers that arrive show without a reload, the focus
// where it was; a filter by one answer counts its own.
func TestBrowserAnalysisOnAPhone(t *testing.T) {
	t.Parallel()
	m := newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	if _, err := testUsers(m.Storage).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	surveys := store.NewSurveyStore(m.Storage)
	choices := []string{
		"A friend or colleague recommended it to me during a project kick-off meeting",
		"A search engine",
		"An article in a trade magazine about tools for customer research",
		"An advertisement",
	}
	s := &survey.Survey{Tenant: "adatum", Title: "Checkout experience, spring 2026", State: survey.Published, Questions: []survey.Question{
		{Text: "How did you first hear about us?", Type: survey.MultipleChoice, PossibleAnswers: choices, Other: true},
		{Text: "How satisfied are you with the checkout?", Type: survey.FiveStars},
		{Text: "What should we improve first?", Type: survey.SimpleText, Optional: true},
	}}
	if err := surveys.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	s, err := surveys.Get(ctx, "adatum", s.Slug)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"The delivery options are hard to compare on a small screen.",
		"Let me save my card for next time, please.",
		"",
		"Coupon codes should apply before the shipping cost is shown, not after; it looked like the discount was lost.",
		"Faster pages.",
		"",
		"A guest checkout without an account.",
	}
	const n = 37
	var answers []survey.SurveyAnswer
	for i := 0; i < n; i++ {
		forms := map[string]survey.Form{
			s.Questions[0].ID: survey.Value(choices[[]int{0, 0, 1, 1, 1, 2, 3}[i%7]]),
			s.Questions[1].ID: survey.Value(fmt.Sprint([]int{5, 4, 4, 3, 5, 2, 4, 5, 1}[i%9])),
			s.Questions[2].ID: survey.Value(texts[i%len(texts)]),
		}
		if i%11 == 10 {
			forms[s.Questions[0].ID] = survey.Form{"other": {"A podcast about retail"}}
		}
		a, err := survey.NewAnswer(s, forms)
		if err != nil {
			t.Fatal(err)
		}
		a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
		answers = append(answers, a)
	}
	if err := store.NewSurveyAnswerStore(m.Storage).Enqueue(ctx, answers); err != nil {
		t.Fatal(err)
	}

	base := "http://" + m.Addr()
	bctx := newBrowser(t)
	axeCheck := newAxeCheck(t)
	run := browserRun(t, bctx)
	run("sign in",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example"),
		chromedp.SendKeys(`#password`, "correct horse battery"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitNotPresent(`#password`)) // signed in: off the sign-in page
	// The worker counts the answers: the analysis page shows them.
	page := base + "/adatum/surveys/" + s.Slug + "/analyze"
	var total string
	for deadline := time.Now().Add(2 * time.Minute); total != fmt.Sprint(n) && time.Now().Before(deadline); {
		run("analysis", chromedp.Navigate(page), bigNumber(&total))
		time.Sleep(200 * time.Millisecond)
	}
	if total != fmt.Sprint(n) {
		t.Fatalf("analysis shows %q answers, want %d", total, n)
	}
	var main string
	var svgText int
	run("analysis at 390 px",
		chromedp.Navigate(page),
		chromedp.WaitVisible(`.bars`),
		chromedp.Text(`main`, &main),
		chromedp.Evaluate(`document.querySelectorAll('main svg text').length`, &svgText),
		screenshot(t, "analysis-390"),
		noSidewaysScroll(t, "analysis"),
		axeCheck("analysis (390 px)"))
	for _, want := range []string{choices[0], "Multiple choice", "Long text", "37 answers", "not answered by 10", "Average rating", "Latest answers",
		"A guest checkout without an account.", "Other"} {
		if !strings.Contains(strings.ToLower(main), strings.ToLower(want)) {
			t.Errorf("the analysis page lacks %q:\n%s", want, main)
		}
	}
	if svgText != 0 {
		t.Errorf("the analysis page draws %d labels as SVG text", svgText)
	}
	run("written answers at 390 px",
		chromedp.Click(`a.written-all[href$="/`+s.Questions[2].ID+`"]`),
		chromedp.WaitVisible(`.written-page`),
		chromedp.Text(`main`, &main),
		screenshot(t, "analysis-written-390"),
		noSidewaysScroll(t, "written answers"),
		axeCheck("written answers (390 px)"))
	// Live: answers that arrive show without a reload, and the focus
	// stays on the link it was on; a polite status says how many.
	more := answers[:3]
	for i := range more {
		more[i].ID = store.NewAnswerID(time.Now())
	}
	var live, news, focused string
	var marker bool
	run("analysis, focus on a link",
		chromedp.Navigate(page),
		chromedp.WaitVisible(`.live-auto`),
		chromedp.Evaluate(`window.notReloaded = true`, nil),
		chromedp.Focus(`a.written-all`))
	if err := store.NewSurveyAnswerStore(m.Storage).Enqueue(ctx, more); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); live != fmt.Sprint(n+3) && time.Now().Before(deadline); {
		run("analysis, waiting", chromedp.Sleep(time.Second), bigNumber(&live))
	}
	run("analysis, updated",
		chromedp.Text(`.live-news`, &news),
		chromedp.Evaluate(`window.notReloaded === true`, &marker),
		chromedp.Evaluate(`document.activeElement.className`, &focused),
		screenshot(t, "analysis-live-390"),
		axeCheck("analysis, updated (390 px)"))
	if live != fmt.Sprint(n+3) || news != "3 new answers" || !marker || focused != "written-all" {
		t.Errorf("live analysis: total %q, status %q, not reloaded %v, focus on %q", live, news, marker, focused)
	}

	// Filtered by one answer: a count of its own, and the exports carry it.
	var lead, csvHref string
	run("analysis filtered at 390 px",
		chromedp.Click(`.filter summary`),
		chromedp.SetValue(`#f-q`, s.Questions[0].ID),
		chromedp.SendKeys(`#f-a`, choices[1]),
		chromedp.Submit(`#f-a`),
		chromedp.WaitVisible(`.lead.filtered`),
		chromedp.Text(`.lead.filtered`, &lead),
		chromedp.AttributeValue(`.exports a`, "href", &csvHref, nil),
		screenshot(t, "analysis-filtered-390"),
		noSidewaysScroll(t, "analysis filtered"),
		axeCheck("analysis filtered (390 px)"))
	if !strings.HasPrefix(lead, "Filtered: ") || !strings.Contains(lead, fmt.Sprintf("of %d answers", n+3)) || !strings.Contains(csvHref, "a=A+search+engine") {
		t.Errorf("filtered analysis: %q, export %q", lead, csvHref)
	}
	// And on a laptop, for the record.
	run("analysis at 1200 px", chromedp.EmulateViewport(1200, 900), chromedp.Navigate(page), chromedp.WaitVisible(`.bars`), screenshot(t, "analysis-1200"))
	if !strings.Contains(main, "Answers 1–20 of 37 · page 1 of 2") || !strings.Contains(main, "Older") || !strings.Contains(main, texts[3]) {
		t.Errorf("the written answers page: %q", main)
	}
}
