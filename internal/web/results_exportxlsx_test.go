package web_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestExportXLSX: a viewer's download (export.xlsx) and the API's
// ?format=xlsx are workbooks that excelize opens, with the CSV's columns
// and typed cells: numbers are number cells, a day and the answer's time
// are dates with a date format, and texts (those that look like formulas
// too) are text cells holding exactly the text, with no formula. The
// answers' filter applies.
func TestExportXLSX(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	sv := &survey.Survey{Tenant: "adatum", Title: "Typed", Questions: []survey.Question{
		{Text: "How many?", Type: survey.Number},
		{Text: "When?", Type: survey.Date, Optional: true},
		{Text: "Rate", Type: survey.FiveStars},
		{Text: `=HYPERLINK("http://evil.example","Click")`, Type: survey.SimpleText},
		{Text: "Pick", Type: survey.MultipleChoice, PossibleAnswers: []string{"-1", "@me"}},
	}}
	if err := app.surveys.Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	if _, err := app.surveys.SetState(ctx, "adatum", sv.Slug, survey.Published); err != nil {
		t.Fatal(err)
	}
	path := "/survey/adatum/" + sv.Slug
	q := sv.Questions
	for _, answer := range []url.Values{
		{"q-" + q[0].ID: {"-12.5"}, "q-" + q[1].ID: {"2026-03-09"}, "q-" + q[2].ID: {"4"}, "q-" + q[3].ID: {`=cmd|' /C calc'!A0`}, "q-" + q[4].ID: {"-1"}},
		{"q-" + q[0].ID: {"7"}, "q-" + q[2].ID: {"5"}, "q-" + q[3].ID: {"+SUM(1,2)"}, "q-" + q[4].ID: {"@me"}},
	} {
		answer.Set("token", app.token(t, path))
		if code, _, body := app.do(t, "POST", path, answer, nil); code != 303 {
			t.Fatalf("answer = %d\n%s", code, body)
		}
	}
	app.stored(t)

	if _, err := testUsers(app.st).AddMember(ctx, "adatum", "vera@adatum.example", "correct horse battery", survey.Viewer); err != nil {
		t.Fatal(err)
	}
	_, vera := app.signIn(t, "adatum", "vera@adatum.example", "correct horse battery")
	token, err := store.NewTokenStore(app.st).CreateWithRole(ctx, "adatum", "test", survey.Viewer, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The survey page links the export beside CSV and JSON.
	if code, _, page := app.get(t, "/adatum/surveys/"+sv.Slug+"/answers", vera); code != 200 || !strings.Contains(page, `href="/adatum/surveys/`+sv.Slug+`/export.xlsx">Export Excel</a>`) {
		t.Errorf("answers page = %d, without the Excel export button", code)
	}

	code, header, web := app.get(t, "/adatum/surveys/"+sv.Slug+"/export.xlsx", vera)
	if code != 200 || header.Get("Content-Type") != "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" ||
		header.Get("Content-Disposition") != `attachment; filename="adatum-`+sv.Slug+`.xlsx"` {
		t.Fatalf("download = %d %v", code, header)
	}
	apiCode, _, api := app.api(t, "GET", "/api/v1/surveys/"+sv.Slug+"/export?format=xlsx", token, "")
	if apiCode != 200 {
		t.Fatalf("API export = %d %s", apiCode, api)
	}
	wantHeader := []string{"answer_id", "created_on", "How many?", "When?", "Rate", `=HYPERLINK("http://evil.example","Click")`, "Pick"}
	for name, body := range map[string]string{"download": web, "API": api} {
		rows := openXLSX(t, name, body)
		if len(rows) != 3 {
			t.Fatalf("%s: %d rows, want a header and 2 answers", name, len(rows))
		}
		for i, want := range wantHeader {
			if c := rows[0][i]; c.value != want || c.typ != excelize.CellTypeInlineString || c.formula != "" {
				t.Errorf("%s: header %d = %+v, want the text %q", name, i, c, want)
			}
		}
		first, second := rows[1], rows[2]
		if second[0].value <= first[0].value || first[0].typ != excelize.CellTypeInlineString {
			t.Errorf("%s: answer IDs %+v %+v", name, first[0], second[0])
		}
		// The answer's time: a date cell, shown to the second, today.
		if c := first[1]; c.typ != excelize.CellTypeNumber || c.format != "yyyy-mm-dd hh:mm:ss" || !strings.HasPrefix(c.value, time.Now().UTC().Format("2006-01-02 ")) {
			t.Errorf("%s: created_on = %+v", name, c)
		}
		want := []cellWant{
			{excelize.CellTypeNumber, "-12.5", "-12.5", ""},
			{excelize.CellTypeNumber, "2026-03-09", "46090", "yyyy-mm-dd"},
			{excelize.CellTypeNumber, "4", "4", ""},
			{excelize.CellTypeInlineString, `=cmd|' /C calc'!A0`, `=cmd|' /C calc'!A0`, ""},
			{excelize.CellTypeInlineString, "-1", "-1", ""},
		}
		for i, w := range want {
			if c := first[2+i]; c.typ != w.typ || c.value != w.value || c.raw != w.raw || c.format != w.format || c.formula != "" {
				t.Errorf("%s: cell %d = %+v, want %+v", name, 2+i, c, w)
			}
		}
		// The second answer has no day: an empty cell; its text is text.
		if c := second[3]; c.value != "" || c.typ != excelize.CellTypeUnset {
			t.Errorf("%s: unanswered day = %+v", name, c)
		}
		if c := second[5]; c.typ != excelize.CellTypeInlineString || c.value != "+SUM(1,2)" || c.formula != "" {
			t.Errorf("%s: formula-like text = %+v", name, c)
		}
		if c := second[6]; c.typ != excelize.CellTypeInlineString || c.value != "@me" || c.formula != "" {
			t.Errorf("%s: choice = %+v", name, c)
		}
	}

	// The filter applies: the answers with a 4-star rating only, and
	// those of before today (none).
	filter := "q=" + q[2].ID + "&a=4"
	_, _, web = app.get(t, "/adatum/surveys/"+sv.Slug+"/export.xlsx?"+filter, vera)
	_, _, api = app.api(t, "GET", "/api/v1/surveys/"+sv.Slug+"/export?format=xlsx&"+filter, token, "")
	for name, body := range map[string]string{"download": web, "API": api} {
		if rows := openXLSX(t, name, body); len(rows) != 2 || rows[1][4].value != "4" {
			t.Errorf("%s filtered: %d rows, want 1 answer", name, len(rows)-1)
		}
	}
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	_, _, web = app.get(t, "/adatum/surveys/"+sv.Slug+"/export.xlsx?to="+yesterday, vera)
	if rows := openXLSX(t, "before today", web); len(rows) != 1 {
		t.Errorf("answers before today: %d rows, want the header alone", len(rows))
	}
	// A bad filter is a 422 naming the field.
	if code, _, raw := app.api(t, "GET", "/api/v1/surveys/"+sv.Slug+"/export?format=xlsx&from=x", token, ""); code != 422 || !strings.Contains(raw, `"from"`) {
		t.Errorf("bad filter = %d %s", code, raw)
	}
	// Another format: 404.
	if code, _, _ := app.api(t, "GET", "/api/v1/surveys/"+sv.Slug+"/export?format=ods", token, ""); code != 404 {
		t.Errorf("format=ods = %d", code)
	}
}

type cellWant struct {
	typ                excelize.CellType
	value, raw, format string
}

type xlsxCell struct {
	typ                         excelize.CellType
	value, raw, format, formula string
}

// openXLSX opens body with excelize and returns the cells of its one
// sheet, "Answers", row by row (as many cells a row as the header).
func openXLSX(t *testing.T, name, body string) [][]xlsxCell {
	t.Helper()
	f, err := excelize.OpenReader(strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s: excelize cannot open it: %v", name, err)
	}
	defer f.Close()
	if sheets := f.GetSheetList(); len(sheets) != 1 || sheets[0] != "Answers" {
		t.Fatalf("%s: sheets %q", name, sheets)
	}
	rows, err := f.GetRows("Answers")
	if err != nil {
		t.Fatal(err)
	}
	var out [][]xlsxCell
	for r := range rows {
		var row []xlsxCell
		for c := range rows[0] {
			ref, _ := excelize.CoordinatesToCellName(c+1, r+1)
			var x xlsxCell
			x.typ, _ = f.GetCellType("Answers", ref)
			x.value, _ = f.GetCellValue("Answers", ref)
			x.raw, _ = f.GetCellValue("Answers", ref, excelize.Options{RawCellValue: true})
			x.formula, _ = f.GetCellFormula("Answers", ref)
			if _, err := strconv.ParseFloat(x.raw, 64); x.typ == excelize.CellTypeUnset && err == nil {
				// No type attribute is a number (ECMA-376: t="n" by default).
				x.typ = excelize.CellTypeNumber
			}
			if id, err := f.GetCellStyle("Answers", ref); err == nil && id != 0 {
				if st, err := f.GetStyle(id); err == nil && st.CustomNumFmt != nil {
					x.format = *st.CustomNumFmt
				}
			}
			row = append(row, x)
		}
		out = append(out, row)
	}
	return out
}
