package web_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// publish stores a published survey of the tenant adatum.
func (a *testApp) publish(t testing.TB, s *survey.Survey) *survey.Survey {
	t.Helper()
	s.Tenant, s.State = "adatum", survey.Published
	if err := a.surveys.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRespondentPagesCarryTheirBrand: a respondent's pages (the survey,
// an error on its routes) show the subscriber's organisation, not the
// site's sign-in header, even to a signed-in subscriber, end with a small
// "Powered by" line, name an icon, and describe the survey for search
// engines and link previews; the subscribers' pages keep the header.
func TestRespondentPagesCarryTheirBrand(t *testing.T) {
	app := newTestApp(t)
	if _, err := store.NewUserStore(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	signedIn := map[string]string{"Cookie": "surveys_session=" + c.Value}
	long := strings.Repeat("Tell us how the new opening hours work for you. ", 6)
	sv := app.publish(t, &survey.Survey{Title: "Opening hours", Description: "Short\nintro <b>",
		Questions: []survey.Question{{Text: "Good?", Type: survey.FiveStars}}})
	lv := app.publish(t, &survey.Survey{Title: "Long one", Description: long,
		Questions: []survey.Question{{Text: "Good?", Type: survey.FiveStars}}})
	bare := app.publish(t, &survey.Survey{Title: "No words", Questions: []survey.Question{{Text: "Good?", Type: survey.FiveStars}}})
	const header, powered = `<nav aria-label="Account"`, `Powered by <a href="/" lang="en">Surveys</a>`
	icon := regexp.MustCompile(`<link rel="icon" href="/static/favicon.svg\?v=[0-9a-f]+" type="image/svg\+xml">`)
	for _, tc := range []struct {
		name, path string
		head       map[string]string
		code       int
		want, not  []string
	}{
		{"survey", "/survey/adatum/" + sv.Slug, signedIn, 200,
			[]string{powered, `<meta name="description" content="Short intro &lt;b&gt;">`, `<p class="card-tenant">`},
			[]string{header, "Subscriber sign-in", "Start free", "ana@adatum.example"}},
		{"long description", "/survey/adatum/" + lv.Slug, nil, 200,
			[]string{`<meta name="description" content="Tell us how the new opening hours work for you. Tell us`, `…">`},
			[]string{header}},
		{"no description", "/survey/adatum/" + bare.Slug, nil, 200,
			[]string{`<meta name="description" content="No words — `}, []string{header}},
		{"no such survey", "/survey/adatum/no-such-survey", nil, 404, []string{powered}, []string{header, "Start free"}},
		{"sign-in page", "/login", nil, 200, []string{header, "Subscriber sign-in"}, []string{powered, `name="description"`}},
		{"dashboard", "/adatum/surveys", signedIn, 200, []string{header, "ana@adatum.example"}, []string{powered}},
	} {
		code, _, body := app.do(t, "GET", tc.path, nil, tc.head)
		if code != tc.code {
			t.Errorf("%s: GET %s = %d, want %d", tc.name, tc.path, code, tc.code)
			continue
		}
		if !icon.MatchString(body) {
			t.Errorf("%s: no icon link", tc.name)
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: page lacks %q", tc.name, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(body, n) {
				t.Errorf("%s: page has %q", tc.name, n)
			}
		}
	}
	// The thank-you page names the organisation and offers another answer
	// where the survey takes several, not other organisations' surveys.
	once := app.publish(t, &survey.Survey{Title: "Once", OnePer: survey.OnePerBrowser, Questions: []survey.Question{{Text: "Good?", Type: survey.FiveStars}}})
	for _, tc := range []struct {
		slug      string
		want, not []string
	}{
		{sv.Slug, []string{`<p class="card-tenant">`, `<a href="/survey/adatum/` + sv.Slug + `">Submit another answer</a>`}, []string{"See other surveys"}},
		{once.Slug, []string{`<p class="card-tenant">`}, []string{"Submit another answer", "See other surveys"}},
	} {
		_, _, body := app.do(t, "GET", "/survey/adatum/"+tc.slug+"/thankyou", nil, nil)
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("thank-you page of %s lacks %q", tc.slug, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(body, n) {
				t.Errorf("thank-you page of %s has %q", tc.slug, n)
			}
		}
	}
	if m := regexp.MustCompile(`<meta name="description" content="([^"]*)">`).FindStringSubmatch(func() string {
		_, _, b := app.do(t, "GET", "/survey/adatum/"+lv.Slug, nil, nil)
		return b
	}()); m == nil || len([]rune(m[1])) > 161 {
		t.Errorf("long description: meta %v, want at most 160 characters and an ellipsis", m)
	}
}

// TestRespondentPage: the page around every question shows the survey's
// description, marks each question required or optional in its legend,
// ties the help and the problem to the inputs, and moves the focus to the
// summary of the problems after a refused submit. Stars go 1 to 5.
func TestRespondentPage(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv := app.publish(t, &survey.Survey{Title: "Around questions",
		Description: "First line\nsecond line <b>\n\n\nSecond paragraph",
		Questions: []survey.Question{
			{Text: "What did you eat?", Type: survey.SimpleText, Help: "A dish or two <i>"},
			{Text: "Rate the food", Type: survey.FiveStars, Optional: true},
			{Text: "Anything else?", Type: survey.SimpleText, Optional: true},
		}})
	app.pastCacheTTL()
	text, stars, more := sv.Questions[0].ID, sv.Questions[1].ID, sv.Questions[2].ID
	path := "/survey/adatum/" + sv.Slug
	tests := []struct {
		name     string
		form     func(token string) url.Values // nil: GET
		code     int
		contains []string
		absent   []string
	}{
		{"form", nil, 200, []string{
			`<div class="survey-description"><p>First line` + "\n" + `second line &lt;b&gt;</p><p>Second paragraph</p></div>`,
			"3 questions: 1 required, 2 optional.",
			`What did you eat? <span class="tag tag-required">Required</span></legend>`,
			`Rate the food <span class="tag tag-optional">Optional</span></legend>`,
			`<p class="help" id="help-` + text + `">A dish or two &lt;i&gt;</p>`,
			`<textarea id="f-` + text + `" name="q-` + text + `" rows="4" maxlength="4000" required aria-describedby="help-` + text + `">`,
			`<textarea id="f-` + more + `" name="q-` + more + `" rows="4" maxlength="4000"></textarea>`,
		}, []string{"Every question needs an answer", "autofocus", "aria-invalid", `id="help-` + stars + `"`, `name="q-` + stars + `" value="1" required`}},
		{"refused", func(tok string) url.Values { return url.Values{"token": {tok}} }, 422, []string{
			"<title>Error: Around questions",
			`id="form-errors" tabindex="-1" aria-labelledby="form-errors-title" autofocus>`,
			`<h2 id="form-errors-title">Please check 1 answer</h2>`,
			`<a href="#q-` + text + `">Question 1: Please answer this question.</a>`,
			`<fieldset class="question has-error" id="q-` + text + `" tabindex="-1">`,
			`<p class="field-error" id="err-` + text + `"><span class="sr-only">Error:</span> Please answer this question.</p>`,
			`aria-describedby="help-` + text + ` err-` + text + `" aria-invalid="true">`,
		}, []string{`id="err-` + stars + `"`, `id="err-` + more + `"`, `<fieldset class="question has-error" id="q-` + stars}},
		{"refused star", func(tok string) url.Values {
			return url.Values{"token": {tok}, "q-" + text: {"Soup"}, "q-" + stars: {"7"}}
		}, 422, []string{
			`<a href="#q-` + stars + `">Question 2: A rating is from 1 to 5 stars.</a>`,
			`name="q-` + stars + `" value="1" aria-describedby="err-` + stars + `" aria-invalid="true">`,
			`name="q-` + stars + `" value="5" aria-describedby="err-` + stars + `" aria-invalid="true">`,
			">Soup</textarea>",
		}, []string{`id="err-` + text + `"`}},
		{"expired", func(string) url.Values {
			return url.Values{"token": {"0639318301636506446-5abac7"}, "q-" + text: {"Soup"}}
		}, 422,
			[]string{`id="form-message" tabindex="-1" autofocus><p>This form has expired`, ">Soup</textarea>"}, []string{"form-errors"}},
		{"optional left out", func(tok string) url.Values { return url.Values{"token": {tok}, "q-" + text: {"Soup"}} }, 303, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var code int
			var body string
			if tc.form == nil {
				code, _, body = app.do(t, "GET", path, nil, nil)
			} else {
				code, _, body = app.do(t, "POST", path, tc.form(app.token(t, path)), nil)
			}
			if code != tc.code {
				t.Fatalf("%s = %d, want %d\n%s", tc.name, code, tc.code, body)
			}
			for _, s := range tc.contains {
				if !strings.Contains(body, s) {
					t.Errorf("body lacks %q", s)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(body, s) {
					t.Errorf("body has %q", s)
				}
			}
			if code != 303 {
				// The stars read and move 1 → 5: the first radio is 1.
				values := regexp.MustCompile(`name="q-`+stars+`" value="(\d)"`).FindAllStringSubmatch(body, -1)
				var got []string
				for _, v := range values {
					got = append(got, v[1])
				}
				if strings.Join(got, "") != "12345" {
					t.Errorf("the stars' radios in the page's order: %v, want 1 to 5", got)
				}
			}
		})
	}
}

// TestThankYouPage: the thank-you page shows the tenant's logo and the
// survey's own message when it has one (in paragraphs, as text), else
// the usual thanks.
func TestThankYouPage(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	logo, err := store.NewLogoStore(app.st).Put(ctx, "adatum", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	tenants := store.NewTenantStore(app.st).WithSecrets(testBox)
	tn, err := tenants.Get(ctx, "adatum")
	if err != nil {
		t.Fatal(err)
	}
	tn.Logo = logo
	if err := tenants.Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
	own := app.publish(t, &survey.Survey{Title: "With thanks", ThankYou: "Thanks a lot!\nThe team\n\nSee you <soon>",
		Questions: []survey.Question{{Text: "Q", Type: survey.SimpleText}}})
	plain := app.publish(t, &survey.Survey{Title: "Without thanks", Questions: []survey.Question{{Text: "Q", Type: survey.SimpleText}}})
	app.pastCacheTTL()
	logoTag := `<img class="tenant-logo" src="/logos/` + logo + `" alt="Adatum`
	tests := []struct {
		name, path       string
		contains, absent []string
	}{
		{"own message", "/survey/adatum/" + own.Slug + "/thankyou",
			[]string{logoTag, `<div class="thanks-message"><p>Thanks a lot!` + "\n" + `The team</p><p>See you &lt;soon&gt;</p></div>`},
			[]string{"thanks you for your time"}},
		{"usual thanks", "/survey/adatum/" + plain.Slug + "/thankyou",
			[]string{logoTag, "Adatum thanks you for your time."}, []string{"thanks-message"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := app.do(t, "GET", tc.path, nil, nil)
			if code != http.StatusOK {
				t.Fatalf("GET %s = %d", tc.path, code)
			}
			for _, s := range tc.contains {
				if !strings.Contains(body, s) {
					t.Errorf("body lacks %q\n%s", s, body)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(body, s) {
					t.Errorf("body has %q", s)
				}
			}
		})
	}
}

// TestShuffledChoices: a survey with a shuffled question is rendered for
// each respondent, its choices in orders of their own, and never kept;
// a survey without one is rendered once and kept (respond_forms.go).
func TestShuffledChoices(t *testing.T) {
	t.Parallel()
	st := backends.Local(t)
	// Surveys cached for the whole test, as in production: only the
	// rendered forms' cache decides what is rendered again.
	app := newTestAppOn(t, st, func(d *web.Deps) {
		d.Public = store.NewCachedSurveys(store.NewSurveyStore(st), store.NewTenantStore(st).WithSecrets(testBox), time.Hour)
	})
	choices := make([]string, 20)
	for i := range choices {
		choices[i] = "Choice " + string(rune('A'+i))
	}
	shuffled := app.publish(t, &survey.Survey{Title: "Shuffled", Questions: []survey.Question{
		{Text: "Pick one", Type: survey.MultipleChoice, PossibleAnswers: choices, Shuffle: true}}})
	fixed := app.publish(t, &survey.Survey{Title: "Fixed", Questions: []survey.Question{
		{Text: "Pick one", Type: survey.MultipleChoice, PossibleAnswers: choices}}})
	order := func(t *testing.T, sv *survey.Survey, body string) string {
		t.Helper()
		var got []string
		for _, m := range regexp.MustCompile(`name="q-`+sv.Questions[0].ID+`" value="([^"]+)"`).FindAllStringSubmatch(body, -1) {
			got = append(got, m[1])
		}
		if len(got) != len(choices) {
			t.Fatalf("%d choices shown, want %d", len(got), len(choices))
		}
		return strings.Join(got, "|")
	}
	tests := []struct {
		name   string
		sv     *survey.Survey
		orders int // different orders of the choices in 5 GETs: at least
		kept   int // forms kept rendered after them
	}{
		{"shuffled", shuffled, 2, 0},
		{"fixed", fixed, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := "/survey/adatum/" + tc.sv.Slug
			seen := map[string]bool{}
			for range 5 {
				code, h, body := app.do(t, "GET", path, nil, nil)
				if code != 200 || h.Get("Cache-Control") != "no-store" {
					t.Fatalf("GET %s = %d, Cache-Control %q", path, code, h.Get("Cache-Control"))
				}
				seen[order(t, tc.sv, body)] = true
			}
			if len(seen) < tc.orders || (tc.orders == 1 && len(seen) != 1) {
				t.Errorf("%d different orders in 5 GETs, want %d", len(seen), tc.orders)
			}
			if tc.orders == 1 && !seen[strings.Join(choices, "|")] {
				t.Errorf("the choices are not in their own order: %v", seen)
			}
			if n := web.CachedForms(app.web); n != tc.kept {
				t.Errorf("%d forms kept, want %d", n, tc.kept)
			}
			// The form's token is good for an answer.
			form := url.Values{"token": {app.token(t, path)}, "q-" + tc.sv.Questions[0].ID: {choices[3]}}
			if code, _, body := app.do(t, "POST", path, form, nil); code != 303 {
				t.Fatalf("POST %s = %d\n%s", path, code, body)
			}
		})
	}
}
