// Package pdfreport writes a survey's results as a PDF document (with
// codeberg.org/go-pdf/fpdf): its title, its tenant, when it was made, the
// answers it counts and the filter that picked them, then each question's
// text and chart, drawn with the PDF's own rectangles and text from the
// kind's survey.Chart. It is given what to say (Report), reads nothing
// and holds nothing but the document being written.
//
// Its own words go through the i18n catalogs. The text is set in DejaVu
// Sans (internal/fonts, embedded; its licence beside it), whose glyphs cover
// Latin, Greek, Cyrillic and Arabic's presentation forms. fpdf neither
// shapes nor reorders right-to-left scripts, so text holding any is shaped,
// wrapped and put in display order here (package rtl) before fpdf draws it;
// a report in a right-to-left language (Arabic) is laid out from the right.
// Other text goes to fpdf as it was, so that those reports are unchanged.
package pdfreport

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"codeberg.org/go-pdf/fpdf"
	"golang.org/x/image/font/sfnt"

	"github.com/surveys-dev/surveys/internal/fonts"
	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/rtl"
	"github.com/surveys-dev/surveys/internal/survey"
)

var regularFont, boldFont = fonts.Regular, fonts.Bold

// Report is what a report says.
type Report struct {
	Title  string // the survey's
	Tenant string // the tenant's name
	Made   time.Time
	// Lang is the survey's language: the report's own words are in it.
	Lang i18n.Lang
	// Total counts the complete answers the report covers; Partial the
	// partial ones, shown when KeepsPartial (the survey keeps them).
	Total, Partial int64
	KeepsPartial   bool
	// Filter is what picked the answers; nil: every answer.
	Filter    *Filter
	Questions []Question
}

// Filter is the filter of a report, for people.
type Filter struct {
	// From and To are days (YYYY-MM-DD), or "".
	From, To string
	// About names what the filter looks at ("" for nothing): a
	// question's text, a hidden field's or a variable's name, as Subject
	// says; Answer is the answer it looks for.
	About   string
	Subject Subject
	Answer  string
	// Status is "complete", "partial" or "".
	Status string
	// Of counts every answer the filter looked at.
	Of int
}

// Subject is what a filter's About names.
type Subject int

// What a filter looks at.
const (
	AQuestion Subject = iota
	AHiddenField
	AVariable
)

// Question is one question of the report, with its chart.
type Question struct {
	N        int
	Text     string
	Kind     string // the kind's name for people
	Optional bool
	Hidden   bool // no longer shown to respondents
	// Count is the answers to the question; Skipped, the answers that
	// left it (optional) unanswered.
	Count, Skipped int64
	Chart          survey.Chart
}

// Page layout, in millimetres (A4 portrait).
const (
	margin   = 15.0
	pageW    = 210.0
	pageH    = 297.0
	bottom   = margin + 5 // where the auto page break is
	bodyW    = pageW - 2*margin
	labelW   = 70.0 // a bar's label
	trackW   = 75.0 // a bar's track
	line     = 5.0  // a line of body text
	maxWords = 30   // the most used words listed
	family   = "dejavu"
	bodySize = 10.0
)

// figureLabels are the figures' labels the kinds give (survey.Chart's
// Figures) that the report puts in the survey's language: the others (a
// ranking's items) are the survey's own words.
var figureLabels = map[string]bool{
	"NPS": true, "Promoters (9–10)": true, "Passives (7–8)": true, "Detractors (0–6)": true,
	"Mean": true, "Median": true, "Count": true, "Least": true, "Greatest": true,
	"Accepted": true, "Earliest": true, "Latest": true, "Files": true, "Answers": true,
}

// Write writes r as a PDF document to w.
func Write(w io.Writer, r Report) error {
	return r.document(true).Output(w)
}

