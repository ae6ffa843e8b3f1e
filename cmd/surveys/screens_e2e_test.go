package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/webhook"
)

// screensSecretKey lets the server seal tenants' secrets, so that the
// database settings and the analysis page's transfer section show their
// forms (32 bytes, base64).
const screensSecretKey = "c2NyZWVucy10ZXN0LWtleS0zMi1ieXRlcy1sb25nISE="

// TestBrowserEveryScreen signs in as a subscriber of the demo tenant
// Adatum (its seeded survey, with answers) and visits every subscriber
// page, and the sign-in and sign-up pages, in a window 390 px wide and
// one 1280 px wide: none scrolls sideways, none has a serious or critical
// axe-core violation, and each shows what it is for. Screenshots go to
// artifacts/screens-<page>-<width>.png.
func TestBrowserEveryScreen(t *testing.T) {
	t.Parallel()
	m := newTestMainWith(t, []string{"--data", t.TempDir()}, map[string]string{"SURVEYS_SECRET_KEY": screensSecretKey})
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	if _, err := testUsers(m.Storage).Add(ctx, "adatum", "ana.de.souza-whitfield@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	// The demo survey, with answers whose long words must not widen a page.
	surveys := store.NewSurveyStore(m.Storage)
	list, err := surveys.List(ctx, "adatum")
	if err != nil || len(list) == 0 {
		t.Fatalf("the demo tenant's surveys: %v, %v", list, err)
	}
	s, err := surveys.Get(ctx, "adatum", list[0].Slug)
	if err != nil {
		t.Fatal(err)
	}
	var text string // the id of the long-text question, for its written answers page
	var answers []survey.SurveyAnswer
	const n = 3
	for i := 0; i < n; i++ {
		forms := map[string]survey.Form{}
		for _, q := range s.Questions[:4] {
			switch q.Type {
			case survey.FiveStars:
				forms[q.ID] = survey.Value(fmt.Sprint(3 + i%3))
			case survey.MultipleChoice:
				forms[q.ID] = survey.Value(q.PossibleAnswers[i%len(q.PossibleAnswers)])
			case survey.NetPromoterScore:
				forms[q.ID] = survey.Value(fmt.Sprint(7 + i))
			case survey.SimpleText:
				text = q.ID
				forms[q.ID] = survey.Value([]string{
					"The reports page takes a long time to load on Monday mornings, when everybody opens it.",
					"https://portal.adatum.example/reports/quarterly/2026/q1/regional-breakdown?export=pdf&lang=en",
					"Nothing: keep it up.",
				}[i])
			}
		}
		a, err := survey.NewAnswer(s, forms)
		if err != nil {
			t.Fatal(err)
		}
		a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
		answers = append(answers, a)
	}
	if text == "" {
		t.Fatal("the demo survey has no long-text question among its first four")
	}
	if err := store.NewSurveyAnswerStore(m.Storage).Enqueue(ctx, answers); err != nil {
		t.Fatal(err)
	}

	// A survey in the trash: the dashboard's trash section, and the page
	// that asks before deleting it for good.
	pilot := &survey.Survey{Tenant: "adatum", Title: "Old pilot survey", Questions: []survey.Question{{Text: "Why?", Type: survey.SimpleText}}}
	if err := surveys.Create(ctx, pilot); err != nil {
		t.Fatal(err)
	}
	if err := surveys.Trash(ctx, "adatum", pilot.Slug); err != nil {
		t.Fatal(err)
	}
	// The demo survey shows two of its charts publicly.
	s.PublicResults = true
	for i := range s.Questions[:2] {
		s.Questions[i].InResults = true
	}
	if err := surveys.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
	// The demo survey in French and Arabic, for the respondent pages in
	// those languages and the translations editor.
	if s, err = surveys.Get(ctx, "adatum", s.Slug); err != nil {
		t.Fatal(err)
	}
	if err := surveys.SetTranslations(ctx, "adatum", s.Slug, "", demoTranslations(s)); err != nil {
		t.Fatal(err)
	}

	// A team: a viewer with a long address, a pending invitation and an
	// API token, for the members and tokens pages; an invitation link.
	if _, err := testUsers(m.Storage).AddMember(ctx, "adatum", "victoria.long-address-for-testing@research.adatum.example", "another long password", survey.Viewer); err != nil {
		t.Fatal(err)
	}
	links := store.NewLinkStore(m.Storage)
	if _, err := links.Create(ctx, store.Link{Purpose: store.LinkInvite, Tenant: "adatum", Email: "eve.editor@adatum.example", Role: "editor", By: "ana.de.souza-whitfield@adatum.example"}, store.InviteLinkTTL); err != nil {
		t.Fatal(err)
	}
	invite, err := links.Create(ctx, store.Link{Purpose: store.LinkInvite, Tenant: "adatum", Email: "oliver.invited-person@adatum.example", Role: "viewer", By: "ana.de.souza-whitfield@adatum.example"}, store.InviteLinkTTL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.NewSCIMTokenStore(m.Storage).Create(ctx, "adatum", "Microsoft Entra ID provisioning (production directory)"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.NewTokenStore(m.Storage).CreateWithRole(ctx, "adatum", "Quarterly reports export job", survey.Viewer, 90*24*time.Hour); err != nil {
		t.Fatal(err)
	}

	// A survey by personal links: two made for long addresses, one used.
	pulse := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: "Staff pulse", OnePer: survey.OnePerLink,
		Questions: []survey.Question{{Text: "How was your week?", Type: survey.SimpleText}}}
	if err := surveys.Create(ctx, pulse); err != nil {
		t.Fatal(err)
	}
	personal := store.NewPersonalLinkStore(m.Storage)
	made, err := personal.Create(ctx, "adatum", pulse.Slug, 0, []string{"victoria.long-address-for-testing@research.adatum.example", "oliver.invited-person@adatum.example"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := personal.Use(ctx, "adatum", pulse.Slug, made[0].Token, store.NewAnswerID(time.Now()), false); err != nil {
		t.Fatal(err)
	}

	// A draft with logic: the designer's conditions and jumps, shown open.
	commute := &survey.Survey{Tenant: "adatum", Title: "Getting to work",
		Sections: []survey.Section{
			{ID: "you", Title: "About you", Jumps: []survey.Jump{{If: survey.Condition{Rules: []survey.Rule{{Question: "car", Op: survey.OpEquals, Values: []string{"No"}}}}, To: "car"}}},
			{ID: "commute", Title: "Your commute"},
			{ID: "car", Title: "Your car and the fuel it uses", ShowIf: &survey.Condition{Rules: []survey.Rule{{Question: "car", Op: survey.OpAnswered}}}}},
		Questions: []survey.Question{
			{ID: "car", Text: "Do you own a car?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Yes", "No", "I share one with my household"}, Section: "you"},
			{ID: "age", Text: "How old are you?", Type: survey.Number, Optional: true, Section: "you"},
			{ID: "how", Text: "How do you get to work on most days of the week?", Type: survey.SimpleText, Section: "commute",
				ShowIf: &survey.Condition{Match: survey.MatchAny, Rules: []survey.Rule{{Question: "car", Op: survey.OpOneOf, Values: []string{"No", "I share one with my household"}}, {Question: "age", Op: survey.OpLessThan, Values: []string{"18"}}}}},
			{ID: "fuel", Text: "Which fuel does it use?", Type: survey.SimpleText, Section: "car",
				ShowIf: &survey.Condition{Rules: []survey.Rule{{Question: "car", Op: survey.OpEquals, Values: []string{"Yes"}}}}}}}
	if err := surveys.Create(ctx, commute); err != nil {
		t.Fatal(err)
	}

	// Webhooks: a long endpoint URL with deliveries (one that failed), and
	// a disabled endpoint, for the banner.
	hook := webhookEndpoints(t, m)

	// An unsubscribe link of a notification e-mail (no sign-in).
	box, err := m.cfg.Secrets()
	if err != nil {
		t.Fatal(err)
	}
	unsubscribe := survey.Unsubscribe{Tenant: "adatum", Slug: s.Slug, Email: "victoria.long-address-for-testing@research.adatum.example", What: survey.NotifyDigest}.Token(box.DeriveKey(unsubscribePurpose))

	base := "http://" + m.Addr()
	run := browserRun(t, newBrowser(t))
	axeCheck := newAxeCheck(t)
	shot := func(name string) chromedp.Action { return screenshot(t, "screens-"+name) }

	// check visits path at each width: it shows sel, fits the window,
	// passes axe-core, and its main text holds want.
	check := func(name, path, sel, want string) {
		t.Helper()
		for _, w := range []int{390, 1280} {
			var main string
			what := fmt.Sprintf("%s (%d px)", name, w)
			run(what,
				chromedp.EmulateViewport(int64(w), 900),
				chromedp.Navigate(base+path),
				chromedp.WaitVisible(sel, chromedp.ByQuery),
				chromedp.Text(`main`, &main, chromedp.ByQuery),
				noSidewaysScroll(t, what),
				headerInView(t, what),
				shot(fmt.Sprintf("%s-%d", name, w)),
				axeCheck(what))
			if !strings.Contains(main, want) {
				t.Errorf("the %s page lacks %q:\n%s", what, want, main)
			}
		}
	}

	// Before signing in: sign-up, sign-in, a forgotten password.
	check("onboarding", "/onboarding", `main form`, "")
	check("login", "/login", `main form`, "Sign in")
	check("invite", "/invite/"+invite, `main form`, "Join Adatum")
	check("login-tenant", "/login?tenant=adatum", `main form`, "Adatum")
	check("forgot", "/login/forgot", `main .panel`, "does not send e-mail") // this server has no SMTP
	reset, err := store.NewLinkStore(m.Storage).Create(ctx, store.Link{Purpose: store.LinkReset, Tenant: "adatum", Email: "ana.de.souza-whitfield@adatum.example"}, store.ResetLinkTTL)
	if err != nil {
		t.Fatal(err)
	}
	check("reset", "/login/reset/"+reset, `main form`, "Adatum")
	// An email of two organisations: the page that picks one.
	for _, tk := range []string{"adatum", "fabrikam"} {
		if _, err := testUsers(m.Storage).Add(ctx, tk, "pat@example.com", "correct horse battery"); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range []int{390, 1280} {
		what := fmt.Sprintf("pick (%d px)", w)
		run(what,
			chromedp.EmulateViewport(int64(w), 900),
			chromedp.Navigate(base+"/login"),
			chromedp.WaitVisible(`#email`, chromedp.ByQuery),
			chromedp.SendKeys(`#email`, "pat@example.com", chromedp.ByQuery),
			chromedp.SendKeys(`#password`, "correct horse battery", chromedp.ByQuery),
			clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
			chromedp.WaitVisible(`ul.choices`, chromedp.ByQuery),
			noSidewaysScroll(t, what),
			shot(fmt.Sprintf("pick-%d", w)),
			axeCheck(what))
	}
	run("sign in",
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(`#email`, chromedp.ByQuery),
		chromedp.SendKeys(`#email`, "ana.de.souza-whitfield@adatum.example", chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "correct horse battery", chromedp.ByQuery),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`table.table`, chromedp.ByQuery))

	// The worker counts the answers: the analysis page shows them.
	sp := "/adatum/surveys/" + s.Slug
	var total string
	for deadline := time.Now().Add(2 * time.Minute); total != fmt.Sprint(n) && time.Now().Before(deadline); {
		run("analysis", chromedp.Navigate(base+sp+"/analyze"), bigNumber(&total))
		if total != fmt.Sprint(n) {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if total != fmt.Sprint(n) {
		t.Fatalf("analysis shows %q answers, want %d", total, n)
	}

	// Adatum's own database (nothing answers at it): the analysis page's
	// transfer section shows the copy it asks for, and how it goes.
	tenants := store.NewTenantStore(m.Storage)
	tn, err := tenants.Get(ctx, "adatum")
	if err != nil {
		t.Fatal(err)
	}
	tn.SQLConnection = "postgres://surveys_reports_writer@reports-db.adatum.example:5432/customer_research?connect_timeout=1"
	if err := tenants.Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
	run("request a transfer",
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(base+sp+"/analyze"),
		clickAndLoad(`#transfer button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#transfer .transfer-status`, chromedp.ByQuery))

	for _, p := range []struct{ name, path, sel, want string }{
		{"welcome", "/adatum/welcome", `dl.facts`, "/login?tenant=adatum"},
		{"dashboard", "/adatum/surveys", `table.table`, s.Title}, // with its trash
		{"delete-forever", "/adatum/surveys/" + pilot.Slug + "/delete-forever", `main form`, "cannot be undone"},
		{"new-survey", "/adatum/surveys/new", `#title`, "Question"},
		{"import", "/adatum/surveys/import", `main form`, "definition"},
		{"designer", sp + "/edit", `main`, "Edit survey"},                                           // published, with answers: still editable
		{"designer-rules", "/adatum/surveys/" + commute.Slug + "/edit", `.dl-rule`, "2 conditions"}, // cards collapsed, a jump open
		{"preview", sp + "/preview", `main form`, s.Questions[0].Text},
		{"share", sp + "/share", `img.qr`, "Public link"},
		{"analysis", sp + "/analyze", `#transfer .transfer-status`, "Last copy requested"}, // with its transfer section
		{"written", sp + "/analyze/" + text, `.written-page`, "Monday mornings"},
		{"answers-table", sp + "/answers/table", `table.table`, "Monday mornings"},
		{"answer", sp + "/answers", `dl.answer`, s.Questions[0].Text},
		{"settings", "/adatum/settings", `main form`, "Plan"},
		{"identity", "/adatum/settings/identity", `main form`, "identity provider"},
		{"saml", "/adatum/settings/saml", `main form`, "SAML 2.0 sign-in"},
		{"database", "/adatum/settings/database", `main form`, "PostgreSQL"},
		{"password", "/adatum/account/password", `main form`, "password"},
		{"members", "/adatum/settings/members", `main form`, "victoria.long-address-for-testing@research.adatum.example"},
		{"member-remove", "/adatum/settings/members/remove?email=victoria.long-address-for-testing@research.adatum.example", `main form`, "signed out everywhere"},
		{"tokens", "/adatum/settings/tokens", `main form`, "Quarterly reports export job"},
		{"scim", "/adatum/settings/scim", `main form`, "Microsoft Entra ID provisioning (production directory)"},
		{"personal-links", "/adatum/surveys/" + pulse.Slug + "/links", `table.table`, "2 links, 1 used"},
		{"by-invitation", "/survey/adatum/" + pulse.Slug, `#once-title`, "This survey is by invitation"},
		{"already-answered", "/survey/adatum/" + pulse.Slug + "?k=" + made[0].Token, `#once-title`, "You have already answered"},
		{"webhooks", "/adatum/settings/webhooks", `main form`, "it answered 503 Service Unavailable"},
		{"webhook-delete", "/adatum/settings/webhooks/" + hook + "/delete", `main form`, "Delete the endpoint"},
		{"not-found", sp + "-missing/analyze", `main`, "not found"},
		{"results", "/survey/adatum/" + s.Slug + "/results", `.results-page`, "the results"},
		{"notifications", sp + "/notifications", `main form`, "E-mail me each new answer"},
		{"unsubscribe", "/unsubscribe/" + unsubscribe, `main form`, "Stop these e-mails?"},
		{"translations", sp + "/translations?lang=fr", `main form`, "In Français"},
	} {
		check(p.name, p.path, p.sel, p.want)
	}

	// The respondent's page in French and in Arabic (right to left), as a
	// respondent who picked the language from the menu sees it.
	for _, l := range []struct{ lang, dir, want string }{{"fr", "ltr", "Envoyer les réponses"}, {"ar", "rtl", "إرسال الإجابات"}} {
		check("respondent-"+l.lang, "/survey/adatum/"+s.Slug+"?lang="+l.lang, `main form`, l.want)
		for _, w := range []int{390, 1280} {
			var dir, lang string
			what := fmt.Sprintf("i18n %s (%d px)", l.lang, w)
			run(what,
				chromedp.EmulateViewport(int64(w), 900),
				chromedp.Navigate(base+"/survey/adatum/"+s.Slug+"?lang="+l.lang),
				chromedp.WaitVisible(`main form`, chromedp.ByQuery),
				chromedp.Evaluate(`document.documentElement.dir`, &dir),
				chromedp.Evaluate(`document.documentElement.lang`, &lang),
				noSidewaysScroll(t, what),
				screenshot(t, fmt.Sprintf("i18n-%s-%d", l.lang, w)))
			if dir != l.dir || lang != l.lang {
				t.Errorf("%s: <html lang=%q dir=%q>", what, lang, dir)
			}
		}
	}
	// A French respondent who sends nothing: the problems in French, and
	// the form keeps the language it was chosen in (no cookie needed).
	for _, w := range []int{390, 1280} {
		var main, lang, action string
		what := fmt.Sprintf("lang fr 422 (%d px)", w)
		run(what,
			chromedp.EmulateViewport(int64(w), 900),
			chromedp.Navigate(base+"/survey/adatum/"+s.Slug+"?lang=fr"),
			chromedp.WaitVisible(`main form`, chromedp.ByQuery),
			screenshot(t, fmt.Sprintf("lang-fr-%d", w)),
			clickAndLoad(`form button[type=submit]`, chromedp.ByQuery),
			chromedp.WaitVisible(`#form-errors`, chromedp.ByQuery),
			chromedp.Text(`main`, &main, chromedp.ByQuery),
			chromedp.Evaluate(`document.documentElement.lang`, &lang),
			chromedp.AttributeValue(`main form`, "action", &action, nil, chromedp.ByQuery),
			noSidewaysScroll(t, what),
			axeCheck(what),
			screenshot(t, fmt.Sprintf("lang-fr-422-%d", w)))
		if lang != "fr" || !strings.Contains(main, "Veuillez vérifier") || !strings.HasSuffix(action, "?lang=fr") {
			t.Errorf("%s: lang %q, action %q, main:\n%s", what, lang, action, main)
		}
	}
	check("lang-ar-not-found", "/survey/adatum/no-such-survey?lang=ar", `main`, "الاستبيان غير موجود.")
	for _, w := range []int{390, 1280} {
		run("lang ar", chromedp.EmulateViewport(int64(w), 900), chromedp.Navigate(base+"/survey/adatum/"+s.Slug+"?lang=ar"),
			chromedp.WaitVisible(`main form`, chromedp.ByQuery), screenshot(t, fmt.Sprintf("lang-ar-%d", w)))
	}
	// Back to English (the menu's choice is remembered on /survey).
	run("english again", chromedp.Navigate(base+"/survey/adatum/"+s.Slug+"?lang=en"), chromedp.WaitVisible(`main form`, chromedp.ByQuery))

	// The designer with a question's card open (its rules) and the focus
	// on a card's drag handle.
	for _, w := range []int{390, 1280} {
		var main, focused string
		what := fmt.Sprintf("designer-card-open (%d px)", w)
		run(what,
			chromedp.EmulateViewport(int64(w), 900),
			chromedp.Navigate(base+"/adatum/surveys/"+commute.Slug+"/edit"),
			chromedp.WaitVisible(`#q-3 .dq-line`, chromedp.ByQuery),
			openQuestion(3),
			chromedp.WaitVisible(`#q2-if-0-question`, chromedp.ByQuery),
			chromedp.Focus(`#q2-handle`, chromedp.ByQuery),
			chromedp.Evaluate(`document.activeElement.id`, &focused),
			chromedp.Text(`main`, &main, chromedp.ByQuery),
			noSidewaysScroll(t, what),
			shot(fmt.Sprintf("designer-card-open-%d", w)),
			axeCheck(what))
		if !strings.Contains(main, "Show this question only if") || focused != "q2-handle" {
			t.Errorf("the %s page (focus on %q) lacks its open card:\n%s", what, focused, main)
		}
	}

	// Hiding an answered question of the published survey asks first: the
	// confirmation names it and the answers; back to the designer, nothing
	// saved.
	for _, w := range []int{390, 1280} {
		var main string
		what := fmt.Sprintf("confirm-edit (%d px)", w)
		run(what,
			chromedp.EmulateViewport(int64(w), 900),
			chromedp.Navigate(base+sp+"/edit"),
			chromedp.WaitVisible(`#q-1 .dq-line`, chromedp.ByQuery),
			openQuestion(1),
			chromedp.WaitVisible(`#q0-hidden`, chromedp.ByQuery),
			chromedp.Click(`#q0-hidden`, chromedp.ByQuery),
			clickAndLoad(`.dz-bar button[value=save]`, chromedp.ByQuery),
			chromedp.WaitVisible(`.confirm-hides`, chromedp.ByQuery),
			chromedp.Text(`main`, &main, chromedp.ByQuery),
			noSidewaysScroll(t, what),
			headerInView(t, what),
			shot(fmt.Sprintf("confirm-edit-%d", w)),
			axeCheck(what),
			clickAndLoad(`main button[value=back]`, chromedp.ByQuery),
			chromedp.WaitVisible(`#q0-hidden`, chromedp.ByQuery))
		if want := "“" + s.Questions[0].Text + "” (3 answers) will be hidden"; !strings.Contains(main, want) {
			t.Errorf("the %s page lacks %q:\n%s", what, want, main)
		}
	}
	if got, err := surveys.Get(ctx, "adatum", s.Slug); err != nil || got.Questions[0].Hidden {
		t.Errorf("going back from the confirmation saved the edit: %v", err)
	}

	// The answers table scrolls inside its own box, which keyboard users
	// can reach and screen readers name.
	var region struct {
		Role, Label string
		Tab         int
		Overflow    string
	}
	run("the answers table's box",
		chromedp.EmulateViewport(390, 900),
		chromedp.Navigate(base+sp+"/answers/table"),
		chromedp.WaitVisible(`table.table`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => { const b = document.querySelector("table.table").parentElement;
			return {role: b.getAttribute("role") || "", label: b.getAttribute("aria-label") || "", tab: b.tabIndex, overflow: getComputedStyle(b).overflowX}; })()`, &region))
	if region.Role != "region" || region.Label == "" || region.Tab != 0 || region.Overflow != "auto" {
		t.Errorf("the answers table's box: %+v", region)
	}
}

// headerInView fails t when a link or button of the page's header (such
// as "Sign out") lies, even in part, outside the window.
func headerInView(t *testing.T, what string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var out []string
		err := chromedp.Evaluate(`[...document.querySelectorAll("header a:not(.skip), header button")]
			.filter(e => { const r = e.getBoundingClientRect(); return r.left < 0 || r.right > window.innerWidth; })
			.map(e => e.textContent.trim())`, &out).Do(ctx)
		if err != nil {
			return err
		}
		if len(out) > 0 {
			t.Errorf("the %s page's header cuts off %q", what, out)
		}
		return nil
	})
}

// webhookEndpoints gives Adatum two webhook endpoints, with the server's
// secret key: one with a long URL and deliveries (the last failed), one
// disabled. It returns the first's ID.
func webhookEndpoints(t *testing.T, m *Main) string {
	t.Helper()
	ctx := context.Background()
	key, err := secret.ParseKey(screensSecretKey)
	if err != nil {
		t.Fatal(err)
	}
	box, err := secret.New(key)
	if err != nil {
		t.Fatal(err)
	}
	hooks := store.NewWebhookStore(m.Storage).WithSecrets(box)
	e, err := hooks.Add(ctx, "adatum", store.NewWebhook{URL: "https://integrations.adatum.example/hooks/surveys/customer-satisfaction/receiver?source=surveys-platform", Events: webhook.Events}, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	for i, d := range []store.WebhookDelivery{
		{Event: webhook.ResponseCreated, Status: 204, Duration: 85 * time.Millisecond},
		{Event: webhook.SurveyPublished, Status: 200, Duration: 1200 * time.Millisecond},
		{Event: webhook.ResponseCreated, Status: 503, Error: "it answered 503 Service Unavailable", Duration: 40 * time.Millisecond},
	} {
		d.At, d.ID, d.Attempt = now.Add(time.Duration(i)*time.Minute), "msg_x", 1
		if _, err := hooks.Record(ctx, "adatum", e.ID, d); err != nil {
			t.Fatal(err)
		}
	}
	off, err := hooks.Add(ctx, "adatum", store.NewWebhook{URL: "https://old.adatum.example/hooks", Events: []string{webhook.SurveyClosed}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hooks.Disable(ctx, "adatum", off.ID, "failed 7 attempts; last: the connection or TLS failed"); err != nil {
		t.Fatal(err)
	}
	return e.ID
}

// demoTranslations translates the demo survey's title, description and
// first questions into French and Arabic.
func demoTranslations(s *survey.Survey) map[string]survey.Translation {
	fr := survey.Translation{Title: "Satisfaction des clients", Description: "Dites-nous comment nous nous en sortons : cela prend deux minutes.", Questions: map[string]survey.QuestionText{}}
	ar := survey.Translation{Title: "رضا العملاء", Description: "أخبرنا كيف نؤدي عملنا: يستغرق ذلك دقيقتين.", Questions: map[string]survey.QuestionText{}}
	for i, q := range s.Questions {
		if i >= 4 {
			break
		}
		frq := survey.QuestionText{Text: "Question " + fmt.Sprint(i+1) + " en français : " + q.Text, Choices: map[string]string{}}
		arq := survey.QuestionText{Text: "السؤال " + fmt.Sprint(i+1) + ": " + q.Text, Choices: map[string]string{}}
		for j, c := range q.PossibleAnswers {
			frq.Choices[c], arq.Choices[c] = "Choix "+fmt.Sprint(j+1)+" ("+c+")", "الخيار "+fmt.Sprint(j+1)
		}
		fr.Questions[q.ID], ar.Questions[q.ID] = frq, arq
	}
	return map[string]survey.Translation{"fr": fr, "ar": ar}
}
