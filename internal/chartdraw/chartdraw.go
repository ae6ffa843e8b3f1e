// Package chartdraw draws one question's chart of the analysis (its
// survey.Chart) as an image to download: a standalone SVG document
// (WriteSVG) or a PNG image (WritePNG), both from the same layout, 800
// pixels wide and as high as the chart needs. It also says the chart's
// figures as plain text, a line each (Figures), as the page offers them
// to copy and as the SVG's description says them.
//
// The layout is bounded: at most MaxItems bars, rows or positions are
// drawn, then a line says how many more there are; labels are cut short
// to fit. Text is set in DejaVu Sans (internal/fonts), measured with its
// metrics; the SVG names the font and falls back to the viewer's sans
// serif. Every text the SVG holds is escaped (encoding/xml): the labels
// are respondents' and designers' words.
package chartdraw

import (
	"image/color"
	"strconv"
	"strings"
	"unicode"

	"github.com/surveys-dev/surveys/internal/survey"
)

// Question is what a drawing shows of one question: its number, text,
// kind's name, answers counted and chart, and the most used words as the
// page lists them (survey.MostUsedWords), with the uses of other words.
type Question struct {
	N          int
	Text, Kind string
	Count      int64
	Chart      survey.Chart
	Words      []survey.WordCount
	OtherWords int64
}

// Width is a drawing's width, in pixels.
const Width = 800

// MaxItems is how many bars (a matrix's rows, a ranking's positions,
// figures) a drawing draws at most, of each list; a line says how many
// more the chart has.
const MaxItems = 60

// Share is n's share of answered in per cent, and as people read it
// ("42%", "<1%" for a share that rounds to none): the page's bars and the
// drawings say the same.
func Share(n, answered int64) (float64, string) {
	p := 0.0
	if answered > 0 {
		p = 100 * float64(n) / float64(answered)
	}
	share := strconv.FormatFloat(p, 'f', 0, 64) + "%"
	if p > 0 && p < 0.5 {
		share = "<1%"
	}
	return p, share
}

// shape is one thing drawn: a rectangle (text "") or a line of text whose
// baseline starts at (x, y), or ends there when end is set.
type shape struct {
	x, y, w, h float64
	fill       color.RGBA
	text       string
	size       float64
	bold, end  bool
}

// drawing is a laid out chart: its size, title, description and shapes.
type drawing struct {
	h           float64
	title, desc string
	shapes      []shape
}

// Colours, as the page's stylesheet has them.
var (
	ink    = color.RGBA{29, 35, 48, 255}
	muted  = color.RGBA{91, 100, 117, 255}
	track  = color.RGBA{232, 236, 241, 255}
	fill   = color.RGBA{37, 99, 235, 255}
	white  = color.RGBA{255, 255, 255, 255}
	heat   = []color.RGBA{{255, 255, 255, 255}, {238, 242, 253, 255}, {214, 224, 250, 255}, {183, 199, 245, 255}, {147, 170, 238, 255}}
	border = color.RGBA{214, 219, 226, 255}
	parts  = map[string]color.RGBA{"promoters": {6, 118, 71, 255}, "passives": {138, 148, 166, 255}, "detractors": {180, 35, 24, 255}}
	others = []color.RGBA{{37, 99, 235, 255}, {6, 118, 71, 255}, {180, 35, 24, 255}, {138, 148, 166, 255}, {202, 138, 4, 255}}
)

// Layout, in pixels.
const (
	pad     = 20.0
	inner   = Width - 2*pad
	labelW  = 300.0 // a bar's label
	trackX  = pad + labelW + 10
	trackW  = 300.0
	valueX  = trackX + trackW + 10
	body    = 14.0 // body text's size
	small   = 12.0
	lineH   = 22.0
	barH    = 14.0
	maxRune = 200 // a label is cut to this many characters before it is measured
)

// clean is s on one line: controls and invisible formats dropped, line
// breaks and tabs as spaces.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, s)
}

// layouter lays a drawing out, from the top down.
type layouter struct {
	d drawing
	y float64 // the top of the next line
	m *measurer
}

// text adds a line of text s (cut to width w) at x, of size, on a line
// lh high, and moves down by lh.
func (l *layouter) text(x, w float64, s string, size float64, bold bool, c color.RGBA, lh float64) {
	l.put(x, w, s, size, bold, c, lh)
	l.y += lh
}