// document lays r out; compress: the page streams are deflated.
//
// A right-to-left report is laid out twice, the second time knowing its
// number of pages: fpdf puts the count in place of an alias in ASCII
// digits, and the language may write its numbers in others (Arabic-Indic).
func (r Report) document(compress bool) *fpdf.Fpdf {
	if r.Lang.Dir() == "rtl" {
		return r.layout(compress, r.layout(compress, 0).PageNo())
	}
	return r.layout(compress, 0)
}

// layout lays r out on pages pages, or, when 0, as many as it takes.
func (r Report) layout(compress bool, pages int) *fpdf.Fpdf {
	l := r.Lang
	d := &doc{pdf: fpdf.New("P", "mm", "A4", ""), l: l, rtl: l.Dir() == "rtl"}
	pdf := d.pdf
	pdf.SetCompression(compress)
	pdf.AddUTF8FontFromBytes(family, "", regularFont)
	pdf.AddUTF8FontFromBytes(family, "B", boldFont)
	pdf.SetMargins(margin, margin, margin)
	pdf.SetAutoPageBreak(true, bottom)
	pdf.SetTitle(r.Title, true)
	pdf.SetAuthor(r.Tenant, true)
	pdf.SetCreator("Surveys", true)
	pdf.SetLang(l.Tag())
	pdf.SetCreationDate(r.Made)
	pdf.SetModificationDate(r.Made)
	pdf.AliasNbPages("{nb}")
	pdf.SetFooterFunc(func() {
		pdf.SetY(-margin)
		d.font("", 8)
		pdf.SetTextColor(110, 110, 110)
		page := l.T("Page %d of %s", pdf.PageNo(), "{nb}")
		if pages > 0 {
			page = l.T("Page %d of %d", pdf.PageNo(), pages)
		}
		if d.rtl { // the title on the right, the page number on the left
			d.cell(bodyW/3, 4, page, "R", 0)
			d.cell(bodyW*2/3, 4, r.Title, "L", bodyW*2/3-2)
		} else {
			d.cell(bodyW*2/3, 4, r.Title, "L", bodyW*2/3-2)
			d.cell(bodyW/3, 4, page, "R", 0)
		}
		pdf.SetTextColor(0, 0, 0)
	})
	r = d.cleanReport(r)
	pdf.AddPage()
	d.head(r)
	for _, q := range r.Questions {
		d.question(q)
	}
	return pdf
}

// doc is a document being written, in language l.
type doc struct {
	pdf *fpdf.Fpdf
	l   i18n.Lang
	// rtl: l is written right to left, and the page laid out from the
	// right.
	rtl bool
	// drawn says which runes the fonts draw (clean), as their cmaps
	// say, read with buf.
	drawn map[rune]bool
	buf   sfnt.Buffer
}

// parsed are the embedded fonts, parsed once, for their cmaps.
var parsed = sync.OnceValues(func() ([]*sfnt.Font, error) {
	var out []*sfnt.Font
	for _, b := range [][]byte{regularFont, boldFont} {
		f, err := sfnt.Parse(b)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
})

// hasGlyph reports whether both fonts have a glyph for r.
func hasGlyph(buf *sfnt.Buffer, r rune) bool {
	fs, err := parsed()
	if err != nil {
		return false
	}
	for _, f := range fs {
		if i, err := f.GlyphIndex(buf, r); err != nil || i == 0 {
			return false
		}
	}
	return true
}

// replacement is what a character the fonts do not draw becomes.
const replacement = '\uFFFD'

// clean is s as the fonts can set it: controls and invisible formats
// dropped, a character they have no glyph for (an emoji, Chinese)
// replaced by U+FFFD; fpdf would fail the document on a character past
// U+FFFF, and draw nothing for one the fonts lack.
func (d *doc) clean(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteRune(' ')
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
		case r > 0xFFFF:
			b.WriteRune(replacement)
		default:
			ok, seen := d.drawn[r]
			if !seen {
				ok = hasGlyph(&d.buf, r)
				if d.drawn == nil {
					d.drawn = map[rune]bool{}
				}
				d.drawn[r] = ok
			}
			if ok {
				b.WriteRune(r)
			} else {
				b.WriteRune(replacement)
			}
		}
	}
	return b.String()
}

