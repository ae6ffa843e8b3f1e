package web_test

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/pdfreport/pdftext"
	"github.com/surveys-dev/surveys/internal/rtl"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/store/storetest"
	"github.com/surveys-dev/surveys/internal/survey"
)

// reportAnswers stores 12 answers to Adatum's survey: 7 use the mobile
// app most and 5 the API, each rating the service 4 stars.
func reportAnswers(t *testing.T, app *testApp) {
	t.Helper()
	sv := app.adatum
	start := time.Now().UTC().Add(-time.Minute)
	var answers []*survey.SurveyAnswer
	for i := range 12 {
		on := start.Add(time.Duration(i) * time.Millisecond)
		product := "Mobile app"
		if i >= 7 {
			product = "API"
		}
		a := &survey.SurveyAnswer{ID: store.NewAnswerID(on), Tenant: sv.Tenant, Slug: sv.Slug, Title: sv.Title, CreatedOn: on}
		for j, v := range []string{"4", product} {
			q := sv.Questions[j]
			a.Answers = append(a.Answers, survey.QuestionAnswer{QuestionID: q.ID, QuestionText: q.Text, Type: q.Type, Answer: v})
		}
		answers = append(answers, a)
	}
	if err := storetest.PutAnswers(context.Background(), app.st, sv, answers, 0); err != nil {
		t.Fatal(err)
	}
}

// readReport checks that a response is a PDF report to download, and
// reads its text.
func readReport(t *testing.T, header http.Header, body string) []string {
	t.Helper()
	if ct, cd := header.Get("Content-Type"), header.Get("Content-Disposition"); ct != "application/pdf" || !strings.HasPrefix(cd, "attachment;") || !strings.Contains(cd, "-report.pdf") {
		t.Errorf("Content-Type %q, Content-Disposition %q", ct, cd)
	}
	d, err := pdftext.Read([]byte(body))
	if err != nil {
		t.Fatalf("the report: %v (%.40q)", err, body)
	}
	return d.Texts()
}

// wantTexts fails t for each of want the report does not show.
func wantTexts(t *testing.T, texts []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(texts, w) {
			t.Errorf("the report lacks %q; it shows:\n%s", w, strings.Join(texts, "\n"))
		}
	}
}

