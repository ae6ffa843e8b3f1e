package web_test

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// oneQuestionForm is the designer's form of a survey of one question of
// kind typ, with fields kv ("q.0.<name>", value) added.
func oneQuestionForm(typ survey.QuestionType, kv ...string) url.Values {
	v := url.Values{"title": {"New kinds"}, "n": {"1"}, "q.0.text": {"The question"}, "q.0.type": {string(typ)}, "action": {"save"}}
	return with(v, kv...)
}

// TestNewKindsDesigner: the settings of the yes/no, consent, slider and
// contact kinds and of a short text's pattern are saved from the designer
// (and saved again as the designer shows them), and a bad one is refused
// with a 422 whose message is beside its control.
func TestNewKindsDesigner(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	cookie := app.signedIn(t, "adatum", "ana@adatum.example")

	saved := []struct {
		name  string
		form  url.Values
		check func(t *testing.T, q survey.Question)
		shown []string
	}{
		{"yes or no", oneQuestionForm(survey.YesNo), func(t *testing.T, q survey.Question) {
			if q.Type != survey.YesNo {
				t.Errorf("saved %+v", q)
			}
		}, []string{`<option value="YesNo" selected>Yes or no</option>`}},
		{"consent", oneQuestionForm(survey.Consent, "q.0.statement", " I agree to be contacted\r\nabout my answers. "), func(t *testing.T, q survey.Question) {
			if q.Statement != "I agree to be contacted\nabout my answers." || q.Optional {
				t.Errorf("saved %+v", q)
			}
		}, []string{`<textarea id="q0-statement" name="q.0.statement"`, "I agree to be contacted\nabout my answers.</textarea>"}},
		{"slider", oneQuestionForm(survey.Slider, "q.0.min", "-10", "q.0.max", "+30", "q.0.step", "05", "q.0.low", "Cold", "q.0.high", "Hot"), func(t *testing.T, q survey.Question) {
			if q.Min != "-10" || q.Max != "30" || q.Step != "5" || q.LowLabel != "Cold" || q.HighLabel != "Hot" {
				t.Errorf("saved %+v", q)
			}
		}, []string{`<input id="q0-step" name="q.0.step" value="5"`, `name="q.0.min" value="-10"`, `<label for="q0-min">Smallest`}},
		{"contact", oneQuestionForm(survey.Contact, "q.0.part.name", "required", "q.0.part.email", "optional", "q.0.part.phone", "",
			"q.0.part.street", "", "q.0.part.city", "optional", "q.0.part.postcode", "", "q.0.part.country", ""), func(t *testing.T, q survey.Question) {
			if want := map[string]string{"name": "required", "email": "optional", "city": "optional"}; !maps.Equal(q.Parts, want) {
				t.Errorf("saved parts %v, want %v", q.Parts, want)
			}
		}, []string{`<fieldset class="dz-field dq-parts" id="q0-parts" aria-describedby="q0-parts-hint">`, `<select id="q0-part-name" name="q.0.part.name">`,
			`<option value="required" selected>Required</option>`, `<label for="q0-part-city">Town or city</label>`}},
		{"contact of a new question: the defaults", oneQuestionForm(survey.Contact), func(t *testing.T, q survey.Question) {
			if want := map[string]string{"name": "required", "email": "required"}; !maps.Equal(q.Parts, want) {
				t.Errorf("saved parts %v, want %v", q.Parts, want)
			}
		}, nil},
		{"short text with a pattern", oneQuestionForm(survey.ShortText, "q.0.pattern", ` [A-Z]{2}[0-9]{6} `, "q.0.patternMessage", "Two capitals and six digits."), func(t *testing.T, q survey.Question) {
			if q.Pattern != "[A-Z]{2}[0-9]{6}" || q.PatternMessage != "Two capitals and six digits." {
				t.Errorf("saved %+v", q)
			}
		}, []string{`<input id="q0-pattern" name="q.0.pattern" value="[A-Z]{2}[0-9]{6}"`, `<input id="q0-patternMessage" name="q.0.patternMessage" value="Two capitals and six digits."`}},
		{"slider with the defaults", oneQuestionForm(survey.Slider), func(t *testing.T, q survey.Question) {
			if q.Min != "0" || q.Max != "100" || q.Step != "1" {
				t.Errorf("saved %+v", q)
			}
		}, []string{`<input id="q0-step" name="q.0.step" value="1"`}},
	}
	for _, tc := range saved {
		t.Run(tc.name, func(t *testing.T) {
			code, h, body := app.do(t, "POST", "/adatum/surveys/new", tc.form, cookie)
			if code != http.StatusSeeOther {
				t.Fatalf("save = %d\n%s", code, problems(body))
			}
			slug := strings.TrimSuffix(strings.TrimPrefix(h.Get("Location"), "/adatum/surveys/"), "/edit")
			sv, err := app.surveys.Get(ctx, "adatum", slug)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, sv.Questions[0])
			_, _, body = app.do(t, "GET", "/adatum/surveys/"+slug+"/edit", nil, cookie)
			mustContain(t, "shown", body, tc.shown...)
			again := designerFormOf(t, body)
			again.Set("action", "save")
			if code, _, body := app.do(t, "POST", "/adatum/surveys/"+slug+"/edit", again, cookie); code != http.StatusSeeOther {
				t.Fatalf("save again = %d\n%s", code, problems(body))
			}
			sv2, _ := app.surveys.Get(ctx, "adatum", slug)
			tc.check(t, sv2.Questions[0])
		})
	}

	refused := []struct {
		name        string
		form        url.Values
		id, message string
	}{
		{"consent without a statement", oneQuestionForm(survey.Consent), "q0-statement", "Write the statement people agree to by ticking the box."},
		{"consent statement too long", oneQuestionForm(survey.Consent, "q.0.statement", strings.Repeat("a", 2001)), "q0-statement", "Keep the statement to 2000 characters (it has 2001)."},
		{"a pattern that is not RE2", oneQuestionForm(survey.ShortText, "q.0.pattern", `(\d)\1`, "q.0.patternMessage", "Twice the same digit."), "q0-pattern", "This is not a regular expression Go can read (RE2): invalid escape sequence"},
		{"a pattern without its message", oneQuestionForm(survey.ShortText, "q.0.pattern", `\d+`), "q0-patternMessage", "Say what an answer should look like"},
		{"contact asking nothing", oneQuestionForm(survey.Contact, "q.0.part.name", "", "q.0.part.email", ""), "q0-parts", "Ask for at least one part of the contact details."},
		{"slider step not a number", oneQuestionForm(survey.Slider, "q.0.step", "1.5"), "q0-step", "Give the step as a whole number of at least 1."},
		{"slider step of zero", oneQuestionForm(survey.Slider, "q.0.step", "0"), "q0-step", "Give the step as a whole number of at least 1."},
		{"slider bounds reversed", oneQuestionForm(survey.Slider, "q.0.min", "10", "q.0.max", "5"), "q0-max", "The largest value must be above the smallest (10)."},
		{"slider bound not whole", oneQuestionForm(survey.Slider, "q.0.min", "0.5"), "q0-min", "Give the smallest value as a whole number from -1000000 to 1000000."},
		{"slider steps not whole", oneQuestionForm(survey.Slider, "q.0.max", "10", "q.0.step", "3"), "q0-step", "From 0 to 10 is not a whole number of steps of 3"},
		{"slider of too many positions", oneQuestionForm(survey.Slider, "q.0.max", "1000"), "q0-step", "A slider has at most 201 positions: from 0 to 1000 in steps of 1 makes 1001."},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := app.do(t, "POST", "/adatum/surveys/new", tc.form, cookie)
			if code != http.StatusUnprocessableEntity {
				t.Fatalf("= %d, want 422\n%s", code, problems(body))
			}
			at := strings.Index(body, `id="`+tc.id+`-err"`)
			if at < 0 {
				t.Fatalf("no %s-err in the page; problems: %s", tc.id, problems(body))
			}
			if p := body[at:min(at+400, len(body))]; !strings.Contains(p, tc.message) {
				t.Errorf("beside %s: %q, want %q", tc.id, p, tc.message)
			}
			if !strings.Contains(body, `aria-describedby="`+tc.id+`-err`) {
				t.Errorf("no control described by %s-err", tc.id)
			}
		})
	}
}

