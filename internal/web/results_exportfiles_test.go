package web_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// TestExportFileLinks: with a public URL, an answer's file is, in the CSV
// export, a link to download it built from that URL (whatever Host and
// forwarded headers the export's request names), and, in the XLSX
// export, its name linked there; the link downloads the file for a signed
// in member. Without a public URL the cells name the files, as before.
func TestExportFileLinks(t *testing.T) {
	t.Parallel()
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.PublicURL = testPublicURL })
	sv := uploadSurvey(t, app)
	path := "/survey/adatum/" + sv.Slug
	q := sv.Questions
	_, _, page := app.do(t, "GET", path, nil, nil)
	token := tokenOf(t, page)
	id := answerID(token)
	content := pdf(800)
	code, _, body := app.postFiles(t, path, multipartForm{
		fields: [][2]string{{"token", token}, {"q-" + q[1].ID, "Ana"}},
		files:  []formFile{{"q-" + q[0].ID + "-file", `cv "final".pdf`, bytes.NewReader(content)}},
	})
	if code != http.StatusSeeOther {
		t.Fatalf("answer = %d\n%s", code, body)
	}
	app.storedOf(t, sv.Slug)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := c.Name + "=" + c.Value
	link := "/adatum/surveys/" + sv.Slug + "/answers/" + id + "/files/" + q[0].ID + "/0"
	evil := map[string]string{"Cookie": cookie, "Host": "evil.example", "X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "http"}

	code, _, body = app.send(t, "GET", "/adatum/surveys/"+sv.Slug+"/export.csv", nil, evil)
	if code != http.StatusOK {
		t.Fatalf("CSV export = %d\n%s", code, body)
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\uFEFF"))).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("CSV rows %q, %v", rows, err)
	}
	col := -1
	for i, h := range rows[0] {
		if strings.HasPrefix(h, "Your CV") {
			col = i
			break
		}
	}
	if col < 0 || rows[1][col] != testPublicURL+link {
		t.Fatalf("CSV header %q, row %q: want the file's cell %q", rows[0], rows[1], testPublicURL+link)
	}
	if strings.Contains(body, "evil.example") {
		t.Error("the CSV export's link names the request's Host")
	}

	code, _, body = app.send(t, "GET", "/adatum/surveys/"+sv.Slug+"/export.xlsx", nil, evil)
	if code != http.StatusOK {
		t.Fatalf("XLSX export = %d", code)
	}
	cells := openXLSX(t, "export.xlsx", body)
	x := cells[1][col]
	if x.value != `cv "final".pdf` || x.formula != `HYPERLINK("`+testPublicURL+link+`","cv ""final"".pdf")` {
		t.Errorf("XLSX file cell %+v", x)
	}

	if code, _, got := app.get(t, link, c); code != http.StatusOK || got != string(content) {
		t.Errorf("the link's download = %d, %d bytes", code, len(got))
	}
	// The download is audited: the file and its answer named.
	if e := findAudit(t, app, "adatum", survey.AuditExport, sv.Slug); e.Actor != "ana@adatum.example" || e.Detail != `file cv "final".pdf of answer `+id {
		t.Errorf("the download's audit event = %+v", e)
	}
	// So is the zip of every file.
	if code, _, _ := app.get(t, "/adatum/surveys/"+sv.Slug+"/files.zip", c); code != http.StatusOK {
		t.Fatalf("files.zip = %d", code)
	}
	if e := findAudit(t, app, "adatum", survey.AuditExport, sv.Slug); e.Detail != "FILES ZIP" {
		t.Errorf("the zip's audit event = %+v", e)
	}

	// Without a public URL: the file's name, as before.
	plain := newTestApp(t)
	sv2 := uploadSurvey(t, plain)
	_, _, page = plain.do(t, "GET", "/survey/adatum/"+sv2.Slug, nil, nil)
	token = tokenOf(t, page)
	if code, _, body := plain.postFiles(t, "/survey/adatum/"+sv2.Slug, multipartForm{
		fields: [][2]string{{"token", token}, {"q-" + sv2.Questions[1].ID, "Ana"}},
		files:  []formFile{{"q-" + sv2.Questions[0].ID + "-file", "cv.pdf", bytes.NewReader(content)}},
	}); code != http.StatusSeeOther {
		t.Fatalf("answer without a public URL = %d\n%s", code, body)
	}
	plain.storedOf(t, sv2.Slug)
	if _, err := testUsers(plain.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c2 := plain.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	_, _, body = plain.get(t, "/adatum/surveys/"+sv2.Slug+"/export.csv", c2)
	rows, _ = csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\uFEFF"))).ReadAll()
	if len(rows) != 2 || rows[1][col] != "cv.pdf" {
		t.Errorf("CSV without a public URL %q", rows)
	}
}
