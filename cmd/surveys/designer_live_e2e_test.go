package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/surveys-dev/surveys/internal/store"
)

// TestBrowserDesignerAutosave: a new survey typed in the designer is saved
// as it is typed ("Saved" in its status line, the address becomes the
// draft's) and is there when the designer is opened again after leaving;
// the same draft open in a second tab and changed there is never
// overwritten by the first: its status line names who changed it and
// offers to reload, which shows the other tab's edit. axe-core checks the
// designer's states at 390 and 1280 px.
func TestBrowserDesignerAutosave(t *testing.T) {
	t.Parallel()
	m, base, browser := newBrowserApp(t)
	ctx := context.Background()
	run := browserRun(t, browser)
	axeCheck := newAxeCheck(t)
	saved := chromedp.Poll(`document.getElementById("dz-status").textContent === "Saved"`, nil, chromedp.WithPollingInterval(50*time.Millisecond))

	var url string
	run("sign in",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example"),
		chromedp.SendKeys(`#password`, "correct horse battery"),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`table.table, .empty`, chromedp.ByQuery))
	run("type a new survey",
		chromedp.Navigate(base+"/adatum/surveys/new"),
		chromedp.WaitVisible(`#title`),
		chromedp.SendKeys(`#title`, "Autosaved lunch"),
		chromedp.SendKeys(`#q0-text`, "What did you eat?"),
		saved,
		chromedp.Location(&url),
		screenshot(t, "designer-autosaved-390"),
		noSidewaysScroll(t, "designer, saved"),
		axeCheck("designer, saved (390 px)"))
	if !strings.HasSuffix(url, "/adatum/surveys/autosaved-lunch/edit") {
		t.Fatalf("after its first save the designer is at %s", url)
	}
	// Left without pressing a button, then opened again.
	var text string
	run("left and opened again",
		chromedp.Navigate(base+"/adatum/surveys"),
		chromedp.WaitVisible(`table.table`),
		chromedp.Navigate(base+"/adatum/surveys/autosaved-lunch/edit"),
		chromedp.WaitVisible(`#q0-text`),
		chromedp.Value(`#q0-text`, &text))
	if text != "What did you eat?" {
		t.Fatalf("the draft opened again says %q", text)
	}

	// A second tab on the same draft saves first.
	tab2, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	run2 := browserRun(t, tab2)
	var second string
	run2("second tab",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(base+"/adatum/surveys/autosaved-lunch/edit"),
		chromedp.WaitVisible(`#q0-text`),
		chromedp.SendKeys(`#q0-text`, "And to drink? "),
		saved,
		chromedp.Value(`#q0-text`, &second))
	// The first tab's next edit is refused, saying who and offering the
	// saved version.
	var status string
	run("conflict",
		chromedp.SendKeys(`#title`, " (team)"),
		chromedp.WaitVisible(`#dz-status a.dz-reload`),
		chromedp.Text(`#dz-status`, &status),
		screenshot(t, "designer-conflict-390"),
		noSidewaysScroll(t, "designer, conflict"),
		axeCheck("designer, conflict (390 px)"),
		chromedp.EmulateViewport(1280, 900),
		axeCheck("designer, conflict (1280 px)"),
		screenshot(t, "designer-conflict-1280"))
	if !strings.Contains(status, "ana@adatum.example") || !strings.Contains(status, "Reload") {
		t.Fatalf("the conflict says %q", status)
	}
	sv, err := store.NewSurveyStore(m.Storage).Get(ctx, "adatum", "autosaved-lunch")
	if err != nil || sv.Title != "Autosaved lunch" || sv.Questions[0].Text != second || !strings.Contains(second, "And to drink?") {
		t.Fatalf("stored %q / %q, %v: the second tab's edit must stay", sv.Title, sv.Questions[0].Text, err)
	}
	run("reload",
		clickAndLoad(`#dz-status a.dz-reload`, chromedp.ByQuery),
		chromedp.WaitVisible(`#q0-text`),
		chromedp.Value(`#q0-text`, &text))
	if text != second {
		t.Fatalf("reloaded, the designer says %q", text)
	}
}
