package rtl

import (
	"strings"
	"unicode"
)

// Wrap breaks s, logical (and shaped) text, into lines no wider than w
// as width measures them (a string's width is taken to be the sum of its
// parts', as fpdf's is, without kerning): at spaces, or inside a word that alone is too
// wide, never between a letter and its marks. The spaces where a line
// breaks are dropped. Each line is then to be put in display order
// (Visual): wrapping display-ordered text would break right-to-left
// lines at their ends instead of their starts. Empty text is one empty
// line.
func Wrap(s string, w float64, width func(string) float64) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		lines = append(lines, wrapPara(para, w, width)...)
	}
	return lines
}

func wrapPara(s string, w float64, width func(string) float64) []string {
	space := width(" ")
	var lines []string
	var cur strings.Builder
	curW := 0.0
	flush := func() {
		lines = append(lines, cur.String())
		cur.Reset()
		curW = 0
	}
	for i, word := range strings.Split(strings.TrimRight(s, " "), " ") {
		ww := width(word)
		if i > 0 {
			if curW+space+ww <= w {
				cur.WriteByte(' ')
				cur.WriteString(word)
				curW += space + ww
				continue
			}
			flush()
		}
		if ww <= w {
			cur.WriteString(word)
			curW = ww
			continue
		}
		// A word too wide alone is cut where it must be.
		for _, c := range clusters(word) {
			cw := width(c)
			if cur.Len() > 0 && curW+cw > w {
				flush()
			}
			cur.WriteString(c)
			curW += cw
		}
	}
	return append(lines, cur.String())
}

// clusters are s's characters, each with the marks after it.
func clusters(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		if i > start && !unicode.In(r, unicode.Mn, unicode.Me) {
			out = append(out, s[start:i])
			start = i
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
