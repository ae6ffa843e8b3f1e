package pdfreport_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/pdfreport"
	"github.com/surveys-dev/surveys/internal/pdfreport/pdftext"
	"github.com/surveys-dev/surveys/internal/rtl"
	"github.com/surveys-dev/surveys/internal/survey"
)

// read writes r and reads its text back.
func read(t *testing.T, r pdfreport.Report) *pdftext.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := pdfreport.Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	d, err := pdftext.Read(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// has reports whether one of texts is want.
func has(texts []string, want string) bool { return slices.Contains(texts, want) }

// TestReportText: a French report of a filtered survey whose title is
// Polish says, in French, what it covers, and draws each question's
// bars with their counts and shares, the figures the chart has and the
// most used words.
func TestReportText(t *testing.T) {
	r := pdfreport.Report{
		Title: "Zażółć gęślą jaźń — ankieta", Tenant: "Adatum Łódź", Made: time.Date(2026, 12, 6, 11, 5, 0, 0, time.UTC),
		Lang: i18n.For("fr"), Total: 12, Partial: 2, KeepsPartial: true,
		Filter: &pdfreport.Filter{From: "2026-11-01", To: "2026-11-30", About: "Which device?", Answer: "Web", Of: 40},
		Questions: []pdfreport.Question{
			{N: 1, Text: "Which device?", Kind: "Multiple choice", Count: 12, Chart: survey.Chart{Labels: []string{"Web", "Mobile app"}, Counts: []int64{7, 5}}},
			{N: 2, Text: "How much?", Kind: "Slider", Count: 10, Optional: true, Skipped: 2, Chart: survey.Chart{Figures: []survey.Figure{{Label: "Mean", Value: "4.5"}, {Label: "Median", Value: "5"}}}},
			{N: 3, Text: "Anything else?", Kind: "Long text", Count: 3, Chart: survey.Chart{Words: []survey.WordCount{{Word: "façade", Count: 3}, {Word: "vite", Count: 2}}}},
			{N: 4, Text: "Not yet answered", Kind: "Number"},
		},
	}
	d := read(t, r)
	texts := d.Texts()
	for _, want := range []string{
		"Zażółć gęślą jaźń — ankieta", "Adatum Łódź", "Rapport établi le 6 décembre 2026 à 11:05 UTC",
		"Réponses complètes : 12", "Réponses partielles : 2 (comptées à part : leurs répondants sont partis sans les envoyer)",
		"Filtré : du 1 novembre 2026 au 30 novembre 2026, la réponse à « Which device? » est « Web ».",
		"Le filtre retient 14 réponses sur 40.",
		"1. Which device?", "Choix multiple · 12 réponses", "Web", "7  (58%)", "Mobile app", "5  (42%)",
		"Curseur · 10 réponses · sans réponse de 2", "Moyenne", "4.5", "Médiane", "5",
		"Mots les plus employés", "1. façade ×3", "2. vite ×2",
		"Nombre · 0 réponses", "Pas encore de réponses.", "Page 1 sur 1",
	} {
		if !has(texts, want) {
			t.Errorf("the report lacks %q; it shows:\n%s", want, strings.Join(texts, "\n"))
		}
	}
	if len(d.Pages) != 1 {
		t.Errorf("%d pages, want 1", len(d.Pages))
	}
}

// TestReportUnfiltered says it covers every answer, and leaves partial
// answers unsaid for a survey that keeps none.
func TestReportUnfiltered(t *testing.T) {
	d := read(t, pdfreport.Report{Title: "Feedback", Tenant: "Adatum", Made: time.Now(), Lang: i18n.For("de"), Total: 1})
	texts := d.Texts()
	if !has(texts, "Alle Antworten, ungefiltert.") || !has(texts, "Vollständige Antworten: 1") {
		t.Errorf("the report says:\n%s", strings.Join(texts, "\n"))
	}
	for _, s := range texts {
		if strings.HasPrefix(s, "Teilantworten") || strings.HasPrefix(s, "Gefiltert") {
			t.Errorf("the report says %q", s)
		}
	}
}

// TestReportArabic: an Arabic survey's report is in Arabic, its own
// words and the survey's shaped (presentation forms) and in display
// order, numbers and Latin words kept in theirs; its pages are numbered
// in the language's digits.
func TestReportArabic(t *testing.T) {
	ar := i18n.For("ar")
	r := pdfreport.Report{
		Title: "استبيان الرضا", Tenant: "Adatum", Made: time.Date(2026, 12, 6, 11, 5, 0, 0, time.UTC), Lang: ar, Total: 12,
		Filter: &pdfreport.Filter{From: "2026-11-01", Status: "complete", Of: 20},
		Questions: []pdfreport.Question{
			{N: 1, Text: "ما رأيك في الخدمة؟", Kind: "Multiple choice", Count: 12, Chart: survey.Chart{Labels: []string{"ممتاز", "جيد جدًا", "OK"}, Counts: []int64{7, 4, 1}}},
			{N: 2, Text: "كم عمرك؟", Kind: "Slider", Count: 10, Chart: survey.Chart{Figures: []survey.Figure{{Label: "Mean", Value: "4.5"}}}},
			{N: 3, Text: "ملاحظات", Kind: "Long text", Count: 3, Chart: survey.Chart{Words: []survey.WordCount{{Word: "سريع", Count: 3}}}},
		},
	}
	d := read(t, r)
	texts := d.Texts()
	// vis is s as the report draws it.
	vis := func(s string) string { return rtl.Visual(rtl.Shape(s), true) }
	for _, want := range []string{
		// The title, shaped and reversed, written out.
		"\uFE8E\uFEBF\uFEAE\uFEDF\uFE8D \uFEE5\uFE8E\uFEF4\uFE92\uFE98\uFEB3\uFE8D",
		// "Complete answers: 12", its number in Arabic-Indic digits.
		"١٢ :\uFE94\uFEE0\uFEE3\uFE8E\uFEDC\uFEDF\uFE8D \uFE95\uFE8E\uFE91\uFE8E\uFE9F\uFEF9\uFE8D",
		"Adatum",
		vis("1. ما رأيك في الخدمة؟"),
		vis(ar.T("Multiple choice") + " · " + ar.T("%d answers", 12)),
		vis("ممتاز"), "(58%)  7", vis("جيد جدًا"), "(33%)  4", "OK", "(8%)  1",
		vis(ar.T("Mean")), "4.5",
		vis(ar.T("Most used words")), vis("1. سريع ×3"),
		vis(ar.T("Page %d of %d", 1, 1)),
	} {
		if !has(texts, want) {
			t.Errorf("the report lacks %q; it shows:\n%s", want, strings.Join(texts, "\n"))
		}
	}
	if got := vis(ar.T("Page %d of %d", 1, 1)); !strings.Contains(got, "١ \uFEE6\uFEE3 ١") {
		t.Errorf("the page number is %q", got)
	}
	// The filter's parts are joined by the Arabic comma.
	filtered := slices.IndexFunc(texts, func(s string) bool {
		return strings.Contains(s, "،") && strings.Contains(s, vis(ar.T("complete answers only")))
	})
	if filtered < 0 || strings.Contains(texts[filtered], ",") {
		t.Errorf("no filter's description with its parts joined by ، in:\n%s", strings.Join(texts, "\n"))
	}
	// Laid out from the right: the title ends at the right margin (A4 is
	// 595 points wide), the page number is on the left, a bar's label is
	// right of its count.
	x := func(s string) float64 {
		x, ok := d.X(s)
		if !ok {
			t.Fatalf("no %q", s)
		}
		return x
	}
	if title := x(vis(r.Title)); title < 300 {
		t.Errorf("the title starts at %.1f pt, on the left half", title)
	}
	if page := x(vis(ar.T("Page %d of %d", 1, 1))); page > 100 {
		t.Errorf("the page number starts at %.1f pt, not on the left", page)
	}
	if label, count := x(vis("ممتاز")), x("(58%)  7"); label <= count {
		t.Errorf("a bar's label is at %.1f pt, left of its count at %.1f pt", label, count)
	}
}

// TestReportArabicAnswer: in a left-to-right report, an answer in Arabic
// is shaped and put in display order (its words, with the slash
// between them, right to left), the text around it left to right.
func TestReportArabicAnswer(t *testing.T) {
	d := read(t, pdfreport.Report{Title: "Feedback", Made: time.Now(), Lang: i18n.For("en"), Questions: []pdfreport.Question{
		{N: 1, Text: "Do you agree? (نعم / لا)", Count: 2, Chart: survey.Chart{Labels: []string{"نعم", "Yes"}, Counts: []int64{1, 1}}},
	}})
	for _, want := range []string{"1. Do you agree? (\uFEFB / \uFEE2\uFECC\uFEE7)", "\uFEE2\uFECC\uFEE7", "Yes", "1  (50%)"} {
		if !has(d.Texts(), want) {
			t.Errorf("the report lacks %q; it shows:\n%s", want, strings.Join(d.Texts(), "\n"))
		}
	}
	// Aligned left, as the Latin label under it.
	if arabic, latin := d.Xs[0][slices.Index(d.Pages[0], "\uFEE2\uFECC\uFEE7")], d.Xs[0][slices.Index(d.Pages[0], "Yes")]; arabic != latin {
		t.Errorf("the Arabic label starts at %.2f pt, the Latin one at %.2f", arabic, latin)
	}
}

// TestReportPageBreaks: 30 questions of 9 bars each fill several pages,
// and no question's chart is split from its title: each question's title
// and its last bar are on the same page, numbered "Page n of N".
func TestReportPageBreaks(t *testing.T) {
	r := pdfreport.Report{Title: "Long", Tenant: "Adatum", Made: time.Now(), Lang: i18n.For("en"), Total: 90}
	for i := 1; i <= 30; i++ {
		c := survey.Chart{}
		for j := 1; j <= 9; j++ {
			c.Labels = append(c.Labels, fmt.Sprintf("q%d choice %d", i, j))
			c.Counts = append(c.Counts, int64(j))
		}
		r.Questions = append(r.Questions, pdfreport.Question{N: i, Text: fmt.Sprintf("Question number %d", i), Kind: "Dropdown", Count: 45, Chart: c})
	}
	d := read(t, r)
	if len(d.Pages) < 5 {
		t.Fatalf("%d pages for 30 questions of 9 bars", len(d.Pages))
	}
	pageOf := func(s string) int {
		for p, texts := range d.Pages {
			if has(texts, s) {
				return p
			}
		}
		t.Fatalf("no page shows %q", s)
		return -1
	}
	for i := 1; i <= 30; i++ {
		if a, b := pageOf(fmt.Sprintf("%d. Question number %d", i, i)), pageOf(fmt.Sprintf("q%d choice 9", i)); a != b {
			t.Errorf("question %d starts on page %d and ends on page %d", i, a+1, b+1)
		}
	}
	for p, texts := range d.Pages {
		if want := fmt.Sprintf("Page %d of %d", p+1, len(d.Pages)); !has(texts, want) {
			t.Errorf("page %d lacks %q", p+1, want)
		}
	}
}

// TestReportLongChart: a chart longer than a page goes on over the next
// one, every bar drawn.
func TestReportLongChart(t *testing.T) {
	c := survey.Chart{}
	for j := 1; j <= 80; j++ {
		c.Labels = append(c.Labels, fmt.Sprintf("choice %d", j))
		c.Counts = append(c.Counts, 1)
	}
	d := read(t, pdfreport.Report{Title: "Long", Made: time.Now(), Questions: []pdfreport.Question{{N: 1, Text: "Which?", Count: 80, Chart: c}}})
	if len(d.Pages) < 2 {
		t.Errorf("%d pages for 80 bars", len(d.Pages))
	}
	for j := 1; j <= 80; j++ {
		if !has(d.Texts(), fmt.Sprintf("choice %d", j)) {
			t.Errorf("bar %d is missing", j)
		}
	}
}

// TestKindNames: every kind's name is a key of the catalogs, so that the
// report says it in the survey's language.
func TestKindNames(t *testing.T) {
	for _, k := range survey.Kinds() {
		if !slices.Contains(i18n.Keys, k.Label()) {
			t.Errorf("%s: its name %q is not a key of the catalogs", k.Type(), k.Label())
		}
	}
}

// TestReportGlyphs: what a respondent or a subscriber writes may hold
// characters the font has no glyph for (an emoji, past U+FFFF, on which
// fpdf would fail the document; Chinese, which it would leave blank),
// controls and invisible formats: the report is written all the same,
// each such character shown as U+FFFD or left out, accents (combining
// ones too) kept.
func TestReportGlyphs(t *testing.T) {
	d := read(t, pdfreport.Report{Title: "调查 😀 Café e\u0301\u200b\x00\tend", Made: time.Now(), Questions: []pdfreport.Question{
		{N: 1, Text: "Mood 😀?", Count: 2, Chart: survey.Chart{Labels: []string{"𝔘𝔫𝔦", "ok"}, Counts: []int64{1, 1}, Words: []survey.WordCount{{Word: "汉字", Count: 2}}}},
	}})
	wantTexts := []string{"\uFFFD\uFFFD \uFFFD Café e\u0301 end", "1. Mood \uFFFD?", "\uFFFD\uFFFD\uFFFD", "1. \uFFFD\uFFFD ×2"}
	for _, want := range wantTexts {
		if !has(d.Texts(), want) {
			t.Errorf("the report lacks %q; it shows:\n%s", want, strings.Join(d.Texts(), "\n"))
		}
	}
}