// cleanReport is r with every text cleaned.
func (d *doc) cleanReport(r Report) Report {
	r.Title, r.Tenant = d.clean(r.Title), d.clean(r.Tenant)
	if r.Filter != nil {
		f := *r.Filter
		f.About, f.Answer = d.clean(f.About), d.clean(f.Answer)
		r.Filter = &f
	}
	qs := make([]Question, len(r.Questions))
	for i, q := range r.Questions {
		q.Text, q.Kind, q.Chart = d.clean(q.Text), d.clean(q.Kind), d.cleanChart(q.Chart)
		qs[i] = q
	}
	r.Questions = qs
	return r
}

// cleanChart is c with every text cleaned.
func (d *doc) cleanChart(c survey.Chart) survey.Chart {
	c.Title, c.Note = d.clean(c.Title), d.clean(c.Note)
	labels := make([]string, len(c.Labels))
	for i, l := range c.Labels {
		labels[i] = d.clean(l)
	}
	figures := make([]survey.Figure, len(c.Figures))
	for i, f := range c.Figures {
		figures[i] = survey.Figure{Label: d.clean(f.Label), Value: d.clean(f.Value)}
	}
	words := make([]survey.WordCount, len(c.Words))
	for i, w := range c.Words {
		words[i] = survey.WordCount{Word: d.clean(w.Word), Count: w.Count}
	}
	rows := make([]survey.Chart, len(c.Rows))
	for i, row := range c.Rows {
		rows[i] = d.cleanChart(row)
	}
	c.Labels, c.Figures, c.Words, c.Rows = labels, figures, words, rows
	return c
}

func (d *doc) font(style string, size float64) { d.pdf.SetFont(family, style, size) }

// answers is "1 answer", "12 answers" in the report's language.
func (d *doc) answers(n int64) string {
	if n == 1 {
		return d.l.T("1 answer")
	}
	return d.l.T("%d answers", n)
}

// date is t's day for people, in the report's language.
func (d *doc) date(t time.Time) string {
	return d.l.T("%[1]d %[2]s %[3]s", t.Day(), survey.M(t.Month().String()), strconv.Itoa(t.Year()))
}

// day is a filter's day (YYYY-MM-DD) for people.
func (d *doc) day(s string) string {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return s
	}
	return d.date(t)
}

// head writes the report's title and what it covers.
func (d *doc) head(r Report) {
	pdf, l := d.pdf, d.l
	d.font("B", 18)
	d.multi(bodyW, 8, r.Title)
	d.font("", 11)
	d.multi(bodyW, 6, r.Tenant)
	pdf.SetTextColor(90, 90, 90)
	made := r.Made.UTC()
	d.multi(bodyW, 6, l.T("Report made on %s at %s UTC", d.date(made), made.Format("15:04")))
	pdf.SetTextColor(0, 0, 0)
	pdf.Ln(3)
	d.font("B", 12)
	d.multi(bodyW, 6, l.T("Complete answers: %d", r.Total))
	d.font("", bodySize)
	if r.KeepsPartial || r.Partial > 0 {
		d.multi(bodyW, line, l.T("Partial answers: %d (counted apart: their respondents left without sending them)", r.Partial))
	}
	if f := r.Filter; f != nil {
		d.multi(bodyW, line, l.T("Filtered: %s.", d.describe(*f)))
		d.multi(bodyW, line, l.T("The filter picks %d of %d answers.", r.Total+r.Partial, f.Of))
	} else {
		d.multi(bodyW, line, l.T("Every answer, unfiltered."))
	}
	pdf.Ln(4)
}

