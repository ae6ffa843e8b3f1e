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

// TestBrowserPersonalLinks: in Chromium, an editor sets the published
// survey to take answers by personal links only (the designer's settings),
// makes two links on its page (reached from Share), and answers with one;
// the same link in a second tab, opened before, is refused ("already
// answered"), and so is the link opened again; without a link the survey is
// by invitation. The links page shows one used. At 390 px nothing scrolls
// sideways, and axe-core passes each page.
func TestBrowserPersonalLinks(t *testing.T) {
	t.Parallel()
	m := newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	if _, err := testUsers(m.Storage).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	sv := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: "Staff pulse",
		Questions: []survey.Question{{Text: "How was your week?", Type: survey.SimpleText}}}
	if err := store.NewSurveyStore(m.Storage).Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	base := "http://" + m.Addr()
	browser := newBrowser(t)
	run := browserRun(t, browser)
	axeCheck := newAxeCheck(t)
	shot := func(name string) chromedp.Action { return screenshot(t, "personal-links-"+name) }
	sp := "/adatum/surveys/" + sv.Slug

	run("sign in",
		chromedp.EmulateViewport(390, 900),
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example", chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "correct horse battery", chromedp.ByQuery),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`table.table`, chromedp.ByQuery))
	var settingsNow string
	run("designer: personal links",
		chromedp.Navigate(base+sp+"/edit"),
		// The settings panel is one line until opened.
		chromedp.WaitVisible(`#dz-settings > summary`, chromedp.ByQuery),
		axeCheck("designer, settings closed"),
		chromedp.Click(`#dz-settings > summary`, chromedp.ByQuery),
		chromedp.WaitVisible(`input[name=onePer][value=link]`, chromedp.ByQuery),
		chromedp.Click(`input[name=onePer][value=link]`, chromedp.ByQuery),
		noSidewaysScroll(t, "designer with the setting (390 px)"),
		axeCheck("designer with the setting"),
		clickAndLoad(`.dz-bar button[value=save]`, chromedp.ByQuery),
		chromedp.WaitReady(`input[name=onePer][value=link]:checked`, chromedp.ByQuery),
		chromedp.Text(`.dz-settings-now`, &settingsNow, chromedp.ByQuery))
	if !strings.Contains(settingsNow, "personal links only") {
		t.Errorf("the settings panel's line says %q", settingsNow)
	}
	var first, second string
	var made string
	run("make two links",
		chromedp.Navigate(base+sp+"/share"),
		clickAndLoad(`a[href="`+sp+`/links"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#count`, chromedp.ByQuery),
		chromedp.SendKeys(`#count`, "2", chromedp.ByQuery),
		clickAndLoad(`main form button.primary`, chromedp.ByQuery),
		chromedp.WaitVisible(`#links-made`, chromedp.ByQuery),
		chromedp.Text(`#links-made`, &made, chromedp.ByQuery),
		chromedp.AttributeValue(`.made-links li:nth-child(1) a`, "href", &first, nil, chromedp.ByQuery),
		chromedp.AttributeValue(`.made-links li:nth-child(2) a`, "href", &second, nil, chromedp.ByQuery),
		noSidewaysScroll(t, "new links (390 px)"),
		shot("made-390"),
		axeCheck("new links"))
	if !strings.Contains(made, "2 new links") || !strings.Contains(first, "?k=plk_") || first == second {
		t.Fatalf("made links %q, %q:\n%s", first, second, made)
	}

	// Without a link: by invitation.
	var text string
	run("no link",
		chromedp.Navigate(base+"/survey/adatum/"+sv.Slug),
		chromedp.WaitVisible(`#once-title`, chromedp.ByQuery),
		chromedp.Text(`main`, &text, chromedp.ByQuery),
		axeCheck("by invitation"))
	if !strings.Contains(text, "This survey is by invitation: use the link you received") {
		t.Errorf("without a link:\n%s", text)
	}
	// Two tabs open the first link (a tab of the running browser); the
	// first answers.
	tab, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	run2 := browserRun(t, tab)
	run2("second tab opens the link", chromedp.Navigate(first), chromedp.WaitVisible(`main form textarea`, chromedp.ByQuery))
	run("answer with the link",
		chromedp.Navigate(first),
		chromedp.WaitVisible(`main form textarea`, chromedp.ByQuery),
		chromedp.SendKeys(`main form textarea`, "Busy but good", chromedp.ByQuery),
		axeCheck("survey by personal link"),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#thanks-title`, chromedp.ByQuery))
	run2("the second tab is refused",
		chromedp.SendKeys(`main form textarea`, "Sent twice", chromedp.ByQuery),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#once-title`, chromedp.ByQuery),
		chromedp.Text(`main`, &text, chromedp.ByQuery))
	if !strings.Contains(text, "You have already answered this survey") {
		t.Errorf("second submit with the link:\n%s", text)
	}
	for _, w := range []int{390, 1280} {
		what := fmt.Sprintf("already answered (%d px)", w)
		run(what,
			chromedp.EmulateViewport(int64(w), 900),
			chromedp.Navigate(first),
			chromedp.WaitVisible(`#once-title`, chromedp.ByQuery),
			chromedp.Text(`main`, &text, chromedp.ByQuery),
			noSidewaysScroll(t, what),
			axeCheck(what))
		if !strings.Contains(text, "You have already answered this survey") {
			t.Errorf("%s:\n%s", what, text)
		}
	}

	// The links page: one used (once the page is read after the answer).
	var status string
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		run("links page", chromedp.Navigate(base+sp+"/links"), chromedp.Text(`#links-title`, &status, chromedp.ByQuery))
		if status == "2 links, 1 used" {
			break
		}
	}
	if status != "2 links, 1 used" {
		t.Fatalf("links page says %q", status)
	}
	// One answer counted.
	var total string
	for deadline := time.Now().Add(2 * time.Minute); total != "1" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		run("analysis", chromedp.Navigate(base+sp+"/analyze"), bigNumber(&total))
	}
	if total != "1" {
		t.Fatalf("analysis counts %q answers, want 1", total)
	}
}
