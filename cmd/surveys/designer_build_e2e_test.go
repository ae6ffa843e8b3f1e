package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	cdpbrowser "github.com/chromedp/cdproto/browser"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// tenKinds is the survey TestBrowserDesignerBuild builds: ten questions of
// ten kinds on two pages; "How many cars" shows only if the car question
// says Yes; after page 1, No goes to the end. The first question made
// ("Anything else") is moved last, into page 2, by its handle.
var tenKinds = []struct {
	text     string
	kind     survey.QuestionType
	choices  string
	optional bool
}{
	{"Do you own a car?", survey.MultipleChoice, "Yes\nNo", false},
	{"How many cars does your household have?", survey.Number, "", false},
	{"How else do you travel?", survey.Checkboxes, "Bus\nTrain\nBike", true},
	{"Which day is the busiest?", survey.Dropdown, "Monday\nTuesday\nWednesday\nThursday\nFriday", true},
	{"When did you last travel for work?", survey.Date, "", true},
	// A page break: page 2, "Your car".
	{"How do you rate your car?", survey.FiveStars, "", false},
	{"How comfortable is it?", survey.LinearScale, "", true},
	{"Would you recommend it to a friend?", survey.NetPromoterScore, "", true},
	{"Rank what matters in a car", survey.Ranking, "Price\nComfort\nSpeed", true},
}

const anythingElse = "Anything else to tell us?"

