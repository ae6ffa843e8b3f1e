package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/surveys-dev/surveys/internal/formfill"
	"github.com/surveys-dev/surveys/internal/mail/mailtest"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestBrowserTeamsDay runs a team's day in a real Chromium, on a phone's
// 390 px window, against surveys serve with a real SMTP server: the admin
// invites an editor and a viewer by e-mail; each joins from the link that
// arrived; the editor builds and publishes a survey; respondents answer;
// the editor fixes a typo in the published survey; the viewer filters the
// results and exports them; the editor deletes a spam answer and the
// summary drops by one; the admin moves the survey to the trash and
// restores it. Every page on the way passes axe-core and the 390 px
// check; screenshots go to artifacts/teamday-*.png.
func TestBrowserTeamsDay(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, mailtest.Options{})
	m := newTestMainWith(t, []string{"--data", t.TempDir(), "--smtp-url", "smtp://" + srv.Addr + "?tls=none",
		"--mail-from", "Surveys <surveys@example.com>", "--public-url", testPublicURL}, nil)
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	if _, err := testUsers(m.Storage).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	base := "http://" + m.Addr()
	axeCheck := newAxeCheck(t)
	// person is a Chromium of one's own (its own cookies) on a phone.
	person := func() func(string, ...chromedp.Action) {
		run := browserRun(t, newBrowser(t))
		run("a phone's window", chromedp.EmulateViewport(390, 844))
		return run
	}
	pages := 0
	// page checks the page a person is on: it fits 390 px, its header is
	// in view, axe-core finds nothing serious; a screenshot is kept.
	page := func(name string) chromedp.Action {
		pages++
		return chromedp.Tasks{
			chromedp.WaitReady(`main`, chromedp.ByQuery),
			noSidewaysScroll(t, name),
			headerInView(t, name),
			screenshot(t, fmt.Sprintf("teamday-%02d-%s", pages, name)),
			axeCheck(name),
		}
	}
	text := func(sel string, out *string) chromedp.Action { return chromedp.Text(sel, out, chromedp.ByQuery) }

	// 1. The admin signs in with her email and invites an editor and a viewer.
	admin := person()
	admin("admin signs in",
		chromedp.Navigate(base+"/login"),
		page("login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example", chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "correct horse battery", chromedp.ByQuery),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`a[href="/adatum/settings/members"]`, chromedp.ByQuery),
		page("dashboard-admin"))
	for _, inv := range []struct{ email, role string }{{"eve@adatum.example", "editor"}, {"vic@adatum.example", "viewer"}} {
		var notice string
		admin("invite "+inv.role,
			chromedp.Navigate(base+"/adatum/settings/members"),
			chromedp.WaitVisible(`#email`, chromedp.ByQuery),
			chromedp.SendKeys(`#email`, inv.email, chromedp.ByQuery),
			chromedp.SetValue(`#role`, inv.role, chromedp.ByQuery),
			clickAndLoad(`.members-invite button[type=submit]`, chromedp.ByQuery),
			text(`.notice`, &notice),
			page("members-invited-"+inv.role))
		if !strings.Contains(notice, "on its way to "+inv.email) {
			t.Fatalf("inviting %s: %q", inv.email, notice)
		}
	}
	links := map[string]string{}
	for _, msg := range srv.Wait(t, 2) {
		l := inviteLinkRE.FindStringSubmatch(msg.Text)
		if l == nil {
			t.Fatalf("an invitation without its link:\n%s", msg.Text)
		}
		links[msg.To[0]] = l[1]
	}

	// 2. Each joins from the link in their mail.
	join := func(email string) func(string, ...chromedp.Action) {
		run := person()
		run(email+" joins",
			chromedp.Navigate(base+links[email]),
			chromedp.WaitVisible(`.invite-email`, chromedp.ByQuery),
			page("invitation"),
			chromedp.SendKeys(`#password`, "a long team password", chromedp.ByQuery),
			chromedp.SendKeys(`#confirm`, "a long team password", chromedp.ByQuery),
			clickAndLoad(`main form.stack button[type=submit]`, chromedp.ByQuery),
			chromedp.WaitVisible(`h1`, chromedp.ByQuery))
		return run
	}
	editor, viewer := join("eve@adatum.example"), join("vic@adatum.example")

	// 3. The editor builds and publishes a survey (with a typo).
	editor("editor designs",
		chromedp.Navigate(base+"/adatum/surveys"),
		page("dashboard-editor"),
		chromedp.Navigate(base+"/adatum/surveys/new"),
		chromedp.WaitVisible(`#title`, chromedp.ByQuery),
		chromedp.SendKeys(`#title`, "Team lunch", chromedp.ByQuery),
		chromedp.SendKeys(`#q0-text`, "Anythign else to tell us?", chromedp.ByQuery),
		clickAndLoad(`button[value=add]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#q1-text`, chromedp.ByQuery),
		chromedp.SendKeys(`#q1-text`, "How do you order?", chromedp.ByQuery),
		chooseKind("1", "MultipleChoice"),
		chromedp.WaitVisible(`#q1-choices`, chromedp.ByQuery),
		chromedp.SendKeys(`#q1-choices`, "Web\nMobile app\nPhone", chromedp.ByQuery),
		page("designer"),
		clickAndLoad(`button[value=publish]`, chromedp.ByQuery),
		chromedp.WaitVisible(`img.qr`, chromedp.ByQuery), // publishing lands on the share page
		page("share"))
	sv := teamdaySurvey(t, m)
	textQ, choiceQ := sv.Questions[0].ID, sv.Questions[1].ID

	// 4. Respondents answer: two by mobile app, one by web, and a spammer.
	path := "/survey/adatum/" + sv.Slug
	respond := person()
	respond("a respondent answers",
		chromedp.Navigate(base+path),
		chromedp.WaitVisible(`form textarea`, chromedp.ByQuery),
		page("survey"),
		chromedp.SendKeys(`form textarea`, "More soup, please", chromedp.ByQuery),
		chromedp.Click(`//label[contains(., "Mobile app")]`),
		clickAndLoad(`form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.thanks`, chromedp.ByQuery),
		page("thankyou"))
	for _, a := range []struct{ text, choice string }{
		{"Faster delivery", "Mobile app"}, {"Fine as it is", "Web"}, {"BUY CHEAP PILLS AT spam.example", "Phone"},
	} {
		code, body := get(t, m, path)
		f, err := formfill.Parse([]byte(body))
		if code != 200 || err != nil {
			t.Fatalf("GET %s = %d: %v", path, code, err)
		}
		form := f.Answer(rand.New(rand.NewPCG(1, 2)), func(*rand.Rand) string { return a.text })
		form.Set("q-"+choiceQ, a.choice)
		if code, _ := postForm(t, base+path, form); code != 303 {
			t.Fatalf("answer %q = %d", a.text, code)
		}
	}

	// 5. The editor fixes the typo in the published survey.
	teamdayFixTypo(t, editor, page, base, sv)
	if code, body := get(t, m, path); code != 200 || !strings.Contains(body, "Anything else to tell us?") || strings.Contains(body, "Anythign") {
		t.Fatalf("the survey after the fix = %d", code)
	}

	// 6. The viewer sees the four answers, filters them by one answer and exports that.
	analyze := "/adatum/surveys/" + sv.Slug + "/analyze"
	total := func(run func(string, ...chromedp.Action), want string) {
		t.Helper()
		var got string
		for deadline := time.Now().Add(2 * time.Minute); got != want && time.Now().Before(deadline); {
			run("analysis", chromedp.Navigate(base+analyze), text(`.big-number`, &got))
			if got != want {
				time.Sleep(200 * time.Millisecond)
			}
		}
		if got != want {
			t.Fatalf("the analysis shows %q answers, want %s", got, want)
		}
	}
	total(viewer, "4")
	var filtered string
	viewer("viewer filters",
		page("analysis"),
		chromedp.Click(`details.filter summary`, chromedp.ByQuery),
		chromedp.SetValue(`#f-q`, choiceQ, chromedp.ByQuery),
		chromedp.SendKeys(`#f-a`, "Mobile app", chromedp.ByQuery),
		clickAndLoad(`details.filter button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.big-number`, chromedp.ByQuery),
		text(`main`, &filtered),
		page("analysis-filtered"))
	if !strings.Contains(filtered, "Filtered: 2 of 4 answers") {
		t.Fatalf("the filtered analysis:\n%s", filtered)
	}
	var exportHref string
	viewer("the filtered export", chromedp.AttributeValue(`a[href*="export.csv"]`, "href", &exportHref, nil, chromedp.ByQuery))
	csv := withSession(t, viewer, base)(exportHref)
	if rows := strings.Count(strings.TrimSpace(csv), "\n"); rows != 2 || !strings.Contains(csv, "More soup, please") || strings.Contains(csv, "Fine as it is") {
		t.Fatalf("the filtered export (%s) has %d rows:\n%s", exportHref, rows, csv)
	}
	var viewerAnswers string
	viewer("viewer reads an answer",
		chromedp.Navigate(base+"/adatum/surveys/"+sv.Slug+"/answers"),
		chromedp.WaitVisible(`dl.answer`, chromedp.ByQuery),
		text(`main`, &viewerAnswers),
		page("answers-viewer"))
	if strings.Contains(viewerAnswers, "Delete this answer") {
		t.Fatal("a viewer is offered to delete an answer")
	}

	// 7. The editor finds the spam answer and deletes it: the summary drops by one.
	spam := url.Values{"q": {textQ}, "a": {"BUY CHEAP PILLS AT spam.example"}}
	var deleted string
	editor("editor deletes the spam",
		chromedp.Navigate(base+"/adatum/surveys/"+sv.Slug+"/answers?"+spam.Encode()),
		chromedp.WaitVisible(`dl.answer`, chromedp.ByQuery),
		page("answers-spam"),
		clickAndLoad(`.answer-delete button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.answer-delete-confirm`, chromedp.ByQuery),
		page("answer-delete-confirm"),
		clickAndLoad(`.answer-delete-confirm button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.notice`, chromedp.ByQuery),
		text(`.notice`, &deleted),
		page("answer-deleted"))
	if !strings.Contains(deleted, "deleted") {
		t.Fatalf("after the deletion: %q", deleted)
	}
	total(editor, "3")
	editor("analysis after the deletion", page("analysis-after-delete"))

	// 8. The admin moves the survey to the trash, then restores it.
	var trash string
	admin("admin trashes",
		chromedp.Navigate(base+"/adatum/surveys/"+sv.Slug+"/edit"),
		chromedp.WaitVisible(`#title`, chromedp.ByQuery),
		clickAndLoad(`form[action$="/delete"] button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.trash-list`, chromedp.ByQuery),
		text(`.trash-list`, &trash),
		page("dashboard-trash"))
	if !strings.Contains(trash, "Team lunch") {
		t.Fatalf("the trash: %q", trash)
	}
	if code, _ := get(t, m, path); code != 404 {
		t.Fatalf("a trashed survey's page = %d", code)
	}
	admin("admin restores",
		clickAndLoad(`.trash-list form[action$="/restore"] button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`table.table`, chromedp.ByQuery),
		page("dashboard-restored"))
	if code, _ := get(t, m, path); code != 200 {
		t.Fatalf("a restored survey's page = %d", code)
	}
	total(admin, "3")
	// The day, as the audit log tells it to the admin.
	var events string
	admin("admin reads the audit log",
		chromedp.Navigate(base+"/adatum/settings/audit"),
		chromedp.WaitVisible(`table.audit-table`, chromedp.ByQuery),
		chromedp.Text(`table.audit-table`, &events, chromedp.ByQuery),
		page("audit"))
	for _, want := range []string{"eve@adatum.example", "vic@adatum.example", "Survey published", "Survey moved to the trash", "Survey restored", "Answer deleted"} {
		if !strings.Contains(events, want) {
			t.Errorf("the audit log lacks %q:\n%s", want, events)
		}
	}
	t.Logf("checked %d pages at 390 px", pages)
}

// teamdaySurvey is the survey the editor made.
func teamdaySurvey(t *testing.T, m *Main) *survey.Survey {
	t.Helper()
	ss := store.NewSurveyStore(m.Storage)
	sv, err := ss.Get(context.Background(), "adatum", "team-lunch")
	if err != nil || sv.State != survey.Published || len(sv.Questions) != 2 {
		t.Fatalf("the editor's survey: %+v, %v", sv, err)
	}
	return sv
}

// postForm posts form to target as a browser without JavaScript would
// (no redirect followed) and returns the status and body.
func postForm(t *testing.T, target string, form url.Values) (int, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.PostForm(target, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// teamdayFixTypo has the editor correct the first question's wording in
// the published survey sv: a change that hides nothing saves at once.
func teamdayFixTypo(t *testing.T, editor func(string, ...chromedp.Action), page func(string) chromedp.Action, base string, sv *survey.Survey) {
	t.Helper()
	var confirm int
	editor("editor fixes the typo",
		chromedp.Navigate(base+"/adatum/surveys/"+sv.Slug+"/edit"),
		chromedp.WaitVisible(`#q0-text`, chromedp.ByQuery),
		page("designer-published"),
		openQuestion(1),
		chromedp.Evaluate(`document.getElementById("q0-text").value = ""`, nil),
		chromedp.SendKeys(`#q0-text`, "Anything else to tell us?", chromedp.ByQuery),
		clickAndLoad(`button[name=action][value=save]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll(".confirm-hides").length`, &confirm),
		page("designer-saved"))
	if confirm != 0 {
		t.Fatal("fixing a typo asked to confirm hiding something")
	}
}