// describe says what f picks.
func (d *doc) describe(f Filter) string {
	l := d.l
	var parts []string
	switch {
	case f.From != "" && f.To != "":
		parts = append(parts, l.T("from %s to %s", d.day(f.From), d.day(f.To)))
	case f.From != "":
		parts = append(parts, l.T("from %s", d.day(f.From)))
	case f.To != "":
		parts = append(parts, l.T("until %s", d.day(f.To)))
	}
	if f.About != "" {
		about := map[Subject]string{AQuestion: "the answer to “%s” is “%s”", AHiddenField: "the hidden field “%s” is “%s”", AVariable: "the variable “%s” is “%s”"}[f.Subject]
		parts = append(parts, l.T(about, f.About, f.Answer))
	}
	switch f.Status {
	case "complete":
		parts = append(parts, l.T("complete answers only"))
	case "partial":
		parts = append(parts, l.T("partial answers only"))
	}
	var out string
	for i, p := range parts {
		if i == 0 {
			out = p
		} else {
			out = l.T("%s, %s", out, p)
		}
	}
	return out
}

// item is one part of a question's block: its height, and how to draw it
// at the current position.
type item struct {
	h    float64
	draw func()
}

// question writes q: its title, what it counts, and its chart. The block
// starts a new page when it does not fit on this one (and would on a
// page of its own); a block longer than a page is broken between bars.
func (d *doc) question(q Question) {
	items := d.items(q)
	var h float64
	for _, it := range items {
		h += it.h
	}
	pdf := d.pdf
	room := pageH - bottom - pdf.GetY()
	if h > room && h <= pageH-bottom-margin {
		pdf.AddPage()
	}
	for i, it := range items {
		// The title never ends a page alone.
		need := it.h
		if i == 0 && len(items) > 1 {
			need += items[1].h
		}
		if pdf.GetY()+need > pageH-bottom {
			pdf.AddPage()
		}
		it.draw()
	}
	pdf.Ln(5)
}

// text is an item of s, wrapped to width w from x (relative to the left
// margin), in style and size, with lines of height lh.
func (d *doc) text(style string, size, lh, x, w float64, s string) item {
	d.font(style, size)
	n := len(d.lines(s, w))
	return item{h: float64(max(n, 1)) * lh, draw: func() {
		d.font(style, size)
		d.pdf.SetX(d.x(x, w))
		d.multi(w, lh, s)
	}}
}

// items lays out q's block.
func (d *doc) items(q Question) []item {
	l := d.l
	items := []item{d.text("B", 12, 6, 0, bodyW, fmt.Sprintf("%d. %s", q.N, q.Text))}
	// A kind's name is one of the catalogs' fixed keys.
	meta := []string{l.Text(q.Kind), d.answers(q.Count)}
	if q.Hidden {
		meta = append(meta, l.T("hidden from respondents"))
	}
	if q.Optional {
		if q.Skipped > 0 {
			meta = append(meta, l.T("not answered by %d", q.Skipped))
		} else {
			meta = append(meta, l.T("optional"))
		}
	}
	info := d.text("", 9, 5, 0, bodyW, strings.Join(meta, " · "))
	items = append(items, item{h: info.h + 1, draw: func() {
		d.pdf.SetTextColor(90, 90, 90)
		info.draw()
		d.pdf.SetTextColor(0, 0, 0)
		d.pdf.Ln(1)
	}})
	c := q.Chart
	empty := true
	if c.Score != nil {
		items = append(items, d.figure(d.figureLabel(c.Score.Label), c.Score.Value))
		empty = false
	}
	for _, p := range c.Stack {
		items = append(items, d.figure(d.figureLabel(p.Label), strconv.FormatInt(p.Count, 10)+"  ("+strconv.FormatInt(p.Percent, 10)+"%)"))
		empty = false
	}
	if c.Averaged {
		items = append(items, d.figure(l.T("Average"), strconv.FormatFloat(c.Average, 'f', 2, 64)))
		empty = false
	}
	for _, f := range c.Figures {
		if len(c.Positions) > 0 {
			break // a ranking's figures are its positions, below
		}
		items = append(items, d.figure(d.figureLabel(f.Label), f.Value))
		empty = false
	}
	if len(c.Labels) > 0 {
		items = append(items, d.bars(c.Labels, c.Counts, q.Count)...)
		empty = false
	}
	for _, row := range c.Rows {
		title := row.Title
		for _, f := range row.Figures {
			title += " · " + d.figureLabel(f.Label) + " " + f.Value
		}
		if row.Averaged {
			title += " · " + l.T("Average") + " " + strconv.FormatFloat(row.Average, 'f', 2, 64)
		}
		items = append(items, d.text("B", bodySize, line, 0, bodyW, title))
		items = append(items, d.bars(row.Labels, row.Counts, q.Count)...)
		empty = false
	}
	for _, p := range c.Positions {
		text := p.Item + " · " + l.T("not ranked")
		if p.Average != "" {
			text = p.Item + " · " + l.T("average position %s", p.Average)
		}
		items = append(items, d.text("", bodySize, line, 0, bodyW, text))
		empty = false
	}
	// The words that say something in the survey's language, as the
	// analysis page shows them (numbers and stop words left out).
	if words := survey.MostUsedWords(c.Words, l.Tag(), maxWords); len(words) > 0 {
		items = append(items, d.text("B", bodySize, line+1, 0, bodyW, l.T("Most used words")))
		items = append(items, d.words(words)...)
		if c.OtherWords > 0 {
			items = append(items, d.text("", 8, 4, 0, bodyW, l.T("And %d uses of other words, past the summary's sample.", c.OtherWords)))
		}
		empty = false
	}
	if c.Note != "" {
		items = append(items, d.text("", 8, 4, 0, bodyW, c.Note))
	}
	if empty {
		items = append(items, d.text("", bodySize, line, 0, bodyW, l.T("No answers yet.")))
	}
	return items
}

