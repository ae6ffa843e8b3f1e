package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// artifacts is where the end-to-end test keeps its screenshots.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SURVEYS_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "artifacts", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// axeScript is axe-core's script, which make tools installs from
// tools/package-lock.json (the test runs in cmd/surveys).
const axeScript = "../../tools/node_modules/axe-core/axe.min.js"

// axeRun runs axe-core on the page and keeps, of each rule the page breaks,
// its id, impact, help and its first few elements with what is wrong there.
const axeRun = `axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
	id: v.id, impact: v.impact, help: v.help, count: v.nodes.length,
	nodes: v.nodes.slice(0, 3).map(n => [n.target.join(' '), ((n.any[0] || n.all[0] || n.none[0] || {}).message || '')].join(': ')),
})))`

// axeViolation is one rule axe-core finds broken on a page.
type axeViolation struct {
	ID, Impact, Help string
	Count            int
	Nodes            []string
}

// newAxeCheck returns axeCheck: an action that runs axe-core on the page
// the browser shows and fails t on each serious or critical violation,
// naming the page as what (lesser ones are logged). It fails t at once
// when axe-core is not installed.
func newAxeCheck(t *testing.T) func(what string) chromedp.Action {
	t.Helper()
	src, err := os.ReadFile(filepath.FromSlash(axeScript))
	if err != nil {
		t.Fatalf("axe-core is missing (%v): run make tools", err)
	}
	return func(what string) chromedp.Action {
		return chromedp.ActionFunc(func(ctx context.Context) error {
			// The DevTools protocol's evaluation is not subject to the
			// page's Content-Security-Policy (script-src 'self').
			var loaded *runtime.RemoteObject
			if err := chromedp.Evaluate(string(src)+"\n;typeof axe", &loaded).Do(ctx); err != nil {
				return fmt.Errorf("axe-core on the %s page: %w", what, err)
			}
			var found []axeViolation
			if err := chromedp.Evaluate(axeRun, &found, func(p *runtime.EvaluateParams) *runtime.EvaluateParams {
				return p.WithAwaitPromise(true)
			}).Do(ctx); err != nil {
				return fmt.Errorf("axe-core on the %s page: %w", what, err)
			}
			var serious strings.Builder
			for _, v := range found {
				line := fmt.Sprintf("%s (%s, %d elements): %s\n\t%s", v.ID, v.Impact, v.Count, v.Help, strings.Join(v.Nodes, "\n\t"))
				if v.Impact == "serious" || v.Impact == "critical" {
					serious.WriteString("\n" + line)
				} else {
					t.Logf("axe-core on the %s page: %s", what, line)
				}
			}
			if serious.Len() > 0 {
				t.Errorf("axe-core on the %s page:%s", what, serious.String())
			}
			return nil
		})
	}
}

// noSidewaysScroll fails t when the page is wider than the window.
func noSidewaysScroll(t *testing.T, what string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var w struct{ Scroll, Client, Inner int }
		err := chromedp.Evaluate(`({scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth, inner: window.innerWidth})`, &w).Do(ctx)
		if err != nil {
			return err
		}
		if w.Scroll > w.Client || w.Scroll > w.Inner {
			// Name the widest elements that stick out, to say what to fix.
			var wide []string
			_ = chromedp.Evaluate(`[...document.body.querySelectorAll("*")].filter(e => {
				if (e.getBoundingClientRect().right <= window.innerWidth + 1) return false;
				for (let p = e.parentElement; p; p = p.parentElement) {
					if (["auto", "scroll", "hidden"].includes(getComputedStyle(p).overflowX)) return false;
				}
				return true;
			}).
				sort((a, b) => b.getBoundingClientRect().right - a.getBoundingClientRect().right).slice(0, 5).
				map(e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className == "string" ? "." + e.className.trim().split(/\s+/).join(".") : "") + " (" + Math.round(e.getBoundingClientRect().right) + " px)")`, &wide).Do(ctx)
			t.Errorf("the %s page scrolls sideways in a window %d px wide: it is %d px wide (%s)", what, w.Inner, w.Scroll, strings.Join(wide, ", "))
		}
		return nil
	})
}

