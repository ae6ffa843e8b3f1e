package main

import (
	"archive/zip"
	"context"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/surveys-dev/surveys/internal/pdfreport/pdftext"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestBrowserSegments is issue 28's segment journey on a phone: after
// five respondents answer in the browser, the subscriber picks three
// answers in the filter's pickers (no typing), saves the filter as a
// segment, finds it listed and marked, and compares it with everyone;
// every page passes axe-core at 390 px without sideways scroll.
func TestBrowserSegments(t *testing.T) {
	t.Parallel()
	m := newTestMain(t, t.TempDir())
	t.Cleanup(func() { m.Close() })
	ctx := context.Background()
	if _, err := testUsers(m.Storage).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	sv := &survey.Survey{Tenant: "adatum", Title: "Team lunch", State: survey.Published, Questions: []survey.Question{
		{Text: "Where should we eat?", Type: survey.MultipleChoice, PossibleAnswers: []string{"Canteen", "Park", "Pizzeria"}},
		{Text: "Would you come again?", Type: survey.YesNo},
		{Text: "How was it?", Type: survey.FiveStars},
	}}
	if err := store.NewSurveyStore(m.Storage).Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	q := sv.Questions
	browser, axeCheck := newBrowser(t), newAxeCheck(t)
	run := browserRun(t, browser)
	shot := func(name string) chromedp.Action { return screenshot(t, name) }
	base := "http://" + m.Addr()
	surveyURL := base + "/survey/adatum/" + sv.Slug

	// Five respondents: (place, again, stars).
	for i, a := range [][3]string{{"Park", "Yes", "5"}, {"Park", "Yes", "5"}, {"Park", "No", "5"}, {"Canteen", "Yes", "5"}, {"Park", "Yes", "3"}} {
		// A choice's label is clicked, as a person does (a star's
		// radio button is hidden behind its label).
		pick := func(id, v string) chromedp.Action {
			return chromedp.Click(`label:has(> input[name="q-`+id+`"][value="`+v+`"]), input[name="q-`+id+`"][value="`+v+`"] + label`, chromedp.ByQuery)
		}
		run("respondent "+string(rune('1'+i)),
			network.ClearBrowserCookies(),
			chromedp.EmulateViewport(390, 844),
			chromedp.Navigate(surveyURL),
			chromedp.WaitVisible(`input[name="q-`+q[0].ID+`"]`, chromedp.ByQuery),
			pick(q[0].ID, a[0]), pick(q[1].ID, a[1]), pick(q[2].ID, a[2]),
			clickAndLoad(`main form button.primary[type=submit]`, chromedp.ByQuery))
	}

	run("sign in",
		chromedp.Navigate(base+"/login"),
		chromedp.SendKeys(`#email`, "ana@adatum.example", chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "correct horse battery", chromedp.ByQuery),
		clickAndLoad(`main form button[type=submit]`, chromedp.ByQuery))
	fetch := withSession(t, run, base)
	analysis := "/adatum/surveys/" + sv.Slug + "/analyze"
	for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(fetch(analysis), `<strong class="big-number">5</strong>`); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the five answers were not counted")
		}
	}

	// Three answers picked: the park, yes, five stars.
	var lead, current string
	run("pick three answers",
		chromedp.Navigate(base+analysis),
		chromedp.Click(`details.filter summary`, chromedp.ByQuery),
		chromedp.WaitVisible(`#f-c-0`, chromedp.ByQuery),
		chromedp.SetValue(`#f-c-0`, q[0].ID+"=Park", chromedp.ByQuery),
		chromedp.SetValue(`#f-c-1`, q[1].ID+"=Yes", chromedp.ByQuery),
		chromedp.SetValue(`#f-c-2`, q[2].ID+"=5", chromedp.ByQuery),
		axeCheck("analysis filter with pickers (390 px)"),
		clickAndLoad(`details.filter .filter-actions button`, chromedp.ByQuery),
		chromedp.Text(`.lead.filtered`, &lead, chromedp.ByQuery))
	if !strings.Contains(lead, "Filtered: 2 of 5 answers") {
		t.Fatalf("three answers picked: %q", lead)
	}
	run("save the segment",
		chromedp.SendKeys(`#seg-name`, "Happy in the park", chromedp.ByQuery),
		clickAndLoad(`form.segment-save button`, chromedp.ByQuery),
		chromedp.Text(`.segment-list a[aria-current]`, &current, chromedp.ByQuery),
		noSidewaysScroll(t, "analysis of a segment"),
		axeCheck("analysis of a segment (390 px)"),
		shot("segment-analysis-phone"))
	if current != "Happy in the park" {
		t.Errorf("the segment shown is %q", current)
	}

	var sides []string
	run("compare it with everyone",
		clickAndLoad(`a.segments-compare`, chromedp.ByQuery),
		chromedp.WaitVisible(`.compare-grid`, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll(".compare-sides dd")].map(e => e.textContent.trim())`, &sides),
		noSidewaysScroll(t, "compare"),
		axeCheck("compare (390 px)"),
		shot("segment-compare-phone"),
		chromedp.EmulateViewport(1280, 900),
		axeCheck("compare (1280 px)"),
		shot("segment-compare-wide"))
	if len(sides) != 2 || !strings.HasPrefix(sides[0], "2 answers") || !strings.HasPrefix(sides[1], "5 answers") {
		t.Errorf("compare sides %q", sides)
	}

	// A cross-tabulation, picked on the page: the place by coming again.
	var cells []string
	var test string
	run("cross-tabulate",
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(base+analysis),
		clickAndLoad(`.crosstab-link a`, chromedp.ByQuery),
		chromedp.SetValue(`#x-row`, q[0].ID, chromedp.ByQuery),
		chromedp.SetValue(`#x-col`, q[1].ID, chromedp.ByQuery),
		clickAndLoad(`form:has(#x-row) button[type=submit]`, chromedp.ByQuery),
		chromedp.WaitVisible(`table.crosstab-table`, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll("table.crosstab-table tbody tr")].map(r => [...r.cells].map(c => c.textContent.trim()).join(" "))`, &cells),
		chromedp.Text(`.crosstab-test`, &test, chromedp.ByQuery),
		noSidewaysScroll(t, "cross-tabulation"),
		axeCheck("cross-tabulation (390 px)"),
		shot("crosstab-phone"))
	if !strings.Contains(strings.Join(cells, "|"), "Park 3 1 4") || !strings.Contains(test, "1 degree of freedom") {
		t.Errorf("the cross-tabulation shows %q, test %q", cells, test)
	}

	// The report and the files for SPSS and R, as the browser's session
	// downloads them.
	pdf := fetch("/adatum/surveys/" + sv.Slug + "/report.pdf")
	doc, err := pdftext.Read([]byte(pdf))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(doc.Texts(), "\n")
	for _, want := range []string{"Team lunch", "Where should we eat?", "Park"} {
		if !strings.Contains(text, want) {
			t.Errorf("the PDF report lacks %q:\n%s", want, text)
		}
	}
	for _, format := range []string{"spss", "r"} {
		body := fetch("/adatum/surveys/" + sv.Slug + "/export." + format)
		z, err := zip.NewReader(strings.NewReader(body), int64(len(body)))
		if err != nil || len(z.File) != 2 {
			t.Fatalf("the %s export: %v", format, err)
		}
		if format == "spss" {
			psppCounts(t, z, "Park", 4) // as the summary counts it
		}
	}
	// A chart as a picture.
	img, err := png.Decode(strings.NewReader(fetch("/adatum/surveys/" + sv.Slug + "/analyze/" + q[0].ID + "/chart.png")))
	if err != nil || img.Bounds().Dx() != 800 {
		t.Errorf("the chart's PNG: %v", err)
	}
}

// psppCounts runs the SPSS syntax of an export's zip in PSPP and checks
// that its frequencies of the first question give choice its count.
func psppCounts(t *testing.T, z *zip.Reader, choice string, want int) {
	t.Helper()
	pspp, err := exec.LookPath("pspp")
	if err != nil {
		t.Fatal("pspp is not installed: make test installs Debian's pspp package")
	}
	dir, syntax := t.TempDir(), ""
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil || os.WriteFile(filepath.Join(dir, f.Name), b, 0o644) != nil {
			t.Fatalf("unzip %s: %v", f.Name, err)
		}
		if strings.HasSuffix(f.Name, ".sps") {
			syntax = f.Name
		}
	}
	run := "INCLUDE FILE='" + syntax + "'.\nFREQUENCIES /VARIABLES=q1.\n"
	if err := os.WriteFile(filepath.Join(dir, "run.sps"), []byte(run), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(pspp, "-O", "format=csv", "-o", "out.csv", "run.sps")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pspp: %v\n%s", err, out)
	}
	out, err := os.ReadFile(filepath.Join(dir, "out.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		cells := strings.Split(line, ",")
		for i, c := range cells {
			if c == choice && i+1 < len(cells) && cells[i+1] == strconv.Itoa(want) {
				return
			}
		}
	}
	t.Errorf("PSPP's frequencies do not count %d %q:\n%s", want, choice, out)
}
