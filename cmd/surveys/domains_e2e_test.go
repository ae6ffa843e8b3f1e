package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserCustomDomainSettings: at 390 and 1280 px, the custom domain
// settings page names a domain (a bad name refused beside the field),
// shows the DNS record and the HTTP token to prove it, and asks before
// removing it; each state is axe-core clean and does not scroll sideways.
// (TestCustomDomainServes sends the Host header of a verified domain.)
func TestBrowserCustomDomainSettings(t *testing.T) {
	t.Parallel()
	m := newTestMainWith(t, []string{"--data", t.TempDir(), "--public-url", "http://surveys.example.com"}, nil)
	t.Cleanup(func() { m.Close() })
	if _, err := testUsers(m.Storage).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	base := "http://" + m.Addr() // an address: the main site
	run, axeCheck := browserRun(t, newBrowser(t)), newAxeCheck(t)
	run("sign in",
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example"),
		chromedp.SendKeys(`#password`, "correct horse battery"),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`table.table`, chromedp.ByQuery))
	for i, w := range []int{390, 1280} {
		what := func(s string) string { return fmt.Sprintf("%s (%d px)", s, w) }
		host := []string{"surveys.adatum.example", "www.adatum.example"}[i]
		var text string
		run(what("domain form"),
			chromedp.EmulateViewport(int64(w), 844),
			chromedp.Navigate(base+"/adatum/settings/domain"),
			chromedp.WaitVisible(`#domain`, chromedp.ByQuery),
			noSidewaysScroll(t, what("domain form")),
			axeCheck(what("domain form")),
			chromedp.SendKeys(`#domain`, "localhost", chromedp.ByQuery),
			clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
			chromedp.WaitVisible(`#domain-error`, chromedp.ByQuery),
			chromedp.Text(`#domain-error`, &text, chromedp.ByQuery),
			noSidewaysScroll(t, what("domain refused")),
			axeCheck(what("domain refused")))
		if !strings.Contains(text, "with a dot") {
			t.Errorf("%s: the error says %q", what("domain refused"), text)
		}
		var name, url string
		run(what("domain claimed"),
			chromedp.SetValue(`#domain`, host, chromedp.ByQuery),
			clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
			chromedp.WaitVisible(`#txt-value`, chromedp.ByQuery),
			chromedp.Value(`#txt-name`, &name, chromedp.ByQuery),
			chromedp.Value(`#token-url`, &url, chromedp.ByQuery),
			noSidewaysScroll(t, what("domain claimed")),
			axeCheck(what("domain claimed")))
		if name != "_surveys-challenge."+host || !strings.HasPrefix(url, "http://"+host+"/.well-known/surveys-domain/") {
			t.Errorf("%s: record %q, token address %q", what("domain claimed"), name, url)
		}
		run(what("remove the domain"),
			chromedp.Navigate(base+"/adatum/settings/domain/remove"),
			chromedp.WaitVisible(`main form`, chromedp.ByQuery),
			noSidewaysScroll(t, what("remove the domain")),
			axeCheck(what("remove the domain")),
			clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
			chromedp.WaitVisible(`#domain`, chromedp.ByQuery))
	}
}
