package web_test

import (
	"context"
	"fmt"
	"html/template"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// choiceKindsSurvey is a published survey of Adatum with a question of
// each choice kind: checkboxes, dropdown, matrix, ranking, and a multiple
// choice with Other.
func choiceKindsSurvey(t *testing.T, app *testApp) *survey.Survey {
	t.Helper()
	ctx := context.Background()
	var countries []string
	for i := 1; i <= 30; i++ {
		countries = append(countries, fmt.Sprintf("Country %d", i))
	}
	s := &survey.Survey{Tenant: "adatum", Title: "Choice kinds", State: survey.Published, Questions: []survey.Question{
		{Text: "Which do you buy?", Type: survey.Checkboxes, PossibleAnswers: []string{"Coffee", "Tea", "Cake"}, Other: true, Min: "1", Max: "3", Shuffle: true},
		{Text: "Where do you live?", Type: survey.Dropdown, PossibleAnswers: countries},
		{Text: "How do you rate us?", Type: survey.Matrix, Rows: []string{"Speed", "Price"}, Scale: 5},
		{Text: "What matters most?", Type: survey.Ranking, PossibleAnswers: []string{"Price", "Quality", "Delivery"}, Shuffle: true},
		{Text: "Your favourite?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Coffee", "Tea"}, Other: true},
	}}
	if err := app.surveys.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	s, err := app.surveys.Get(ctx, "adatum", s.Slug)
	if err != nil {
		t.Fatal(err)
	}
	app.pastCacheTTL()
	return s
}