// TestBrowserDesignerBuild: a subscriber builds the ten-kind survey
// (tenKinds) twice with JavaScript on: at 1280 px with the mouse (the
// last question dragged by its handle from the top of page 1 to the end
// of page 2) and at 390 px with the keyboard alone (Enter on buttons and
// card lines, arrow keys in the selects and on the handle). Neither build
// loads the designer again (each edit comes back as its block; the
// browser's own timings of those requests are logged as p50/p99), and
// autosave keeps both. The designer's states (cards as lines, a card
// open with its rule, the handle focused, the settings panel) pass
// axe-core at both widths without sideways scroll; screenshots go to
// artifacts/screenshots/build-*.png. The phone's survey is previewed
// along both branches (nothing stored), published, its link copied and
// its QR code downloaded from the share page, and a respondent on a phone
// answers it, going back a page and forward again with the browser.
func TestBrowserDesignerBuild(t *testing.T) {
	t.Parallel()
	m, base, browser := newBrowserApp(t)
	ctx := context.Background()
	run := browserRun(t, browser)
	axeCheck := newAxeCheck(t)
	run("sign in",
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example", chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "correct horse battery", chromedp.ByQuery),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`table.table, .empty`, chromedp.ByQuery))

	var slug string
	for _, b := range []designerBuild{{name: "mouse", width: 1280, title: "Commuting in 2027"}, {name: "keyboard", width: 390, keys: true, title: "Commuting by phone"}} {
		b.t, b.run, b.axe = t, run, axeCheck
		slug = b.build(base)
		checkTenKinds(t, m, b.title, slug)
	}

	// The phone's survey, previewed along both branches: nothing stored.
	var link string
	run("preview",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+"/adatum/surveys/"+slug+"/preview"),
		chromedp.WaitVisible(`#page-progress`, chromedp.ByQuery),
		chromedp.Location(&link))
	if !strings.Contains(link, "/preview/") {
		t.Fatalf("the preview is at %s", link)
	}
	yes := func(label string) chromedp.Action {
		return chromedp.Tasks{
			chromedp.Click(`input[type=radio][value="Yes"]`, chromedp.ByQuery),
			chromedp.WaitVisible(`input.number-input`, chromedp.ByQuery),
			chromedp.SendKeys(`input.number-input`, "2", chromedp.ByQuery),
			clickAndLoad(`button[value="next"]`, chromedp.ByQuery),
			chromedp.WaitVisible(`.stars`, chromedp.ByQuery),
			progressIs(t, label+", page 2", "Page 2 of 2"),
		}
	}
	finish := chromedp.Tasks{
		chromedp.Click(`.stars label`, chromedp.ByQuery),
		chromedp.SendKeys(`textarea`, "Fewer traffic jams", chromedp.ByQuery),
		clickAndLoad(`button[value="submit"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.thanks`, chromedp.ByQuery),
	}
	run("preview: Yes", yes("preview"), screenshot(t, "build-preview-yes-390"), axeCheck("preview, page 2 (390 px)"), finish)
	run("preview: No",
		chromedp.Navigate(link),
		chromedp.WaitVisible(`#page-progress`, chromedp.ByQuery),
		chromedp.Click(`input[type=radio][value="No"]`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("page-progress").textContent === "Page 1 of 1"`, nil, chromedp.WithPollingInterval(50*time.Millisecond)),
		clickAndLoad(`button[value="submit"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.thanks`, chromedp.ByQuery))
	if n, err := store.NewSurveyAnswerStore(m.Storage).Count(ctx, "adatum", slug); err != nil || n != 0 {
		t.Errorf("previews stored %d answers (%v)", n, err)
	}

	// Published from the designer: the share page, its link copied, its
	// QR code downloaded.
	downloads := t.TempDir()
	var copied, public string
	run("publish and share",
		chromedp.Navigate(base+"/adatum/surveys/"+slug+"/edit"),
		clickAndLoad(`.dz-bar button[value=publish]`, chromedp.ByQuery),
		chromedp.WaitVisible(`img.qr`, chromedp.ByQuery),
		chromedp.Value(`#link`, &public, chromedp.ByQuery),
		chromedp.ActionFunc(func(ctx context.Context) error {
			c := chromedp.FromContext(ctx)
			browser := cdp.WithExecutor(ctx, c.Browser)
			if err := cdpbrowser.GrantPermissions([]cdpbrowser.PermissionType{cdpbrowser.PermissionTypeClipboardReadWrite, cdpbrowser.PermissionTypeClipboardSanitizedWrite}).
				WithOrigin(base).WithBrowserContextID(c.BrowserContextID).Do(browser); err != nil {
				return err
			}
			return cdpbrowser.SetDownloadBehavior(cdpbrowser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(downloads).
				WithBrowserContextID(c.BrowserContextID).Do(browser)
		}),
		chromedp.Click(`button[data-copy="#link"]`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("copied").textContent === "Link copied."`, nil, chromedp.WithPollingInterval(50*time.Millisecond)),
		chromedp.Evaluate(`navigator.clipboard.readText()`, &copied, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
		chromedp.Click(`a[href$="qr.png?download=1"]`, chromedp.ByQuery),
		screenshot(t, "build-share-390"))
	if copied == "" || copied != public || !strings.HasSuffix(copied, "/survey/adatum/"+slug) {
		t.Errorf("the copy button copied %q; the link is %q", copied, public)
	}
	png := waitForDownload(t, downloads)
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("the QR code downloaded is not a PNG (%d bytes)", len(png))
	}

	// A respondent on a phone (signed out): page 2, Back, Forward.
	var cars, checked string
	respondent := browserRun(t, newBrowser(t))
	respondent("answer with Back and Forward",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(public),
		chromedp.WaitVisible(`#page-progress`, chromedp.ByQuery),
		yes("respondent"),
		chromedp.NavigateBack(),
		chromedp.WaitVisible(`input[type=radio][value="Yes"]`, chromedp.ByQuery),
		progressIs(t, "back on page 1", "Page 1 of 2"),
		chromedp.Evaluate(`document.querySelector('input[type=radio]:checked')?.value ?? ''`, &checked),
		chromedp.Value(`input.number-input`, &cars, chromedp.ByQuery),
		chromedp.NavigateForward(),
		chromedp.WaitVisible(`.stars`, chromedp.ByQuery),
		progressIs(t, "forward to page 2", "Page 2 of 2"),
		finish)
	if checked != "Yes" || cars != "2" {
		t.Errorf("back on page 1 the answers read %q and %q", checked, cars)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		n, err := store.NewSurveyAnswerStore(m.Storage).Count(ctx, "adatum", slug)
		if err == nil && n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the respondent's answer: %d answers (%v)", n, err)
		}
	}
}

// progressIs checks the respondent's page says want ("Page 2 of 2").
func progressIs(t *testing.T, what, want string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var got string
		if err := chromedp.Text(`#page-progress`, &got, chromedp.ByQuery).Do(ctx); err != nil {
			return err
		}
		if got != want {
			t.Errorf("%s: %q, want %q", what, got, want)
		}
		return nil
	})
}

// waitForDownload waits for the one file the browser downloads into dir
// and returns it.
func waitForDownload(t *testing.T, dir string) []byte {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		files = slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, ".crdownload") })
		if len(files) == 1 {
			if b, err := os.ReadFile(files[0]); err == nil && len(b) > 0 {
				return b
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no download in %s: %v", dir, files)
		}
	}
}

