package web_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// svgText is the character data of an SVG document, failing t when it is
// not XML.
func svgText(t *testing.T, doc string) string {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(doc))
	var b strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return b.String()
		}
		if err != nil {
			t.Fatalf("the SVG is not XML: %v\n%.300s", err, doc)
		}
		if cd, ok := tok.(xml.CharData); ok {
			b.Write(cd)
			b.WriteByte('\n')
		}
	}
}

// wantDownload fails t unless header is that of an attachment named
// name, of type ct, that nothing sniffs nor runs.
func wantDownload(t *testing.T, header http.Header, ct, name string) {
	t.Helper()
	if got := header.Get("Content-Type"); got != ct {
		t.Errorf("Content-Type %q, want %q", got, ct)
	}
	if got := header.Get("Content-Disposition"); got != `attachment; filename="`+name+`"` {
		t.Errorf("Content-Disposition %q, want an attachment %s", got, name)
	}
	if got := header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options %q", got)
	}
	if csp := header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "sandbox") || strings.Contains(csp, "'self'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
}

// TestChartDownloads: the analysis page links each chart as PNG and SVG,
// with its filter, and shows its figures to copy; the SVG and PNG count
// as the page does, filtered as it is.
func TestChartDownloads(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	reportAnswers(t, app)
	if _, err := testUsers(app.st).AddMember(context.Background(), "adatum", "vera@adatum.example", "correct horse battery", survey.Viewer); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "vera@adatum.example", "correct horse battery")
	base := "/adatum/surveys/" + app.adatum.Slug
	products := app.adatum.Questions[1]
	chart := base + "/analyze/" + products.ID + "/chart"

	_, _, page := app.get(t, base+"/analyze", c)
	for _, want := range []string{`href="` + chart + `.png" download>Download PNG`, `href="` + chart + `.svg" download>Download SVG`,
		"Copy the figures", ">Web portal\t0\t0%\nMobile app\t7\t58%\nDesktop client\t0\t0%\nAPI\t5\t42%\n</pre>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the analysis page lacks %q", want)
		}
	}
	filter := "?q=" + products.ID + "&a=API"
	_, _, page = app.get(t, base+"/analyze"+filter, c)
	for _, want := range []string{`href="` + chart + `.png?a=API&amp;q=` + products.ID + `" download>`, `href="` + chart + `.svg?a=API&amp;q=` + products.ID + `" download>`, ">Web portal\t0\t0%\nMobile app\t0\t0%\nDesktop client\t0\t0%\nAPI\t5\t100%\n</pre>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the filtered analysis page lacks %q", want)
		}
	}

	code, header, body := app.get(t, chart+".svg", c)
	if code != http.StatusOK {
		t.Fatalf("chart.svg = %d\n%.300s", code, body)
	}
	wantDownload(t, header, "image/svg+xml", "adatum-"+app.adatum.Slug+"-q2.svg")
	text := svgText(t, body)
	for _, want := range []string{"2. Which of our products do you use most?", "Mobile app", "7 (58%)", "API", "5 (42%)", "Web portal", "0 (0%)", "Mobile app\t7\t58%"} {
		if !strings.Contains(text, want) {
			t.Errorf("chart.svg lacks %q:\n%s", want, text)
		}
	}

	_, _, body = app.get(t, chart+".svg"+filter, c)
	text = svgText(t, body)
	if !strings.Contains(text, "5 (100%)") || !strings.Contains(text, "0 (0%)") || strings.Contains(text, "7 (58%)") {
		t.Errorf("the filtered chart.svg does not count the 5 answers the filter picks:\n%s", text)
	}

	code, header, body = app.get(t, chart+".png"+filter, c)
	if code != http.StatusOK {
		t.Fatalf("chart.png = %d", code)
	}
	wantDownload(t, header, "image/png", "adatum-"+app.adatum.Slug+"-q2.png")
	img, err := png.Decode(bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 800 || b.Dy() < 100 || b.Dy() > 600 {
		t.Errorf("chart.png is %v", b)
	}

	if code, _, _ := app.get(t, base+"/analyze/nosuch/chart.svg", c); code != http.StatusNotFound {
		t.Errorf("the chart of no question = %d", code)
	}
	if code, header, _ := app.get(t, chart+".png?from=yesterday", c); code != http.StatusUnprocessableEntity || header.Get("Content-Type") == "image/png" {
		t.Errorf("chart.png?from=yesterday = %d %s", code, header.Get("Content-Type"))
	}
}