// TestChoiceKindsAnswered answers a survey of every choice kind through
// its real form: the page offers each kind's inputs, answers of several
// values per field are stored canonically and counted, a bad answer to
// each kind comes back (422) with its message beside its question and the
// values kept, and the analysis page and the CSV export show each kind.
func TestChoiceKindsAnswered(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	s := choiceKindsSurvey(t, app)
	path := "/survey/adatum/" + s.Slug
	id := func(i int) string { return s.Questions[i].ID }
	cb, dd, mx, rk, mc := id(0), id(1), id(2), id(3), id(4)

	// The page: each kind's inputs, each control labelled.
	code, _, page := app.do(t, "GET", path, nil, nil)
	if code != 200 {
		t.Fatalf("GET %s = %d", path, code)
	}
	for _, want := range []string{
		`type="checkbox" name="q-` + cb + `" value="Cake"`, `<label for="f-` + cb + `-other">Other (please specify)</label>`, `name="q-` + cb + `-other"`,
		`<label class="sr-only" for="f-` + dd + `">Where do you live?</label>`, `<select class="dropdown" id="f-` + dd + `" name="q-` + dd + `" required`, `<option value="">Choose…</option>`, `<option value="Country 30">`,
		`<th scope="col">5</th>`, `<th scope="row">Price</th>`, `name="q-` + mx + `-1" value="5"`, `<span class="sr-only">Price: 5</span>`,
		`<label for="f-` + rk + `-2"><span class="sr-only">Position of </span>Delivery</label>`, `<select id="f-` + rk + `-2" name="q-` + rk + `-2" required aria-describedby="f-` + rk + `-hint"`, `<option value="3">3</option>`,
		`type="radio" id="f-` + mc + `-otherchoice" name="q-` + mc + `" value="(other)" data-not-answer`, `<label for="f-` + mc + `-other">Other (please specify)</label>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the survey page lacks %s", want)
		}
	}

	good := func(tok string, cbValues []string, cbOther, country, speed, price string, ranks [3]string, mcValue, mcOther string) url.Values {
		v := url.Values{"token": {tok},
			"q-" + cb: cbValues, "q-" + cb + "-other": {cbOther},
			"q-" + dd:        {country},
			"q-" + mx + "-0": {speed}, "q-" + mx + "-1": {price},
			"q-" + rk + "-0": {ranks[0]}, "q-" + rk + "-1": {ranks[1]}, "q-" + rk + "-2": {ranks[2]},
			"q-" + mc: {mcValue}, "q-" + mc + "-other": {mcOther},
		}
		return v
	}
	type stored struct{ cb, dd, mx, rk, mc string }
	answers := []struct {
		form func(tok string) url.Values
		want stored
	}{
		{func(tok string) url.Values {
			return good(tok, []string{"Cake", "Coffee"}, "", "Country 3", "5", "4", [3]string{"2", "1", "3"}, "Tea", "")
		}, stored{`["Coffee","Cake"]`, "Country 3", `{"Price":"4","Speed":"5"}`, `["Quality","Price","Delivery"]`, "Tea"}},
		{func(tok string) url.Values {
			// The other texts typed alone count; a choice sent twice
			// counts once.
			return good(tok, []string{"Tea", "Tea"}, " Hot chocolate ", "Country 3", "3", "2", [3]string{"3", "2", "1"}, "", "Mate tea")
		}, stored{`["Tea","\u001fHot chocolate"]`, "Country 3", `{"Price":"2","Speed":"3"}`, `["Delivery","Quality","Price"]`, "\x1fMate tea"}},
		{func(tok string) url.Values {
			return good(tok, nil, "Chocolate cake", "Country 30", "4", "4", [3]string{"1", "2", "3"}, "Coffee", "")
		}, stored{`["\u001fChocolate cake"]`, "Country 30", `{"Price":"4","Speed":"4"}`, `["Price","Quality","Delivery"]`, "Coffee"}},
	}
	for i, a := range answers {
		tok := app.token(t, path)
		if code, _, body := app.do(t, "POST", path, a.form(tok), nil); code != 303 {
			t.Fatalf("answer %d = %d\n%s", i, code, body)
		}
		app.stored(t) // the worker files and counts it
		got, err := app.answers.Get(ctx, "adatum", s.Slug, answerID(tok))
		if err != nil {
			t.Fatal(err)
		}
		var g stored
		for _, qa := range got.Answers {
			switch qa.QuestionID {
			case cb:
				g.cb = qa.Answer
			case dd:
				g.dd = qa.Answer
			case mx:
				g.mx = qa.Answer
			case rk:
				g.rk = qa.Answer
			case mc:
				g.mc = qa.Answer
			}
		}
		if g != a.want {
			t.Errorf("answer %d stored as %+v, want %+v", i, g, a.want)
		}
	}

	// Bad answers: 422, the message beside its question, the values kept.
	bad := []struct {
		name     string
		change   func(v url.Values)
		question string
		message  string
		kept     string
	}{
		{"checkboxes: a choice not offered", func(v url.Values) { v["q-"+cb] = []string{"Tea", "Water"} }, cb,
			"Please choose only among the answers offered.", `value="Tea" checked`},
		{"checkboxes: too many", func(v url.Values) { v["q-"+cb] = []string{"Tea", "Cake", "Coffee"}; v.Set("q-"+cb+"-other", "Mate") }, cb,
			"Please choose at most three answers (you chose 4).", `value="Mate"`},
		{"checkboxes: none", func(v url.Values) { delete(v, "q-"+cb); delete(v, "q-"+cb+"-other") }, cb,
			"Please choose at least one answer.", ""},
		{"dropdown: not offered", func(v url.Values) { v.Set("q-"+dd, "Atlantis") }, dd,
			"Please choose one of the answers offered.", ""},
		{"dropdown: none", func(v url.Values) { v.Set("q-"+dd, "") }, dd,
			"Please choose an answer.", ""},
		{"matrix: a row missing", func(v url.Values) { v.Set("q-"+mx+"-1", "") }, mx,
			`Please answer every row: "Price" has no answer.`, `value="5" checked`},
		{"matrix: off the scale", func(v url.Values) { v.Set("q-"+mx+"-0", "6") }, mx,
			`Please choose one of the answers offered for "Speed".`, ""},
		{"ranking: a shared position", func(v url.Values) { v.Set("q-"+rk+"-2", "1") }, rk,
			`"Price" and "Delivery" are both at position 1: give each item a position of its own.`, `<option value="2" selected>2</option>`},
		{"ranking: an item without a position", func(v url.Values) { v.Set("q-"+rk+"-0", "") }, rk,
			`Please give every item a position from 1 to 3: "Price" has no answer.`, ""},
		{"multiple choice: other too long", func(v url.Values) { v.Set("q-"+mc, ""); v.Set("q-"+mc+"-other", strings.Repeat("x", 201)) }, mc,
			"Please keep your other answer to 200 characters.", ""},
		{"multiple choice: none", func(v url.Values) { v.Set("q-"+mc, ""); v.Set("q-"+mc+"-other", "") }, mc,
			"Please choose one answer.", ""},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			tok := app.token(t, path)
			v := good(tok, []string{"Tea"}, "", "Country 3", "5", "4", [3]string{"1", "2", "3"}, "Tea", "")
			tc.change(v)
			code, _, body := app.do(t, "POST", path, v, nil)
			if code != 422 {
				t.Fatalf("POST = %d, want 422\n%s", code, body)
			}
			beside := `<p class="field-error" id="err-` + tc.question + `"><span class="sr-only">Error:</span> ` + template.HTMLEscapeString(tc.message) + `</p>`
			if !strings.Contains(body, beside) {
				t.Errorf("the page lacks %s", beside)
			}
			if strings.Count(body, `class="field-error"`) != 1 {
				t.Errorf("%d problems shown, want 1", strings.Count(body, `class="field-error"`))
			}
			if !regexp.MustCompile(`aria-describedby="[^"]*err-` + tc.question + `" aria-invalid="true"`).MatchString(body) {
				t.Errorf("the inputs of %s are not marked invalid", tc.question)
			}
			if tc.kept != "" && !strings.Contains(body, tc.kept) {
				t.Errorf("the page does not keep %s", tc.kept)
			}
		})
	}

	// The summary counts every answer, part by part.
	sum, _, err := store.NewSurveyAnswersSummaryStore(app.st).Get(ctx, "adatum", s.Slug)
	if err != nil || sum.TotalAnswers != 3 {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	qs := sum.Questions
	if qs[0].Choices[0] != (survey.ChoiceCount{Answer: "Coffee", Count: 1}) || qs[0].Choices[1].Count != 1 || qs[0].Other != 2 ||
		qs[1].Choices[2].Count != 2 || qs[2].Rows[0].Choices[4].Count != 1 || qs[3].Ranks[0] != (survey.RankSum{Item: "Price", Count: 3, Sum: 6, First: 1}) || qs[4].Other != 1 {
		t.Errorf("summary %+v", qs)
	}

	// The analysis page shows each kind's chart.
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	code, _, body := app.get(t, "/adatum/surveys/"+s.Slug+"/analyze", ana)
	if code != 200 {
		t.Fatalf("analysis = %d\n%s", code, body)
	}
	for _, want := range []string{
		// Checkboxes: bars, the other texts' words and the note.
		`<span class="bars-label">Cake</span>`, "Words of the other answers", "<span>chocolate</span>", "3 respondents chose 5 in all",
		// Dropdown: bars of its choices.
		`<span class="bars-label">Country 30</span>`,
		// Matrix: a heat table, a row per matrix row, with its mean.
		`<th scope="col">1</th><th scope="col">2</th><th scope="col">3</th><th scope="col">4</th><th scope="col">5</th>`,
		`<th scope="row"><span class="heat-row">Speed</span> <span class="heat-meta">3 answers · average 4.00</span></th><td class="heat-0">0</td><td class="heat-0">0</td><td class="heat-2">1</td><td class="heat-2">1</td><td class="heat-2">1</td>`,
		`<th scope="row"><span class="heat-row">Price</span> <span class="heat-meta">3 answers · average 3.33</span></th><td class="heat-0">0</td><td class="heat-2">1</td><td class="heat-0">0</td><td class="heat-3">2</td><td class="heat-0">0</td>`,
		// Ranking: items by average position.
		`<span class="bars-label">Quality</span>`, `<span class="ranks-value">average position 1.67</span>`, `<span class="ranks-value">average position 2.00</span>`, `<span class="ranks-value">average position 2.33</span>`,
		// Multiple choice: the Other bar and its words.
		`<span class="bars-label">Other</span>`, "<span>mate</span>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the analysis page lacks %s", want)
		}
	}

	// The CSV export: the kinds' columns.
	code, _, csv := app.get(t, "/adatum/surveys/"+s.Slug+"/export.csv", ana)
	header, _, _ := strings.Cut(csv, "\n")
	for _, want := range []string{"Which do you buy? [Coffee]", "Which do you buy? [Other]", "How do you rate us? [Speed]", "What matters most? [Delivery]", "Where do you live?,"} {
		if code != 200 || !strings.Contains(header, want) {
			t.Errorf("CSV header %q lacks %q", header, want)
		}
	}
}
