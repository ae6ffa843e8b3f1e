package web

import (
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestChartPartials renders the shared chart partials (templates/kinds/
// bars.html) and the analysis page from hand-made charts: bars are text
// that wraps, not SVG text; figures, rows, words and the note show; the
// answer count says how many left an optional question unanswered.
func TestChartPartials(t *testing.T) {
	t.Parallel()
	v, err := newViews()
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("A choice label long enough to wrap on a phone ", 4)
	for _, c := range []struct {
		name     string
		partial  string // "" renders the whole analysis page
		chart    survey.Chart
		count    int64 // answers to the question
		optional bool
		total    int64  // answers to the survey
		lang     string // the page's language, English when ""
		want     []string
		not      []string
		order    []string // texts that come in this order
	}{
		{name: "bars", partial: "bars", count: 4,
			chart: survey.Chart{Labels: []string{long, "<b>Short</b>"}, Counts: []int64{3, 1}},
			want: []string{`<span class="bars-label">` + long + `</span>`, `<span class="bars-label">&lt;b&gt;Short&lt;/b&gt;</span>`,
				`<strong>3</strong><span class="sr-only"> answers,</span> <span class="bars-share">75%</span>`,
				`<strong>1</strong><span class="sr-only"> answer,</span> <span class="bars-share">25%</span>`,
				`aria-hidden="true"`, `width="75.0"`, `width="25.0"`},
			not: []string{"<text", "<figure"}},
		{name: "bars share of the answers, several choices each", partial: "bars", count: 1000,
			chart: survey.Chart{Labels: []string{"Tea", "Coffee", "Water"}, Counts: []int64{1000, 600, 2}},
			want:  []string{">100%<", ">60%<", "&lt;1%<", `width="100.0"`, `width="0.2"`}},
		{name: "no bars", partial: "bars", chart: survey.Chart{}, not: []string{"<ul"}},
		{name: "figures", partial: "figures", count: 10,
			chart: survey.Chart{Figures: []survey.Figure{{Label: "NPS", Value: "+42"}, {Label: "Promoters", Value: "6"}}},
			want:  []string{`<dl class="figures">`, "<dt>NPS</dt><dd>&#43;42</dd>", "<dt>Promoters</dt><dd>6</dd>"}},
		{name: "no figures", partial: "figures", chart: survey.Chart{Labels: []string{"x"}, Counts: []int64{1}}, not: []string{"<dl"}},
		{name: "average", partial: "average", count: 2, chart: survey.Chart{Average: 4.25, Averaged: true},
			want: []string{"<dt>Average</dt><dd>4.25</dd>"}},
		{name: "not averaged", partial: "average", chart: survey.Chart{}, not: []string{"<dl"}},
		{name: "rows", partial: "rows", count: 20,
			chart: survey.Chart{Rows: []survey.Chart{
				{Title: "Speed", Labels: []string{"Good", "Bad"}, Counts: []int64{15, 5}},
				{Title: "Price", Labels: []string{"Good", "Bad"}, Counts: []int64{2, 18}, Note: "Two skipped this row."},
			}},
			want: []string{`<h3 class="chart-row-title">Speed</h3>`, `<h3 class="chart-row-title">Price</h3>`, ">75%<", ">25%<", ">10%<", ">90%<",
				`<p class="chart-note">Two skipped this row.</p>`}},
		{name: "words", partial: "words", count: 3,
			chart: survey.Chart{Words: []survey.WordCount{{Word: "fast", Count: 3}, {Word: "pages", Count: 2}}, OtherWords: 7},
			want:  []string{"<span>fast</span> <span class=\"muted\">×3</span>", "fixed sample of 1000, and 7 uses of other words"}},
		{name: "no words", partial: "words", chart: survey.Chart{}, want: []string{"No words yet."}},
		{name: "words of a French survey: no stop words, no numbers", partial: "words", count: 9, lang: "fr",
			chart: survey.Chart{Words: []survey.WordCount{{Word: "les", Count: 9}, {Word: "2024", Count: 8}, {Word: "livraison", Count: 5}, {Word: "très", Count: 4}, {Word: "rapide", Count: 3}}},
			want:  []string{"<span>livraison</span>", "<span>rapide</span>"},
			not:   []string{"<span>les</span>", "<span>2024</span>", "<span>très</span>"}},
		{name: "words: the ten most used", partial: "words", count: 20,
			chart: survey.Chart{Words: []survey.WordCount{{Word: "w01", Count: 12}, {Word: "w02", Count: 11}, {Word: "w03", Count: 10}, {Word: "w04", Count: 9},
				{Word: "w05", Count: 8}, {Word: "w06", Count: 7}, {Word: "w07", Count: 6}, {Word: "w08", Count: 5}, {Word: "w09", Count: 4}, {Word: "w10", Count: 3},
				{Word: "w11", Count: 2}, {Word: "w12", Count: 1}}},
			want: []string{"<span>w01</span>", "<span>w10</span>"}, not: []string{"<span>w11</span>", "<span>w12</span>"}},
		{name: "words: only numbers", partial: "words", count: 2, chart: survey.Chart{Words: []survey.WordCount{{Word: "42", Count: 2}}},
			want: []string{"No words yet."}},
		{name: "columns: count and share as text, height of the tallest", partial: "columns", count: 8,
			chart: survey.Chart{Labels: []string{"0", "1", "2"}, Counts: []int64{2, 1, 5}},
			want: []string{`<ol class="columns">`, `<span class="columns-label">0<span class="sr-only">:</span></span>`, `<span class="columns-label">2<span class="sr-only">:</span></span>`,
				`<strong aria-hidden="true">2</strong><span class="sr-only">2 answers,</span> <span class="columns-share">25%</span>`,
				`<strong aria-hidden="true">1</strong><span class="sr-only">1 answer,</span> <span class="columns-share">12%</span>`,
				`y="60.0" width="10" height="40.0"`, `y="80.0" width="10" height="20.0"`, `y="0.0" width="10" height="100.0"`, `aria-hidden="true"`},
			not: []string{"<text", "style="}},
		{name: "columns: none counted", partial: "columns", chart: survey.Chart{Labels: []string{"1", "2"}, Counts: []int64{0, 0}},
			want: []string{`y="100.0" width="10" height="0.0"`}},
		{name: "no columns", partial: "columns", chart: survey.Chart{}, not: []string{"<ol"}},
		{name: "score", partial: "score", count: 4, chart: survey.Chart{Score: &survey.Figure{Label: "NPS", Value: "+17"}},
			want: []string{`<span class="score-label">NPS</span> <strong class="score-value">&#43;17</strong>`}},
		{name: "no score", partial: "score", chart: survey.Chart{}, not: []string{"<p"}},
		// 1, 2 and 5 of 8: the parts start at 0, 12.5 and 37.5.
		{name: "stack", partial: "stack", count: 8,
			chart: survey.Chart{Stack: []survey.Part{{Key: "promoters", Label: "Promoters (9–10)", Count: 1, Percent: 13},
				{Key: "passives", Label: "Passives (7–8)", Count: 2, Percent: 25}, {Key: "detractors", Label: "Detractors (0–6)", Count: 5, Percent: 63}}},
			want: []string{`<rect class="stack-promoters" x="0.00" width="12.50" height="10">`, `<rect class="stack-passives" x="12.50" width="25.00" height="10">`,
				`<rect class="stack-detractors" x="37.50" width="62.50" height="10">`,
				`<span class="stack-label">Promoters (9–10)</span> <strong>1</strong> <span class="stack-share">13%</span>`,
				`<span class="stack-label">Detractors (0–6)</span> <strong>5</strong> <span class="stack-share">63%</span>`},
			not: []string{"style="}},
		{name: "stack in French", partial: "stack", count: 1, lang: "fr",
			chart: survey.Chart{Stack: []survey.Part{{Key: "promoters", Label: "Promoters (9–10)", Count: 1, Percent: 100}}},
			want:  []string{`<span class="stack-label">Promoteurs (9–10)</span>`}},
		{name: "nps: score, one stacked bar, columns", partial: "nps.chart.html", count: 4,
			chart: survey.Chart{Labels: []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}, Counts: []int64{1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1},
				Score: &survey.Figure{Label: "NPS", Value: "+25"},
				Stack: []survey.Part{{Key: "promoters", Label: "Promoters (9–10)", Count: 2, Percent: 50}, {Key: "passives", Label: "Passives (7–8)", Count: 1, Percent: 25},
					{Key: "detractors", Label: "Detractors (0–6)", Count: 1, Percent: 25}}},
			want: []string{`<strong class="score-value">&#43;25</strong>`, `<svg class="stack-bar"`, `<ol class="columns">`, `<span class="columns-label">10<span class="sr-only">:</span></span>`, "Answers by score"},
			not:  []string{`class="bars"`}},
		{name: "nps: no answers, in Arabic", partial: "nps.chart.html", lang: "ar", want: []string{"لا توجد إجابات بعد."}, not: []string{"<svg"}},
		{name: "linear scale: mean and median as figures, compact columns", partial: "linearscale.chart.html", count: 4,
			chart: survey.Chart{Labels: []string{"1", "2", "3", "4", "5"}, Counts: []int64{1, 0, 0, 1, 2}, Average: 3.75, Averaged: true,
				Figures: []survey.Figure{{Label: "Mean", Value: "3.75"}, {Label: "Median", Value: "4.5"}}},
			want: []string{"<dt>Mean</dt><dd>3.75</dd>", "<dt>Median</dt><dd>4.5</dd>", `<ol class="columns">`, `<span class="columns-label">5<span class="sr-only">:</span></span>`,
				`<strong aria-hidden="true">2</strong><span class="sr-only">2 answers,</span> <span class="columns-share">50%</span>`},
			not: []string{`class="bars"`, "<dt>Average</dt>"}},
		{name: "linear scale in Dutch", partial: "linearscale.chart.html", count: 1, lang: "nl",
			chart: survey.Chart{Labels: []string{"1", "2"}, Counts: []int64{1, 0}, Figures: []survey.Figure{{Label: "Mean", Value: "1"}, {Label: "Median", Value: "1"}}},
			want:  []string{"<dt>Gemiddelde</dt><dd>1</dd>", "<dt>Mediaan</dt><dd>1</dd>"}},
		{name: "linear scale: no answers", partial: "linearscale.chart.html", chart: survey.Chart{Labels: []string{"1", "2"}, Counts: []int64{0, 0}},
			want: []string{"No answers yet."}, not: []string{"<ol", "<dl"}},
		{name: "five stars: mean and median, compact columns", partial: "fivestars.chart.html", count: 3,
			chart: survey.Chart{Labels: []string{"1 star", "2 stars", "3 stars", "4 stars", "5 stars"}, Counts: []int64{0, 0, 1, 0, 2}, Average: 13.0 / 3, Averaged: true,
				Figures: []survey.Figure{{Label: "Median", Value: "5"}}},
			want: []string{`<dt>Average rating</dt><dd>4.33 <span class="figure-unit">of 5 stars</span></dd>`, `<dt>Median</dt><dd>5 <span class="figure-unit">of 5 stars</span></dd>`,
				`<span class="columns-label">5 stars<span class="sr-only">:</span></span>`, `<strong aria-hidden="true">2</strong><span class="sr-only">2 answers,</span> <span class="columns-share">67%</span>`},
			not: []string{`class="bars"`}},
		{name: "number: figures and a histogram of columns", partial: "number.chart.html", count: 4,
			chart: survey.Chart{Labels: []string{"0–10", "11–20"}, Counts: []int64{3, 1},
				Figures: []survey.Figure{{Label: "Count", Value: "4"}, {Label: "Lower quartile", Value: "2.25"}, {Label: "Median", Value: "7.5"}, {Label: "Upper quartile", Value: "9"}}},
			want: []string{"<dt>Count</dt><dd>4</dd>", "<dt>Lower quartile</dt><dd>2.25</dd>", "<dt>Median</dt><dd>7.5</dd>", "<dt>Upper quartile</dt><dd>9</dd>",
				">Histogram</h3>", `<span class="columns-label">0–10<span class="sr-only">:</span></span>`, `<strong aria-hidden="true">3</strong><span class="sr-only">3 answers,</span> <span class="columns-share">75%</span>`},
			not: []string{`class="bars"`, "No numbers yet."}},
		{name: "number in Spanish", partial: "number.chart.html", count: 1, lang: "es",
			chart: survey.Chart{Labels: []string{"7"}, Counts: []int64{1}, Figures: []survey.Figure{{Label: "Lower quartile", Value: "7"}}},
			want:  []string{"<dt>Primer cuartil</dt><dd>7</dd>", ">Histograma</h3>", `<span class="sr-only">1 respuesta,</span>`}},
		{name: "number: none yet", partial: "number.chart.html", want: []string{"No numbers yet."}, not: []string{"<ol"}},
		{name: "matrix: a heat table", partial: "matrix.chart.html", count: 4,
			chart: survey.Chart{Rows: []survey.Chart{
				{Title: "Speed", Labels: []string{"Good", "<i>Bad</i>"}, Counts: []int64{3, 1}, Levels: []int{3, 1}, Answered: 4, Average: 1.25, Averaged: true},
				{Title: "Price", Labels: []string{"Good", "<i>Bad</i>"}, Counts: []int64{0, 1}, Levels: []int{0, 4}, Answered: 1},
			}},
			want: []string{`<table class="heat">`, `<th scope="col">Good</th><th scope="col">&lt;i&gt;Bad&lt;/i&gt;</th>`,
				`<th scope="row"><span class="heat-row">Speed</span> <span class="heat-meta">4 answers · average 1.25</span></th><td class="heat-3">3</td><td class="heat-1">1</td>`,
				`<th scope="row"><span class="heat-row">Price</span> <span class="heat-meta">1 answer</span></th><td class="heat-0">0</td><td class="heat-4">1</td>`,
				"The darker a cell"},
			not: []string{"style=", "heat-many"}},
		{name: "matrix: many columns", partial: "matrix.chart.html", count: 1,
			chart: survey.Chart{Rows: []survey.Chart{{Title: "Speed", Labels: []string{"1", "2", "3", "4", "5", "6", "7"}, Counts: make([]int64, 7), Levels: make([]int, 7), Answered: 0}}},
			want:  []string{`<table class="heat heat-many">`, `<span class="heat-meta">0 answers</span>`}},
		{name: "matrix in German", partial: "matrix.chart.html", count: 2, lang: "de",
			chart: survey.Chart{Rows: []survey.Chart{{Title: "Speed", Labels: []string{"1"}, Counts: []int64{2}, Levels: []int{4}, Answered: 2, Average: 1, Averaged: true}}},
			want:  []string{"2 Antworten · Durchschnitt 1.00", "Je dunkler eine Zelle"}},
		{name: "matrix: no rows", partial: "matrix.chart.html", chart: survey.Chart{}, want: []string{"No rows yet."}, not: []string{"<table"}},
		{name: "ranking: items by average position, in order", partial: "ranking.chart.html", count: 3,
			chart: survey.Chart{Positions: []survey.Position{{Item: "Quality", Average: "1.33", Ranked: 3, First: 2, Width: 91.666},
				{Item: "Price", Average: "2.00", Ranked: 3, First: 1, Width: 75}, {Item: "Colour"}}},
			want: []string{`<ol class="ranks">`,
				`<span class="bars-label">Quality</span>`, `<rect class="bars-fill" width="91.7" height="10">`, `<span class="ranks-value">average position 1.33</span>`, "ranked first by 2 respondents",
				`<span class="bars-label">Price</span>`, `width="75.0"`, "ranked first by 1 respondent<",
				`<span class="bars-label">Colour</span>`, `width="0.0"`, `<span class="ranks-value">not ranked</span>`},
			order: []string{"Quality", "Price", "Colour"}},
		{name: "ranking in French", partial: "ranking.chart.html", count: 1, lang: "fr",
			chart: survey.Chart{Positions: []survey.Position{{Item: "Prix", Average: "1.00", Ranked: 1, First: 1, Width: 100}}},
			want:  []string{"position moyenne 1.00", "classé premier par 1 personne"}},
		{name: "ranking: none", partial: "ranking.chart.html", chart: survey.Chart{Positions: []survey.Position{}}, want: []string{"No answers yet."}, not: []string{"<ol"}},
		{name: "page: kind, count and note", count: 42, total: 45,
			chart: survey.Chart{Labels: []string{"1 star"}, Counts: []int64{42}, Note: "A note under the chart."},
			want:  []string{`<span class="kind-tag">Star rating</span>`, "<strong>42</strong> answers", `<p class="chart-note">A note under the chart.</p>`},
			not:   []string{"not answered by"}},
		{name: "page: optional, not answered by some", count: 42, total: 45, optional: true,
			chart: survey.Chart{Labels: []string{"1 star"}, Counts: []int64{42}},
			want:  []string{"<strong>42</strong> answers", "not answered by 3"}},
		{name: "page: optional, answered by all", count: 1, total: 1, optional: true,
			want: []string{"<strong>1</strong> answer</span>", ">optional<"}, not: []string{"not answered by"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := newQuestionView(1, survey.Question{ID: "q1", Text: "How was it?", Type: survey.FiveStars, Optional: c.optional},
				&survey.QuestionAnswersSummary{Answered: c.count}, c.total, c.lang)
			q.setChart(c.chart)
			q.lang = i18n.For(c.lang)
			var b strings.Builder
			if c.partial != "" {
				err = v.kinds.ExecuteTemplate(&b, c.partial, q)
			} else {
				p := analyzePage{Tenant: "adatum", Survey: &survey.Survey{Slug: "s", Title: "T"}, Total: c.total, Questions: []questionView{q}}
				err = v.pages["analyze"].ExecuteTemplate(&b, "base", layout{Page: p})
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("lacks %q:\n%s", w, b.String())
				}
			}
			at := 0
			for _, w := range c.order {
				i := strings.Index(b.String()[at:], w)
				if i < 0 {
					t.Errorf("%q not after the texts before it, in order %q", w, c.order)
					break
				}
				at += i + len(w)
			}
			for _, w := range c.not {
				if strings.Contains(b.String(), w) {
					t.Errorf("has %q:\n%s", w, b.String())
				}
			}
		})
	}
}