// checkTenKinds checks the survey saved as title is tenKinds as built.
func checkTenKinds(t *testing.T, m *Main, title, slug string) {
	t.Helper()
	sv, err := store.NewSurveyStore(m.Storage).Get(context.Background(), "adatum", slug)
	if err != nil || sv.Title != title {
		t.Fatalf("%s: %v %+v", title, err, sv)
	}
	var got []string
	for _, q := range sv.Questions {
		got = append(got, fmt.Sprintf("%s|%s|%s|%v", q.Text, q.Type, q.Section, q.Optional))
	}
	var want []string
	for i, q := range tenKinds {
		sec := sv.Sections[0].ID
		if i >= 5 {
			sec = sv.Sections[1].ID
		}
		want = append(want, fmt.Sprintf("%s|%s|%s|%v", q.text, q.kind, sec, q.optional))
	}
	want = append(want, fmt.Sprintf("%s|%s|%s|false", anythingElse, survey.SimpleText, sv.Sections[1].ID))
	if !slices.Equal(got, want) {
		t.Errorf("%s saved:\n%s\nwant:\n%s", title, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	car := sv.Questions[0].ID
	if c := sv.Questions[1].ShowIf; c == nil || fmt.Sprint(c.Rules) != fmt.Sprint([]survey.Rule{{Question: car, Op: survey.OpEquals, Values: []string{"Yes"}}}) {
		t.Errorf("%s: the condition %+v", title, c)
	}
	if j := sv.Sections[0].Jumps; len(j) != 1 || j[0].To != survey.JumpEnd || fmt.Sprint(j[0].If.Rules) != fmt.Sprint([]survey.Rule{{Question: car, Op: survey.OpEquals, Values: []string{"No"}}}) {
		t.Errorf("%s: the jump %+v", title, j)
	}
	if len(sv.Sections) != 2 || sv.Sections[1].Title != "Your car" {
		t.Errorf("%s: sections %+v", title, sv.Sections)
	}
}

// designerBuild builds tenKinds in the designer at a width, with the
// mouse or with the keyboard alone.
type designerBuild struct {
	name, title string
	width       int64
	keys        bool
	t           *testing.T
	run         func(string, ...chromedp.Action)
	axe         func(string) chromedp.Action
}

// press activates a button, a link or a summary: a click, or Enter on it.
func (b designerBuild) press(sel string) chromedp.Action {
	if b.keys {
		return chromedp.Tasks{chromedp.Focus(sel, chromedp.ByQuery), chromedp.KeyEvent(kb.Enter)}
	}
	return chromedp.Click(sel, chromedp.ByQuery)
}

// tick ticks a checkbox or a radio button: a click, or Space on it.
func (b designerBuild) tick(sel string) chromedp.Action {
	if b.keys {
		return chromedp.Tasks{chromedp.Focus(sel, chromedp.ByQuery), chromedp.KeyEvent(" ")}
	}
	return chromedp.Click(sel, chromedp.ByQuery)
}

// edit presses a button whose edit comes back as the designer's block, and
// waits for it.
func (b designerBuild) edit(sel string) chromedp.Action {
	return chromedp.Tasks{chromedp.Evaluate(markStale, nil), b.press(sel), waitFresh()}
}

// open opens a closed <details> (a card, a rule's block) by its summary.
func (b designerBuild) open(details string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var open bool
		if err := chromedp.Evaluate(fmt.Sprintf(`document.querySelector(%q).open`, details), &open).Do(ctx); err != nil || open {
			return err
		}
		return b.press(details + " > summary").Do(ctx)
	})
}

