package rtl

import (
	"strings"
	"unicode"
)

// Wrap breaks s, logical (and shaped) text, into lines no wider than w
// as width measures them: at spaces, or inside a word that alone is too
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
	words := strings.Split(strings.TrimRight(s, " "), " ")
	var lines []string
	cur := ""
	for i, word := range words {
		try := word
		if i > 0 {
			try = cur + " " + word
		}
		if i == 0 || width(try) <= w {
			cur = try
		} else {
			lines = append(lines, cur)
			cur = word
		}
		// A line that is too wide alone is cut where it must be.
		for width(cur) > w {
			head, tail := cut(cur, w, width)
			if tail == "" {
				break
			}
			lines = append(lines, head)
			cur = tail
		}
	}
	return append(lines, cur)
}

// cut is s cut after as many clusters (a character and its marks) as
// fit w, at least one, and the rest.
func cut(s string, w float64, width func(string) float64) (head, tail string) {
	runes := []rune(s)
	end := 0
	for i := 1; i <= len(runes); i++ {
		if i < len(runes) && unicode.In(runes[i], unicode.Mn, unicode.Me) {
			continue // not between a letter and its mark
		}
		if end > 0 && width(string(runes[:i])) > w {
			break
		}
		end = i
	}
	return string(runes[:end]), strings.TrimLeft(string(runes[end:]), " ")
}