// browserRun returns run: actions in the browser ctx, failing t (named by
// what) on an error.
func browserRun(t *testing.T, ctx context.Context) func(what string, actions ...chromedp.Action) {
	t.Helper()
	// The tab of ctx (a new one, from chromedp.NewContext) is made on the
	// context of its first Run: make it on ctx, not on a step's.
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return func(what string, actions ...chromedp.Action) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, browserStepLimit)
		defer cancel()
		if err := chromedp.Run(sctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// screenshot saves the whole page the browser shows as artifacts/<name>.png
// when SURVEYS_SCREENSHOTS is set (make screenshots); otherwise it does
// nothing. The pictures are for people to look at, not checks, and a full
// page's capture costs make test more than its axe-core audit.
func screenshot(t *testing.T, name string) chromedp.Action { return elementShot(t, name, "") }

// elementShot is screenshot of the element sel only ("": the whole page).
func elementShot(t *testing.T, name, sel string) chromedp.Action {
	if os.Getenv("SURVEYS_SCREENSHOTS") == "" {
		return chromedp.Tasks{}
	}
	path := filepath.Join(artifacts(t), name+".png")
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var png []byte
		shot := chromedp.FullScreenshot(&png, 90)
		if sel != "" {
			shot = chromedp.Screenshot(sel, &png, chromedp.ByQuery)
		}
		if err := shot.Do(ctx); err != nil {
			return err
		}
		return os.WriteFile(path, png, 0o644)
	})
}

// withSession returns get: a GET of base+path outside the browser with the
// browser's cookies (its session), failing t unless it is 200, giving the
// body.
func withSession(t *testing.T, run func(string, ...chromedp.Action), base string) func(path string) string {
	var cookies []*network.Cookie
	run("cookies", chromedp.ActionFunc(func(ctx context.Context) (err error) {
		cookies, err = network.GetCookies().Do(ctx)
		return err
	}))
	return func(path string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		for _, c := range cookies {
			req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s = %d\n%s", path, resp.StatusCode, b)
		}
		return string(b)
	}
}

// clickAndLoad clicks a button that submits a form (or a link) and waits
// until the browser shows the page that answers it, so that the next
// action cannot reach the page being left: the old document is marked
// (data-leaving on its root), and the query waits for a root without the
// mark (chromedp's queries wait out a navigation for the new document).
func clickAndLoad(sel string, opts ...chromedp.QueryOption) chromedp.Action {
	return chromedp.Tasks{
		chromedp.WaitVisible(sel, opts...),
		chromedp.Evaluate(markStale, nil),
		chromedp.Click(sel, opts...),
		waitFresh(),
	}
}

// markStale marks the page (and the designer's block, which its script
// replaces in place) so that waitFresh sees the next page or block.
const markStale = `(() => {
	document.documentElement.dataset.leaving = "1";
	document.querySelectorAll("#designer-live > *").forEach(e => e.dataset.stale = "1");
})()`

// waitFresh waits for what a click marked by markStale brings: a new page
// (no html[data-leaving]) or, on the designer with JavaScript, its block
// put in place (no [data-stale] left).
func waitFresh() chromedp.Action {
	return chromedp.Tasks{
		chromedp.WaitNotPresent(`[data-stale], html[data-leaving]:not(:has(#designer-live))`, chromedp.ByQuery),
		chromedp.WaitReady(`body`, chromedp.ByQuery),
	}
}

// bigNumber reads the analysis page's total in one step: its live update
// may replace the node between a query and a read of its text.
func bigNumber(out *string) chromedp.Action {
	return chromedp.Evaluate(`document.querySelector(".big-number")?.textContent.trim() ?? ""`, out)
}

// chooseKind chooses the kind of the designer's question i as a person
// does: the select's change makes designer.js press "Change kind", and the
// action waits for the page that shows the kind's settings.
func chooseKind(i, kind string) chromedp.Action {
	return chromedp.Tasks{
		chromedp.WaitVisible(`#q`+i+`-type`, chromedp.ByQuery),
		chromedp.Evaluate(markStale, nil),
		chromedp.Evaluate(`(() => {
			const s = document.getElementById("q`+i+`-type");
			s.value = "`+kind+`";
			s.dispatchEvent(new Event("change", {bubbles: true}));
		})()`, nil),
		waitFresh(),
	}
}