// TestHeatContrast: every shade of a heat table's cell keeps its text
// readable (WCAG AA, 4.5:1 for normal text), the colours read from
// app.css.
func TestHeatContrast(t *testing.T) {
	css, err := os.ReadFile("../../web/static/app.css")
	if err != nil {
		t.Fatal(err)
	}
	rule := regexp.MustCompile(`\.heat \.heat-(\d) \{ background: #([0-9a-f]{6}); color: #([0-9a-f]{6});`)
	found := map[string]bool{}
	for _, m := range rule.FindAllStringSubmatch(string(css), -1) {
		found[m[1]] = true
		if r := contrast(m[2], m[3]); r < 4.5 {
			t.Errorf("heat-%s: #%s on #%s is %.2f:1, under 4.5:1", m[1], m[3], m[2], r)
		}
	}
	for level := 0; level <= survey.HeatLevels; level++ {
		if !found[strconv.Itoa(level)] {
			t.Errorf("app.css has no background and colour for .heat-%d", level)
		}
	}
}

// contrast is WCAG 2's contrast ratio of two sRGB colours (rrggbb).
func contrast(a, b string) float64 {
	lum := func(hex string) float64 {
		var c [3]float64
		for i := range c {
			v, _ := strconv.ParseUint(hex[2*i:2*i+2], 16, 8)
			x := float64(v) / 255
			if x <= 0.03928 {
				c[i] = x / 12.92
			} else {
				c[i] = math.Pow((x+0.055)/1.055, 2.4)
			}
		}
		return 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2]
	}
	la, lb := lum(a), lum(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}