// put is text that stays on the line.
func (l *layouter) put(x, w float64, s string, size float64, bold bool, c color.RGBA, lh float64) {
	l.d.shapes = append(l.d.shapes, shape{x: x, y: l.y + lh*0.7, text: l.m.fit(clean(s), size, bold, w), size: size, bold: bold, fill: c})
}

// wrapped adds s wrapped to width w, at most lines lines (the last cut
// short).
func (l *layouter) wrapped(s string, size float64, bold bool, c color.RGBA, lh float64, lines int) {
	for _, line := range l.m.wrap(clean(s), size, bold, inner, lines) {
		l.text(pad, inner, line, size, bold, c, lh)
	}
}

func (l *layouter) rect(x, y, w, h float64, c color.RGBA) {
	if w > 0 && h > 0 {
		l.d.shapes = append(l.d.shapes, shape{x: x, y: y, w: w, h: h, fill: c})
	}
}

// value adds text s ending at x on the current line's baseline.
func (l *layouter) value(x float64, s string, size float64, bold bool, c color.RGBA, lh float64) {
	l.d.shapes = append(l.d.shapes, shape{x: x, y: l.y + lh*0.7, text: s, size: size, bold: bold, fill: c, end: true})
}

// more says how many items of a list were not drawn.
func (l *layouter) more(n int) {
	if n > 0 {
		l.text(pad, inner, "and "+strconv.Itoa(n)+" more", small, false, muted, lineH)
	}
}

// layout lays q's chart out, measuring its text with m.
func layout(q Question, m *measurer) drawing {
	l := &layouter{m: m, y: pad}
	l.d.title = clean(strconv.Itoa(q.N) + ". " + q.Text)
	meta := clean(q.Kind) + " · " + survey.Count(q.Count, "answer")
	l.d.desc = meta + "\n" + Figures(q)
	l.wrapped(l.d.title, 18, true, ink, 26, 3)
	l.text(pad, inner, meta, small, false, muted, lineH)
	l.y += 6
	c := q.Chart
	empty := true
	if c.Score != nil {
		l.text(pad, inner, c.Score.Label+"  "+c.Score.Value, 28, true, ink, 40)
		empty = false
	}
	if len(c.Stack) > 0 {
		l.stack(c.Stack)
		empty = false
	}
	if c.Averaged {
		l.figure("Average", strconv.FormatFloat(c.Average, 'f', 2, 64))
		empty = false
	}
	if len(c.Positions) == 0 {
		for i, f := range c.Figures {
			if i == MaxItems {
				l.more(len(c.Figures) - i)
				break
			}
			l.figure(f.Label, f.Value)
			empty = false
		}
	}
	if len(c.Labels) > 0 {
		l.y += 4
		l.bars(c.Labels, c.Counts, q.Count)
		empty = false
	}
	if len(c.Rows) > 0 {
		l.y += 4
		l.heat(c.Rows)
		empty = false
	}
	if len(c.Positions) > 0 {
		l.y += 4
		l.positions(c.Positions)
		empty = false
	}
	if len(q.Words) > 0 {
		l.y += 4
		l.words(q.Words, q.OtherWords)
		empty = false
	}
	if empty {
		l.text(pad, inner, "No answers yet.", body, false, muted, lineH)
	}
	if c.Note != "" {
		l.y += 4
		l.wrapped(c.Note, small, false, muted, 18, 4)
	}
	l.d.h = l.y + pad
	return l.d
}

// figure is a line "label  value".
func (l *layouter) figure(label, value string) {
	l.put(pad, labelW, label, body, false, ink, lineH)
	l.text(trackX, inner-labelW-10, value, body, true, ink, lineH)
}

// bars draws a bar per label: its label, its share of answered on a
// track, and its count and share.
func (l *layouter) bars(labels []string, counts []int64, answered int64) {
	for i, label := range labels {
		if i == MaxItems {
			l.more(len(labels) - i)
			return
		}
		var n int64
		if i < len(counts) {
			n = counts[i]
		}
		p, share := Share(n, answered)
		top := l.y
		l.rect(trackX, top+(lineH-barH)/2, trackW, barH, track)
		l.rect(trackX, top+(lineH-barH)/2, trackW*min(max(p, 0), 100)/100, barH, fill)
		l.put(valueX, Width-pad-valueX, strconv.FormatInt(n, 10)+" ("+share+")", body, true, ink, lineH)
		l.text(pad, labelW, label, body, false, ink, lineH)
		l.y += 2
	}
}

