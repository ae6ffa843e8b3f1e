package web_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// fieldsetOf is the HTML of question id's fieldset on a survey page.
func fieldsetOf(t *testing.T, body, id string) string {
	t.Helper()
	start := strings.Index(body, `id="q-`+id+`"`)
	if start < 0 {
		t.Fatalf("no fieldset of question %s", id)
	}
	end := strings.Index(body[start:], "</fieldset>")
	return body[start : start+end]
}

// TestKindsAThroughTheForm answers a survey with a question of each of
// short text, number, date, linear scale and NPS through the real form,
// shows a bad answer to each beside its question, and draws each chart on
// the analysis page.
func TestKindsAThroughTheForm(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	s := &survey.Survey{Tenant: "adatum", Title: "Kinds A", State: survey.Published, Questions: []survey.Question{
		{Text: "Your e-mail", Type: survey.ShortText, Format: "email", Help: "We answer within a day."},
		{Text: "Cups a week", Type: survey.Number, Integer: true, Min: "0", Max: "100"},
		{Text: "Last visit", Type: survey.Date, Min: "2020-01-01", Max: "2026-12-31"},
		{Text: "How easy was it?", Type: survey.LinearScale, Scale: 7, LowLabel: "Very hard", HighLabel: "Very easy"},
		{Text: "Would you recommend us?", Type: survey.NetPromoterScore},
	}}
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

	// The page: each kind's native input, labelled, with its hints.
	_, _, body := app.do(t, "GET", path, nil, nil)
	for i, want := range [][]string{
		{`type="email"`, `maxlength="500"`, `aria-describedby="f-` + id(0) + `-hint help-` + id(0) + `"`, "An e-mail address, like name@example.com."},
		{`type="text" inputmode="numeric"`, "A whole number from 0 to 100.", `<label class="sr-only" for="f-` + id(1) + `">`},
		{`type="date"`, `min="2020-01-01" max="2026-12-31"`, "A date from 2020-01-01 to 2026-12-31."},
		{`value="1"`, `value="7"`, `id="f-` + id(3) + `-low">Very hard</span>`, `aria-describedby="f-` + id(3) + `-high "`, `<label class="scale-point" for="f-` + id(3) + `-4">`},
		{`value="0"`, `value="10"`, "Not at all likely", "Extremely likely", `aria-describedby="f-` + id(4) + `-low "`},
	} {
		fs := fieldsetOf(t, body, id(i))
		for _, w := range want {
			if !strings.Contains(fs, w) {
				t.Errorf("question %d lacks %q:\n%s", i+1, w, fs)
			}
		}
	}

	// Answers through the form.
	good := []map[int]string{
		{0: "ana@example.com", 1: "3", 2: "2026-03-05", 3: "7", 4: "10"},
		{0: "bo@adatum.example", 1: "12", 2: "2026-03-20", 3: "5", 4: "9"},
		{0: "cy@example.com", 1: "0", 2: "2025-12-31", 3: "6", 4: "3"},
		{0: "di@example.com", 1: "100", 2: "2026-01-02", 3: "1", 4: "8"},
	}
	for _, a := range good {
		v := url.Values{"token": {app.token(t, path)}}
		for i, ans := range a {
			v.Set("q-"+id(i), ans)
		}
		if code, _, body := app.do(t, "POST", path, v, nil); code != 303 {
			t.Fatalf("answer %v = %d\n%s", a, code, body)
		}
	}

	// A bad answer to each: 422, the message beside its question, its
	// input marked invalid and described by the message; the answers kept.
	bad := map[int][2]string{
		0: {"ana at example", "Please give an e-mail address, like name@example.com."},
		1: {"2.5", "Please give a whole number between 0 and 100."},
		2: {"2027-01-01", "Please give a date from 1 January 2020 to 31 December 2026."},
		3: {"8", "Please choose a whole number from 1 to 7."},
		4: {"11", "Please choose a whole number from 0 to 10."},
	}
	v := url.Values{"token": {app.token(t, path)}}
	for i, b := range bad {
		v.Set("q-"+id(i), b[0])
	}
	code, _, body := app.do(t, "POST", path, v, nil)
	if code != 422 {
		t.Fatalf("bad answers = %d, want 422", code)
	}
	invalid := regexp.MustCompile(`<input [^>]*aria-invalid="true"[^>]*>`)
	for i, b := range bad {
		fs := fieldsetOf(t, body, id(i))
		if !strings.Contains(fs, `<p class="field-error" id="err-`+id(i)+`"><span class="sr-only">Error:</span> `+b[1]+`</p>`) {
			t.Errorf("question %d: no %q beside it:\n%s", i+1, b[1], fs)
		}
		in := invalid.FindString(fs)
		if in == "" || !strings.Contains(in, "err-"+id(i)) {
			t.Errorf("question %d: no input aria-invalid and described by its error:\n%s", i+1, fs)
		}
	}
	if !strings.Contains(fieldsetOf(t, body, id(0)), `value="ana at example"`) || !strings.Contains(fieldsetOf(t, body, id(1)), `value="2.5"`) {
		t.Error("the answers sent are not kept in the form")
	}
	// Nothing at all: each kind's own words.
	code, _, body = app.do(t, "POST", path, url.Values{"token": {app.token(t, path)}}, nil)
	for _, want := range []string{"Please write an answer.", "Please give a number.", "Please give a date.", "Please choose a number on the scale.", "Please choose a number from 0 to 10."} {
		if code != 422 || !strings.Contains(body, want) {
			t.Errorf("nothing answered (%d): lacks %q", code, want)
		}
	}
	app.stored(t)

	// The analysis page draws each kind's chart.
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	code, _, body = app.get(t, "/adatum/surveys/"+s.Slug+"/analyze", ana)
	if code != 200 {
		t.Fatalf("analysis = %d", code)
	}
	sections := strings.Split(body, `<section class="question analysis-q"`)[1:]
	if len(sections) < 5 {
		t.Fatalf("analysis has %d question sections", len(sections))
	}
	for i, want := range [][]string{
		{"<span>example</span>", "×3"},
		{"<dt>Count</dt><dd>4</dd>", "<dt>Least</dt><dd>0</dd>", "<dt>Greatest</dt><dd>100</dd>", "<dt>Mean</dt><dd>28.75</dd>", "<dt>Lower quartile</dt><dd>2.25</dd>", "<dt>Median</dt><dd>7.5</dd>", "<dt>Upper quartile</dt><dd>34</dd>",
			"Histogram", `<span class="columns-label">0–10<span class="sr-only">:</span></span>`, `<span class="columns-label">99–100<span class="sr-only">:</span></span>`, `<strong aria-hidden="true">2</strong><span class="sr-only">2 answers,</span> <span class="columns-share">50%</span>`},
		{"<dt>Earliest</dt><dd>31 December 2025</dd>", "<dt>Latest</dt><dd>20 March 2026</dd>", "Dec 2025", "Jan 2026", "Mar 2026", `<strong>2</strong><span class="sr-only"> answers,</span> <span class="bars-share">50%</span>`},
		{`<span class="columns-label">7<span class="sr-only">:</span></span>`, `<strong aria-hidden="true">1</strong><span class="sr-only">1 answer,</span> <span class="columns-share">25%</span>`, "<dt>Mean</dt><dd>4.75</dd>", "<dt>Median</dt><dd>5.5</dd>"},
		{`<span class="score-label">NPS</span> <strong class="score-value">&#43;25</strong>`, `<span class="stack-label">Promoters (9–10)</span> <strong>2</strong> <span class="stack-share">50%</span>`,
			`<span class="stack-label">Passives (7–8)</span> <strong>1</strong> <span class="stack-share">25%</span>`, `<span class="stack-label">Detractors (0–6)</span> <strong>1</strong> <span class="stack-share">25%</span>`, `<span class="columns-label">10<span class="sr-only">:</span></span>`},
	} {
		for _, w := range want {
			if !strings.Contains(sections[i], w) {
				t.Errorf("analysis of question %d lacks %q:\n%s", i+1, w, sections[i])
			}
		}
	}
}
