package codebook

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// SPSS limits the syntax respects: a label's length in bytes (a
// variable's, a value's), a string variable's width, a number's.
const (
	maxVarLabel   = 255
	maxValueLabel = 120
	maxWidth      = 32767
	maxNumber     = 40
	// literalChunk is the longest piece of a quoted string on one line
	// of syntax; longer ones are pieces joined by "+".
	literalChunk = 200
)

// SPSS writes the SPSS syntax that reads the data file written (call it
// after the last Write, with the data's widths measured): GET DATA, then
// VARIABLE LABELS, VALUE LABELS, MISSING VALUES for texts left empty and
// VARIABLE LEVEL. It begins with a UTF-8 byte order mark and SPSS's own
// encoding comment, and reads the data file as UTF-8: SPSS in Unicode
// mode (its default since version 21) and PSPP both run it.
func (b *Book) SPSS(w io.Writer, exported time.Time) error {
	out := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(out, format, args...) }
	p("\uFEFF* Encoding: UTF-8.\n")
	p("* %s: %s, exported by Surveys on %s.\n", commentText(b.Title), answers(b.Rows), exported.UTC().Format("2 January 2006 15:04 UTC"))
	p("* The data are in %s, beside this file: open this syntax from the same folder\n", commentText(b.DataFile))
	p("* (or run CD 'that folder'. first, or write the data file's full path in /FILE\n")
	p("* below) and run it all.\n")
	p("* Choices are codes with value labels; a checkbox is 1 when chosen, 0 when not;\n")
	p("* an unanswered question is missing. Line breaks in texts are spaces.\n\n")

	p("GET DATA\n  /TYPE=TXT\n  /FILE=%s\n  /ENCODING='UTF8'\n  /ARRANGEMENT=DELIMITED\n  /DELCASE=LINE\n", spssString(b.DataFile))
	p("  /FIRSTCASE=2\n  /DELIMITERS=\",\"\n  /QUALIFIER='\"'\n  /VARIABLES=\n")
	for _, v := range b.Vars {
		p("    %s %s\n", v.Name, v.spssFormat())
	}
	p(".\n\n")

	p("VARIABLE LABELS\n")
	for i, v := range b.Vars {
		sep := "  "
		if i > 0 {
			sep = "  /"
		}
		p("%s%s %s\n", sep, v.Name, spssString(cut(v.Label, maxVarLabel)))
	}
	p(".\n\n")

	first := true
	for _, v := range b.Vars {
		if len(v.Values) == 0 {
			continue
		}
		if first {
			p("VALUE LABELS\n  ")
			first = false
		} else {
			p("  /")
		}
		p("%s\n", v.Name)
		for _, l := range v.Values {
			p("    %d %s\n", l.Code, spssString(cut(oneLine(l.Label), maxValueLabel)))
		}
	}
	if !first {
		p(".\n\n")
	}

	// An empty text is no answer: missing, not a value counted.
	var texts, nominal, scale []string
	for _, v := range b.Vars {
		switch {
		case v.Type == Text:
			texts = append(texts, v.Name)
		case v.Coded():
			nominal = append(nominal, v.Name)
		case v.Type == Number:
			scale = append(scale, v.Name)
		}
	}
	if len(texts) > 0 {
		p("MISSING VALUES%s ('').\n\n", nameList(texts))
	}
	if len(nominal)+len(scale) > 0 {
		p("VARIABLE LEVEL")
		if len(nominal) > 0 {
			p("%s (NOMINAL)", nameList(nominal))
		}
		if len(scale) > 0 {
			if len(nominal) > 0 {
				p("\n  /")
			}
			p("%s (SCALE)", nameList(scale))
		}
		p(".\n\n")
	}
	p("EXECUTE.\n")
	return out.Flush()
}

// spssFormat is v's input format: A and its width, F and the digits of
// its numbers, SDATE10 or YMDHMS19.
func (v *Var) spssFormat() string {
	switch v.Type {
	case Number:
		w := max(v.whole, 1)
		for _, l := range v.Values {
			// Room for every code, shown or not in the data.
			w = max(w, len(strconv.Itoa(l.Code)))
		}
		if v.decimals > 0 {
			w += 1 + v.decimals
		}
		if v.negative {
			w++
		}
		w = min(w, maxNumber)
		return "F" + strconv.Itoa(w) + "." + strconv.Itoa(min(v.decimals, 16, max(w-2, 0)))
	case Date:
		return "SDATE10"
	case DateTime:
		return "YMDHMS19"
	}
	return "A" + strconv.Itoa(min(max(v.width, 1), maxWidth))
}

// nameList is names on lines of a few each, each line begun by two
// spaces (the first by one).
func nameList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		switch {
		case i == 0:
			b.WriteByte(' ')
		case i%8 == 0:
			b.WriteString("\n  ")
		default:
			b.WriteByte(' ')
		}
		b.WriteString(n)
	}
	return b.String()
}

// spssString is s as an SPSS string literal: in single quotes, each
// quote doubled; one longer than a line takes is pieces joined by "+".
func spssString(s string) string {
	var pieces []string
	for {
		piece := cut(s, literalChunk)
		if piece == "" && s != "" {
			piece = s // cannot happen: cut keeps a whole character
		}
		pieces = append(pieces, "'"+strings.ReplaceAll(piece, "'", "''")+"'")
		s = s[len(piece):]
		if s == "" {
			break
		}
	}
	return strings.Join(pieces, "\n      + ")
}

// commentText is s fit for a comment line: one line, no "." at its end
// (which would end the comment).
func commentText(s string) string {
	return strings.TrimRight(oneLine(s), ". ")
}

// answers is "1 answer", "2 answers".
func answers(n int) string {
	if n == 1 {
		return "1 answer"
	}
	return strconv.Itoa(n) + " answers"
}