// openQuestion opens the designer's card of question pos (1-based) as a
// person does, by clicking its line, unless it is open already.
func openQuestion(pos int) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(() => {
		const d = document.querySelector("#q-%d > details.dq-card");
		if (!d.open) d.querySelector("summary").click();
		return d.open;
	})()`, pos), nil)
}

// newBrowserTest starts the app (its account ana@adatum.example) and a
// browser, and returns the app's address, a run in the browser that fails
// the test on an error, and the accessibility check.
func newBrowserTest(t *testing.T) (base string, run func(string, ...chromedp.Action), axeCheck func(string) chromedp.Action) {
	t.Helper()
	_, base, browser := newBrowserApp(t)
	return base, browserRun(t, browser), newAxeCheck(t)
}

// newBrowserApp is newBrowserTest's app and browser, for a test that
// reads the app's storage or opens a second tab (chromedp.NewContext on
// the browser's context).
func newBrowserApp(t *testing.T) (m *Main, base string, browser context.Context) {
	t.Helper()
	m = newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	if _, err := testUsers(m.Storage).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	return m, "http://" + m.Addr(), newBrowser(t)
}

// TestBrowserEndToEnd drives a real headless Chromium: a subscriber signs
// in, designs a survey of all three question types and publishes it; a
// respondent answers it; the subscriber sees the answer in the analysis
// page and the CSV export. Screenshots of each page go to artifacts/.
func TestBrowserEndToEnd(t *testing.T) {
	t.Parallel()
	base, run, axeCheck := newBrowserTest(t)

	shot := func(name string) chromedp.Action { return screenshot(t, name) }

	run("home", chromedp.Navigate(base+"/"), chromedp.WaitVisible(`.cards`), shot("home"), axeCheck("home"))
	run("sign in",
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example"),
		chromedp.SendKeys(`#password`, "correct horse battery"),
		shot("login"),
		axeCheck("login"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`table.table`),
		shot("dashboard"),
		axeCheck("dashboard"))
	run("design",
		chromedp.Click(`a[href="/adatum/surveys/new"]`),
		chromedp.WaitVisible(`#title`),
		chromedp.SendKeys(`#title`, "Browser lunch survey"),
		chromedp.SendKeys(`#q0-text`, "What did you eat?"),
		clickAndLoad(`button[value=add]`),
		chromedp.WaitVisible(`#q1-text`),
		chromedp.SendKeys(`#q1-text`, "Pick a dessert"),
		chooseKind("1", "MultipleChoice"),
		chromedp.WaitVisible(`#q1-choices`),
		chromedp.SendKeys(`#q1-choices`, "Cake\nFruit"),
		clickAndLoad(`button[value=add]`),
		chromedp.WaitVisible(`#q2-text`),
		chromedp.SendKeys(`#q2-text`, "Rate the food"),
		chooseKind("2", "FiveStars"),
		shot("designer"),
		axeCheck("designer"),
		chromedp.Click(`button[value=publish]`),
		chromedp.WaitVisible(`img.qr`)) // publishing lands on the share page
	var dash string
	run("dashboard lists it", chromedp.Navigate(base+"/adatum/surveys"), chromedp.WaitVisible(`table.table`), chromedp.Text(`table.table`, &dash))
	if !strings.Contains(dash, "Browser lunch survey") || !strings.Contains(dash, "published") {
		t.Fatalf("dashboard: %q", dash)
	}
	run("share", chromedp.Navigate(base+"/adatum/surveys/browser-lunch-survey/share"), chromedp.WaitVisible(`img.qr`), shot("share"), axeCheck("share"))
	run("answer",
		chromedp.Navigate(base+"/survey/adatum/browser-lunch-survey"),
		chromedp.WaitVisible(`form textarea`),
		shot("survey"),
		axeCheck("survey"),
		chromedp.SendKeys(`form textarea`, "Pasta, then more pasta"),
		chromedp.Click(`//label[contains(., "Fruit")]`),
		chromedp.Click(`.stars label[title="4 stars"]`),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`.thanks`),
		shot("thankyou"),
		axeCheck("thank-you"))
	// The worker counts it: the analysis page shows it (it refreshes itself).
	var total string
	deadline := time.Now().Add(2 * time.Minute)
	for total != "1" && time.Now().Before(deadline) {
		run("analysis", chromedp.Navigate(base+"/adatum/surveys/browser-lunch-survey/analyze"), bigNumber(&total))
		time.Sleep(200 * time.Millisecond)
	}
	if total != "1" {
		t.Fatalf("analysis shows %q answers, want 1", total)
	}
	var analysis string
	run("analysis page", chromedp.Text(`main`, &analysis), shot("analysis"), axeCheck("analysis"))
	if !strings.Contains(analysis, "Fruit") || !strings.Contains(analysis, "4.00 of 5 stars") || !strings.Contains(analysis, "pasta") {
		t.Errorf("analysis page: %q", analysis)
	}
	run("answers", chromedp.Navigate(base+"/adatum/surveys/browser-lunch-survey/answers"), chromedp.WaitVisible(`dl.answer`), shot("answer"), axeCheck("answers"))
	// The tenant's settings pages (this server has no secret key: they say
	// so instead of taking a password or client secret).
	var database string
	run("database settings", chromedp.Navigate(base+"/adatum/settings/database"), chromedp.WaitVisible(`main form`),
		chromedp.Text(`main`, &database), shot("database"), axeCheck("database settings"))
	if !strings.Contains(database, "SURVEYS_SECRET_KEY") {
		t.Errorf("database settings without a key: %q", database)
	}
	run("identity settings", chromedp.Navigate(base+"/adatum/settings/identity"), chromedp.WaitVisible(`main form`), shot("identity"), axeCheck("identity settings"))
	// The pages the walk above does not reach, and the forms' error states
	// (the browser's own checks of required fields taken off to reach them).
	noRequired := chromedp.Evaluate(`document.querySelectorAll('[required]').forEach(e => e.removeAttribute('required'))`, nil)
	for _, p := range []struct{ what, path string }{
		{"settings", "/adatum/settings"},
		{"password", "/adatum/account/password"},
		{"preview", "/adatum/surveys/browser-lunch-survey/preview"},
		{"answers table", "/adatum/surveys/browser-lunch-survey/answers/table"},
		{"onboarding", "/onboarding"},
		{"not found", "/adatum/surveys/no-such-survey/analyze"},
	} {
		// By query: chromedp's default search also matches text, and
		// "main" is in "Custom domain", a link of the settings page.
		run(p.what, chromedp.Navigate(base+p.path), chromedp.WaitVisible(`main`, chromedp.ByQuery), axeCheck(p.what))
	}
	run("designer with errors",
		chromedp.Navigate(base+"/adatum/surveys/new"),
		chromedp.WaitVisible(`#title`),
		noRequired,
		chromedp.Click(`button[value=publish]`),
		chromedp.WaitVisible(`.alert`),
		axeCheck("designer with errors"))
	run("survey with errors",
		chromedp.Navigate(base+"/survey/adatum/browser-lunch-survey"),
		chromedp.WaitVisible(`form textarea`),
		noRequired,
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`#form-errors`),
		shot("survey-errors"),
		axeCheck("survey with errors"))

	// The CSV, with the browser's session.
	if csv := withSession(t, run, base)("/adatum/surveys/browser-lunch-survey/export.csv"); !strings.Contains(csv, `"Pasta, then more pasta",Fruit,4`) {
		t.Fatalf("csv:\n%s", csv)
	}

	// A respondent on a phone: the survey and the thank-you page fit a
	// window 390 px wide (no sideways scrolling) and pass axe-core there too.
	run("answer on a phone",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+"/survey/adatum/browser-lunch-survey"),
		chromedp.WaitVisible(`form textarea`),
		shot("survey-phone"),
		noSidewaysScroll(t, "survey"),
		axeCheck("survey (390 px)"),
		chromedp.SendKeys(`form textarea`, "Soup"),
		chromedp.Click(`//label[contains(., "Cake")]`),
		chromedp.Click(`.stars label[title="5 stars"]`),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`.thanks`),
		shot("thankyou-phone"),
		noSidewaysScroll(t, "thank-you"),
		axeCheck("thank-you (390 px)"))
}

