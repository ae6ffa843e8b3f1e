package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestBrowserRuleEditor: on a phone (390 px), a subscriber builds in the
// designer, by clicks and keys, a three-section survey: section 1 asks
// "Do you own a car?" (Yes/No) and jumps to section 3 when the answer is
// No; section 2 asks about the commute; section 3 asks about fuel, only
// of car owners. Saved, the rules are in the store and shown again after
// a reload; a rule the survey refuses (more than on a choice, a rule on a
// question removed in the same save) comes back with its message beside
// it, nothing saved. Published, the survey is answered by keyboard along
// both branches (Yes: pages 1, 2, 3 with Back; No: page 1 then "Page 2 of
// 2" without the fuel) and the summary counts two answers, the Yes
// branch's questions once. Every page fits the window and passes axe-core;
// screenshots go to artifacts/screenshots/rules-NN-*.png.
func TestBrowserRuleEditor(t *testing.T) {
	t.Parallel()
	m := newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	if _, err := testUsers(m.Storage).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	base := "http://" + m.Addr()
	run := browserRun(t, newBrowser(t))
	axeCheck := newAxeCheck(t)
	shots := 0
	// page checks the designer as it is: it fits the window, axe-core
	// finds nothing serious; a screenshot is kept.
	page := func(name string) chromedp.Action {
		shots++
		return chromedp.Tasks{
			chromedp.WaitReady(`main`, chromedp.ByQuery),
			noSidewaysScroll(t, name),
			screenshot(t, fmt.Sprintf("rules-%02d-%s", shots, name)),
			axeCheck(name),
		}
	}
	// detail keeps a screenshot of the element sel, as people see it.
	detail := func(name, sel string) chromedp.Action {
		shots++
		return elementShot(t, fmt.Sprintf("rules-%02d-%s", shots, name), sel)
	}
	// choose picks value in a select as a person does; when the select's
	// change loads the page again (a rule's question: designer.js asks
	// for its choices), load waits for it.
	choose := func(sel, value string, load bool) chromedp.Action {
		js := fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.focus(); s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); })()`, sel, value)
		if !load {
			return chromedp.Evaluate(js, nil)
		}
		return chromedp.Tasks{
			chromedp.Evaluate(markStale, nil),
			chromedp.Evaluate(js, nil),
			waitFresh(),
		}
	}

	run("sign in",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(`#email`, chromedp.ByQuery),
		chromedp.SendKeys(`#email`, "ana@adatum.example", chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "correct horse battery", chromedp.ByQuery),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`table.table, .empty`, chromedp.ByQuery))

	// Section 1: the car question; two page breaks make sections 2 and 3,
	// each with a new question.
	run("the car question",
		chromedp.Navigate(base+"/adatum/surveys/new"),
		chromedp.WaitVisible(`#title`, chromedp.ByQuery),
		// Gone with a page load: counted below.
		chromedp.Evaluate(`window.designerOpened = true`, nil),
		chromedp.SendKeys(`#title`, "Getting to work", chromedp.ByQuery),
		chromedp.SendKeys(`#q0-text`, "Do you own a car?", chromedp.ByQuery),
		chooseKind("0", "MultipleChoice"),
		chromedp.WaitVisible(`#q0-choices`, chromedp.ByQuery),
		chromedp.SendKeys(`#q0-choices`, "Yes\nNo", chromedp.ByQuery),
		clickAndLoad(`button[value=addsection]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#s1-title`, chromedp.ByQuery),
		chromedp.SendKeys(`#s0-title`, "About you", chromedp.ByQuery),
		chromedp.SendKeys(`#s1-title`, "Your commute", chromedp.ByQuery),
		chromedp.SendKeys(`#q1-text`, "How do you get to work?", chromedp.ByQuery),
		clickAndLoad(`button[value=addsection]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#s2-title`, chromedp.ByQuery),
		chromedp.SendKeys(`#s2-title`, "Your car", chromedp.ByQuery),
		chromedp.SendKeys(`#q2-text`, "Which fuel does it use?", chromedp.ByQuery),
		page("three-sections"))

	// Question 3, shown only if car = Yes: open its block, add a
	// condition (on the question just before), choose the car question
	// (its choices come), tick Yes.
	var car string
	run("show only if",
		chromedp.Click(`#q-3 details.dl > summary`, chromedp.ByQuery),
		clickAndLoad(`#q2-if-add`, chromedp.ByQuery),
		chromedp.WaitVisible(`#q2-if-0-question`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("#q0-text").closest("fieldset").querySelector("input[name='q.0.id']").value`, &car),
	)
	if !strings.HasPrefix(car, "new-") {
		t.Fatalf("the new car question's ID is %q", car)
	}
	run("car = Yes",
		choose(`#q2-if-0-question`, car, true),
		chromedp.WaitVisible(`input[name="q.2.if.0.values"][value="Yes"]`, chromedp.ByQuery),
		chromedp.Click(`input[name="q.2.if.0.values"][value="Yes"]`, chromedp.ByQuery),
		page("condition"),
		detail("condition-detail", "#q-3"))

	// After section 1: if car = No, go to section 3.
	run("jump",
		chromedp.Click(`#s0-panel details.dl > summary`, chromedp.ByQuery),
		clickAndLoad(`#s0-addjump`, chromedp.ByQuery),
		chromedp.WaitVisible(`#s0-j0-to`, chromedp.ByQuery),
		chromedp.Click(`input[name="s.0.j.0.if.0.values"][value="No"]`, chromedp.ByQuery),
		choose(`#s0-j0-to`, "s3", false),
		chromedp.ScrollIntoView(`#s0-j0-to`, chromedp.ByQuery),
		page("jump"),
		detail("jump-detail", "#s0-panel"))

	// Built with JavaScript: three sections, a kind changed, a condition
	// and a jump, and no page loaded since the designer opened (each edit
	// came back as the designer's block); each edit's round trip is the
	// browser's own timing of its request.
	var live struct {
		Opened bool
		Edits  []float64
		Status string
	}
	run("no page loads",
		chromedp.Poll(`document.getElementById("dz-status").textContent === "Saved"`, nil, chromedp.WithPollingInterval(50*time.Millisecond)),
		chromedp.Evaluate(`({opened: window.designerOpened === true,
			status: document.getElementById("dz-status").textContent,
			edits: performance.getEntriesByType("resource").filter(e => e.initiatorType === "fetch").map(e => e.duration)})`, &live))
	if !live.Opened || len(live.Edits) < 8 {
		t.Fatalf("the designer was loaded again while building (%d requests in place): %+v", len(live.Edits), live)
	}
	slices.Sort(live.Edits)
	t.Logf("built with 0 page loads: %d requests in place (edits and autosaves), p50 %.0f ms, p99 %.0f ms (browser's timing, -race: %v)",
		len(live.Edits), live.Edits[len(live.Edits)/2], live.Edits[(len(live.Edits)*99)/100], raceEnabled)

	// Saved, then the page again: the rules are shown as made.
	run("save",
		clickAndLoad(`.dz-bar button[value=save]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#s0-j0-to`, chromedp.ByQuery))
	list, err := store.NewSurveyStore(m.Storage).List(ctx, "adatum")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(list, func(s *survey.Survey) bool { return s.Title == "Getting to work" })
	if i < 0 {
		t.Fatalf("not saved: %v", list)
	}
	sv, err := store.NewSurveyStore(m.Storage).Get(ctx, "adatum", list[i].Slug)
	if err != nil {
		t.Fatal(err)
	}
	carID := sv.Questions[0].ID
	if len(sv.Sections) != 3 || len(sv.Questions) != 3 || sv.Questions[2].ShowIf == nil ||
		fmt.Sprint(sv.Questions[2].ShowIf.Rules) != fmt.Sprint([]survey.Rule{{Question: carID, Op: "equals", Values: []string{"Yes"}}}) ||
		len(sv.Sections[0].Jumps) != 1 || sv.Sections[0].Jumps[0].To != sv.Sections[2].ID ||
		fmt.Sprint(sv.Sections[0].Jumps[0].If.Rules) != fmt.Sprint([]survey.Rule{{Question: carID, Op: "equals", Values: []string{"No"}}}) {
		t.Fatalf("saved: %+v\n%+v", sv.Sections, sv.Questions)
	}
	var shown struct {
		Yes, No, Open bool
		To, Question  string
	}
	read := chromedp.Evaluate(`({
		yes: !!document.querySelector('input[name="q.2.if.0.values"][value="Yes"]:checked'),
		no: !!document.querySelector('input[name="s.0.j.0.if.0.values"][value="No"]:checked'),
		open: document.querySelector('#q-3 details.dl').open && document.querySelector('#s0-panel details.dl').open,
		to: document.querySelector('#s0-j0-to').value,
		question: document.querySelector('#q2-if-0-question').value})`, &shown)
	run("reload",
		chromedp.Reload(),
		chromedp.WaitVisible(`#s0-j0-to`, chromedp.ByQuery),
		read,
		page("saved"))
	if !shown.Yes || !shown.No || !shown.Open || shown.To != sv.Sections[2].ID || shown.Question != carID {
		t.Errorf("after a reload the designer shows %+v", shown)
	}
	run("wide", chromedp.EmulateViewport(1280, 900), chromedp.Reload(), chromedp.WaitVisible(`#s0-j0-to`, chromedp.ByQuery), page("saved-wide"), detail("saved-wide-detail", "#q-3"),
		chromedp.EmulateViewport(390, 844))

	// Refused: "is more than" on a choice question, beside the rule's
	// comparison; the focus on the summary, which links to it.
	var msg, focused string
	run("more than Yes",
		chromedp.Reload(),
		chromedp.WaitVisible(`#q2-if-0-op`, chromedp.ByQuery),
		choose(`#q2-if-0-op`, "greater_than", false),
		clickAndLoad(`.dz-bar button[value=save]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#q2-if-0-op-err`, chromedp.ByQuery),
		chromedp.Text(`#q2-if-0-op-err`, &msg, chromedp.ByQuery),
		chromedp.Evaluate(`document.activeElement.id`, &focused),
		page("refused-op"),
		detail("refused-op-detail", "#q-3"),
		chromedp.Click(`#designer-errors a[href="#q2-if-0-op"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.activeElement.id`, &focused))
	if !strings.Contains(msg, "Greater than and less than compare numbers") {
		t.Errorf("beside the comparison: %q", msg)
	}
	if focused != "q2-if-0-op" {
		t.Errorf("the summary's link focuses %q", focused)
	}
	// Refused: the car question removed while rules look at it.
	run("car removed",
		choose(`#q2-if-0-op`, "equals", false),
		openQuestion(1),
		clickAndLoad(`button[aria-label="Remove question 1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#q1-if-0-question`, chromedp.ByQuery),
		clickAndLoad(`.dz-bar button[value=save]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#q1-if-0-question-err`, chromedp.ByQuery),
		chromedp.Text(`#q1-if-0-question-err`, &msg, chromedp.ByQuery),
		page("refused-removed"),
		detail("refused-removed-detail", "#q-2"))
	if !strings.Contains(msg, "This survey no longer has that question") {
		t.Errorf("beside the rule's question: %q", msg)
	}
	again, err := store.NewSurveyStore(m.Storage).Get(ctx, "adatum", sv.Slug)
	if err != nil || len(again.Questions) != 3 || again.Questions[2].ShowIf == nil || again.Questions[2].ShowIf.Rules[0].Op != "equals" {
		t.Errorf("a refused save changed the survey: %v %+v", err, again)
	}

	// The survey as designed, answered: section 3 gains a question for
	// everyone, the survey is published, and respondents walk it along
	// both branches and back.
	run("another question",
		chromedp.Navigate(base+"/adatum/surveys/"+sv.Slug+"/edit"),
		chromedp.WaitVisible(`button[value="addto.2"]`, chromedp.ByQuery),
		clickAndLoad(`button[value="addto.2"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#q3-text`, chromedp.ByQuery),
		chromedp.SendKeys(`#q3-text`, "Anything else to tell us?", chromedp.ByQuery),
		clickAndLoad(`.dz-bar button[value=save]`, chromedp.ByQuery),
		chromedp.WaitVisible(`main`, chromedp.ByQuery))
	if sv, err = store.NewSurveyStore(m.Storage).Get(ctx, "adatum", sv.Slug); err != nil || sv.State != survey.Draft || len(sv.Questions) != 4 {
		t.Fatalf("saved: %v %+v", err, sv)
	}
	q := func(i int) string { return sv.Questions[i].ID }
	carQ, commute, fuel, more := q(0), q(1), q(2), q(3)
	var progress, value string
	var fuelShown int
	at := func(what, want string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			if err := chromedp.Text(`#page-progress`, &progress, chromedp.ByQuery).Do(ctx); err != nil {
				return err
			}
			if progress != want {
				t.Errorf("%s: %q, want %q", what, progress, want)
			}
			return chromedp.Tasks{noSidewaysScroll(t, what), axeCheck(what)}.Do(ctx)
		})
	}
	next := chromedp.Tasks{chromedp.Focus(`button[value="next"]`, chromedp.ByQuery), chromedp.KeyEvent("\r")}
	// walk answers the survey at start along both branches, as a
	// respondent would (label names the pages for axe-core).
	walk := func(label, start string) {
		t.Helper()
		// No shortens the path at once: "Page 1 of 2" (path.js).
		livePath := chromedp.Poll(`document.getElementById("page-progress").textContent === "Page 1 of 2"`, nil, chromedp.WithPollingInterval(50*time.Millisecond))
		run(label+" Yes: pages 1, 2, 3, back to 2, 3",
			chromedp.EmulateViewport(390, 844), // a phone
			chromedp.Navigate(start),
			chromedp.WaitVisible(`#q-`+carQ, chromedp.ByQuery),
			at(label+", page 1", "Page 1 of 3"),
			chromedp.Focus(`input[name="q-`+carQ+`"][value="Yes"]`, chromedp.ByQuery),
			chromedp.KeyEvent(" "),
			next,
			chromedp.WaitVisible(`#f-`+commute, chromedp.ByQuery),
			at(label+", page 2 (Yes)", "Page 2 of 3"),
			chromedp.Focus(`#f-`+commute, chromedp.ByQuery),
			chromedp.KeyEvent("By bike"),
			next,
			chromedp.WaitVisible(`#f-`+fuel, chromedp.ByQuery),
			at(label+", page 3 (Yes)", "Page 3 of 3"),
			chromedp.Focus(`#f-`+fuel, chromedp.ByQuery),
			chromedp.KeyEvent("Diesel"),
			screenshot(t, fmt.Sprintf("rules-%02d-%s-answered-yes", shots+1, label)),
			chromedp.Focus(`button[value="back"]`, chromedp.ByQuery),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(`#f-`+commute, chromedp.ByQuery),
			chromedp.Value(`#f-`+commute, &value, chromedp.ByQuery),
			at(label+", back to page 2", "Page 2 of 3"),
			next,
			chromedp.WaitVisible(`#f-`+fuel, chromedp.ByQuery),
			chromedp.Focus(`#f-`+more, chromedp.ByQuery),
			chromedp.KeyEvent("Thanks"),
			chromedp.Focus(`button[value="submit"]`, chromedp.ByQuery),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(`.thanks`, chromedp.ByQuery))
		if value != "By bike" {
			t.Errorf("after Back the commute reads %q", value)
		}
		run(label+" No: page 1, then the last, Page 2 of 2, without the fuel",
			chromedp.Navigate(start),
			chromedp.WaitVisible(`#q-`+carQ, chromedp.ByQuery),
			chromedp.Focus(`input[name="q-`+carQ+`"][value="Yes"]`, chromedp.ByQuery),
			chromedp.KeyEvent(kb.ArrowDown),
			livePath,
			next,
			chromedp.WaitVisible(`#f-`+more, chromedp.ByQuery),
			at(label+", last page (No)", "Page 2 of 2"),
			chromedp.Evaluate(`document.querySelectorAll('#q-`+fuel+`, #q-`+commute+`').length`, &fuelShown),
			chromedp.Text(`#q-`+more+` .qnum`, &value, chromedp.ByQuery),
			chromedp.Focus(`#f-`+more, chromedp.ByQuery),
			chromedp.KeyEvent("No car, no fuel"),
			chromedp.Focus(`button[value="submit"]`, chromedp.ByQuery),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(`.thanks`, chromedp.ByQuery))
		if fuelShown != 0 {
			t.Errorf("after No the last page asks about the fuel or the commute (%d)", fuelShown)
		}
		if value != "2." {
			t.Errorf("after No the last page's question is numbered %q, want 2. (numbers follow the path)", value)
		}
	}
	// Before publishing: the designer's Preview runs the unsaved draft
	// page by page (its logic followed), and the preview link, opened
	// signed out in another browser, walks both branches; nothing is
	// stored (the summary below counts the respondents' two answers).
	var banner string
	run("preview of the unsaved edits",
		chromedp.Navigate(base+"/adatum/surveys/"+sv.Slug+"/edit"),
		chromedp.WaitVisible(`.dz-bar button[value=preview]`, chromedp.ByQuery),
		// The button opens a new tab; here, the same one.
		chromedp.Evaluate(`document.querySelector(".dz-bar button[value=preview]").removeAttribute("formtarget")`, nil),
		clickAndLoad(`.dz-bar button[value=preview]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.preview-banner`, chromedp.ByQuery),
		chromedp.Text(`.preview-banner`, &banner, chromedp.ByQuery),
		chromedp.Focus(`input[value="No"]`, chromedp.ByQuery),
		chromedp.KeyEvent(" "),
		clickAndLoad(`button[value="next"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#page-progress`, chromedp.ByQuery),
		chromedp.Text(`#page-progress`, &progress, chromedp.ByQuery),
		page("preview-unsaved-last"))
	if !strings.Contains(banner, "Preview of unsaved edits") || progress != "Page 2 of 2" {
		t.Errorf("the designer's preview: %q, %q", banner, progress)
	}
	var previewLink string
	run("preview link",
		chromedp.Navigate(base+"/adatum/surveys/"+sv.Slug+"/preview"),
		chromedp.WaitVisible(`.preview-banner`, chromedp.ByQuery),
		chromedp.Location(&previewLink))
	if !strings.Contains(previewLink, "/preview/") {
		t.Fatalf("the preview is at %s", previewLink)
	}
	signedIn := run
	run = browserRun(t, newBrowser(t)) // signed out
	walk("preview", previewLink)
	signedIn("publish",
		chromedp.Navigate(base+"/adatum/surveys/"+sv.Slug+"/edit"),
		chromedp.WaitVisible(`.dz-bar button[value=publish]`, chromedp.ByQuery),
		clickAndLoad(`.dz-bar button[value=publish]`, chromedp.ByQuery),
		chromedp.WaitVisible(`main`, chromedp.ByQuery))
	if sv, err = store.NewSurveyStore(m.Storage).Get(ctx, "adatum", sv.Slug); err != nil || sv.State != survey.Published || len(sv.Questions) != 4 {
		t.Fatalf("published: %v %+v", err, sv)
	}
	// Published, the questions have the IDs their answers are kept by.
	carQ, commute, fuel, more = q(0), q(1), q(2), q(3)
	walk("designed survey", base+"/survey/adatum/"+sv.Slug)
	// A respondent on a phone goes back and forward with the browser's
	// own gestures: each page comes back with its answers, never the
	// browser's "Confirm Form Resubmission" (the page has no progress
	// line then). Not sent: the summary below counts two answers.
	var checked bool
	// gesture is the browser's Back or Forward, then the page it shows
	// saying where it is.
	gesture := func(way, want string) chromedp.Action {
		nav := chromedp.NavigateBack()
		if way == "forward" {
			nav = chromedp.NavigateForward()
		}
		return chromedp.Tasks{
			nav,
			chromedp.WaitVisible(`#page-progress`, chromedp.ByQuery),
			chromedp.Text(`#page-progress`, &progress, chromedp.ByQuery),
			chromedp.ActionFunc(func(context.Context) error {
				if progress != want {
					return fmt.Errorf("after %s the page says %q, want %q", way, progress, want)
				}
				return nil
			}),
		}
	}
	run("Back and Forward gestures",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+"/survey/adatum/"+sv.Slug),
		chromedp.WaitVisible(`#q-`+carQ, chromedp.ByQuery),
		chromedp.Click(`input[name="q-`+carQ+`"][value="Yes"]`, chromedp.ByQuery),
		clickAndLoad(`button[value="next"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#f-`+commute, chromedp.ByQuery),
		chromedp.SendKeys(`#f-`+commute, "By tram", chromedp.ByQuery),
		clickAndLoad(`button[value="next"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#f-`+fuel, chromedp.ByQuery),
		gesture("back", "Page 2 of 3"),
		chromedp.WaitVisible(`#f-`+commute, chromedp.ByQuery),
		at("page 2 after the Back gesture", "Page 2 of 3"),
		gesture("back", "Page 1 of 3"),
		chromedp.WaitVisible(`#q-`+carQ, chromedp.ByQuery),
		at("page 1 after the Back gesture", "Page 1 of 3"),
		chromedp.Evaluate(`document.querySelector('input[name="q-`+carQ+`"][value="Yes"]').checked`, &checked),
		gesture("forward", "Page 2 of 3"),
		chromedp.WaitVisible(`#f-`+commute, chromedp.ByQuery),
		chromedp.Value(`#f-`+commute, &value, chromedp.ByQuery),
		at("page 2 after the Forward gesture", "Page 2 of 3"))
	if !checked || value != "By tram" {
		t.Errorf("after Back and Forward: Yes checked %v, the commute %q", checked, value)
	}
	// The summary: two answers; the Yes branch's questions once.
	want := map[string]int64{carQ: 2, commute: 1, fuel: 1, more: 2}
	sums := store.NewSurveyAnswersSummaryStore(m.Storage)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		sum, _, err := sums.Get(ctx, "adatum", sv.Slug)
		if err == nil && sum.TotalAnswers == 2 {
			for _, sq := range sum.Questions {
				if sq.Answered != want[sq.QuestionID] {
					t.Errorf("%q answered %d times, want %d", sq.QuestionText, sq.Answered, want[sq.QuestionID])
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not two answers in the summary: %+v %v", sum, err)
		}
	}
}