// stack draws the parts as one stacked bar, and a line for each part.
func (l *layouter) stack(ps []survey.Part) {
	var total int64
	for _, p := range ps {
		total += p.Count
	}
	x := pad
	for i, p := range ps {
		if total > 0 {
			w := inner * float64(p.Count) / float64(total)
			l.rect(x, l.y, w, 20, partColour(p.Key, i))
			x += w
		}
	}
	if total == 0 {
		l.rect(pad, l.y, inner, 20, track)
	}
	l.y += 28
	for i, p := range ps {
		if i == MaxItems {
			l.more(len(ps) - i)
			break
		}
		l.rect(pad, l.y+5, 12, 12, partColour(p.Key, i))
		l.put(pad+20, labelW-20, p.Label, body, false, ink, lineH)
		l.text(trackX, inner-labelW-10, strconv.FormatInt(p.Count, 10)+" ("+strconv.FormatInt(p.Percent, 10)+"%)", body, true, ink, lineH)
	}
}

func partColour(key string, i int) color.RGBA {
	if c, ok := parts[key]; ok {
		return c
	}
	return others[i%len(others)]
}

// heat draws a matrix's rows as a heat table: a row a line, its title and
// answers, then a cell per column, shaded by its level, with its count.
func (l *layouter) heat(rows []survey.Chart) {
	cols := rows[0].Labels
	const titleW = 220.0
	n := len(cols)
	// Cells at least 40 pixels wide: the columns past those that fit are
	// said in the figures only.
	room := (inner - titleW) / 40
	fits := int(room)
	shown := min(n, fits)
	if shown == 0 {
		return
	}
	cw := (inner - titleW) / float64(shown)
	for j := range shown {
		l.put(pad+titleW+float64(j)*cw+2, cw-4, cols[j], small, true, ink, lineH)
	}
	l.y += lineH
	for i, row := range rows {
		if i == MaxItems {
			l.more(len(rows) - i)
			break
		}
		top := l.y
		for j := range shown {
			var c int64
			if j < len(row.Counts) {
				c = row.Counts[j]
			}
			level := 0
			if j < len(row.Levels) {
				level = min(max(row.Levels[j], 0), len(heat)-1)
			}
			x := pad + titleW + float64(j)*cw
			l.rect(x, top, cw, lineH+4, border)
			l.rect(x+1, top+1, cw-2, lineH+2, heat[level])
			l.y = top + 2
			l.value(x+cw-6, strconv.FormatInt(c, 10), body, level > 0, ink, lineH)
		}
		l.y = top + 2
		l.put(pad, titleW-8, row.Title, body, false, ink, lineH)
		l.y = top + lineH + 6
	}
	if shown < n {
		l.text(pad, inner, strconv.Itoa(n-shown)+" more columns: see the figures", small, false, muted, lineH)
	}
}

// positions draws a ranking's items, best first: a bar as long as its
// place is high, and its average position.
func (l *layouter) positions(ps []survey.Position) {
	for i, p := range ps {
		if i == MaxItems {
			l.more(len(ps) - i)
			return
		}
		top := l.y
		l.rect(trackX, top+(lineH-barH)/2, trackW, barH, track)
		l.rect(trackX, top+(lineH-barH)/2, trackW*min(max(p.Width, 0), 100)/100, barH, fill)
		say := "not ranked"
		if p.Average != "" {
			say = "average position " + p.Average
		}
		l.put(valueX, Width-pad-valueX, say, small, false, ink, lineH)
		l.text(pad, labelW, p.Item, body, false, ink, lineH)
		l.y += 2
	}
}

// words lists the most used words, three to a line.
func (l *layouter) words(ws []survey.WordCount, other int64) {
	l.text(pad, inner, "Most used words", body, true, ink, lineH)
	const per = 3
	ws = ws[:min(len(ws), MaxItems)]
	for i := 0; i < len(ws); i += per {
		for j, w := range ws[i:min(i+per, len(ws))] {
			l.put(pad+float64(j)*inner/per, inner/per-8, strconv.Itoa(i+j+1)+". "+w.Word+" ×"+strconv.FormatInt(w.Count, 10), body, false, ink, lineH)
		}
		l.y += lineH
	}
	if other > 0 {
		l.text(pad, inner, "And "+strconv.FormatInt(other, 10)+" uses of other words, past the summary's sample.", small, false, muted, lineH)
	}
}
