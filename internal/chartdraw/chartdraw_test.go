package chartdraw

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// hostile is a question whose labels try to break out of the SVG.
var hostile = Question{N: 3, Text: `Which <b>colour</b> & why?`, Kind: "Multiple choice", Count: 40,
	Chart: survey.Chart{Labels: []string{"<script>alert(1)</script>", "Tom & Jerry", `"quoted" ]]> end`}, Counts: []int64{12, 20, 8}}}

// decodeSVG decodes doc as XML, failing the test when it is not, and
// returns its character data and element names.
func decodeSVG(t *testing.T, doc []byte) (text string, elements []string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var b strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not XML: %v\n%s", err, doc)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			elements = append(elements, tok.Name.Local)
			for _, a := range tok.Attr {
				if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") || a.Name.Local == "href" {
					t.Errorf("element %s has attribute %s", tok.Name.Local, a.Name.Local)
				}
			}
		case xml.CharData:
			b.Write(tok)
			b.WriteByte('\n')
		}
	}
	return b.String(), elements
}

func TestSVGEscapesAndSaysEveryFigure(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSVG(&buf, hostile); err != nil {
		t.Fatal(err)
	}
	doc := buf.Bytes()
	if bytes.Contains(doc, []byte("<script")) || bytes.Contains(doc, []byte("Tom & Jerry")) {
		t.Errorf("an unescaped label:\n%s", doc)
	}
	text, elements := decodeSVG(t, doc)
	for _, e := range elements {
		switch e {
		case "svg", "title", "desc", "rect", "text":
		default:
			t.Errorf("element %s in the SVG", e)
		}
	}
	if elements[0] != "svg" || elements[1] != "title" || elements[2] != "desc" {
		t.Errorf("elements begin %v, want svg, title, desc", elements[:3])
	}
	for _, want := range []string{"3. Which <b>colour</b> & why?", "<script>alert(1)</script>\t12\t30%", "Tom & Jerry\t20\t50%", `"quoted" ]]> end` + "\t8\t20%",
		"<script>alert(1)</script>", "12 (30%)", "20 (50%)", "8 (20%)", "40 answers"} {
		if !strings.Contains(text, want) {
			t.Errorf("the SVG's text lacks %q:\n%s", want, text)
		}
	}
}

func TestSVGOfEveryChart(t *testing.T) {
	charts := map[string]survey.Chart{
		"nps": {Score: &survey.Figure{Label: "NPS", Value: "+20"}, Stack: []survey.Part{{Key: "promoters", Label: "Promoters (9–10)", Count: 4, Percent: 40}, {Key: "passives", Label: "Passives (7–8)", Count: 4, Percent: 40}, {Key: "detractors", Label: "Detractors (0–6)", Count: 2, Percent: 20}},
			Labels: []string{"0", "10"}, Counts: []int64{2, 4}},
		"matrix": {Rows: []survey.Chart{{Title: "Speed", Labels: []string{"Bad", "Good"}, Counts: []int64{1, 9}, Levels: []int{1, 4}, Answered: 10},
			{Title: "Price", Labels: []string{"Bad", "Good"}, Counts: []int64{7, 3}, Levels: []int{3, 2}, Answered: 10}}},
		"ranking": {Positions: []survey.Position{{Item: "Apples", Average: "1.20", Ranked: 10, First: 8, Width: 90}, {Item: "Pears", Ranked: 0}}},
		"empty":   {},
	}
	want := map[string][]string{
		"nps":     {"NPS  +20", "Promoters (9–10)\t4\t40%", "4 (40%)", "NPS\t+20"},
		"matrix":  {"Speed", "Price", "Speed\tGood\t9\t90%", "Price\tBad\t7\t70%", "Bad", "Good"},
		"ranking": {"Apples", "average position 1.20", "not ranked", "Apples\taverage position 1.20\tranked first by 8"},
		"empty":   {"No answers yet."},
	}
	for name, c := range charts {
		q := Question{N: 1, Text: name, Kind: name, Count: 10, Chart: c}
		var buf bytes.Buffer
		if err := WriteSVG(&buf, q); err != nil {
			t.Fatal(err)
		}
		text, _ := decodeSVG(t, buf.Bytes())
		for _, w := range want[name] {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the SVG's text lacks %q:\n%s", name, w, text)
			}
		}
	}
	words := Question{N: 2, Text: "Say", Kind: "Short text", Count: 3, Words: []survey.WordCount{{Word: "fast", Count: 3}, {Word: "<cheap>", Count: 2}}}
	var buf bytes.Buffer
	if err := WriteSVG(&buf, words); err != nil {
		t.Fatal(err)
	}
	text, _ := decodeSVG(t, buf.Bytes())
	for _, w := range []string{"Most used words", "1. fast ×3", "2. <cheap> ×2", "fast\t3"} {
		if !strings.Contains(text, w) {
			t.Errorf("words: the SVG's text lacks %q:\n%s", w, text)
		}
	}
}

