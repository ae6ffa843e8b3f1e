package main

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/worker"
)

// TestBrowserDemoCarries is issue 27's end-to-end test, on Fabrikam's
// demo survey (store.Seed): three pages with a hidden field, piping, a
// scored quiz with outcomes, a file question, and partial answers kept.
// One respondent on a phone leaves after the first page (their progress
// becomes a partial answer); another answers every page by keyboard at
// 390 px, uploads a file and reaches the outcome page for full marks. The
// subscriber then downloads the file from the answer page and the CSV
// export, whose columns carry the hidden field, the score and the partial
// flag.
func TestBrowserDemoCarries(t *testing.T) {
	t.Parallel()
	m := newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	if _, err := testUsers(m.Storage).Add(ctx, "fabrikam", "fred@fabrikam.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	browser, axeCheck := newBrowser(t), newAxeCheck(t)
	run := browserRun(t, browser)
	shot := func(name string) chromedp.Action { return screenshot(t, name) }
	base := "http://" + m.Addr()
	const slug = "fabrikam-product-feedback"
	page := base + "/survey/fabrikam/" + slug

	// The seed names the questions (product, name, …); the store gives
	// them IDs of its own.
	sv, err := store.NewSurveyStore(m.Storage).Get(ctx, "fabrikam", slug)
	if err != nil {
		t.Fatal(err)
	}
	id := map[string]string{}
	for i, name := range []string{"product", "name", "build", "heard", "warranty", "updates", "share", "photo", "more"} {
		id[name] = sv.Questions[i].ID
	}
	photo := filepath.Join(t.TempDir(), "receipt.pdf")
	body := "%PDF-1.4\n% a receipt\n" + strings.Repeat("y", 3000)
	if err := os.WriteFile(photo, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	// By keyboard: focus a control and press a key on it (Space ticks a
	// radio button or a box, Enter presses a button).
	press := func(sel, key string) chromedp.Action {
		return chromedp.Tasks{chromedp.Focus(sel, chromedp.ByQuery), chromedp.KeyEvent(key)}
	}
	choose := func(q, value string) chromedp.Action {
		return press(`input[name="q-`+id[q]+`"][value="`+value+`"]`, " ")
	}
	next := func() chromedp.Action {
		return chromedp.Tasks{chromedp.Evaluate(markStale, nil), press(`#page-go`, kb.Enter), waitFresh()}
	}
	text := func(sel string, out *string) chromedp.Action { return chromedp.Text(sel, out, chromedp.ByQuery) }

	// 1. A respondent who came from a shop answers the first page and
	// leaves.
	run("the partial respondent",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(page+"?source=shop"),
		chromedp.WaitVisible(`#f-`+id["product"], chromedp.ByQuery),
		chromedp.SetValue(`#f-`+id["product"], "Fabrikam Home", chromedp.ByQuery))
	run("partial: build", choose("build", "2"))
	run("partial: next", next())
	run("partial: page 2", chromedp.WaitVisible(`input[name="q-`+id["warranty"]+`"]`, chromedp.ByQuery))
	run("partial: cookies", network.ClearBrowserCookies())

	// 2. Another, from the newsletter, answers every page by keyboard.
	var product, title, question string
	run("page 1 by keyboard",
		chromedp.Navigate(page+"?source=newsletter"),
		chromedp.WaitVisible(`#f-`+id["product"], chromedp.ByQuery),
		noSidewaysScroll(t, "demo survey, page 1"),
		axeCheck("demo survey page 1 (390 px)"),
		// The dropdown's first option is "Choose…": three down is the
		// third product.
		press(`#f-`+id["product"], kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown),
		chromedp.Value(`#f-`+id["product"], &product, chromedp.ByQuery),
		press(`input[name="q-`+id["name"]+`"]`, "Dana"),
		choose("build", "4"),
		choose("heard", "A friend"),
		shot("demo-page1-phone"),
		next())
	if product != "Fabrikam Go" {
		t.Fatalf("three presses of the down arrow chose %q", product)
	}
	run("page 2: the quiz, with the first page's answers recalled",
		chromedp.WaitVisible(`input[name="q-`+id["warranty"]+`"]`, chromedp.ByQuery),
		text(`.section-title`, &title),
		text(`fieldset.question:has(input[name="q-`+id["updates"]+`"]) legend`, &question),
		noSidewaysScroll(t, "demo survey, page 2"),
		axeCheck("demo survey page 2 (390 px)"),
		choose("warranty", "Two years"),
		choose("updates", "Yes"),
		choose("share", "Profiles"),
		choose("share", "Saved settings"),
		shot("demo-page2-phone"),
		next())
	if title != "Three questions about your Fabrikam Go" {
		t.Errorf("the quiz page's title is %q", title)
	}
	if !strings.Contains(question, "Does your Fabrikam Go install its updates at night?") {
		t.Errorf("the piped question reads %q", question)
	}
	var thanks string
	run("page 3: a file, then submit",
		chromedp.WaitVisible(`input[type=file]`, chromedp.ByQuery),
		chromedp.SetUploadFiles(`input[type=file]`, []string{photo}, chromedp.ByQuery),
		press(`textarea[name="q-`+id["more"]+`"]`, "The charger is great."),
		next(),
		chromedp.WaitVisible(`.thanks`, chromedp.ByQuery),
		text(`main`, &thanks),
		shot("demo-outcome-phone"),
		noSidewaysScroll(t, "demo outcome"),
		axeCheck("demo outcome page (390 px)"))
	for _, want := range []string{"Full marks, Dana: 3 out of 3. You know your Fabrikam Go inside out.", "Correct", "two-year warranty", "Does your Fabrikam Go install its updates at night?"} {
		if !strings.Contains(thanks, want) {
			t.Errorf("the outcome page lacks %q:\n%s", want, thanks)
		}
	}
	if strings.Contains(thanks, "Not correct") {
		t.Errorf("the outcome page marks an answer wrong:\n%s", thanks)
	}

	// 3. The first respondent's progress, left for longer than the
	// survey keeps it open, becomes a partial answer.
	promote := worker.NewPromoter(m.Storage, nil)
	promote.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if err := promote.RunOnce(ctx); err != nil {
		t.Fatalf("promote the partial answer: %v", err)
	}

	// 4. The subscriber signs in, opens the answer, downloads its file
	// and the export.
	run("sign in",
		chromedp.EmulateViewport(1200, 900),
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(`#email`, "fred@fabrikam.example", chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "correct horse battery", chromedp.ByQuery),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery))
	fetch := withSession(t, run, base)
	var rows [][]string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		var err error
		rows, err = csv.NewReader(strings.NewReader(strings.TrimPrefix(fetch("/fabrikam/surveys/"+slug+"/export.csv"), "\uFEFF"))).ReadAll()
		if err != nil {
			t.Fatalf("CSV: %v", err)
		}
		if len(rows) == 3 || time.Now().After(deadline) {
			break
		}
	}
	if len(rows) != 3 {
		t.Fatalf("the export has %d rows, want a header, the complete and the partial answer: %q", len(rows), rows)
	}
	bySource := map[string]map[string]string{}
	for _, r := range rows[1:] {
		cell := map[string]string{}
		for i, h := range rows[0] {
			cell[h] = r[i]
		}
		bySource[cell["source (hidden field)"]] = cell
	}
	complete, partial := bySource["newsletter"], bySource["shop"]
	for col, want := range map[string]string{
		"Which product do you own?":                "Fabrikam Go",
		"What should we call you?":                 "Dana",
		"score (variable)":                         "3",
		"status":                                   "complete",
		"Anything else you would like to tell us?": "The charger is great.",
	} {
		if complete[col] != want {
			t.Errorf("the complete answer's %q is %q, want %q", col, complete[col], want)
		}
	}
	for col, want := range map[string]string{
		"Which product do you own?": "Fabrikam Home",
		"status":                    "partial",
	} {
		if partial[col] != want {
			t.Errorf("the partial answer's %q is %q, want %q", col, partial[col], want)
		}
	}
	// The answer page shows one answer at a time: the complete one is
	// one of the two.
	link := `a[href*="/files/` + id["photo"] + `/0"]`
	var href string
	for i := 0; i < 2 && href == ""; i++ {
		run("the answer page",
			chromedp.Navigate(base+"/fabrikam/surveys/"+slug+"/answers?i="+strconv.Itoa(i)),
			chromedp.WaitVisible(`main h1`, chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelector('`+link+`')?.getAttribute("href") ?? ""`, &href))
	}
	if href == "" {
		t.Fatal("no answer page links to the file")
	}
	run("the answer with its file", shot("demo-answer"), axeCheck("demo answer page"))
	if got := fetch(href); got != body {
		t.Errorf("the file downloaded from the answer page has %d bytes, want the %d sent", len(got), len(body))
	}
}
