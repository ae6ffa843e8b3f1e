package chartdraw

import (
	"strconv"
	"strings"
)

// Figures are q's chart's figures as plain text, a line each, its fields
// tab-separated (a spreadsheet takes them as columns): a bar's label,
// count and share of the question's answers; a stack's part the same; a
// named figure's label and value; a matrix cell's row and column, count
// and share; a ranking's item, average position and how many ranked it
// first; a most used word and its uses. Every figure, none cut off.
func Figures(q Question) string {
	var b strings.Builder
	line := func(fields ...string) {
		for i, f := range fields {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(clean(f))
		}
		b.WriteByte('\n')
	}
	c := q.Chart
	if c.Score != nil {
		line(c.Score.Label, c.Score.Value)
	}
	for _, p := range c.Stack {
		line(p.Label, strconv.FormatInt(p.Count, 10), strconv.FormatInt(p.Percent, 10)+"%")
	}
	if c.Averaged {
		line("Average", strconv.FormatFloat(c.Average, 'f', 2, 64))
	}
	if len(c.Positions) == 0 {
		for _, f := range c.Figures {
			line(f.Label, f.Value)
		}
	}
	bars := func(prefix []string, labels []string, counts []int64) {
		for i, label := range labels {
			var n int64
			if i < len(counts) {
				n = counts[i]
			}
			_, share := Share(n, q.Count)
			line(append(prefix, label, strconv.FormatInt(n, 10), share)...)
		}
	}
	bars(nil, c.Labels, c.Counts)
	for _, row := range c.Rows {
		bars([]string{row.Title}, row.Labels, row.Counts)
	}
	for _, p := range c.Positions {
		avg := "not ranked"
		if p.Average != "" {
			avg = "average position " + p.Average
		}
		line(p.Item, avg, "ranked first by "+strconv.FormatInt(p.First, 10))
	}
	for _, w := range q.Words {
		line(w.Word, strconv.FormatInt(w.Count, 10))
	}
	return b.String()
}