// many is a question of n bars.
func many(n int) Question {
	q := Question{N: 1, Text: "Many", Kind: "Dropdown"}
	for i := range n {
		q.Chart.Labels = append(q.Chart.Labels, "Choice "+strconv.Itoa(i))
		q.Chart.Counts = append(q.Chart.Counts, int64(i))
		q.Count += int64(i)
	}
	return q
}

func TestPNG(t *testing.T) {
	for _, q := range []Question{hostile, many(5)} {
		var buf bytes.Buffer
		if err := WritePNG(&buf, q); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != Width || b.Dy() < 150 || b.Dy() > 400 {
			t.Errorf("%s: the image is %v, want 800 wide and 150 to 400 high", q.Text, b)
		}
	}
}

// TestBounded: a chart of 500 bars draws 60 and says so, within a
// bounded image.
func TestBounded(t *testing.T) {
	q := many(500)
	var buf bytes.Buffer
	if err := WritePNG(&buf, q); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// 60 bars of 24 pixels, the title and a line more: under 1,700.
	if b := img.Bounds(); b.Dx() != Width || b.Dy() > 1700 {
		t.Errorf("the image of 500 bars is %v, want 800 wide and at most 1700 high", b)
	}
	buf.Reset()
	if err := WriteSVG(&buf, q); err != nil {
		t.Fatal(err)
	}
	doc := buf.String()
	if n := strings.Count(doc, "<text"); n > 2*MaxItems+5 {
		t.Errorf("the SVG of 500 bars has %d texts", n)
	}
	text, _ := decodeSVG(t, buf.Bytes())
	if !strings.Contains(text, "and 440 more") || !strings.Contains(text, "Choice 499\t499") {
		t.Errorf("the SVG of 500 bars does not say the 440 more, or lacks the last figure")
	}
}

// TestPNGArabic: Arabic text in a PNG is drawn joined and right to left,
// as a browser sets it in the SVG.
func TestPNGArabic(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"Bread and coffee 12", "Bread and coffee 12"},
		// seen initial, lam-alef final, meem isolated; the last first
		{"سلام", "\uFEE1\uFEFC\uFEB3"},
		{"لا", "\uFEFB"},
		// A number after Arabic letters goes with them, to their left.
		{"Product: منتج 2", "Product: 2 \uFE9E\uFE98\uFEE8\uFEE3"},
	} {
		if got := drawn(c.text); got != c.want {
			t.Errorf("drawn(%q) = %+q, want %+q", c.text, got, c.want)
		}
	}
	draw := func(text, choice string) []byte {
		t.Helper()
		q := Question{N: 1, Text: text, Kind: "Multiple choice", Count: 3,
			Chart: survey.Chart{Labels: []string{choice, "OK"}, Counts: []int64{2, 1}}}
		var buf bytes.Buffer
		if err := WritePNG(&buf, q); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	// The letters as typed and their joined forms draw the same image.
	if !bytes.Equal(draw("سلام", "لا"), draw("\uFEB3\uFEFC\uFEE1", "\uFEFB")) {
		t.Error("the Arabic question and choice are not drawn joined")
	}
}
