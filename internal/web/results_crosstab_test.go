package web_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/store/storetest"
	"github.com/surveys-dev/surveys/internal/survey"
)

// crossAnswers are answers to Adatum's survey: the product used (q2, a
// multiple choice), whether they would choose Adatum again (q14, yes or
// no), the features used (q5, checkboxes) and the source (a hidden
// field), "" for none; a partial answer when partial.
type crossAnswer struct {
	product, again string
	features       []string
	source         string
	partial        bool
}

func putCrossAnswers(t *testing.T, app *testApp, list []crossAnswer) {
	t.Helper()
	// Adatum's survey carries the hidden field and keeps partial answers.
	app.adatum.HiddenFields, app.adatum.KeepPartial = []string{"source"}, time.Hour
	if err := app.surveys.Update(context.Background(), app.adatum); err != nil {
		t.Fatal(err)
	}
	q := app.adatum.Questions
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var answers []*survey.SurveyAnswer
	for i, c := range list {
		on := start.Add(time.Duration(i) * time.Minute)
		a := &survey.SurveyAnswer{ID: store.NewAnswerID(on), Tenant: "adatum", Slug: app.adatum.Slug, CreatedOn: on, Partial: c.partial}
		add := func(n int, v string) {
			if v != "" {
				a.Answers = append(a.Answers, survey.QuestionAnswer{QuestionID: q[n].ID, QuestionText: q[n].Text, Type: q[n].Type, Answer: v})
			}
		}
		add(1, c.product)
		add(13, c.again)
		if c.features != nil {
			add(4, `["`+strings.Join(c.features, `","`)+`"]`)
		}
		if c.source != "" {
			a.Hidden = map[string]string{"source": c.source}
		}
		answers = append(answers, a)
	}
	if err := storetest.PutAnswers(context.Background(), app.st, app.adatum, answers, 0); err != nil {
		t.Fatal(err)
	}
}

// cells are the figures of a page's cross-tabulation, row by row: each
// row's label, its cells and its total, as the page shows them.
func cells(body string) [][]string {
	var out [][]string
	for _, tr := range regexp.MustCompile(`(?s)<tr><th scope="row">(.*?)</tr>`).FindAllStringSubmatch(body, -1) {
		row := []string{strings.SplitN(tr[1], "<", 2)[0]}
		for _, td := range regexp.MustCompile(`<td class="num[^"]*">([^<]*)</td>`).FindAllStringSubmatch(tr[1], -1) {
			row = append(row, td[1])
		}
		out = append(out, row)
	}
	return out
}

