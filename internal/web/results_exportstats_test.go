package web_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestExportStats: a viewer's downloads for SPSS (export.spss) and R
// (export.r), and the API's ?format=spss and ?format=r, are zips of the
// coded data file and the syntax that reads it; the answers page has
// their buttons; the answers' filter applies. (What the syntax does is
// tested in PSPP and R: package codebook.)
func TestExportStats(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	sv := &survey.Survey{Tenant: "adatum", Title: "Coded", Questions: []survey.Question{
		{Text: "Pick", Type: survey.MultipleChoice, PossibleAnswers: []string{"Tea", "Coffee"}},
		{Text: `Say "why"`, Type: survey.SimpleText, Optional: true},
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
		{"q-" + q[0].ID: {"Coffee"}, "q-" + q[1].ID: {"=1+1, \"really\""}},
		{"q-" + q[0].ID: {"Tea"}},
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
	_, _, page := app.get(t, "/adatum/surveys/"+sv.Slug+"/answers", vera)
	base := "adatum-" + sv.Slug
	for format, syntax := range map[string]string{"spss": base + ".sps", "r": base + ".R"} {
		if !strings.Contains(page, `href="/adatum/surveys/`+sv.Slug+`/export.`+format+`"`) {
			t.Errorf("answers page without the %s export button", format)
		}
		code, header, web := app.get(t, "/adatum/surveys/"+sv.Slug+"/export."+format, vera)
		if code != 200 || header.Get("Content-Type") != "application/zip" ||
			header.Get("Content-Disposition") != `attachment; filename="`+base+`-`+format+`.zip"` {
			t.Fatalf("%s download = %d %v", format, code, header)
		}
		apiCode, _, api := app.api(t, "GET", "/api/v1/surveys/"+sv.Slug+"/export?format="+format, token, "")
		if apiCode != 200 {
			t.Fatalf("API %s export = %d %s", format, apiCode, api)
		}
		for name, body := range map[string]string{"download": web, "API": api} {
			files := zipFiles(t, body)
			if len(files) != 2 || files[syntax] == "" {
				t.Fatalf("%s %s: files %v, want the data and %s", name, format, keys(files), syntax)
			}
			rows := csvRows(t, files[base+".csv"])
			// Coffee is the second choice: code 2; the text as the CSV
			// export guards it.
			if len(rows) != 3 || strings.Join(rows[0][2:], ",") != "q1,q2" || rows[1][2] != "2" || rows[1][3] != `'=1+1, "really"` || rows[2][2] != "1" || rows[2][3] != "" {
				t.Errorf("%s %s: data %q", name, format, rows)
			}
			if !strings.Contains(files[syntax], base+".csv") || !strings.Contains(files[syntax], "Coffee") || !strings.Contains(files[syntax], "Say") {
				t.Errorf("%s %s: syntax does not read the data with its labels:\n%s", name, format, files[syntax])
			}
		}
		// The filter applies: the answers that chose Tea.
		_, _, web = app.get(t, "/adatum/surveys/"+sv.Slug+"/export."+format+"?q="+q[0].ID+"&a=Tea", vera)
		if rows := csvRows(t, zipFiles(t, web)[base+".csv"]); len(rows) != 2 || rows[1][2] != "1" {
			t.Errorf("%s filtered: %q, want the answer that chose Tea", format, rows)
		}
	}
	// Another format: 404 (SPSS's own .sav is not made).
	if code, _, _ := app.get(t, "/adatum/surveys/"+sv.Slug+"/export.sav", vera); code != 404 {
		t.Errorf("export.sav = %d, want 404", code)
	}
}

// zipFiles are the files of a zip, by name.
func zipFiles(t *testing.T, body string) map[string]string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader([]byte(body)), int64(len(body)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	out := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		_ = rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = string(b)
	}
	return out
}

func csvRows(t *testing.T, s string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatalf("data file: %v\n%s", err, s)
	}
	return rows
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