// TestReportPDF: the report of Adatum's survey, from the analysis page's
// link and from the API, names the survey and its tenant, counts the 12
// answers and draws the choices' bars with their counts and shares;
// filtered, it says its filter and counts the answers it picks.
func TestReportPDF(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	reportAnswers(t, app)
	if _, err := testUsers(app.st).AddMember(ctx, "adatum", "vera@adatum.example", "correct horse battery", survey.Viewer); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "vera@adatum.example", "correct horse battery")
	base := "/adatum/surveys/" + app.adatum.Slug
	products := app.adatum.Questions[1]

	// The analysis page links its report, with its filter.
	_, _, page := app.get(t, base+"/analyze", c)
	if !strings.Contains(page, `href="`+base+`/report.pdf" download>Download the report (PDF)</a>`) {
		t.Errorf("the analysis page does not link its report")
	}
	_, _, page = app.get(t, base+"/analyze?q="+products.ID+"&a=API", c)
	if !strings.Contains(page, `href="`+base+`/report.pdf?a=API&amp;q=`+products.ID+`" download>Download the report (PDF), filtered</a>`) {
		t.Errorf("the filtered analysis page does not link its filtered report")
	}

	code, header, body := app.get(t, base+"/report.pdf", c)
	if code != http.StatusOK {
		t.Fatalf("report.pdf = %d\n%.300s", code, body)
	}
	if cd := header.Get("Content-Disposition"); cd != `attachment; filename="adatum-`+app.adatum.Slug+`-report.pdf"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	texts := readReport(t, header, body)
	wantTexts(t, texts, "Adatum customer satisfaction", "Adatum", "Complete answers: 12", "Every answer, unfiltered.",
		"2. Which of our products do you use most?", "Mobile app", "7  (58%)", "API", "5  (42%)", "Web portal", "0  (0%)")

	code, header, body = app.get(t, base+"/report.pdf?q="+products.ID+"&a=API", c)
	if code != http.StatusOK {
		t.Fatalf("filtered report.pdf = %d", code)
	}
	wantTexts(t, readReport(t, header, body), "Complete answers: 5",
		"Filtered: the answer to “Which of our products do you use most?” is “API”.", "The filter picks 5 of 12 answers.", "5  (100%)")

	// A bad filter: 422, no report.
	if code, header, _ := app.get(t, base+"/report.pdf?from=yesterday", c); code != http.StatusUnprocessableEntity || header.Get("Content-Type") == "application/pdf" {
		t.Errorf("report.pdf?from=yesterday = %d %s", code, header.Get("Content-Type"))
	}

	// The API's, with a viewer's token.
	token, err := store.NewTokenStore(app.st).CreateWithRole(ctx, "adatum", "test", survey.Viewer, 0)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", app.srv.URL+"/api/v1/surveys/"+app.adatum.Slug+"/report.pdf?status=complete", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := app.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw := new(bytes.Buffer)
	if _, err := raw.ReadFrom(resp.Body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("API report.pdf = %d, %v", resp.StatusCode, err)
	}
	validateAPI(t, req, resp.StatusCode, resp.Header, raw.Bytes())
	wantTexts(t, readReport(t, resp.Header, raw.String()), "Complete answers: 12", "Filtered: complete answers only.", "7  (58%)")
	if code, v, _ := app.api(t, "GET", "/api/v1/surveys/"+app.adatum.Slug+"/report.pdf?to=never", token, ""); code != http.StatusUnprocessableEntity || v["error"] == nil {
		t.Errorf("API report.pdf?to=never = %d %v", code, v)
	}
}

// TestReportPDFLanguage: a French survey's report says its own words in
// French; an Arabic survey's, in Arabic, its letters joined and its lines
// in display order (right to left).
func TestReportPDFLanguage(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	token, err := store.NewTokenStore(app.st).CreateWithRole(ctx, "adatum", "test", survey.Viewer, 0)
	if err != nil {
		t.Fatal(err)
	}
	vis := func(s string) string { return rtl.Visual(rtl.Shape(s), true) }
	for _, c := range []struct {
		lang, title, question string
		choices               []string
		want                  []string
	}{
		{"fr", "Enquête de satisfaction", "Quel produit ?", []string{"Application", "Portail"},
			[]string{"Enquête de satisfaction", "Réponses complètes : 0", "Toutes les réponses, sans filtre.", "1. Quel produit ?", "Application", "0  (0%)"}},
		{"ar", "استبيان الرضا", "ما المنتج؟", []string{"تطبيق", "بوابة"},
			[]string{"\uFE8E\uFEBF\uFEAE\uFEDF\uFE8D \uFEE5\uFE8E\uFEF4\uFE92\uFE98\uFEB3\uFE8D", vis("الإجابات الكاملة: ٠"), vis("كل الإجابات، دون ترشيح."),
				vis("1. ما المنتج؟"), vis("تطبيق"), vis("بوابة"), "(0%)  0"}},
	} {
		sv := &survey.Survey{Tenant: "adatum", Title: c.title, Language: c.lang,
			Questions: []survey.Question{{Text: c.question, Type: survey.MultipleChoice, PossibleAnswers: c.choices}}}
		if err := app.surveys.Create(ctx, sv); err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest("GET", app.srv.URL+"/api/v1/surveys/"+sv.Slug+"/report.pdf", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := app.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw := new(bytes.Buffer)
		_, err = raw.ReadFrom(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: report.pdf = %d, %v", c.lang, resp.StatusCode, err)
		}
		wantTexts(t, readReport(t, resp.Header, raw.String()), c.want...)
	}
}
