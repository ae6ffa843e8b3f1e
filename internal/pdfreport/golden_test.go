package pdfreport_test

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/pdfreport"
	"github.com/surveys-dev/surveys/internal/survey"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// latinReport is a report of a Latin-script survey that uses every part
// of the layout: the head with a filter, each kind of chart, long texts
// that wrap, a chart over two pages.
func latinReport(lang string) pdfreport.Report {
	long := strings.Repeat("A rather long question text that has to wrap over more than one line of the page, ", 3)
	c := survey.Chart{}
	for j := 1; j <= 70; j++ {
		c.Labels = append(c.Labels, fmt.Sprintf("Choice number %d, with a label long enough to wrap in its column", j))
		c.Counts = append(c.Counts, int64(j%7))
	}
	return pdfreport.Report{
		Title: "Customer feedback — Zażółć gęślą jaźń", Tenant: "Adatum", Made: time.Date(2026, 12, 6, 11, 5, 0, 0, time.UTC),
		Lang: i18n.For(lang), Total: 70, Partial: 3, KeepsPartial: true,
		Filter: &pdfreport.Filter{From: "2026-11-01", About: "Which device?", Answer: "Web", Status: "complete", Of: 90},
		Questions: []pdfreport.Question{
			{N: 1, Text: "How likely are you to recommend us?", Kind: "Net Promoter Score", Count: 10, Chart: survey.Chart{
				Score: &survey.Figure{Label: "NPS", Value: "30"},
				Stack: []survey.Part{{Label: "Promoters (9–10)", Count: 5, Percent: 50}, {Label: "Passives (7–8)", Count: 3, Percent: 30}, {Label: "Detractors (0–6)", Count: 2, Percent: 20}},
			}},
			{N: 2, Text: long, Kind: "Rating", Count: 8, Optional: true, Skipped: 1, Hidden: true, Chart: survey.Chart{Averaged: true, Average: 3.25, Labels: []string{"1", "2", "3", "4", "5"}, Counts: []int64{1, 1, 2, 2, 2}}},
			{N: 3, Text: "Rate each", Kind: "Matrix", Count: 4, Chart: survey.Chart{Rows: []survey.Chart{
				{Title: "Speed", Labels: []string{"Good", "Bad"}, Counts: []int64{3, 1}, Averaged: true, Average: 1.5},
				{Title: "Price", Labels: []string{"Good", "Bad"}, Counts: []int64{2, 2}, Figures: []survey.Figure{{Label: "Mean", Value: "2"}}},
			}}},
			{N: 4, Text: "Order these", Kind: "Ranking", Count: 4, Chart: survey.Chart{Positions: []survey.Position{{Item: "Price", Average: "1.5"}, {Item: "Speed"}}}},
			{N: 5, Text: "Anything else?", Kind: "Long text", Count: 3, Chart: survey.Chart{OtherWords: 4, Note: "Words of fewer than three letters are left out.", Words: []survey.WordCount{{Word: "façade", Count: 3}, {Word: "quick", Count: 2}, {Word: "service", Count: 2}, {Word: "delivery", Count: 1}}}},
			{N: 6, Text: "Which one?", Kind: "Dropdown", Count: 70, Chart: c},
			{N: 7, Text: "Not yet answered", Kind: "Number"},
		},
	}
}

// TestLatinUnchanged: a Latin-script report is, byte for byte, what it
// was before right-to-left text was shaped and ordered (testdata, made by
// the report writer of before; -update rewrites it): its every page and
// what the page draws, and its length. (fpdf writes its two fonts after
// the pages in a map's order, so the rest of the file is not compared.)
func TestLatinUnchanged(t *testing.T) {
	for _, lang := range []string{"en", "fr"} {
		var buf bytes.Buffer
		if err := pdfreport.Write(&buf, latinReport(lang)); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "latin-"+lang+".pdf")
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(pages(t, buf.Bytes()), pages(t, want)) || buf.Len() != len(want) {
			t.Errorf("the %s report differs from %s (%d bytes, want %d)", lang, path, buf.Len(), len(want))
		}
	}
}

// pages is doc up to its first font object: its header and every page,
// with the page's content.
func pages(t *testing.T, doc []byte) []byte {
	t.Helper()
	i := bytes.Index(doc, []byte("<</Type /Font"))
	if i < 0 {
		t.Fatal("a document without fonts")
	}
	return doc[:i]
}

// BenchmarkWrite writes a Latin report and the same report in Arabic
// (shaped, ordered, laid out twice to number its pages).
func BenchmarkWrite(b *testing.B) {
	arabic := latinReport("ar")
	arabic.Title = "استبيان رضا العملاء"
	for i := range arabic.Questions {
		arabic.Questions[i].Text = strings.Repeat("ما رأيك في الخدمة التي قدمناها لك؟ ", 3)
	}
	for name, r := range map[string]pdfreport.Report{"latin": latinReport("en"), "arabic": arabic} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if err := pdfreport.Write(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