// fit is s, cut short with "…" to fit width w in the current font.
func (d *doc) fit(s string, w float64) string {
	if d.pdf.GetStringWidth(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && d.pdf.GetStringWidth(string(r)+"…") > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// figureLabel is a figure's label in the report's language, when it is
// one the kinds give.
func (d *doc) figureLabel(s string) string {
	if figureLabels[s] {
		return d.l.T(s)
	}
	return s
}

// figure is a line "label  value" (right to left: "value  label").
func (d *doc) figure(label, value string) item {
	d.font("", bodySize)
	n := len(d.lines(label, labelW))
	return item{h: float64(max(n, 1)) * line, draw: func() {
		pdf := d.pdf
		y := pdf.GetY()
		d.font("", bodySize)
		pdf.SetX(d.x(0, labelW))
		d.multi(labelW, line, label)
		end := pdf.GetY()
		pdf.SetXY(d.x(labelW, bodyW-labelW), y)
		d.font("B", bodySize)
		d.cell(bodyW-labelW, line, value, "L", 0)
		pdf.SetXY(margin, end)
	}}
}

// bars are a bar per label: its label, a track filled by its share of
// answered, and its count and share.
func (d *doc) bars(labels []string, counts []int64, answered int64) []item {
	out := make([]item, 0, len(labels))
	for i, label := range labels {
		var n int64
		if i < len(counts) {
			n = counts[i]
		}
		p := 0.0
		if answered > 0 {
			p = 100 * float64(n) / float64(answered)
		}
		share := strconv.FormatFloat(p, 'f', 0, 64) + "%"
		if p > 0 && p < 0.5 {
			share = "<1%"
		}
		d.font("", 9)
		lines := max(len(d.lines(label, labelW)), 1)
		h := float64(lines)*4.5 + 1.5
		out = append(out, item{h: h, draw: func() {
			pdf := d.pdf
			y := pdf.GetY()
			d.font("", 9)
			pdf.SetX(d.x(0, labelW))
			d.multi(labelW, 4.5, label)
			// Right to left, the track fills from its right end.
			x := d.x(labelW+2, trackW)
			pdf.SetFillColor(232, 236, 241)
			pdf.Rect(x, y+0.5, trackW, 3.5, "F")
			if w := trackW * min(max(p, 0), 100) / 100; w > 0 {
				pdf.SetFillColor(37, 99, 235)
				if d.rtl {
					pdf.Rect(x+trackW-w, y+0.5, w, 3.5, "F")
				} else {
					pdf.Rect(x, y+0.5, w, 3.5, "F")
				}
			}
			countW := bodyW - labelW - trackW - 4
			pdf.SetXY(d.x(labelW+trackW+4, countW), y)
			d.font("B", 9)
			d.cell(countW, 4.5, strconv.FormatInt(n, 10)+"  ("+share+")", "L", 0)
			pdf.SetXY(margin, y+h)
		}})
	}
	return out
}

// words lists up to maxWords of the most used words, three to a line.
func (d *doc) words(ws []survey.WordCount) []item {
	ws = ws[:min(len(ws), maxWords)]
	var out []item
	const per = 3
	for i := 0; i < len(ws); i += per {
		row := ws[i:min(i+per, len(ws))]
		out = append(out, item{h: line, draw: func() {
			pdf := d.pdf
			y := pdf.GetY()
			for j, w := range row {
				pdf.SetXY(d.x(float64(j)*bodyW/per, bodyW/per), y)
				d.font("", 9)
				d.cell(bodyW/per, line, fmt.Sprintf("%d. %s ×%d", i+j+1, w.Word, w.Count), "L", bodyW/per-2)
			}
			pdf.SetXY(margin, y+line)
		}})
	}
	return out
}

// plain reports whether s goes to fpdf as it is: a left-to-right
// document's text without right-to-left characters.
func (d *doc) plain(s string) bool { return !d.rtl && !rtl.Has(s) }

// x is the page position of a block of width w that starts at offset
// from the body's start side: its left side, or right to left its right.
func (d *doc) x(offset, w float64) float64 {
	if d.rtl {
		return margin + bodyW - offset - w
	}
	return margin + offset
}

// align is align ("L" or "R") as it is for the document's direction:
// right to left, the start of a line is its right.
func (d *doc) align(align string) string {
	if !d.rtl {
		return align
	}
	if align == "L" {
		return "R"
	}
	return "L"
}

// lines are s wrapped to width w in the current font, as fpdf's
// MultiCell wraps it; text that is not plain is shaped, wrapped
// logically and each line put in display order.
func (d *doc) lines(s string, w float64) []string {
	if d.plain(s) {
		return d.pdf.SplitText(s, w)
	}
	lines := rtl.Wrap(rtl.Shape(s), w-2*d.pdf.GetCellMargin(), d.pdf.GetStringWidth)
	for i, l := range lines {
		lines[i] = rtl.Visual(l, d.rtl)
	}
	return lines
}

// multi writes s wrapped to width w from the current position, in lines
// of height lh, aligned to the document's start side, as MultiCell does.
func (d *doc) multi(w, lh float64, s string) {
	pdf := d.pdf
	if d.plain(s) {
		pdf.MultiCell(w, lh, s, "", "L", false)
		return
	}
	x := pdf.GetX()
	for _, l := range d.lines(s, w) {
		pdf.SetX(x)
		pdf.CellFormat(w, lh, l, "", 2, d.align("L"), false, 0, "")
	}
	pdf.SetX(margin)
}

// cell writes s on one line of width w and height h, aligned as align
// says for a left-to-right document, cut short with "…" to fit width
// fit when fit is not 0.
func (d *doc) cell(w, h float64, s, align string, fit float64) {
	if d.plain(s) {
		if fit > 0 {
			s = d.fit(s, fit)
		}
		d.pdf.CellFormat(w, h, s, "", 0, align, false, 0, "")
		return
	}
	s = rtl.Shape(s)
	if fit > 0 {
		s = d.fit(s, fit)
	}
	d.pdf.CellFormat(w, h, rtl.Visual(s, d.rtl), "", 0, d.align(align), false, 0, "")
}
