package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestBrowserPages: a respondent on a phone (390 px) walks a three-section
// survey by keyboard: Enter in the first page's field goes to the next
// page, a page left without its required answer comes back with the focus
// on its problems, Back keeps the answers, "Save and finish later" shows
// the link back, and the last page's submit is one answer in the summary.
// Every page passes axe-core and does not scroll sideways.
func TestBrowserPages(t *testing.T) {
	t.Parallel()
	m := newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	sv := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: "Lunch, page by page",
		Description: "Three short pages.",
		Sections:    []survey.Section{{ID: "you", Title: "About you"}, {ID: "food", Title: "The food", Description: "What you ate today."}, {ID: "last", Title: "Last words"}},
		Questions: []survey.Question{
			{Text: "Your first name", Type: survey.ShortText, Section: "you"},
			{Text: "Which dish did you take?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Soup", "Salad", "Pasta"}, Section: "food"},
			{Text: "Rate the lunch", Type: survey.FiveStars, Section: "last"},
		}}
	ctx := context.Background()
	if err := store.NewSurveyStore(m.Storage).Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	name, dish, stars := sv.Questions[0].ID, sv.Questions[1].ID, sv.Questions[2].ID
	browser := newBrowser(t)
	run := browserRun(t, browser)
	axeCheck := newAxeCheck(t)
	base := "http://" + m.Addr()

	var progress string
	var focused string
	run("page 1",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+"/survey/adatum/"+sv.Slug),
		chromedp.WaitVisible(`#f-`+name),
		chromedp.Text(`#page-progress`, &progress),
		noSidewaysScroll(t, "page 1 of 3"),
		axeCheck("page 1 of 3 (390 px)"),
		screenshot(t, "pages-1-phone"))
	if progress != "Page 1 of 3" {
		t.Errorf("progress %q", progress)
	}
	// Enter with the name empty: the page comes back, focus on the problems.
	run("page 1 refused",
		chromedp.Focus(`#f-`+name, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#form-errors`),
		chromedp.Evaluate(`document.activeElement.id`, &focused),
		noSidewaysScroll(t, "page 1 refused"),
		axeCheck("page 1 refused (390 px)"))
	if focused != "form-errors" {
		t.Errorf("after a refused page the focus is on %q", focused)
	}
	run("page 2",
		chromedp.Focus(`#f-`+name, chromedp.ByQuery),
		chromedp.KeyEvent("Ada"),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#q-`+dish),
		chromedp.Text(`#page-progress`, &progress),
		noSidewaysScroll(t, "page 2 of 3"),
		axeCheck("page 2 of 3 (390 px)"),
		screenshot(t, "pages-2-phone"))
	if progress != "Page 2 of 3" {
		t.Errorf("progress %q", progress)
	}
	// A dish by keyboard: focus the first, → to the second (Salad); Tab
	// to Next page, Enter.
	run("page 3",
		chromedp.Focus(`input[name="q-`+dish+`"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.KeyEvent(kb.Tab),
		chromedp.Evaluate(`document.activeElement.value`, &focused))
	if focused != "next" {
		t.Fatalf("Tab from the dishes reaches %q, want the Next button", focused)
	}
	run("page 3",
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#q-`+stars),
		chromedp.Text(`#page-progress`, &progress),
		noSidewaysScroll(t, "page 3 of 3"),
		axeCheck("page 3 of 3 (390 px)"))
	if progress != "Page 3 of 3" {
		t.Errorf("progress %q", progress)
	}
	// Back (Tab from the stars passes Submit, then Back): the dish kept.
	var chosen string
	run("back",
		chromedp.Focus(`button[value="back"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#q-`+dish),
		chromedp.Evaluate(`document.querySelector('input[name="q-`+dish+`"]:checked')?.value ?? ''`, &chosen))
	if chosen != "Salad" {
		t.Errorf("after Back the dish is %q, want Salad", chosen)
	}
	// Save and finish later: the link back, then on.
	var link, copied string
	run("save",
		chromedp.Focus(`button[value="save"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#resume-saved`),
		chromedp.Evaluate(`document.querySelector('#resume-saved a').getAttribute('href')`, &link),
		noSidewaysScroll(t, "saved"),
		axeCheck("saved to finish later (390 px)"),
		screenshot(t, "pages-saved-phone"),
		// Its copy button copies the whole address (the test may read
		// the clipboard back).
		chromedp.ActionFunc(func(ctx context.Context) error {
			c := chromedp.FromContext(ctx)
			return cdpbrowser.GrantPermissions([]cdpbrowser.PermissionType{cdpbrowser.PermissionTypeClipboardReadWrite, cdpbrowser.PermissionTypeClipboardSanitizedWrite}).
				WithOrigin(base).WithBrowserContextID(c.BrowserContextID).Do(cdp.WithExecutor(ctx, c.Browser))
		}),
		chromedp.Click(`button[data-copy="#resume-link"]`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("resume-copied").textContent === "Link copied."`, nil, chromedp.WithPollingInterval(50*time.Millisecond)),
		chromedp.Evaluate(`navigator.clipboard.readText()`, &copied, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if !strings.HasPrefix(copied, "http://") || !strings.HasSuffix(copied, link) {
		t.Errorf("the copy button copied %q, want the whole address of %s", copied, link)
	}
	if len(link) < 40 {
		t.Fatalf("resume link %q", link)
	}
	run("resume",
		chromedp.Navigate(base+link),
		chromedp.WaitVisible(`#q-`+dish),
		chromedp.Evaluate(`document.querySelector('input[name="q-`+dish+`"]:checked')?.value ?? ''`, &chosen))
	if chosen != "Salad" {
		t.Errorf("resumed with the dish %q, want Salad", chosen)
	}
	run("submit",
		chromedp.Focus(`button[value="next"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`#q-`+stars),
		chromedp.Focus(`input[name="q-`+stars+`"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.ArrowRight),
		chromedp.KeyEvent(kb.ArrowRight),
		chromedp.KeyEvent(kb.ArrowRight),
		chromedp.Focus(`button[value="submit"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(`.thanks`))
	// One answer, with every page's values, in the summary.
	sums := store.NewSurveyAnswersSummaryStore(m.Storage)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		sum, _, err := sums.Get(ctx, "adatum", sv.Slug)
		if err == nil && sum.TotalAnswers == 1 {
			got := map[string]string{}
			for _, qs := range sum.Questions {
				for _, c := range qs.Choices {
					if c.Count > 0 {
						got[qs.QuestionID] = c.Answer
					}
				}
				if qs.Stars != nil {
					for i, n := range qs.Stars {
						if n > 0 {
							got[qs.QuestionID] = strconv.Itoa(i + 1)
						}
					}
				}
			}
			if got[dish] != "Salad" || got[stars] != "4" {
				t.Errorf("summary %+v", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer in the summary: %v %v", sum, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The worker writes the summary before the answers' list: wait for
	// the list too.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		n, _ := store.NewSurveyAnswerStore(m.Storage).Count(ctx, "adatum", sv.Slug)
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d answers stored, want 1", n)
		}
	}

	// The designer of the sections, on a phone: the sections, a page
	// break added.
	if _, err := testUsers(m.Storage).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	var sections int
	run("designer",
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example"),
		chromedp.SendKeys(`#password`, "correct horse battery"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`table.table`),
		chromedp.Navigate(base+"/adatum/surveys/"+sv.Slug+"/edit"),
		chromedp.WaitVisible(`#s2-title`),
		noSidewaysScroll(t, "designer with sections"),
		axeCheck("designer with sections (390 px)"),
		screenshot(t, "designer-sections-phone"),
		chromedp.Click(`button[value="addsection"]`),
		chromedp.WaitVisible(`#s3-title`),
		chromedp.Evaluate(`document.querySelectorAll('.dz-section').length`, &sections),
		noSidewaysScroll(t, "designer, page break added"),
		axeCheck("designer, page break added (390 px)"))
	if sections != 4 {
		t.Errorf("%d sections after a page break, want 4", sections)
	}
}