// TestCrosstab: the page's figures for a few known answers: counts and
// totals, row and column percentages, the chi-square test (R's
// chisq.test(matrix(c(3,0,1,3,0,1), 3, byrow=TRUE), correct=FALSE):
// 5, df 2, p 0.0821; every cell expects fewer than 5), the filter, the
// status, a variable of several answers; a bad variable is a 422 beside
// its field; and the page reads the answers a segment at a time.
func TestCrosstab(t *testing.T) {
	t.Parallel()
	st := counting.New(backends.Local(t))
	app := newTestAppOn(t, st)
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	web, mobile := "Web portal", "Mobile app"
	putCrossAnswers(t, app, []crossAnswer{
		{web, "Yes", []string{"Reports"}, "mail", false},
		{web, "Yes", []string{"Reports", "Alerts"}, "mail", false},
		{web, "Yes", nil, "ad", false},
		{mobile, "Yes", []string{"Alerts"}, "ad", false},
		{mobile, "No", []string{"Reports", "Alerts"}, "", false},
		{mobile, "No", nil, "", false},
		{mobile, "No", nil, "", false},
		{"API", "No", []string{"Reports"}, "=HYPERLINK(\"http://evil.example\")", false},
		{mobile, "", nil, "", false},   // not in a table with q14
		{web, "No", nil, "mail", true}, // partial
	})
	q := app.adatum.Questions
	product, again, features := q[1].ID, q[13].ID, q[4].ID
	base := "/adatum/surveys/" + app.adatum.Slug + "/crosstab"
	query := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return base + "?" + v.Encode()
	}
	for _, tc := range []struct {
		name  string
		path  string
		code  int
		cells [][]string
		want  []string
		not   []string
	}{
		{"the selects only", base, 200, nil,
			[]string{`<option value="` + product + `">2. Which of our products do you use most?</option>`, `<option value="hidden:source">Hidden field “source”</option>`,
				`<option value="answer:status">Complete or partial</option>`, `<a href="/adatum/surveys/` + app.adatum.Slug + `/analyze" aria-current="true">Analysis</a>`},
			[]string{"<table"}},
		{"counts", query("row", product, "col", again), 200, [][]string{
			{"Web portal", "3", "0", "3"}, {"Mobile app", "1", "3", "4"}, {"Desktop client", "0", "0", "0"}, {"API", "0", "1", "1"}, {"Other", "0", "0", "0"}, {"Total", "4", "4", "8"}},
			[]string{"<caption>2. Which of our products do you use most? (rows) by 14. Would you choose Adatum again? (columns): counts of 8 answers</caption>",
				`<th scope="col" class="num">Yes</th>`, "<strong>8</strong> answers counted, each with an answer to both",
				"<span class=\"sr-only\">Chi-square</span> = <strong>5.00</strong>, 2 degrees of freedom, p = 0.0821: not below 0.05",
				"The test may not be reliable: 6 cells of 6 expect fewer than 5 answers.",
				"Complete answers only", `href="` + base + `.csv?col=` + again + `&amp;row=` + product + `"`},
			[]string{"several columns"}},
		{"row percentages", query("row", product, "col", again, "show", "row"), 200, [][]string{
			{"Web portal", "100.0%", "0.0%", "100.0%"}, {"Mobile app", "25.0%", "75.0%", "100.0%"}, {"Desktop client", "–", "–", "–"}, {"API", "0.0%", "100.0%", "100.0%"}, {"Other", "–", "–", "–"},
			{"Total", "50.0%", "50.0%", "100.0%"}}, []string{"row percentages of 8 answers"}, nil},
		{"column percentages", query("row", product, "col", again, "show", "col"), 200, [][]string{
			{"Web portal", "75.0%", "0.0%", "37.5%"}, {"Mobile app", "25.0%", "75.0%", "50.0%"}, {"Desktop client", "0.0%", "0.0%", "0.0%"}, {"API", "0.0%", "25.0%", "12.5%"}, {"Other", "0.0%", "0.0%", "0.0%"},
			{"Total", "100.0%", "100.0%", "100.0%"}}, nil, nil},
		{"filtered: mobile app only, the filter kept in both forms", query("row", product, "col", again, "q", product, "a", "Mobile app"), 200, [][]string{
			{"Web portal", "0", "0", "0"}, {"Mobile app", "1", "3", "4"}, {"Desktop client", "0", "0", "0"}, {"API", "0", "0", "0"}, {"Other", "0", "0", "0"}, {"Total", "1", "3", "4"}},
			[]string{"<strong>4</strong> answers counted, each with an answer to both, of 10 answers", "The test needs at least two rows and two columns with answers.",
				`<input type="hidden" name="q" value="` + product + `">`, `<input type="hidden" name="row" value="` + product + `">`,
				`href="/adatum/surveys/` + app.adatum.Slug + `/analyze?a=Mobile&#43;app&amp;q=` + product + `">Back to the analysis</a>`},
			[]string{"Chi-square</span> ="}},
		{"the status counts the partial answer", query("row", "answer:status", "col", again), 200, [][]string{
			{"Complete", "4", "4", "8"}, {"Partial", "0", "1", "1"}, {"Total", "4", "5", "9"}}, nil, []string{"Complete answers only"}},
		{"several columns", query("row", again, "col", features), 200, [][]string{
			{"Yes", "2", "0", "2", "0", "0", "0", "3"}, {"No", "2", "0", "1", "0", "0", "0", "2"}, {"Total", "4", "0", "3", "0", "0", "0", "5"}},
			[]string{"An answer may fall into several columns", "the test counts the choices rather than the answers"}, nil},
		{"a hidden field's values, most common first", query("row", "hidden:source", "col", again), 200, [][]string{
			{"ad", "2", "0", "2"}, {"mail", "2", "0", "2"}, {"=HYPERLINK(&#34;http://evil.example&#34;)", "0", "1", "1"}, {"Total", "4", "1", "5"}}, nil, nil},
		{"no such variable", query("row", "nope", "col", again), 422, nil,
			[]string{`id="x-row-error">This survey has no such question, hidden field or variable to count answers by`, `aria-invalid="true" aria-describedby="x-row-error"`}, []string{"<table"}},
		{"a text question is no variable", query("row", q[3].ID, "col", again), 422, nil, []string{`id="x-row-error"`}, nil},
		{"the columns missing", query("row", product), 422, nil, []string{`id="x-col-error">Choose the variable of the columns.`}, nil},
		{"the same twice", query("row", product, "col", product), 422, nil, []string{`id="x-col-error">Choose another variable than the rows’.`}, nil},
		{"a bad show", query("row", product, "col", again, "show", "pie"), 422, nil, []string{`id="x-show-error"`}, nil},
		{"a bad filter", query("row", product, "col", again, "from", "yesterday"), 422, nil, []string{"The filter has problems"}, []string{"<table"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := st.Total("blob")
			code, _, body := app.get(t, tc.path, ana)
			if code != tc.code {
				t.Fatalf("GET %s = %d, want %d", tc.path, code, tc.code)
			}
			if got := cells(body); tc.cells != nil && !equalRows(got, tc.cells) {
				t.Errorf("GET %s: cells\n%q\nwant\n%q", tc.path, got, tc.cells)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s lacks %q", tc.path, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(body, w) {
					t.Errorf("GET %s has %q", tc.path, w)
				}
			}
			// The session, the survey, its summary, the answer list and
			// its segment: not a read per answer.
			if n := st.Total("blob") - before; n > 8 {
				t.Errorf("GET %s made %d blob calls for 10 answers", tc.path, n)
			}
		})
	}
	// The selects offer the questions of categories, not a text's.
	_, _, body := app.get(t, base, ana)
	sel := regexp.MustCompile(`(?s)<select id="x-row".*?</select>`).FindString(body)
	if !strings.Contains(sel, `value="`+again+`"`) || !strings.Contains(sel, `value="`+features+`"`) || strings.Contains(sel, `value="`+q[3].ID+`"`) || strings.Contains(sel, `value="`+q[6].ID+`"`) {
		t.Errorf("the rows' select: %s", sel)
	}
	// A survey that no longer keeps partial answers still counts by
	// their status when asked, and its select says so.
	app.adatum.KeepPartial = 0
	if err := app.surveys.Update(context.Background(), app.adatum); err != nil {
		t.Fatal(err)
	}
	code, _, body := app.get(t, query("row", "answer:status", "col", again), ana)
	if got := cells(body); code != 200 || !strings.Contains(body, `<option value="answer:status" selected>Complete or partial</option>`) ||
		!equalRows(got, [][]string{{"Complete", "4", "4", "8"}, {"Partial", "0", "1", "1"}, {"Total", "4", "5", "9"}}) {
		t.Errorf("the status of a survey that keeps no partial answers = %d, %q", code, got)
	}
	// The analysis links to it, with its filter.
	if _, _, body := app.get(t, "/adatum/surveys/"+app.adatum.Slug+"/analyze?status=complete", ana); !strings.Contains(body, `href="`+base+`?status=complete">Cross-tabulate two questions</a>`) {
		t.Errorf("the analysis page does not link to the cross-tabulation: %s", regexp.MustCompile(`.*Cross-tabulate.*`).FindString(body))
	}
}

func equalRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "|") != strings.Join(b[i], "|") {
			return false
		}
	}
	return true
}

// TestCrosstabCSV: the download holds the counts, the row and column
// percentages and the test, a hidden field's value that a spreadsheet
// would take for a formula as text; a bad variable is a 422.
func TestCrosstabCSV(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	putCrossAnswers(t, app, []crossAnswer{
		{"Web portal", "Yes", nil, "=cmd()", false},
		{"Web portal", "No", nil, "+1", false},
		{"API", "No", nil, "-2", false},
		{"API", "No", nil, "@x", false},
	})
	q := app.adatum.Questions
	base := "/adatum/surveys/" + app.adatum.Slug + "/crosstab.csv"
	code, header, body := app.get(t, base+"?row=hidden:source&col="+q[13].ID, ana)
	if code != 200 || !strings.HasPrefix(header.Get("Content-Type"), "text/csv") || !strings.Contains(header.Get("Content-Disposition"), "crosstab.csv") {
		t.Fatalf("GET = %d %v", code, header)
	}
	want := "\uFEFFCounts,Columns: 14. Would you choose Adatum again?\n" +
		"Hidden field “source”,Yes,No,Total\n" +
		"'+1,0,1,1\n" +
		"-2,0,1,1\n" +
		"'=cmd(),1,0,1\n" +
		"'@x,0,1,1\n" +
		"Total,1,3,4\n" +
		"\n" +
		"Row percentages,Columns: 14. Would you choose Adatum again?\n" +
		"Hidden field “source”,Yes,No,Total\n" +
		"'+1,0.0%,100.0%,100.0%\n"
	if !strings.HasPrefix(body, want) {
		t.Errorf("CSV:\n%s\nwant it to begin with\n%s", body, want)
	}
	for _, w := range []string{"Column percentages,", "'=cmd(),100.0%,0.0%,25.0%\n", "Total,100.0%,100.0%,100.0%\n",
		"Chi-square,4.000000\n", "Degrees of freedom,3\n", "p-value,0.261464\n", "Cells expecting fewer than 5 answers,8,of,8\n"} {
		if !strings.Contains(body, w) {
			t.Errorf("CSV lacks %q:\n%s", w, body)
		}
	}
	for _, bad := range []string{"?row=nope&col=" + q[13].ID, "", "?row=" + q[1].ID, "?row=" + q[1].ID + "&col=" + q[13].ID + "&to=never"} {
		if code, _, body := app.get(t, base+bad, ana); code != 422 || strings.Contains(body, "Total,") {
			t.Errorf("GET %s = %d", bad, code)
		}
	}
}

