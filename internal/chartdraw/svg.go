package chartdraw

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"image/color"
	"io"
	"strconv"
	"strings"
)

// WriteSVG writes q's chart to w as a standalone SVG document: its title
// is the question, its description the figures (Figures), then the
// chart's rectangles and texts. It holds no script, no style sheet, no
// foreignObject and no reference to anything outside it.
func WriteSVG(w io.Writer, q Question) error {
	m, err := newMeasurer()
	if err != nil {
		return err
	}
	d := layout(q, m)
	b := bufio.NewWriter(w)
	h := strconv.Itoa(int(d.h + 0.5))
	fmt.Fprintf(b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+
		`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%s" viewBox="0 0 %d %s" role="img" aria-labelledby="title desc" font-family="DejaVu Sans, Verdana, sans-serif">`+"\n",
		Width, h, Width, h)
	b.WriteString(`<title id="title">`)
	escape(b, d.title)
	b.WriteString("</title>\n<desc id=\"desc\">")
	// The figures' lines and tabs as they are: a reader of the file sees
	// them so.
	var desc bytes.Buffer
	escape(&desc, d.desc)
	b.WriteString(strings.NewReplacer("&#xA;", "\n", "&#x9;", "\t").Replace(desc.String()))
	b.WriteString("</desc>\n")
	fmt.Fprintf(b, `<rect width="%d" height="%s" fill="#ffffff"/>`+"\n", Width, h)
	for _, s := range d.shapes {
		if s.text == "" {
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", num(s.x), num(s.y), num(s.w), num(s.h), hex(s.fill))
			continue
		}
		fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%s" fill="%s"`, num(s.x), num(s.y), num(s.size), hex(s.fill))
		if s.bold {
			b.WriteString(` font-weight="bold"`)
		}
		if s.end {
			b.WriteString(` text-anchor="end"`)
		}
		b.WriteString(">")
		escape(b, s.text)
		b.WriteString("</text>\n")
	}
	b.WriteString("</svg>\n")
	return b.Flush()
}

// escape writes s as XML character data: <, >, &, quotes escaped, and a
// character XML does not allow replaced by U+FFFD.
func escape(w io.Writer, s string) {
	_ = xml.EscapeText(w, []byte(s)) // the writer is a bufio.Writer: its error comes at Flush
}

// num is x with at most one decimal.
func num(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

func hex(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
