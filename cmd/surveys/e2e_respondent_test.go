package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestBrowserRespondentPage: a respondent sends a survey with a
// description, help texts and optional questions empty; the refused form
// (422) has the focus on its summary of the problems and passes axe-core;
// the stars go up from 1 to 2 with Tab and →, filled up to the chosen
// one, with a focus ring; at 390 px nothing scrolls sideways; once
// answered, the thank-you page shows the survey's message.
func TestBrowserRespondentPage(t *testing.T) {
	t.Parallel()
	m := newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	sv := &survey.Survey{Tenant: "adatum", State: survey.Published, Title: "Lunch at the canteen",
		Description: "Tell us about today's lunch.\nIt takes two minutes.\n\nYour answers are anonymous.",
		ThankYou:    "Thanks, see you tomorrow!\n\nThe canteen team",
		Questions: []survey.Question{
			{Text: "What did you eat?", Type: survey.SimpleText, Help: "One or two dishes are enough."},
			{Text: "Rate the food", Type: survey.FiveStars, Optional: true, Help: "1 star is poor, 5 stars excellent."},
			{Text: "Which dessert did you take?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Cake", "Fruit", "Yoghurt", "None"}, Shuffle: true},
			{Text: "Anything else?", Type: survey.SimpleText, Optional: true},
		}}
	ctx := context.Background()
	if err := store.NewSurveyStore(m.Storage).Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	// The tenant's logo, which the survey and thank-you pages show.
	logo, err := store.NewLogoStore(m.Storage).Put(ctx, "adatum", testPNG(t))
	if err != nil {
		t.Fatal(err)
	}
	tenants := store.NewTenantStore(m.Storage)
	tn, err := tenants.Get(ctx, "adatum")
	if err != nil {
		t.Fatal(err)
	}
	tn.Logo = logo
	if err := tenants.Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
	text, stars, dessert := sv.Questions[0].ID, sv.Questions[1].ID, sv.Questions[2].ID
	browser := newBrowser(t)
	run := browserRun(t, browser)
	axeCheck := newAxeCheck(t)
	base := "http://" + m.Addr()

	var focused string
	run("refused",
		chromedp.Navigate(base+"/survey/adatum/"+sv.Slug),
		chromedp.WaitVisible(`form textarea`),
		axeCheck("respondent survey"),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`#form-errors`),
		// (The browser focuses the autofocus control as it next paints.)
		chromedp.Poll(`document.activeElement.id === "form-errors"`, nil, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(time.Minute)),
		chromedp.Evaluate(`document.activeElement.id`, &focused),
		axeCheck("respondent survey refused (422)"))
	if focused != "form-errors" {
		t.Errorf("after a refused submit the focus is on %q, want the error summary", focused)
	}
	// The summary's links take the focus to their question's first
	// control (errors.js): the text's field.
	var linked struct{ ID, Name, Value, Ring string }
	focusOf := chromedp.Evaluate(`({id: document.activeElement.id, name: document.activeElement.name, value: document.activeElement.value,
		ring: getComputedStyle(document.activeElement).outlineStyle})`, &linked)
	run("summary link",
		chromedp.Evaluate(`window.stayed = true`, nil),
		chromedp.Focus(`#form-errors a`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.Poll(`document.activeElement.tagName === 'TEXTAREA'`, nil),
		focusOf)
	if linked.ID != "f-"+text || linked.Ring == "none" {
		t.Errorf("the summary's first link focuses %q (outline %q), want f-%s with a ring", linked.ID, linked.Ring, text)
	}
	// The dessert (its choices shuffled): the first one shown.
	var firstShown string
	run("second summary link",
		chromedp.Focus(`#form-errors li:nth-child(2) a`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Enter),
		chromedp.Poll(`document.activeElement.type === 'radio'`, nil),
		focusOf,
		chromedp.Evaluate(`document.querySelector('input[name="q-`+dessert+`"]').value`, &firstShown))
	// Enter followed the links and reached neither control: no line in
	// the text, no form sent from the radio button (a new page).
	var stayed struct {
		Stayed bool
		Text   string
	}
	run("no Enter in the controls",
		chromedp.Evaluate(`({stayed: window.stayed === true, text: document.getElementById("f-`+text+`").value})`, &stayed))
	if !stayed.Stayed || stayed.Text != "" {
		t.Errorf("Enter on the summary's links reached the controls: %+v", stayed)
	}
	if linked.Name != "q-"+dessert || linked.Value != firstShown {
		t.Errorf("the summary's second link focuses %q=%q, want the first choice shown of q-%s (%q)", linked.Name, linked.Value, dessert, firstShown)
	}
	// The stars: Tab from the text reaches 1, → chooses 2.
	type starState struct {
		Active, Checked string
		Ring            string
		Colors          []string
	}
	state := func(s *starState) chromedp.Action {
		return chromedp.Evaluate(`(() => {
			const a = document.activeElement, c = document.querySelector('input[name="q-`+stars+`"]:checked');
			const ring = a.type === 'radio' ? getComputedStyle(a.nextElementSibling) : null;
			return {active: a.name === 'q-`+stars+`' ? a.value : a.id, checked: c ? c.value : '',
				ring: ring ? ring.outlineStyle + ' ' + ring.outlineWidth : '',
				colors: [...document.querySelectorAll('#q-`+stars+` label')].map(l => getComputedStyle(l).color)};
		})()`, s)
	}
	var first, second, back starState
	run("stars by keyboard",
		chromedp.Focus(`#f-`+text, chromedp.ByQuery),
		chromedp.KeyEvent(kb.Tab),
		state(&first),
		chromedp.KeyEvent(kb.ArrowRight),
		state(&second),
		chromedp.KeyEvent(kb.ArrowLeft),
		state(&back),
		chromedp.KeyEvent(kb.ArrowRight))
	const filled, empty = "rgb(184, 111, 0)", "rgba(0, 0, 0, 0)"
	tests := []struct {
		name           string
		got            starState
		active, chosen string
		filled         int
	}{
		{"Tab", first, "1", "", 0},
		{"→", second, "2", "2", 2},
		{"←", back, "1", "1", 1},
	}
	for _, tc := range tests {
		if tc.got.Active != tc.active || tc.got.Checked != tc.chosen {
			t.Errorf("after %s: the focus is on %q and %q is chosen, want %q and %q", tc.name, tc.got.Active, tc.got.Checked, tc.active, tc.chosen)
		}
		if tc.got.Ring != "solid 3px" {
			t.Errorf("after %s: the focused star's ring is %q, want solid 3px", tc.name, tc.got.Ring)
		}
		want := make([]string, 5)
		for i := range want {
			want[i] = empty
			if i < tc.filled {
				want[i] = filled
			}
		}
		if strings.Join(tc.got.Colors, ";") != strings.Join(want, ";") {
			t.Errorf("after %s: the stars are %v, want %v", tc.name, tc.got.Colors, want)
		}
	}

	// Hovering a star previews the rating up to it; the radios and stars
	// are targets of 24 × 24 px at least.
	var hovered starState
	var at struct{ X, Y, Smallest float64 }
	run("hover and targets",
		chromedp.ScrollIntoView(`label[for="f-`+stars+`-4"]`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => {
			const r = document.querySelector('label[for="f-`+stars+`-4"]').getBoundingClientRect();
			const sizes = [...document.querySelectorAll('.choice input, .stars label')].map(e => e.getBoundingClientRect()).flatMap(r => [r.width, r.height]);
			return {x: r.x + r.width / 2, y: r.y + r.height / 2, smallest: Math.min(...sizes)};
		})()`, &at))
	run("hover", chromedp.MouseEvent(input.MouseMoved, at.X, at.Y), state(&hovered), chromedp.MouseEvent(input.MouseMoved, 1, 1))
	if want := []string{filled, filled, filled, filled, empty}; strings.Join(hovered.Colors, ";") != strings.Join(want, ";") {
		t.Errorf("hovering the 4th star: the stars are %v, want %v", hovered.Colors, want)
	}
	if at.Smallest < 24 {
		t.Errorf("a radio or star is %.1f px, want 24 px at least", at.Smallest)
	}

	// On a phone.
	run("on a phone",
		chromedp.EmulateViewport(390, 844),
		chromedp.Evaluate(`window.scrollTo(0, 0)`, nil),
		noSidewaysScroll(t, "respondent survey refused"),
		axeCheck("respondent survey refused (390 px)"),
		screenshot(t, "survey-refused-phone"))
	var thanks string
	var logoShown bool
	run("answered",
		chromedp.SendKeys(`#f-`+text, "Soup"),
		chromedp.Click(`//label[contains(., "Fruit")]`),
		chromedp.Click(`button[type=submit]`),
		chromedp.WaitVisible(`.thanks`),
		chromedp.Text(`.thanks`, &thanks),
		chromedp.Evaluate(`(() => { const i = document.querySelector('.thanks img.tenant-logo'); return !!i && i.complete && i.naturalWidth > 0; })()`, &logoShown),
		noSidewaysScroll(t, "thank-you"),
		axeCheck("thank-you with a message (390 px)"),
		screenshot(t, "thankyou-message-phone"))
	if !strings.Contains(thanks, "Thanks, see you tomorrow!") || !strings.Contains(thanks, "The canteen team") || !logoShown {
		t.Errorf("thank-you page: %q, logo shown %v", thanks, logoShown)
	}
}
