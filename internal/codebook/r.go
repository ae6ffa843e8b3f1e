package codebook

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// R writes the R script that reads the data file written (call it after
// the last Write): read.csv with each column's class, then, variable by
// variable, its factor levels and labels (a coded choice), its type (a
// day, a moment) and its question's text as attr(x, "label"), as the
// haven and labelled packages read it. Base R only.
func (b *Book) R(w io.Writer, exported time.Time) error {
	out := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(out, format, args...) }
	p("# %s: %s, exported by Surveys on %s.\n", oneLine(b.Title), answers(b.Rows), exported.UTC().Format("2 January 2006 15:04 UTC"))
	p("# The data are in %s, beside this script: set the working directory to\n", oneLine(b.DataFile))
	p("# their folder (setwd) or write the file's full path below, then run\n")
	p("#   source(%s, encoding = \"UTF-8\")\n", rString(strings.TrimSuffix(b.DataFile, ".csv")+".R"))
	p("# Choices become factors; a checkbox is 1 (\"Chosen\") or 0 (\"Not chosen\");\n")
	p("# an unanswered question is NA. Line breaks in texts are spaces.\n")
	p("# Each column's question is its attribute \"label\": attr(data$q1, \"label\").\n\n")

	p("data <- read.csv(%s, encoding = \"UTF-8\", fileEncoding = \"UTF-8\",\n", rString(b.DataFile))
	p("  na.strings = \"\", check.names = FALSE, stringsAsFactors = FALSE,\n  colClasses = c(\n")
	for i, v := range b.Vars {
		class := "character"
		if v.Type == Number {
			class = "numeric"
		}
		sep := ","
		if i == len(b.Vars)-1 {
			sep = ""
		}
		p("    %s = %q%s\n", v.Name, class, sep)
	}
	p("  ))\n")

	for _, v := range b.Vars {
		x := "data$" + v.Name
		p("\n# %s\n", oneLine(cut(v.Label, maxVarLabel)))
		switch {
		case v.Coded():
			levels, labels := make([]string, len(v.Values)), make([]string, len(v.Values))
			for i, l := range v.Values {
				levels[i], labels[i] = strconv.Itoa(l.Code), rString(oneLine(l.Label))
			}
			p("%s <- factor(%s,\n  levels = c(%s),\n  labels = c(%s))\n", x, x, strings.Join(levels, ", "), strings.Join(labels, ", "))
		case len(v.Values) > 0:
			// The named points of a scale: the values stay numbers.
			named := make([]string, len(v.Values))
			for i, l := range v.Values {
				named[i] = rString(oneLine(l.Label)) + " = " + strconv.Itoa(l.Code)
			}
			p("attr(%s, \"labels\") <- c(%s)\n", x, strings.Join(named, ", "))
		case v.Type == Date:
			p("%s <- as.Date(%s)\n", x, x)
		case v.Type == DateTime:
			p("%s <- as.POSIXct(%s, tz = \"UTC\")\n", x, x)
		}
		p("attr(%s, \"label\") <- %s\n", x, rString(cut(v.Label, maxVarLabel)))
	}
	return out.Flush()
}

// rString is s as an R string literal: in double quotes, with a
// backslash before a quote and a backslash, and control characters
// escaped (a NUL, which R's strings cannot hold, is U+FFFD); other
// characters as they are (the script is UTF-8).
func rString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == 0:
			// R's strings hold no NUL.
			b.WriteRune(utf8.RuneError)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