// TestNewKindsThroughTheForm answers a survey of the new kinds through the
// real form: each input as the respondent sees it (labelled, without
// JavaScript), bad answers refused beside their question, and each chart
// on the analysis page.
func TestNewKindsThroughTheForm(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	s := &survey.Survey{Tenant: "adatum", Title: "New kinds", State: survey.Published, Questions: []survey.Question{
		{Text: "Would you buy again?", Type: survey.YesNo},
		{Text: "Your consent", Type: survey.Consent, Statement: "I agree that my answers are kept\nfor a year."},
		{Text: "How warm?", Type: survey.Slider, Min: "-10", Max: "30", Step: "5", LowLabel: "Cold", HighLabel: "Hot", InResults: true},
		{Text: "How can we reach you?", Type: survey.Contact, InResults: true, Parts: map[string]string{"name": "required", "email": "required", "phone": "optional"}},
		{Text: "Your member number", Type: survey.ShortText, Optional: true, Pattern: `[A-Z]{2}[0-9]{6}`, PatternMessage: "Two capitals and six digits, like AB123456."},
	}, PublicResults: true}
	if err := app.surveys.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	s, err := app.surveys.Get(ctx, "adatum", s.Slug)
	if err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	path := "/survey/adatum/" + s.Slug
	id := func(i int) string { return s.Questions[i].ID }

	_, _, body := app.do(t, "GET", path, nil, nil)
	for i, want := range [][]string{
		{`type="radio" name="q-` + id(0) + `" value="Yes" required`, `<span>Yes</span>`, `value="No" required`, `<span>No</span>`},
		{`<label class="choice consent" for="f-` + id(1) + `"><input type="checkbox" id="f-` + id(1) + `" name="q-` + id(1) + `" value="accepted" required>`,
			`<span class="consent-statement">I agree that my answers are kept` + "\n" + `for a year.</span>`},
		// The range starts in the middle, which is no answer until the
		// box is ticked (required: the browser asks for the tick).
		{`<label class="sr-only" for="f-` + id(2) + `">Your answer</label>`,
			`<input type="range" class="slider-range" id="f-` + id(2) + `" name="q-` + id(2) + `-slider" data-answer-if="f-` + id(2) + `-set" min="-10" max="30" step="5" value="10" aria-describedby="f-` + id(2) + `-ends f-` + id(2) + `-hint">`,
			`<p class="scale-ends" id="f-` + id(2) + `-ends"><span>-10: Cold</span> <span>30: Hot</span></p>`,
			`<input type="checkbox" id="f-` + id(2) + `-set" name="q-` + id(2) + `-set" value="1" data-not-answer required>`, "I have set the slider to my answer",
			"From -10 to 30, in steps of 5."},
		// A labelled line per part, the browser's autofill named; only the
		// required parts required.
		{`<label for="f-` + id(3) + `-name">Name</label>`, `<input class="line-input" type="text" id="f-` + id(3) + `-name" name="q-` + id(3) + `-name" value="" autocomplete="name" maxlength="100" required>`,
			`<input class="line-input" type="email" id="f-` + id(3) + `-email" name="q-` + id(3) + `-email" value="" autocomplete="email" maxlength="254" spellcheck="false" required>`,
			`<label for="f-` + id(3) + `-phone">Phone number <span class="muted">(Optional)</span></label>`,
			`<input class="line-input" type="tel" id="f-` + id(3) + `-phone" name="q-` + id(3) + `-phone" value="" autocomplete="tel" maxlength="30">`},
		// The pattern's message is the field's hint; no HTML pattern
		// (the browser's syntax is not RE2's).
		{`<p class="kind-hint" id="f-` + id(4) + `-hint"> Two capitals and six digits, like AB123456.</p>`, `aria-describedby="f-` + id(4) + `-hint`},
	} {
		mustContain(t, "question "+id(i), fieldsetOf(t, body, id(i)), want...)
	}

	good := []map[string]string{
		{"0": "Yes", "1": "accepted", "2-slider": "10", "2-set": "1", "3-name": "Ana Berg", "3-email": "ana@example.com", "4": "AB123456"},
		{"0": "Yes", "1": "accepted", "2-slider": "-5", "2-set": "1", "3-name": "Bo", "3-email": "bo@example.com", "3-phone": "+44 20 7946 0000"},
		{"0": "No", "1": "accepted", "2-slider": "30", "2-set": "1", "3-name": "Cy", "3-email": "cy@example.com"},
	}
	field := func(k string) string {
		i, suffix, _ := strings.Cut(k, "-")
		n := int(i[0] - '0')
		if suffix != "" {
			return "q-" + id(n) + "-" + suffix
		}
		return "q-" + id(n)
	}
	for _, a := range good {
		v := url.Values{"token": {app.token(t, path)}}
		for k, ans := range a {
			v.Set(field(k), ans)
		}
		if code, _, body := app.do(t, "POST", path, v, nil); code != 303 {
			t.Fatalf("answer %v = %d\n%s", a, code, body)
		}
	}

	// Bad answers, then none: each beside its question, in its own words.
	for _, tc := range []struct {
		sent map[string]string
		want map[int]string
	}{
		{map[string]string{"0": "Maybe", "1": "on", "2-slider": "7", "2-set": "1", "3-name": "Di", "3-email": "di@example.com", "3-phone": "call me", "4": "ab123456"}, map[int]string{0: "Please answer yes or no.", 1: "To give your consent, tick the box; to decline, leave it empty.",
			4: "Two capitals and six digits, like AB123456.",
			2: "Please choose a value from -10 to 30 in steps of 5.", 3: "Please give a phone number in digits, like &#43;44 20 7946 0000."}}, // html/template writes + so
		{map[string]string{"3-name": "Di"}, map[int]string{3: "Please also give: E-mail address."}},
		{map[string]string{"2-slider": "35", "2-set": "1"}, map[int]string{2: "Please choose a whole number from -10 to 30."}},
		// The range untouched (it always sends its value), the box not
		// ticked: no answer.
		{map[string]string{"2-slider": "10"}, map[int]string{0: "Please answer yes or no.", 1: "Please tick the box to give your consent.",
			2: "Please set the slider to your answer and tick the box under it.", 3: "Please give your contact details."}},
	} {
		v := url.Values{"token": {app.token(t, path)}}
		for k, ans := range tc.sent {
			v.Set(field(k), ans)
		}
		code, _, body := app.do(t, "POST", path, v, nil)
		if code != 422 {
			t.Fatalf("%v = %d, want 422", tc.sent, code)
		}
		for i, msg := range tc.want {
			fs := fieldsetOf(t, body, id(i))
			mustContain(t, "question "+id(i), fs, `<p class="field-error" id="err-`+id(i)+`"><span class="sr-only">Error:</span> `+msg+`</p>`, `aria-invalid="true"`)
		}
	}
	app.stored(t)

	// A respondent reading German sees "Ja" and "Nein".
	_, _, body = app.do(t, "GET", path, nil, map[string]string{"Accept-Language": "de"})
	mustContain(t, "German", fieldsetOf(t, body, id(0)), "<span>Ja</span>", "<span>Nein</span>")

	cookie := app.signedIn(t, "adatum", "ana@adatum.example")

	// The texts a respondent reads are translated on the translations
	// page, and shown to a respondent reading that language.
	tr := "/adatum/surveys/" + s.Slug + "/translations"
	_, _, body = app.do(t, "GET", tr+"?lang=de", nil, cookie)
	mustContain(t, "translations", body, `name="questions.`+id(1)+`.statement"`, "Consent statement", `name="questions.`+id(4)+`.patternMessage"`)
	if code, _, body := app.do(t, "POST", tr, url.Values{"lang": {"de"}, "language": {"en"}, "questions." + id(1) + ".statement": {"Ich stimme zu."},
		"questions." + id(4) + ".patternMessage": {"Zwei Großbuchstaben und sechs Ziffern."}}, cookie); code != 303 {
		t.Fatalf("save translations = %d\n%s", code, body)
	}
	app.pastCacheTTL()
	_, _, body = app.do(t, "GET", path, nil, map[string]string{"Accept-Language": "de"})
	mustContain(t, "German", fieldsetOf(t, body, id(1)), `<span class="consent-statement">Ich stimme zu.</span>`)
	mustContain(t, "German", fieldsetOf(t, body, id(4)), "Zwei Großbuchstaben und sechs Ziffern.")
	// A German respondent's answer not fitting: the message in German.
	v := url.Values{"token": {app.token(t, path)}, "q-" + id(4): {"nope"}}
	_, _, body = app.do(t, "POST", path, v, map[string]string{"Accept-Language": "de"})
	mustContain(t, "German problem", fieldsetOf(t, body, id(4)), `</span> Zwei Großbuchstaben und sechs Ziffern.</p>`)

	code, _, body := app.do(t, "GET", "/adatum/surveys/"+s.Slug+"/analyze", nil, cookie)
	if code != 200 {
		t.Fatalf("analysis = %d", code)
	}
	sections := strings.Split(body, `<section class="question analysis-q"`)[1:]
	if len(sections) < len(s.Questions) {
		t.Fatalf("analysis has %d question sections", len(sections))
	}
	for i, want := range [][]string{
		{`<span class="bars-label">Yes</span>`, `<strong>2</strong><span class="sr-only"> answers,</span> <span class="bars-share">67%</span>`, `<span class="bars-label">No</span>`, `<span class="bars-share">33%</span>`},
		{"<dt>Accepted</dt><dd>3</dd>"},
		// -5, 10, 30: mean 11.67, median 10; a bar per position.
		{"<dt>Mean</dt><dd>11.67</dd>", "<dt>Median</dt><dd>10</dd>", `<span class="bars-label">-5</span>`, `<span class="bars-label">30</span>`, `<span class="bars-share">33%</span>`},
		// How many gave each part, and, as for written answers, the
		// latest ones (this page is the subscriber's alone).
		{`<span class="bars-label">Name</span>`, `<span class="bars-label">Phone number</span>`, `<strong>1</strong><span class="sr-only"> answer,</span> <span class="bars-share">33%</span>`,
			`<blockquote class="written-text">Bo · bo@example.com · &#43;44 20 7946 0000</blockquote>`},
	} {
		mustContain(t, "analysis of question "+id(i), sections[i], want...)
	}
	// The chart itself holds no contact details.
	chart := sections[3][:strings.Index(sections[3], `<div class="written">`)]
	mustLack(t, "chart of the contact question", chart, "Ana Berg", "ana@example.com", "7946")

	// The public results page shows the slider's chart, never the
	// contact question (written by people about themselves), though it
	// is ticked for the results.
	_, _, body = app.do(t, "GET", path+"/results", nil, nil)
	mustContain(t, "results", body, "How warm?")
	mustLack(t, "results", body, "How can we reach you?", "Ana Berg", "ana@example.com")

	// The export: a column per part asked.
	_, _, csv := app.do(t, "GET", "/adatum/surveys/"+s.Slug+"/export.csv", nil, cookie)
	mustContain(t, "export", csv, "How can we reach you? [Name]", "How can we reach you? [E-mail address]", "How can we reach you? [Phone number]", "Ana Berg,ana@example.com,")
}