// browserStepLimit bounds one step of browserRun (a page and its waits):
// a bound on a stuck step, generous for a machine whose cores are busy
// with other work, not a speed. A test as a whole has no limit of its own
// but the test binary's (-timeout).
const browserStepLimit = 3 * time.Minute

// newBrowser gives a test a browser of its own: a new browser context
// (its own cookies and storage, like a private window) of the package's
// one headless Chromium, closed with the test. Its context ends a minute
// before the test binary's deadline, so that a stuck test fails naming its
// step, and cleans up, before go test kills it.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	chromium, err := sharedChromium()
	if err != nil {
		t.Fatal(err)
	}
	// A new browser context's first tab needs a window of its own
	// (headless Chromium refuses a tab in a context without one), which
	// chromedp's WithNewBrowserContext does not ask for: make both here.
	browser := cdp.WithExecutor(chromium, chromedp.FromContext(chromium).Browser)
	id, err := target.CreateBrowserContext().Do(browser)
	if err != nil {
		t.Fatalf("open a browser context: %v", err)
	}
	tab, err := target.CreateTarget("about:blank").WithBrowserContextID(id).WithNewWindow(true).Do(browser)
	if err != nil {
		t.Fatalf("open a browser context's window: %v", err)
	}
	ctx, cancel := chromedp.NewContext(chromium, chromedp.WithTargetID(tab))
	// Tabs opened from ctx (chromedp.NewContext(ctx)) join its context.
	chromedp.FromContext(ctx).BrowserContextID = id
	t.Cleanup(func() {
		cancel()
		_ = target.DisposeBrowserContext(id).Do(browser)
	})
	if deadline, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-time.Minute))
		t.Cleanup(cancel)
	}
	// Attach to its tab now, on this context: chromedp binds it to the
	// context of the first Run, and browserRun's steps run on contexts of
	// their own that end with the step.
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("open a browser context's tab: %v", err)
	}
	return ctx
}