// TestCrosstabAPI: GET /api/v1/surveys/{slug}/crosstab gives the page's
// figures as JSON (checked against openapi.json by app.api), filtered as
// the answers are; a bad variable is a 422 naming its field.
func TestCrosstabAPI(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	token, err := store.NewTokenStore(app.st).Create(context.Background(), "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	putCrossAnswers(t, app, []crossAnswer{
		{"Web portal", "Yes", []string{"Reports"}, "mail", false},
		{"Web portal", "Yes", nil, "ad", false},
		{"Mobile app", "No", []string{"Reports", "Alerts"}, "", false},
		{"API", "No", nil, "", false},
		{"API", "No", nil, "", true},
	})
	q := app.adatum.Questions
	base := "/api/v1/surveys/" + app.adatum.Slug + "/crosstab"
	code, v, raw := app.api(t, "GET", base+"?row="+q[1].ID+"&col="+q[13].ID, token, "")
	if code != 200 {
		t.Fatalf("GET = %d: %s", code, raw)
	}
	for _, want := range []string{`"counts":[[2,0],[0,1],[0,0],[0,1],[0,0]]`, `"rowTotals":[2,1,0,1,0]`, `"colTotals":[2,2]`, `"total":4`,
		`"categories":["Web portal","Mobile app","Desktop client","API","Other"]`, `"categories":["Yes","No"]`, `"df":2`, `"statistic":4`, `"lowExpected":6`, `"cells":6`} {
		if !strings.Contains(raw, want) {
			t.Errorf("the JSON lacks %s: %s", want, raw)
		}
	}
	// R: pchisq(4, 2, lower.tail=FALSE) = exp(-2).
	if test, _ := v["test"].(map[string]any); test == nil || test["p"].(float64) < 0.1353352832366126-1e-9 || test["p"].(float64) > 0.1353352832366126+1e-9 {
		t.Errorf("test %v", v["test"])
	}
	code, _, raw = app.api(t, "GET", base+"?row="+q[1].ID+"&col="+q[13].ID+"&q="+q[1].ID+"&a=API", token, "")
	if code != 200 || !strings.Contains(raw, `"total":1`) || strings.Contains(raw, `"test"`) {
		t.Errorf("filtered: %d %s", code, raw)
	}
	code, v, _ = app.api(t, "GET", base+"?row=hidden:nope&col="+q[13].ID, token, "")
	if fields, _ := v["fields"].(map[string]any); code != 422 || fields["row"] == nil {
		t.Errorf("a bad variable: %d %v", code, v)
	}
}