// TestOtherTickedNeedsItsText: a respondent who ticks "Other" of a
// multiple choice question and writes nothing is told to write their
// answer, beside the question, even when the question is optional.
func TestOtherTickedNeedsItsText(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	s := &survey.Survey{Tenant: "adatum", Title: "Other", State: survey.Published, Questions: []survey.Question{
		{Text: "What do you drink?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Coffee", "Tea"}, Other: true, Optional: true},
	}}
	if err := app.surveys.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	s, _ = app.surveys.Get(ctx, "adatum", s.Slug)
	app.pastCacheTTL()
	path, id := "/survey/adatum/"+s.Slug, s.Questions[0].ID
	_, _, body := app.do(t, "GET", path, nil, nil)
	other := `<input type="radio" id="f-` + id + `-otherchoice" name="q-` + id + `" value="(other)" data-not-answer`
	mustContain(t, "page", body, other)
	code, _, body := app.do(t, "POST", path, url.Values{"token": {app.token(t, path)}, "q-" + id: {"(other)"}, "q-" + id + "-other": {" "}}, nil)
	if code != 422 {
		t.Fatalf("Other ticked without a text = %d, want 422", code)
	}
	mustContain(t, "refused", fieldsetOf(t, body, id), `<span class="sr-only">Error:</span> Please say what your other answer is.</p>`, other+` checked`)
	if code, _, body := app.do(t, "POST", path, url.Values{"token": {app.token(t, path)}, "q-" + id: {"(other)"}, "q-" + id + "-other": {"Mate"}}, nil); code != 303 {
		t.Fatalf("Other ticked with a text = %d\n%s", code, body)
	}
	// Left wholly empty, the optional question is no answer.
	if code, _, body := app.do(t, "POST", path, url.Values{"token": {app.token(t, path)}}, nil); code != 303 {
		t.Fatalf("nothing = %d\n%s", code, body)
	}
}
