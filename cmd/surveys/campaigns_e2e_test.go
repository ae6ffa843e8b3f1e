package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/surveys-dev/surveys/internal/mail/mailtest"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// campaignLinkRE is a contact's personal link in a campaign's mail.
var campaignLinkRE = regexp.MustCompile(regexp.QuoteMeta(testPublicURL) + `(/survey/adatum/[^\s?]+\?\S+)`)

// TestBrowserCampaign runs a campaign in a real Chromium on a phone's
// 390 px window, against surveys serve with a real SMTP server and its
// campaigns worker: the admin imports a contact list from CSV (the bad
// row reported in the preview, the others imported), starts a campaign of
// a two-page survey taken by personal link; two contacts answer from
// their mails, one completely, one only the first page; the admin sends
// the reminder now, which reaches only the two who did not complete; the
// campaign's page counts it. Every page passes axe-core and the 390 px
// check; screenshots go to artifacts/campaign-*.png.
func TestBrowserCampaign(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, mailtest.Options{})
	m := newTestMainWith(t, []string{"--data", t.TempDir(), "--smtp-url", "smtp://" + srv.Addr + "?tls=none",
		"--mail-from", "Surveys <surveys@example.com>", "--public-url", testPublicURL},
		map[string]string{"SURVEYS_SECRET_KEY": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="})
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	if _, err := testUsers(m.Storage).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	sv := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: "Panel check-in", OnePer: survey.OnePerLink, HiddenFields: []string{"dept"},
		Sections: []survey.Section{{ID: "rate", Title: "Your rating"}, {ID: "words", Title: "Your words"}},
		Questions: []survey.Question{
			{Text: "How did we do?", Type: survey.FiveStars, Section: "rate"},
			{Text: "Anything else?", Type: survey.SimpleText, Section: "words", Optional: true},
		}}
	if err := store.NewSurveyStore(m.Storage).Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	base := "http://" + m.Addr()
	axeCheck := newAxeCheck(t)
	person := func() func(string, ...chromedp.Action) {
		run := browserRun(t, newBrowser(t))
		run("a phone's window", chromedp.EmulateViewport(390, 844))
		return run
	}
	pages := 0
	page := func(name string) chromedp.Action {
		pages++
		return chromedp.Tasks{
			chromedp.WaitReady(`main`, chromedp.ByQuery),
			noSidewaysScroll(t, name),
			screenshot(t, fmt.Sprintf("campaign-%02d-%s", pages, name)),
			axeCheck(name),
		}
	}
	text := func(sel string, out *string) chromedp.Action { return chromedp.Text(sel, out, chromedp.ByQuery) }

	// 1. The admin makes a list and imports a CSV file with a bad row.
	admin := person()
	var preview string
	admin("import a list",
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example", chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "correct horse battery", chromedp.ByQuery),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`a[href="/adatum/contacts"]`, chromedp.ByQuery),
		clickAndLoad(`a[href="/adatum/contacts"]`, chromedp.ByQuery),
		page("contacts"),
		chromedp.SendKeys(`#list-name`, "Panel", chromedp.ByQuery),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#csv-text`, chromedp.ByQuery),
		page("list-empty"),
		chromedp.SetValue(`#csv-text`, "email,name,dept\nana.p@example.com,Ana,Sales\nbo.p@example.com,Bo,Support\nnot-an-address,Nemo,Sales\ncy.p@example.com,Cy,Sales\n", chromedp.ByQuery),
		clickAndLoad(`#csv-text ~ button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.import-preview`, chromedp.ByQuery),
		text(`.import-preview`, &preview),
		page("import-preview"))
	if !strings.Contains(preview, "3 contacts to add") || !strings.Contains(preview, "Not imported: \"not-an-address\" is not an e-mail address") {
		t.Fatalf("the preview:\n%s", preview)
	}
	var notice string
	admin("confirm the import",
		clickAndLoad(`.import-preview button[type=submit]`, chromedp.ByQuery),
		text(`.notice`, &notice),
		page("list-imported"))
	if !strings.Contains(notice, "3 contacts imported") {
		t.Fatalf("after the import: %q", notice)
	}

	// 2. The admin starts a campaign from the survey's share page.
	admin("start a campaign",
		chromedp.Navigate(base+"/adatum/surveys/"+sv.Slug+"/share"),
		clickAndLoad(`a[href="/adatum/surveys/`+sv.Slug+`/campaigns"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#subject`, chromedp.ByQuery),
		page("campaigns"),
		chromedp.SendKeys(`#subject`, "How are we doing?", chromedp.ByQuery),
		chromedp.SendKeys(`#text`, "Dear panel member,\n\ntwo minutes of your time, please.", chromedp.ByQuery),
		clickAndLoad(`main form.stack button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.campaign-totals`, chromedp.ByQuery),
		page("campaign-started"))
	links := map[string]string{}
	for _, msg := range srv.Wait(t, 3) {
		l := campaignLinkRE.FindStringSubmatch(msg.Text)
		if l == nil || msg.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" || !strings.Contains(msg.Text, "Sent by Adatum") {
			t.Fatalf("a campaign mail:\n%v\n%s", msg.Header, msg.Text)
		}
		links[msg.To[0]] = l[1]
	}

	// 3. Ana answers both pages; Bo answers the first and leaves.
	ana := person()
	ana("Ana answers",
		chromedp.Navigate(base+links["ana.p@example.com"]),
		chromedp.WaitVisible(`.stars`, chromedp.ByQuery),
		page("survey-from-mail"),
		chromedp.Click(`.stars label[for$="-4"]`, chromedp.ByQuery),
		clickAndLoad(`#page-go`, chromedp.ByQuery),
		chromedp.WaitVisible(`form textarea`, chromedp.ByQuery),
		chromedp.SendKeys(`form textarea`, "Keep it up", chromedp.ByQuery),
		clickAndLoad(`#page-go`, chromedp.ByQuery),
		page("thank-you"))
	bo := person()
	bo("Bo answers partly",
		chromedp.Navigate(base+links["bo.p@example.com"]),
		chromedp.WaitVisible(`.stars`, chromedp.ByQuery),
		chromedp.Click(`.stars label[for$="-2"]`, chromedp.ByQuery),
		clickAndLoad(`#page-go`, chromedp.ByQuery),
		chromedp.WaitVisible(`form textarea`, chromedp.ByQuery))

	// 4. The reminder, now: only Bo and Cy get it.
	admin("send the reminder",
		chromedp.Navigate(base+"/adatum/surveys/"+sv.Slug+"/campaigns"),
		clickAndLoad(`.campaign-list a`, chromedp.ByQuery),
		clickAndLoad(`form[action$="/remind"] button`, chromedp.ByQuery),
		text(`.notice`, &notice))
	if !strings.Contains(notice, "reminder is on its way") {
		t.Fatalf("after the reminder: %q", notice)
	}
	got := map[string]int{}
	for _, msg := range srv.Wait(t, 5) {
		got[msg.To[0]]++
	}
	if got["ana.p@example.com"] != 1 || got["bo.p@example.com"] != 2 || got["cy.p@example.com"] != 2 {
		t.Fatalf("mails by recipient: %v", got)
	}

	// 5. The campaign's page counts it.
	var totals string
	admin("read the campaign",
		chromedp.Reload(),
		chromedp.WaitVisible(`.campaign-totals`, chromedp.ByQuery),
		text(`.campaign-totals`, &totals),
		page("campaign-report"))
	totals = strings.Join(strings.Fields(totals), " ")
	for _, want := range []string{"Contacts 3", "Sent 3", "Opened the survey 2", "Started 2", "Completed 1", "Reminders sent 2"} {
		if !strings.Contains(totals, want) {
			t.Errorf("the campaign's totals lack %q: %s", want, totals)
		}
	}
}