// TestCrosstabSegment: a saved segment is a variable of the page, the CSV
// and the API, its two categories the answers in it and those not in it
// (counted by hand below); one that picks by status counts the partial
// answers too; an unknown segment, or another tenant's, is a problem
// beside the field on the page and not found in the CSV and the API.
func TestCrosstabSegment(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	token, err := store.NewTokenStore(app.st).Create(ctx, "adatum", "test")
	if err != nil {
		t.Fatal(err)
	}
	web, mobile := "Web portal", "Mobile app"
	putCrossAnswers(t, app, []crossAnswer{
		{web, "Yes", nil, "", false},
		{web, "Yes", nil, "", false},
		{web, "Yes", nil, "", false},
		{mobile, "Yes", nil, "", false},
		{mobile, "No", nil, "", false},
		{mobile, "No", nil, "", false},
		{mobile, "No", nil, "", false},
		{"API", "No", nil, "", false},
		{mobile, "", nil, "", false}, // not in a table with q14
		{web, "No", nil, "", true},   // partial
	})
	q := app.adatum.Questions
	product, again := q[1].ID, q[13].ID
	segs := store.NewSavedSegmentStore(app.st)
	save := func(tenant, name, query string) string {
		t.Helper()
		g := &survey.Segment{Tenant: tenant, Slug: app.adatum.Slug, Name: name, Query: query, CreatedOn: time.Now()}
		if err := segs.Create(ctx, g); err != nil {
			t.Fatal(err)
		}
		return "segment:" + g.ID
	}
	mobileSeg := save("adatum", "Mobile users", url.Values{"c": {product + "=" + mobile}}.Encode())
	unfinished := save("adatum", "Unfinished", "status=partial")
	gone := save("adatum", "Gone question", "c=nope%3Dx")
	theirs := save("fabrikam", "Theirs", "status=complete")
	base := "/adatum/surveys/" + app.adatum.Slug + "/crosstab"
	query := func(path, row, col string) string {
		return path + "?" + url.Values{"row": {row}, "col": {col}}.Encode()
	}
	for _, tc := range []struct {
		name  string
		path  string
		code  int
		cells [][]string
		want  []string
		not   []string
	}{
		{"offered apart", base, 200, nil, []string{`<optgroup label="Segments"><option value="` + mobileSeg + `">Segment “Mobile users”</option><option value="` + unfinished + `">Segment “Unfinished”</option></optgroup>`},
			[]string{gone, theirs}},
		// In: answers 4–7 (Yes 1, No 3); not in: 1–3 and 8 (Yes 3, No 1).
		// R: chisq.test(matrix(c(1,3,3,1), 2, byrow=TRUE), correct=FALSE): 2, df 1, p 0.1573.
		{"segment × question", query(base, mobileSeg, again), 200, [][]string{
			{"In “Mobile users”", "1", "3", "4"}, {"Not in “Mobile users”", "3", "1", "4"}, {"Total", "4", "4", "8"}},
			[]string{`<option value="` + mobileSeg + `" selected>`, "= <strong>2.00</strong>, 1 degree of freedom, p = 0.1573",
				"The test may not be reliable: 4 cells of 4 expect fewer than 5 answers.", "Complete answers only",
				`href="` + base + `.csv?col=` + again + `&amp;row=segment%3A`}, nil},
		// The partial answer (No) is in it; the 8 complete ones are not.
		{"a segment by status counts the partial answers", query(base, again, unfinished), 200, [][]string{
			{"Yes", "0", "4", "4"}, {"No", "1", "4", "5"}, {"Total", "1", "8", "9"}}, nil, []string{"Complete answers only"}},
		{"an unknown segment", query(base, "segment:nope", again), 422, nil, []string{`id="x-row-error">This survey has no saved segment with this ID`}, []string{"<table"}},
		{"another tenant's segment", query(base, product, theirs), 422, nil, []string{`id="x-col-error">This survey has no saved segment with this ID`}, []string{"<table"}},
		{"a segment whose question is gone", query(base, gone, again), 422, nil, []string{`id="x-row-error">The segment “Gone question” no longer fits this survey`}, []string{"<table"}},
		{"the same segment twice", query(base, mobileSeg, mobileSeg), 422, nil, []string{`id="x-col-error">Choose another variable than the rows’.`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := app.get(t, tc.path, ana)
			if code != tc.code {
				t.Fatalf("GET %s = %d, want %d", tc.path, code, tc.code)
			}
			if got := cells(body); tc.cells != nil && !equalRows(got, tc.cells) {
				t.Errorf("GET %s: cells\n%q\nwant\n%q", tc.path, got, tc.cells)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s lacks %q", tc.path, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(body, w) {
					t.Errorf("GET %s has %q", tc.path, w)
				}
			}
		})
	}

	// The CSV.
	code, _, body := app.get(t, query(base+".csv", mobileSeg, again), ana)
	for _, w := range []string{"Segment “Mobile users”,Yes,No,Total\nIn “Mobile users”,1,3,4\nNot in “Mobile users”,3,1,4\nTotal,4,4,8\n",
		"Not in “Mobile users”,75.0%,25.0%,100.0%\n", "Chi-square,2.000000\n", "Degrees of freedom,1\n", "p-value,0.157299\n", "Cells expecting fewer than 5 answers,4,of,4\n"} {
		if code != 200 || !strings.Contains(body, w) {
			t.Errorf("CSV = %d, lacks %q:\n%s", code, w, body)
		}
	}
	for _, bad := range []string{"segment:nope", theirs} {
		if code, _, body := app.get(t, query(base+".csv", bad, again), ana); code != 404 || strings.Contains(body, "Total,") {
			t.Errorf("CSV of %s = %d", bad, code)
		}
	}

	// The API.
	api := "/api/v1/surveys/" + app.adatum.Slug + "/crosstab"
	code, _, raw := app.api(t, "GET", query(api, mobileSeg, again), token, "")
	for _, w := range []string{`"counts":[[1,3],[3,1]]`, `"ref":"` + mobileSeg + `"`, `"label":"Segment “Mobile users”"`,
		`"categories":["In “Mobile users”","Not in “Mobile users”"]`, `"multiple":false`, `"df":1`, `"statistic":2`, `"lowExpected":4`} {
		if code != 200 || !strings.Contains(raw, w) {
			t.Errorf("API = %d, lacks %s: %s", code, w, raw)
		}
	}
	for _, bad := range []string{"segment:nope", theirs} {
		code, v, raw := app.api(t, "GET", query(api, again, bad), token, "")
		if msg, _ := v["error"].(string); code != 404 || !strings.Contains(msg, "col: This survey has no saved segment with this ID") {
			t.Errorf("API with %s = %d %s", bad, code, raw)
		}
	}
	if code, v, raw := app.api(t, "GET", query(api, gone, again), token, ""); code != 422 || !strings.Contains(fmt.Sprint(v["fields"]), "no longer fits") {
		t.Errorf("API with a segment whose question is gone = %d %s", code, raw)
	}
}
