package main

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// setThemeField sets a field of the theme form as a person does (a colour
// picked, an option chosen), with the events theme.js listens to.
func setThemeField(id, value string) chromedp.Action {
	return chromedp.Evaluate(`(() => {
		const f = document.getElementById(`+"`"+id+"`"+`);
		f.value = `+"`"+value+"`"+`;
		f.dispatchEvent(new Event("input", {bubbles: true}));
		f.dispatchEvent(new Event("change", {bubbles: true}));
	})()`, nil)
}

// TestBrowserTheme: in Chromium at 390 px, an admin gives the
// organisation a theme on Settings › Theme: one whose text is too light is
// refused, the page naming the pair and its ratio; the live preview takes
// the form's colours as they change; a good theme is saved, and the
// survey's page (and its thank-you page) wear it, pass axe-core and fit
// the window; a survey's own theme then wins over the organisation's.
func TestBrowserTheme(t *testing.T) {
	t.Parallel()
	m := newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	if _, err := testUsers(m.Storage).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	sv := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: "Visitor feedback", Questions: []survey.Question{
		{Text: "How was your visit?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Good", "Fair", "Poor"}},
		{Text: "Anything to add?", Type: survey.SimpleText, Optional: true},
	}}
	if err := store.NewSurveyStore(m.Storage).Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	base := "http://" + m.Addr()
	run := browserRun(t, newBrowser(t))
	axeCheck := newAxeCheck(t)
	shot := func(name string) chromedp.Action { return screenshot(t, "theme-"+name) }

	run("sign in",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example", chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "correct horse battery", chromedp.ByQuery),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`table.table`, chromedp.ByQuery))

	run("the theme page",
		chromedp.Navigate(base+"/adatum/settings"),
		clickAndLoad(`a[href="/adatum/settings/theme"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#theme-preview`, chromedp.ByQuery),
		noSidewaysScroll(t, "theme (390 px)"),
		shot("page-390"),
		axeCheck("theme (390 px)"))

	// The preview follows the form as it changes (theme.js).
	var previewCSS, brand string
	run("live preview",
		setThemeField("theme-primary", "#0b5d1e"),
		chromedp.Poll(`document.getElementById("theme-css").getAttribute("href").startsWith("/theme/preview/0b5d1e-")`, nil, chromedp.WithPollingTimeout(browserStepLimit/2)),
		chromedp.AttributeValue(`#theme-css`, "href", &previewCSS, nil, chromedp.ByQuery),
		chromedp.Poll(`getComputedStyle(document.querySelector("#theme-preview .button.primary")).backgroundColor == "rgb(11, 93, 30)"`, nil, chromedp.WithPollingTimeout(browserStepLimit/2)),
		chromedp.Evaluate(`getComputedStyle(document.querySelector(".site-header .brand")).color`, &brand))
	if brand == "rgb(11, 93, 30)" {
		t.Errorf("the preview's theme reaches the page around it (%s)", previewCSS)
	}

	var problem, verdict string
	run("a theme whose text is too light",
		chromedp.Click(`input[name=use][value=own]`, chromedp.ByQuery),
		setThemeField("theme-text", "#777777"),
		// The contrast table follows the form (the server's check, asked
		// by theme.js), before anything is saved.
		chromedp.Poll(`document.getElementById("contrast-verdict").textContent.includes("1 pair fails")`, nil, chromedp.WithPollingTimeout(browserStepLimit/2)),
		chromedp.Text(`#contrast-table .pair-fails th`, &verdict, chromedp.ByQuery),
		clickAndLoad(`button[name=do][value=save]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#theme-problems`, chromedp.ByQuery),
		chromedp.Text(`#theme-problems`, &problem, chromedp.ByQuery),
		noSidewaysScroll(t, "refused theme (390 px)"),
		shot("refused-390"))
	if verdict != "Text on the background" {
		t.Errorf("the live table marks %q failing, want Text on the background", verdict)
	}
	for _, want := range []string{"Nothing was saved", "Text on the background", "#777777 on #ffffff", "4.48:1", "4.50:1"} {
		if !strings.Contains(problem, want) {
			t.Errorf("the refusal says %q; want it to hold %q", problem, want)
		}
	}
	if tn, _ := store.NewTenantStore(m.Storage).Get(ctx, "adatum"); tn.Theme != nil {
		t.Fatalf("a refused theme was saved: %+v", tn.Theme)
	}

	var saved string
	run("a good theme",
		setThemeField("theme-primary", "#0b5d1e"),
		setThemeField("theme-background", "#fffdf5"),
		setThemeField("theme-text", "#1a1a1a"),
		setThemeField("theme-font", "dejavu"),
		setThemeField("theme-corners", "round"),
		setThemeField("theme-logo", "center"),
		chromedp.Click(`input[name=use][value=own]`, chromedp.ByQuery),
		clickAndLoad(`button[name=do][value=save]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.notice`, chromedp.ByQuery),
		chromedp.Text(`.notice`, &saved, chromedp.ByQuery),
		axeCheck("theme saved (390 px)"))
	if !strings.Contains(saved, "The theme is saved.") {
		t.Fatalf("after saving: %q", saved)
	}

	surveyURL := base + "/survey/adatum/" + sv.Slug
	var button, font, page string
	run("the themed survey at 390 px",
		chromedp.Navigate(surveyURL),
		chromedp.WaitVisible(`.question`, chromedp.ByQuery),
		chromedp.AttributeValue(`#theme-css`, "href", &page, nil, chromedp.ByQuery),
		chromedp.Evaluate(`getComputedStyle(document.querySelector("form .button.primary")).backgroundColor`, &button),
		chromedp.Evaluate(`getComputedStyle(document.body).fontFamily`, &font),
		noSidewaysScroll(t, "themed survey (390 px)"),
		shot("survey-390"),
		axeCheck("themed survey (390 px)"))
	if !strings.HasPrefix(page, "/theme/0b5d1e-fffdf5-1a1a1a-dejavu-round-center.css?v=") || button != "rgb(11, 93, 30)" || !strings.Contains(font, "DejaVu Sans Served") {
		t.Errorf("the survey's theme: stylesheet %q, button %q, font %q", page, button, font)
	}
	run("the themed survey, answered",
		chromedp.Click(`input[type=radio][value=Good]`, chromedp.ByQuery),
		clickAndLoad(`form .button.primary`, chromedp.ByQuery),
		chromedp.WaitVisible(`.thanks`, chromedp.ByQuery),
		noSidewaysScroll(t, "themed thank-you (390 px)"),
		axeCheck("themed thank-you (390 px)"))

	// The survey's own theme wins over the organisation's.
	run("the survey's own theme",
		chromedp.Navigate(base+"/adatum/surveys/"+sv.Slug+"/edit"),
		clickAndLoad(`a[href="/adatum/surveys/`+sv.Slug+`/theme"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#theme-preview`, chromedp.ByQuery),
		chromedp.Click(`input[name=use][value=own]`, chromedp.ByQuery),
		setThemeField("theme-primary", "#8a1c7c"),
		setThemeField("theme-background", "#ffffff"),
		setThemeField("theme-text", "#111111"),
		clickAndLoad(`button[name=do][value=save]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.notice`, chromedp.ByQuery),
		noSidewaysScroll(t, "survey theme (390 px)"),
		axeCheck("survey theme (390 px)"),
		chromedp.Navigate(surveyURL),
		chromedp.WaitVisible(`.question`, chromedp.ByQuery),
		chromedp.Evaluate(`getComputedStyle(document.querySelector("form .button.primary")).backgroundColor`, &button),
		axeCheck("survey with its own theme (390 px)"))
	if button != "rgb(138, 28, 124)" {
		t.Errorf("the survey's own theme: button %q, want rgb(138, 28, 124)", button)
	}
}
