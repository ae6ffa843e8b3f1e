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

// TestBrowserReceipt: a survey gives receipts; a respondent at 390 px
// answers it, copies the code from the thank-you page, opens the receipt
// page by its link, types the code and sees their answer, then deletes it
// after the confirmation; each page passes axe-core and scrolls nothing
// sideways, and the survey's summary counts nothing afterwards.
func TestBrowserReceipt(t *testing.T) {
	t.Parallel()
	m := newTestMainWith(t, []string{"--data", t.TempDir()}, map[string]string{"SURVEYS_SECRET_KEY": "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="})
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	sv := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: "Receipts at the canteen",
		Questions: []survey.Question{{Text: "What did you eat?", Type: survey.SimpleText}}}
	surveys := store.NewSurveyStore(m.Storage)
	if err := surveys.Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	if err := surveys.SetPrivacy(ctx, "adatum", sv.Slug, 30, true); err != nil {
		t.Fatal(err)
	}
	browser := newBrowser(t)
	run := browserRun(t, browser)
	axeCheck := newAxeCheck(t)
	base := "http://" + m.Addr()
	var code string
	run("answer and receipt",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+"/survey/adatum/"+sv.Slug),
		chromedp.WaitVisible(`form textarea`),
		chromedp.SendKeys(`form textarea`, "Soup of the day"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`.receipt-code code`),
		chromedp.Text(`.receipt-code code`, &code),
		axeCheck("thank-you page with a receipt"),
		noSidewaysScroll(t, "thank-you page with a receipt"))
	if len(strings.ReplaceAll(strings.TrimSpace(code), "-", "")) != 44 {
		t.Fatalf("receipt code %q", code)
	}
	answers := store.NewSurveyAnswerStore(m.Storage)
	waitUntil(t, time.Minute, "the answer filed", func() bool {
		n := 0
		_ = answers.ListAll(ctx, "adatum", sv.Slug, func(string) error { n++; return nil })
		return n == 1
	})
	var shown string
	run("see the answer",
		chromedp.Click(`a[href$="/receipt"]`),
		chromedp.WaitVisible(`#receipt-code`),
		axeCheck("receipt form"),
		chromedp.SendKeys(`#receipt-code`, strings.TrimSpace(code)),
		chromedp.Click(`form button[type=submit]`),
		chromedp.WaitVisible(`dl.answer`),
		chromedp.Text(`dl.answer`, &shown),
		axeCheck("the respondent's answer"),
		noSidewaysScroll(t, "the respondent's answer"))
	if !strings.Contains(shown, "Soup of the day") {
		t.Fatalf("the receipt page shows %q", shown)
	}
	run("delete it",
		chromedp.Click(`button.danger`),
		chromedp.WaitReady(`input[name=confirm]`),
		axeCheck("delete confirmation"),
		chromedp.Click(`button.danger`),
		chromedp.WaitVisible(`.notice`),
		axeCheck("answer deleted"))
	sum, _, err := store.NewSurveyAnswersSummaryStore(m.Storage).Get(ctx, "adatum", sv.Slug)
	if err != nil || sum.TotalAnswers != 0 || sum.DeletedCount() != 1 {
		t.Fatalf("summary after the respondent's deletion: %+v, %v", sum, err)
	}
}