// pick chooses value in a select: with the mouse, as the browser does
// once its list is used (CDP cannot reach the native list); with the
// keyboard, the arrow keys one by one. When the select's change brings
// the designer's block back (live), each change waits for it.
func (b designerBuild) pick(sel, value string, live bool) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		if !b.keys {
			js := fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.focus(); s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); })()`, sel, value)
			if !live {
				return chromedp.Evaluate(js, nil).Do(ctx)
			}
			return chromedp.Tasks{chromedp.Evaluate(markStale, nil), chromedp.Evaluate(js, nil), waitFresh()}.Do(ctx)
		}
		var steps int
		if err := chromedp.Evaluate(fmt.Sprintf(`(() => { const s = document.querySelector(%q); return [...s.options].findIndex(o => o.value === %q) - s.selectedIndex; })()`, sel, value), &steps).Do(ctx); err != nil {
			return err
		}
		key := kb.ArrowDown
		if steps < 0 {
			key, steps = kb.ArrowUp, -steps
		}
		for range steps {
			press := chromedp.Tasks{chromedp.Focus(sel, chromedp.ByQuery), chromedp.KeyEvent(key)}
			if live {
				press = chromedp.Tasks{chromedp.Evaluate(markStale, nil), press, waitFresh()}
			}
			if err := press.Do(ctx); err != nil {
				return err
			}
		}
		var got string
		if err := chromedp.Value(sel, &got, chromedp.ByQuery).Do(ctx); err != nil {
			return err
		}
		if got != value {
			return fmt.Errorf("%s reads %q after the arrow keys, want %q", sel, got, value)
		}
		return nil
	})
}

// state checks a state of the designer: no sideways scroll, axe-core, a
// screenshot.
func (b designerBuild) state(name string) chromedp.Action {
	what := fmt.Sprintf("designer %s (%s, %d px)", name, b.name, b.width)
	return chromedp.Tasks{
		noSidewaysScroll(b.t, what),
		screenshot(b.t, fmt.Sprintf("build-%s-%d", name, b.width)),
		b.axe(what),
	}
}

// build makes tenKinds and returns its slug.
func (b designerBuild) build(base string) string {
	t, run := b.t, b.run
	run(b.name+": a new survey",
		chromedp.EmulateViewport(b.width, 900),
		chromedp.Navigate(base+"/adatum/surveys/new"),
		chromedp.WaitVisible(`#title`, chromedp.ByQuery),
		// Gone with a page load: checked at the end.
		chromedp.Evaluate(`window.designerOpened = true`, nil),
		chromedp.SendKeys(`#title`, b.title, chromedp.ByQuery),
		chromedp.SendKeys(`#q0-text`, anythingElse, chromedp.ByQuery))
	for i, q := range tenKinds {
		at := fmt.Sprint(i + 1)
		add := b.edit(`button[value=add]`)
		if i == 5 {
			add = chromedp.Tasks{b.edit(`button[value=addsection]`), chromedp.SendKeys(`#s0-title`, "Your trip", chromedp.ByQuery), chromedp.SendKeys(`#s1-title`, "Your car", chromedp.ByQuery)}
		}
		steps := []chromedp.Action{add, chromedp.SendKeys(`#q`+at+`-text`, q.text, chromedp.ByQuery), b.pick(`#q`+at+`-type`, string(q.kind), true)}
		if q.choices != "" {
			steps = append(steps, chromedp.SendKeys(`#q`+at+`-choices`, q.choices, chromedp.ByQuery))
		}
		if q.optional {
			steps = append(steps, b.tick(`#q`+at+`-optional`))
		}
		run(fmt.Sprintf("%s: question %d", b.name, i+2), steps...)
	}
	var car string
	run(b.name+": show only if the car question says Yes",
		chromedp.Evaluate(`document.querySelector("input[name='q.1.id']").value`, &car))
	run(b.name+": the condition",
		b.open(`#q-3 > details.dq-card`),
		b.open(`#q-3 details.dl`),
		b.edit(`#q2-if-add`),
		b.pick(`#q2-if-0-question`, car, true),
		b.tick(`input[name="q.2.if.0.values"][value="Yes"]`),
		chromedp.Poll(`document.getElementById("dz-status").textContent === "Saved"`, nil, chromedp.WithPollingInterval(50*time.Millisecond)),
		chromedp.ScrollIntoView(`#q-3`, chromedp.ByQuery),
		b.state("card-open"))
	run(b.name+": after page 1, No goes to the end",
		b.open(`#s0-panel details.dl`),
		b.edit(`#s0-addjump`),
		b.pick(`#s0-j0-if-0-question`, car, true),
		b.tick(`input[name="s.0.j.0.if.0.values"][value="No"]`),
		b.pick(`#s0-j0-to`, survey.JumpEnd, false))
	run(b.name+": the first question moved last", b.moveFirstToEnd())
	var moved struct {
		Focus, Text string
		Open        int
	}
	run(b.name+": moved",
		chromedp.Evaluate(`({focus: document.activeElement.id, text: document.getElementById("q9-text").value,
			open: document.querySelectorAll(".dq-card[open]").length})`, &moved),
		b.state("handle-focused"))
	if moved.Focus != "q9-handle" || moved.Text != anythingElse {
		t.Errorf("%s: after the move the focus is on %q, question 10 is %q", b.name, moved.Focus, moved.Text)
	}
	run(b.name+": the settings panel", b.open(`#dz-settings`), b.state("settings"))

	// Built with no page load: each edit came back as the block; the
	// draft saved itself.
	var live struct {
		Opened   bool
		Edits    []float64
		Location string
	}
	run(b.name+": no page loads",
		chromedp.Poll(`document.getElementById("dz-status").textContent === "Saved"`, nil, chromedp.WithPollingInterval(50*time.Millisecond)),
		chromedp.Evaluate(`({opened: window.designerOpened === true, location: location.pathname,
			edits: performance.getEntriesByType("resource").filter(e => e.initiatorType === "fetch").map(e => e.duration)})`, &live))
	if !live.Opened || len(live.Edits) < 20 {
		t.Fatalf("%s: the designer was loaded again while building (%d requests in place): %+v", b.name, len(live.Edits), live)
	}
	slices.Sort(live.Edits)
	t.Logf("%s at %d px: built with 0 page loads after the designer opened; %d requests in place (edits and autosaves), p50 %.0f ms, p99 %.0f ms (browser's timing, -race: %v)",
		b.name, b.width, len(live.Edits), live.Edits[len(live.Edits)/2], live.Edits[(len(live.Edits)*99)/100], raceEnabled)
	slug := strings.TrimSuffix(strings.TrimPrefix(live.Location, "/adatum/surveys/"), "/edit")
	// Opened again: every card a line.
	var open int
	run(b.name+": opened again",
		chromedp.Reload(),
		chromedp.WaitVisible(`#q-10 .dq-line`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll(".dq-card[open]").length`, &open),
		b.state("lines"))
	if open != 0 {
		t.Errorf("%s: opened again, %d cards are open", b.name, open)
	}
	return slug
}

// moveFirstToEnd moves question 1 to the end of page 2: by dragging its
// handle onto the lower half of the last card (on a screen tall enough to
// show both), or by the down arrow on its handle, once a place.
func (b designerBuild) moveFirstToEnd() chromedp.Action {
	if b.keys {
		var steps chromedp.Tasks
		steps = append(steps, chromedp.Focus(`#q0-handle`, chromedp.ByQuery))
		// Five places down page 1, one onto page 2, four down page 2.
		for range 10 {
			steps = append(steps, chromedp.Evaluate(markStale, nil), chromedp.KeyEvent(kb.ArrowDown), waitFresh())
		}
		return steps
	}
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var height int64
		if err := chromedp.Evaluate(`document.documentElement.scrollHeight`, &height).Do(ctx); err != nil {
			return err
		}
		tall := chromedp.Tasks{chromedp.EmulateViewport(b.width, height), chromedp.Evaluate(`window.scrollTo(0, 0)`, nil)}
		if err := tall.Do(ctx); err != nil {
			return err
		}
		var box struct{ HX, HY, TX, TY float64 }
		if err := chromedp.Evaluate(`(() => {
			const h = document.getElementById("q0-handle").getBoundingClientRect();
			const last = document.getElementById("q-10").getBoundingClientRect();
			return {hx: h.x + h.width / 2, hy: h.y + h.height / 2, tx: last.x + last.width / 2, ty: last.y + last.height * 0.8};
		})()`, &box).Do(ctx); err != nil {
			return err
		}
		drag := chromedp.Tasks{chromedp.Evaluate(markStale, nil),
			chromedp.MouseEvent(input.MouseMoved, box.HX, box.HY),
			chromedp.MouseEvent(input.MousePressed, box.HX, box.HY, chromedp.ButtonLeft, chromedp.ClickCount(1))}
		for i := 1; i <= 20; i++ {
			f := float64(i) / 20
			drag = append(drag, chromedp.MouseEvent(input.MouseMoved, box.HX+(box.TX-box.HX)*f, box.HY+(box.TY-box.HY)*f, chromedp.ButtonLeft))
		}
		if err := drag.Do(ctx); err != nil {
			return err
		}
		// The cards moved up as the dragged one left the top: onto the
		// last one's lower half as it now stands, by small steps.
		var to struct{ X, Y, H float64 }
		if err := chromedp.Evaluate(`(() => { const r = document.getElementById("q-10").getBoundingClientRect(); return {x: r.x + r.width / 2, y: r.y, h: r.height}; })()`, &to).Do(ctx); err != nil {
			return err
		}
		var drop chromedp.Tasks
		for _, f := range []float64{0.3, 0.5, 0.7, 0.85} {
			drop = append(drop, chromedp.MouseEvent(input.MouseMoved, to.X, to.Y+to.H*f, chromedp.ButtonLeft))
		}
		drop = append(drop, chromedp.MouseEvent(input.MouseReleased, to.X, to.Y+to.H*0.85, chromedp.ButtonLeft, chromedp.ClickCount(1)), waitFresh(),
			chromedp.EmulateViewport(b.width, 900))
		return drop.Do(ctx)
	})
}