// chromium is the package's headless Chromium, started by the first test
// that needs it and stopped by TestMain (stopChromium) after the last:
// one process for every browser test, rather than one each.
var chromium struct {
	once    sync.Once
	ctx     context.Context
	stop    func()
	profile string
	err     error
}

// sharedChromium starts the package's Chromium once and gives its
// context, on which newBrowser opens browser contexts.
func sharedChromium() (context.Context, error) {
	chromium.once.Do(func() {
		path, err := exec.LookPath("chromium")
		if err != nil {
			chromium.err = errors.New("chromium is not installed: make test installs Debian's chromium package")
			return
		}
		if chromium.profile, err = os.MkdirTemp("", "surveys-e2e-chromium-"); err != nil {
			chromium.err = err
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
			// chromedp's own list, and no back/forward cache: Back and
			// Forward load the page, as they do wherever the browser did
			// not keep it (pages.js makes that a GET of the page's own
			// address; a kept page needs nothing).
			chromedp.Flag("disable-features", "site-per-process,Translate,BlinkGenPropertyTrees,BackForwardCache"),
			chromedp.UserDataDir(chromium.profile), chromedp.WindowSize(1200, 1000))
		actx, stopAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, stopBrowser := chromedp.NewContext(actx)
		chromium.ctx, chromium.stop = ctx, func() { stopBrowser(); stopAlloc() }
		if err := chromedp.Run(ctx); err != nil {
			chromium.err = fmt.Errorf("start chromium: %w", err)
		}
	})
	return chromium.ctx, chromium.err
}

// stopChromium stops the package's Chromium, if a test started it, and
// removes its profile (its helper processes may still write to it as
// they exit: try again for a while).
func stopChromium() {
	if chromium.stop != nil {
		chromium.stop()
	}
	if chromium.profile != "" {
		for i := 0; os.RemoveAll(chromium.profile) != nil && i < 50; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// TestBrowserChallenge: a subscriber switches the robot check on in the
// designer; in a real browser the page's script solves it, says so in its
// status line (read out by screen readers), and the answer is accepted.
func TestBrowserChallenge(t *testing.T) {
	t.Parallel()
	base, run, axeCheck := newBrowserTest(t)
	run("sign in",
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example"),
		chromedp.SendKeys(`#password`, "correct horse battery"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`table.table`))
	run("design with the check",
		chromedp.Navigate(base+"/adatum/surveys/new"),
		chromedp.WaitVisible(`#title`),
		chromedp.SendKeys(`#title`, "Robot checked"),
		chromedp.SendKeys(`#q0-text`, "Rate the food"),
		chooseKind("0", "FiveStars"),
		chromedp.Click(`#dz-settings > summary`, chromedp.ByQuery),
		chromedp.Click(`input[name=challenge]`),
		clickAndLoad(`button[value=publish]`),
		chromedp.WaitVisible(`img.qr`))
	var status, pow string
	run("answer",
		chromedp.Navigate(base+"/survey/adatum/robot-checked"),
		chromedp.WaitVisible(`#pow-status`),
		chromedp.Poll(`document.getElementById("pow-status").textContent.endsWith("done")`, nil, chromedp.WithPollingTimeout(60*time.Second)),
		chromedp.Text(`#pow-status`, &status),
		chromedp.Value(`input[name=pow]`, &pow),
		axeCheck("survey with the robot check"),
		chromedp.Click(`.stars label[title="4 stars"]`),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`.thanks`))
	if status != "Checking you are not a robot… done" || pow == "" {
		t.Fatalf("status %q, solution %q", status, pow)
	}
}
