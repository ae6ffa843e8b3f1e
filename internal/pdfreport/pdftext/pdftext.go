// Package pdftext reads back, for tests, the text of the PDF documents
// that pdfreport writes: the strings each page's content shows (the
// operands of Tj, in UTF-16BE as fpdf writes them with a UTF-8 font),
// where each starts across the page, and the number of pages. It is no
// general PDF reader: no other writer's documents, no fonts' encodings,
// no text matrices. Only tests import it.
package pdftext

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"unicode/utf16"
)

// Document is what a PDF document shows.
type Document struct {
	// Pages are the strings each page shows, in the order of its
	// content; their number is the page count the page tree gives.
	Pages [][]string
	// Xs are, beside Pages, where each string starts across its page, in
	// points from the left edge (the operands of the Td before it).
	Xs [][]float64
}

// X is where the first string s on any page starts, in points from the
// page's left edge; false when none is s.
func (d *Document) X(s string) (float64, bool) {
	for p, texts := range d.Pages {
		for i, t := range texts {
			if t == s {
				return d.Xs[p][i], true
			}
		}
	}
	return 0, false
}

// Texts are the strings every page shows, page after page.
func (d *Document) Texts() []string {
	var out []string
	for _, p := range d.Pages {
		out = append(out, p...)
	}
	return out
}

var (
	countRE    = regexp.MustCompile(`/Type /Pages\s*/Kids \[[^\]]*\]\s*/Count (\d+)`)
	contentsRE = regexp.MustCompile(`/Type /Page\s[^>]*?/Contents (\d+) 0 R`)
	streamRE   = regexp.MustCompile(`(?s)^<<(.*?)>>\s*stream\r?\n`)
	tdRE       = regexp.MustCompile(`(-?[0-9.]+) -?[0-9.]+ Td\s*$`)
)

// Read reads doc, a PDF document: it must start with %PDF- and end with
// %%EOF, and have as many pages as its page tree counts.
func Read(doc []byte) (*Document, error) {
	if !bytes.HasPrefix(doc, []byte("%PDF-")) || !bytes.HasSuffix(bytes.TrimSpace(doc), []byte("%%EOF")) {
		return nil, errors.New("pdftext: not a whole PDF document")
	}
	m := countRE.FindSubmatch(doc)
	if m == nil {
		return nil, errors.New("pdftext: no page tree")
	}
	count, _ := strconv.Atoi(string(m[1]))
	d := &Document{}
	for _, c := range contentsRE.FindAllSubmatch(doc, -1) {
		content, err := stream(doc, string(c[1]))
		if err != nil {
			return nil, err
		}
		texts, xs := shown(content)
		d.Pages, d.Xs = append(d.Pages, texts), append(d.Xs, xs)
	}
	if len(d.Pages) != count {
		return nil, fmt.Errorf("pdftext: %d pages, of %d counted", len(d.Pages), count)
	}
	return d, nil
}

// stream is the data of object obj's stream, inflated.
func stream(doc []byte, obj string) ([]byte, error) {
	at := bytes.Index(doc, []byte("\n"+obj+" 0 obj\n"))
	if at < 0 {
		return nil, fmt.Errorf("pdftext: no object %s", obj)
	}
	body := doc[at+len(obj)+8:]
	loc := streamRE.FindSubmatchIndex(body)
	if loc == nil {
		return nil, fmt.Errorf("pdftext: object %s is no stream", obj)
	}
	dict, data := body[loc[2]:loc[3]], body[loc[1]:]
	end := bytes.Index(data, []byte("endstream"))
	if end < 0 {
		return nil, errors.New("pdftext: a stream without its end")
	}
	data = data[:end]
	if bytes.Contains(dict, []byte("/FlateDecode")) {
		zr, err := zlib.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("pdftext: %w", err)
		}
		if data, err = io.ReadAll(zr); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("pdftext: %w", err)
		}
	}
	return data, nil
}

// shown are the strings a content stream shows with Tj, and where each
// starts across the page.
func shown(content []byte) ([]string, []float64) {
	var out []string
	var xs []float64
	for i := 0; i < len(content); i++ {
		if content[i] != '(' {
			continue
		}
		raw, next := literal(content, i+1)
		rest := bytes.TrimLeft(content[next:], " ")
		if bytes.HasPrefix(rest, []byte("Tj")) {
			out = append(out, decode(raw))
			x := -1.0
			if m := tdRE.FindSubmatch(content[max(0, i-40):i]); m != nil {
				x, _ = strconv.ParseFloat(string(m[1]), 64)
			}
			xs = append(xs, x)
		}
		i = next - 1
	}
	return out, xs
}

// literal reads a string literal whose "(" is before content[i]: its
// bytes, and where the content goes on after its ")".
func literal(content []byte, i int) ([]byte, int) {
	var out []byte
	depth := 1
	for ; i < len(content); i++ {
		c := content[i]
		switch {
		case c == '\\' && i+1 < len(content):
			i++
			switch e := content[i]; e {
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case '0', '1', '2', '3', '4', '5', '6', '7':
				j := i
				for j < len(content) && j < i+3 && content[j] >= '0' && content[j] <= '7' {
					j++
				}
				n, _ := strconv.ParseUint(string(content[i:j]), 8, 8)
				out = append(out, byte(n))
				i = j - 1
			default:
				out = append(out, e)
			}
		case c == '(':
			depth++
			out = append(out, c)
		case c == ')':
			depth--
			if depth == 0 {
				return out, i + 1
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out, i
}

// decode is a string's UTF-16BE as text.
func decode(b []byte) string {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
	}
	return string(utf16.Decode(u))
}
