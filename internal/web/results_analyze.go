package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/chartdraw"
	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/survey"
)

// AnswerReader reads a survey's answers for browsing and export, many at a
// time (from the survey's answer segments): each method also gives the
// number of answers, or reads them in the order of the survey's list.
type AnswerReader interface {
	// Scan calls f with every answer from position from on, in order; f's
	// answer is only valid during the call.
	Scan(ctx context.Context, tenant, slug string, from int, f func(pos int, a *survey.SurveyAnswer) error) error
	// ScanFiltered calls f with every answer filter picks, in order, and
	// the number of answers before it (those left out included); it
	// returns the number of answers read. It looks at the fields the
	// filter names before it decodes an answer whole.
	ScanFiltered(ctx context.Context, tenant, slug string, filter survey.AnswerFilter, f func(of int, a *survey.SurveyAnswer) error) (int, error)
	// ScanFilteredParts is ScanFiltered on up to n goroutines, each
	// reading a part of the answers in order with the f start(k) makes
	// (k from 0, the parts' order; start(0) again when it starts over
	// as one part); it returns each part's number of answers read, and
	// an answer's number is its number in its part plus the reads of
	// the parts before.
	ScanFilteredParts(ctx context.Context, tenant, slug string, filter survey.AnswerFilter, n int, start func(k int) func(of int, a *survey.SurveyAnswer) error) ([]int, error)
	// Range returns up to limit answers from position offset on.
	Range(ctx context.Context, tenant, slug string, offset, limit int) ([]*survey.SurveyAnswer, int, error)
	// LatestAnswers returns up to limit answers, newest first, after the
	// skip newest.
	LatestAnswers(ctx context.Context, tenant, slug string, skip, limit int) ([]*survey.SurveyAnswer, int, error)
}

type analyzePage struct {
	Tenant string
	Survey *survey.Survey
	// Total is the number of answers the page counts: all of them, or
	// those the filter picks out of Of.
	Total int64
	Of    int
	// Partial counts the partial answers, apart from Total (none in a
	// filtered page's).
	Partial   int64
	Questions []questionView
	Transfer  transferView
	Filter    filterView
	// Live is where the page's script asks for the summary again (an
	// unfiltered page only); Self is the page's own URL, to refresh it.
	Live, Self string
	// Report is the page as a PDF document (report.pdf, with the page's
	// filter); "" while the filter has problems.
	Report string
	// Role is the signed-in member's: it hides what they may not do.
	Role survey.Role
	// Funnel is where respondents stop, for a survey of several pages
	// (unfiltered page only).
	Funnel *funnelView
	// Hidden are the survey's hidden fields and the values the answers
	// carried.
	Hidden []hiddenView
	// Variables are the survey's score and variables: their values'
	// distribution and mean.
	Variables []variableView
	// Quotas are the survey's quotas and their cells' counts (unfiltered
	// page only).
	Quotas []quotaView
	// Crosstab is the survey's cross-tabulation, with the page's filter.
	Crosstab string
}

// variableView is what the analysis shows of the score or a variable:
// its values counted (as a hidden field's, each a link to the answers
// with it) and their mean, when every value is counted (Exact).
type variableView struct {
	hiddenView
	Mean  string
	Exact bool
}

// quotaView is a quota as the analysis shows it: its count of its limit.
type quotaView struct {
	Name         string
	Count, Limit int
}

// Full reports whether the quota's cell takes no more answers.
func (q quotaView) Full() bool { return q.Count >= q.Limit }

// hiddenView is what the analysis shows of a hidden field: how many
// answers carried a value, the values counted most, each a link to the
// answers with it, and how many answers carried another.
type hiddenView struct {
	Name     string
	Answered int64
	Top      []hiddenValue
	Rest     int64
}

// hiddenValue is one value of a hidden field and its count.
type hiddenValue struct {
	Value, URL string
	Count      int64
}

// hiddenTop is how many values of a hidden field the analysis shows.
const hiddenTop = 10

// questionView is what the analysis page knows of one question, and what
// its kind's chart partial (templates/kinds/<key>.chart.html) is given:
// see templates/kinds/bars.html for the partials it may call.
type questionView struct {
	N    int
	ID   string
	Text string
	Type survey.QuestionType
	// Kind is the kind's name for people ("Star rating").
	Kind     string
	Optional bool
	// Hidden: respondents no longer see the question (an edit of the
	// published survey took it away); its answers are still here.
	Hidden bool
	// Count is the number of answers to the question; Skipped, of the
	// survey's answers that left an optional question unanswered.
	Count   int64
	Skipped int64
	// Chart is the kind's chart of the summary; Bars its bars and Rows
	// its rows' bars, with their shares of Count.
	Chart   survey.Chart
	Bars    []bar
	Rows    []rowView
	Average string // the mean with two decimals, when Chart.Averaged
	Words   []survey.WordCount
	// OtherWords counts the uses of words past the summary's sample of
	// MaxSummaryWords distinct words.
	OtherWords int64
	MaxWords   int
	// Written lists what the latest answers wrote (the page reads the
	// survey's latestWritten newest answers once, for every question), and
	// WrittenURL is the page of all of them; "" for a question whose
	// answers hold no text.
	Written    []writtenAnswer
	WrittenURL string
	// Stack is Chart.Stack as drawn: each part's place on one bar.
	Stack []stackPart
	// PNG and SVG are the chart as images to download, with the page's
	// filter; Figures its figures as text, a line each (chartdraw.
	// Figures). The analysis page's only: "" elsewhere.
	PNG, SVG, Figures string
	// wordsLang is the survey's language, whose stop words Words skips.
	wordsLang string
	// lang is the page's language, in which the partials write their
	// words (T, Text): English on the analysis page, the respondent's on
	// the public results page.
	lang i18n.Lang
}

// T is the words of key with args in the page's language (i18n.Lang.T):
// a partial's own words, {{.T "No answers yet."}}.
func (v questionView) T(key string, args ...any) string { return v.lang.T(key, args...) }

// Say is a chart's label in the page's language when the catalogs have
// it (i18n.Lang.Text), as it is otherwise: {{$.Say .Label}}.
func (v questionView) Say(s string) string { return v.lang.Text(s) }

// stackPart is one part of a stacked bar: the chart's part, where it
// starts on the bar (X) and how wide it is (Width), from 0 to 100.
type stackPart struct {
	survey.Part
	X, Width string
}

// stack places the parts on one bar, each as wide as its exact share of
// the whole.
func stack(parts []survey.Part) []stackPart {
	var total int64
	for _, p := range parts {
		total += p.Count
	}
	out := make([]stackPart, 0, len(parts))
	var at int64
	for _, p := range parts {
		x, w := 0.0, 0.0
		if total > 0 {
			x, w = 100*float64(at)/float64(total), 100*float64(p.Count)/float64(total)
		}
		at += p.Count
		out = append(out, stackPart{Part: p, X: strconv.FormatFloat(x, 'f', 2, 64), Width: strconv.FormatFloat(w, 'f', 2, 64)})
	}
	return out
}

// rowView is the chart of one row of a matrix.
type rowView struct {
	Title string
	Bars  []bar
	Note  string
}

// bar is one bar of a chart: its label, its count, its share of the
// question's answers in per cent (Share for people: "42%", "<1%"), the
// count and share said in words (Said: "12 answers, 40%") and the width
// of the bar (0–100). Drawn as a column (the partial "columns"), it is
// Height high (0–100, the most counted bar's 100) from Y down.
type bar struct {
	Label     string
	Count     int64
	Percent   float64
	Share     string
	Said      string
	Width     string
	Height, Y string
}

// bars are the bars of labels and counts, each a share of answered.
func bars(labels []string, counts []int64, answered int64) []bar {
	out := make([]bar, 0, len(labels))
	var most int64
	for _, n := range counts {
		most = max(most, n)
	}
	for i, l := range labels {
		var n int64
		if i < len(counts) {
			n = counts[i]
		}
		p, share := chartdraw.Share(n, answered)
		out = append(out, bar{Label: l, Count: n, Percent: p, Share: share,
			Said:  survey.Count(n, "answer") + ", " + share,
			Width: strconv.FormatFloat(min(max(p, 0), 100), 'f', 1, 64)})
		h := 0.0
		if most > 0 && n > 0 {
			h = 100 * float64(n) / float64(most)
		}
		out[len(out)-1].Height, out[len(out)-1].Y = strconv.FormatFloat(h, 'f', 1, 64), strconv.FormatFloat(100-h, 'f', 1, 64)
	}
	return out
}

// newQuestionView is question q (number n) of the analysis page, with its
// summary qs (nil when it has none yet) out of total answers, of a survey
// in language lang (its most used words are those that say something in
// it).
func newQuestionView(n int, q survey.Question, qs *survey.QuestionAnswersSummary, total int64, lang string) questionView {
	v := questionView{N: n, ID: q.ID, Text: q.Text, Type: q.Type, Kind: string(q.Type), Optional: q.Optional, Hidden: q.Hidden, MaxWords: survey.MaxSummaryWords, wordsLang: lang}
	k, ok := survey.KindOf(q.Type)
	if ok {
		v.Kind = k.Label()
	}
	if qs == nil {
		return v
	}
	v.Count = qs.Answered
	if q.Optional {
		v.Skipped = max(total-qs.Answered, 0)
	}
	if ok {
		v.setChart(k.Chart(qs))
	}
	return v
}

// setChart sets the chart and what the partials show of it.
func (v *questionView) setChart(c survey.Chart) {
	v.Chart = c
	v.Bars, v.Rows = nil, nil
	if c.Labels != nil {
		v.Bars = bars(c.Labels, c.Counts, v.Count)
	}
	for _, r := range c.Rows {
		v.Rows = append(v.Rows, rowView{Title: r.Title, Bars: bars(r.Labels, r.Counts, v.Count), Note: r.Note})
	}
	if c.Averaged {
		v.Average = strconv.FormatFloat(c.Average, 'f', 2, 64)
	}
	v.Words, v.OtherWords = survey.MostUsedWords(c.Words, v.wordsLang, survey.ChartWords), c.OtherWords
	if len(v.Words) == 0 {
		v.Words = nil
	}
	v.Stack = nil
	if c.Stack != nil {
		v.Stack = stack(c.Stack)
	}
}

// writtenAnswer is a text from one answer: the text, when the answer came
// and its position in the survey's list (for its page).
type writtenAnswer struct {
	Text     string
	On       time.Time
	Position int
}

// latestWritten is how many of the newest answers the analysis page reads
// to show what they wrote.
const latestWritten = 5

// analyze shows the survey's summary, with a chart per question drawn on
// the server, and what the latest answers wrote. Filtered (survey.
// AnswerFilter: ?from=&to=&q=&a=), it counts the answers the filter picks
// from the stored answers instead of the stored summary.
func (s *Server) analyze(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	// Every version's questions: the hidden ones too, with their answers.
	sv = sv.Everything(nil).Numbered()
	base := "/" + tenant + "/surveys/" + slug + "/analyze"
	page := analyzePage{Tenant: tenant, Survey: sv, Filter: readFilter(r, sv, base), Self: base, Role: roleOf(r)}
	if page.Filter.Segments, err = s.segmentsOf(r, sv, "analyze", page.Filter); err != nil {
		return err
	}
	if page.Transfer, err = s.transferViewFor(r, tenant, slug); err != nil {
		return err
	}
	page.Crosstab = "/" + tenant + "/surveys/" + slug + "/crosstab"
	if !page.Filter.Invalid() {
		page.Report = "/" + tenant + "/surveys/" + slug + "/report.pdf"
	}
	if page.Filter.Active() {
		page.Self += "?" + page.Filter.Query
		page.Crosstab += "?" + page.Filter.Query
		page.Report += "?" + page.Filter.Query
	}
	switch {
	case page.Filter.Invalid():
	case page.Filter.Active():
		err = s.summarizeFiltered(r.Context(), &page)
	default:
		page.Live = base + "/live"
		var sum *survey.SurveyAnswersSummary
		if sum, err = s.storedSummary(r.Context(), sv); err == nil {
			err = s.summarize(r.Context(), &page, sum)
		}
		if err == nil {
			page.Funnel, err = s.funnelOf(r.Context(), sv, page.Total)
		}
		if err == nil {
			page.Quotas, err = s.quotaViews(r.Context(), sv)
		}
	}
	if err != nil {
		return err
	}
	s.render(w, r, page.Filter.status(), "analyze", page)
	return nil
}

// analyzeLive is the summary part of the analysis page (its
// "analysis-summary" block), for the page's script to put in place of the
// one it shows: 204 No Content while the survey still has ?since= answers.
func (s *Server) analyzeLive(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	// Nothing new: the summary alone says so (one read; the survey is read
	// only to render what changed).
	since, sinceErr := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64)
	if stored, _, err := s.summaries.Get(r.Context(), tenant, slug); err == nil && sinceErr == nil && since == stored.TotalAnswers {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	sum, err := s.storedSummary(r.Context(), sv)
	if err != nil {
		return err
	}
	if sinceErr == nil && since == sum.TotalAnswers {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	page := analyzePage{Tenant: tenant, Survey: sv}
	if err := s.summarize(r.Context(), &page, sum); err != nil {
		return err
	}
	s.renderBlock(w, r, http.StatusOK, "analyze", "analysis-summary", page)
	return nil
}

// storedSummary is the survey's summary as the worker keeps it (an empty
// one before the first answer).
func (s *Server) storedSummary(ctx context.Context, sv *survey.Survey) (*survey.SurveyAnswersSummary, error) {
	stored, _, err := s.summaries.Get(ctx, sv.Tenant, sv.Slug)
	switch {
	case err == nil:
		return &stored.SurveyAnswersSummary, nil
	case survey.ErrorCode(err) == survey.ENOTFOUND:
		return survey.NewSummary(sv), nil
	}
	return nil, err
}

// positioned is an answer and its number among the answers left (from 0:
// its ?i= on the browse page).
type positioned struct {
	*survey.SurveyAnswer
	Position int
}

// summarize fills the page's questions from the stored summary sum, with
// what the latest answers wrote.
func (s *Server) summarize(ctx context.Context, page *analyzePage, sum *survey.SurveyAnswersSummary) error {
	var latest []positioned
	if sum.TotalAnswers > 0 && hasWritten(page.Survey) {
		// One read of the newest answers serves every question: the
		// summary, the segments' names and the segment that holds them
		// (single blobs for the newest not in a segment yet).
		answers, _, err := s.reader.LatestAnswers(ctx, page.Tenant, page.Survey.Slug, 0, latestWritten)
		if err != nil {
			return err
		}
		// The newest answers left, numbered among them (deleted ones
		// are no longer counted nor listed; partial ones are listed,
		// not summarised: the summary's counts of both are the answers
		// left, whatever the list still names).
		listed := int(sum.TotalAnswers + sum.Partial)
		for i, a := range answers {
			if !a.Partial {
				latest = append(latest, positioned{a, listed - 1 - i})
			}
		}
	}
	page.questions(sum, latest)
	return nil
}

// summarizeFiltered counts the answers the page's filter picks into a
// summary of their own, reading every answer once (a segment at a time,
// on every core: countFiltered), and keeps the latest of them for what
// they wrote.
func (s *Server) summarizeFiltered(ctx context.Context, page *analyzePage) error {
	sum, latest, all, err := s.countFiltered(ctx, page.Survey, page.Filter.Filter, latestWritten)
	if err != nil {
		return err
	}
	page.Of = all
	page.questions(sum, latest)
	return nil
}

// maxCountParts bounds the parts a count reads at once (countFiltered),
// whatever the cores: each holds two segments (up to 2 MiB) and its
// counts.
const maxCountParts = 8

// countFiltered counts the answers to sv that f picks into a summary,
// as one Recount of them in order would (survey.MergeRecounts), reading
// them on every core: the survey's segments are shared out in order
// among GOMAXPROCS parts, maxCountParts at most
// (AnswerReader.ScanFilteredParts), each counted into a Recount of its
// own and merged in the parts' order, so that the summary is the same
// whatever the parts. Each part holds two segments
// at most and its counts (bounded as a Recount's are). It also returns
// the latest (up to) keep answers picked, newest first, numbered among
// all the answers, and the number of answers read.
func (s *Server) countFiltered(ctx context.Context, sv *survey.Survey, f survey.AnswerFilter, keep int) (*survey.SurveyAnswersSummary, []positioned, int, error) {
	type part struct {
		rc     *survey.Recount
		ring   []positioned // the part's latest picked, numbered in the part
		picked int
	}
	var parts []*part
	reads, err := s.reader.ScanFilteredParts(ctx, sv.Tenant, sv.Slug, f, min(runtime.GOMAXPROCS(0), maxCountParts), func(k int) func(int, *survey.SurveyAnswer) error {
		if k == 0 {
			parts = parts[:0] // (again: the scan started over)
		}
		p := &part{rc: survey.NewRecount(sv), ring: make([]positioned, 0, keep)}
		parts = append(parts, p)
		return func(of int, a *survey.SurveyAnswer) error {
			p.rc.Add(*a)
			if keep > 0 {
				c := *a // the scan reuses *a, not its Answers
				if len(p.ring) < keep {
					p.ring = append(p.ring, positioned{&c, of})
				} else {
					p.ring[p.picked%keep] = positioned{&c, of}
				}
			}
			p.picked++
			return nil
		}
	})
	if err != nil {
		return nil, nil, 0, err
	}
	rcs := make([]*survey.Recount, len(parts))
	var latest []positioned
	all := 0
	for k, p := range parts {
		rcs[k] = p.rc
		for _, l := range p.ring {
			latest = append(latest, positioned{l.SurveyAnswer, all + l.Position})
		}
		all += reads[k]
	}
	// Newest first.
	slices.SortFunc(latest, func(a, b positioned) int { return b.Position - a.Position })
	if len(latest) > keep {
		latest = latest[:keep]
	}
	return survey.MergeRecounts(rcs), latest, all, nil
}

// hasWritten reports whether one of sv's questions has written answers.
func hasWritten(sv *survey.Survey) bool {
	return slices.ContainsFunc(sv.Questions, survey.HasWritten)
}

// questionSummary is the summary of question id in sum; nil when it has
// none yet.
func questionSummary(sum *survey.SurveyAnswersSummary, id string) *survey.QuestionAnswersSummary {
	for j := range sum.Questions {
		if sum.Questions[j].QuestionID == id {
			return &sum.Questions[j]
		}
	}
	return nil
}

// questions sets the page's total and questions from summary sum, with
// what the latest answers (newest first) wrote.
func (page *analyzePage) questions(sum *survey.SurveyAnswersSummary, latest []positioned) {
	page.Total, page.Partial = sum.TotalAnswers, sum.Partial
	// And any question the summary counts that no version has now.
	page.Survey = page.Survey.Everything(sum).Numbered()
	sv, tenant, slug := page.Survey, page.Tenant, page.Survey.Slug
	for i, q := range sv.Questions {
		v := newQuestionView(i+1, q, questionSummary(sum, q.ID), sum.TotalAnswers, sv.Language)
		chart := "/" + tenant + "/surveys/" + slug + "/analyze/" + q.ID + "/chart"
		v.PNG, v.SVG, v.Figures = chart+".png", chart+".svg", chartdraw.Figures(v.drawing())
		if page.Filter.Active() {
			v.PNG += "?" + page.Filter.Query
			v.SVG += "?" + page.Filter.Query
		}
		if survey.HasWritten(q) {
			v.WrittenURL = "/" + tenant + "/surveys/" + slug + "/analyze/" + q.ID
			for _, a := range latest {
				if t := survey.Written(q, answerTo(a.SurveyAnswer, q.ID)); t != "" {
					v.Written = append(v.Written, writtenAnswer{Text: t, On: a.CreatedOn, Position: a.Position})
				}
			}
		}
		page.Questions = append(page.Questions, v)
	}
	page.Hidden = nil
	for _, name := range sv.HiddenFields {
		hv := hiddenView{Name: name}
		if h := sum.Hidden[name]; h != nil {
			hv.Answered, hv.Rest = h.Answered, h.Answered
			for _, c := range h.TopValues(hiddenTop) {
				q := url.Values{"q": {survey.HiddenRef(name)}, "a": {c.Answer}}
				hv.Top = append(hv.Top, hiddenValue{Value: c.Answer, Count: c.Count, URL: "/" + tenant + "/surveys/" + slug + "/answers/table?" + q.Encode()})
				hv.Rest -= c.Count
			}
		}
		page.Hidden = append(page.Hidden, hv)
	}
	page.Variables = nil
	for _, name := range sv.VarNames() {
		ref := survey.VarRef(name)
		vv := variableView{hiddenView: hiddenView{Name: name}}
		if h := sum.Hidden[ref]; h != nil {
			vv.Answered, vv.Rest = h.Answered, h.Answered
			for _, c := range h.TopValues(hiddenTop) {
				q := url.Values{"q": {ref}, "a": {c.Answer}}
				vv.Top = append(vv.Top, hiddenValue{Value: c.Answer, Count: c.Count, URL: "/" + tenant + "/surveys/" + slug + "/answers/table?" + q.Encode()})
				vv.Rest -= c.Count
			}
			vv.Mean, vv.Exact = valuesMean(h)
		}
		page.Variables = append(page.Variables, vv)
	}
}

// valuesMean is the mean of the numbers h counts; exact when it counts
// every answer's value.
func valuesMean(h *survey.HiddenSummary) (string, bool) {
	var sum float64
	var n int64
	for v, c := range h.Values {
		if x, err := strconv.ParseFloat(v, 64); err == nil {
			sum += x * float64(c)
			n += c
		}
	}
	if n == 0 {
		return "", false
	}
	return survey.FormatValue(sum / float64(n)), h.OtherValues == 0
}

// writtenPage is the page of what the answers to one question wrote.
type writtenPage struct {
	// Role is the signed-in member's: it hides what they may not do.
	Role     survey.Role
	Tenant   string
	Survey   *survey.Survey
	Question questionView
	Answers  []writtenAnswer
	// Blank counts the answers of this page that wrote nothing here.
	Blank int
	// Page (from 1) of Pages, of PageSize answers each, newest first, out
	// of Total answers; From and To number the page's answers (from 1).
	Page, Pages, PageSize, Total, From, To int
	// Search is what the answers were searched for ("" for none): Total
	// then counts those that wrote it, and Blank is not counted.
	Search string
}

// writtenPageSize is the number of answers a page of texts reads.
const writtenPageSize = 20

// written lists what the answers to one question wrote, newest first, a
// page of writtenPageSize answers at a time (?page=N, from 1).
func (s *Server) written(w http.ResponseWriter, r *http.Request) error {
	tenant, slug, id := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug"), chi.URLParam(r, "question")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	sv = sv.Everything(nil).Numbered()
	n := 0
	for i, q := range sv.Questions {
		if q.ID == id {
			n = i + 1
		}
	}
	if n == 0 || !survey.HasWritten(sv.Questions[n-1]) {
		return notFound("This survey has no such question with written answers.")
	}
	q := sv.Questions[n-1]
	p := 1
	if v := r.URL.Query().Get("page"); v != "" {
		if p, err = strconv.Atoi(v); err != nil || p < 1 {
			return notFound("Pages of answers are numbered from 1.")
		}
	}
	search := strings.TrimSpace(survey.CleanLine(r.URL.Query().Get("search")))
	if utf8.RuneCountInString(search) > survey.MaxFilterAnswer {
		return survey.Errorf(survey.EINVALID, "Search for at most %d characters.", survey.MaxFilterAnswer)
	}
	if search != "" {
		return s.searchWritten(w, r, sv, n, search, p)
	}
	latest, total, err := s.reader.LatestAnswers(r.Context(), tenant, slug, (p-1)*writtenPageSize, writtenPageSize)
	if err != nil {
		return err
	}
	pages := max((total+writtenPageSize-1)/writtenPageSize, 1)
	if p > pages {
		return notFound(fmt.Sprintf("There is no page %d: these answers fill %s.", p, survey.Count(pages, "page")))
	}
	page := writtenPage{Tenant: tenant, Survey: sv, Question: newQuestionView(n, q, nil, 0, sv.Language), Page: p, Pages: pages, PageSize: writtenPageSize, Total: total, Role: roleOf(r)}
	if len(latest) > 0 {
		page.From, page.To = (p-1)*writtenPageSize+1, (p-1)*writtenPageSize+len(latest)
	}
	for i, a := range latest {
		if t := survey.Written(q, answerTo(a, q.ID)); t != "" {
			page.Answers = append(page.Answers, writtenAnswer{Text: t, On: a.CreatedOn, Position: total - 1 - (p-1)*writtenPageSize - i})
		} else {
			page.Blank++
		}
	}
	s.render(w, r, http.StatusOK, "written", page)
	return nil
}

// searchWritten lists the answers to the n-th question of sv that wrote
// search (ignoring case), newest first, a page at a time: it reads every
// answer twice, a segment at a time (once to count those that match, once
// for the page's), never one by one.
func (s *Server) searchWritten(w http.ResponseWriter, r *http.Request, sv *survey.Survey, n int, search string, p int) error {
	q := sv.Questions[n-1]
	want := strings.ToLower(search)
	matches := func(a *survey.SurveyAnswer) string {
		t := survey.Written(q, answerTo(a, q.ID))
		if t != "" && strings.Contains(strings.ToLower(t), want) {
			return t
		}
		return ""
	}
	total := 0
	if _, err := s.scanFiltered(r.Context(), sv.Tenant, sv.Slug, survey.AnswerFilter{}, func(_, _ int, a *survey.SurveyAnswer) error {
		if matches(a) != "" {
			total++
		}
		return nil
	}); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		return err
	}
	pages := max((total+writtenPageSize-1)/writtenPageSize, 1)
	if p > pages {
		return notFound(fmt.Sprintf("There is no page %d: these answers fill %s.", p, survey.Count(pages, "page")))
	}
	page := writtenPage{Tenant: sv.Tenant, Survey: sv, Question: newQuestionView(n, q, nil, 0, sv.Language), Page: p, Pages: pages,
		PageSize: writtenPageSize, Total: total, Role: roleOf(r), Search: search}
	// The page's matches, newest first: the k-th match from the oldest
	// is the (total-1-k)-th newest.
	lo, hi := total-p*writtenPageSize, total-(p-1)*writtenPageSize
	k := 0
	var found []writtenAnswer
	if _, err := s.scanFiltered(r.Context(), sv.Tenant, sv.Slug, survey.AnswerFilter{}, func(_, pos int, a *survey.SurveyAnswer) error {
		if t := matches(a); t != "" {
			if k >= lo && k < hi {
				found = append(found, writtenAnswer{Text: t, On: a.CreatedOn, Position: pos})
			}
			k++
		}
		return nil
	}); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		return err
	}
	slices.Reverse(found)
	page.Answers = found
	if len(found) > 0 {
		page.From, page.To = (p-1)*writtenPageSize+1, (p-1)*writtenPageSize+len(found)
	}
	s.render(w, r, http.StatusOK, "written", page)
	return nil
}

type answerPage struct {
	// Role is the signed-in member's: it hides what they may not do.
	Role   survey.Role
	Tenant string
	Survey *survey.Survey
	Answer *survey.SurveyAnswer
	// Index numbers the answer among those shown (from 0); Total counts
	// them: the answers left, or those the filter picks out of Of.
	Index int
	Total int
	Of    int
	Prev  int
	Next  int
	Last  int
	Rows  []*survey.SurveyAnswer
	Page  int
	Pages int
	// PageSize is the rows of a page of the table.
	PageSize int
	// Deleted: the page comes after deleting an answer.
	Deleted bool
	Filter  filterView
	// View is the table's columns and order.
	View tableView
	// Single: the one answer a link names (a chat message's), not one
	// browsed among the others.
	Single bool
}

// RowIndex is the i-th row's place among the answers the filter picks
// (from 0, the oldest): the answer page's ?i=.
func (p answerPage) RowIndex(i int) int {
	n := (p.Page-1)*p.PageSize + i
	if p.View.Newest {
		return p.Total - 1 - n
	}
	return n
}

const answersPageSize = 25

// browse shows one answer, with first / previous / next / last: the i-th
// (?i=, from 0) of the answers the filter picks.
func (s *Server) browse(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	sv = sv.Numbered() // its texts' references as {{q3}}
	i, _ := strconv.Atoi(r.URL.Query().Get("i"))
	page := answerPage{Tenant: tenant, Survey: sv, Index: max(i, 0), Deleted: r.URL.Query().Get("deleted") == "1", Role: roleOf(r),
		Filter: readFilter(r, sv, "/"+tenant+"/surveys/"+slug+"/answers")}
	if page.Filter.Segments, err = s.segmentsOf(r, sv, "answers", page.Filter); err != nil {
		return err
	}
	if !page.Filter.Invalid() {
		one, err := s.pickAnswers(r.Context(), &page, page.Index, 1)
		if err != nil {
			return err
		}
		if len(one) == 1 {
			page.Answer = one[0]
		} else if page.Total > 0 && !page.Deleted {
			return notFound("No answer at that position.")
		}
	}
	page.Last = max(page.Total-1, 0)
	page.Prev, page.Next = max(page.Index-1, 0), min(page.Index+1, page.Last)
	s.render(w, r, page.Filter.status(), "answer", page)
	return nil
}

// showAnswer shows the answer a link names by its ID (the link of a Slack
// or Teams message): the answer page of that one answer, with a way to
// all the others.
func (s *Server) showAnswer(w http.ResponseWriter, r *http.Request) error {
	if s.remover == nil {
		return notFound("Page not found.")
	}
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	a, err := s.remover.Get(r.Context(), tenant, slug, chi.URLParam(r, "answer"))
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return notFound("No such answer: it may have been deleted.")
	}
	if err != nil {
		return err
	}
	sv = sv.Numbered()
	page := answerPage{Tenant: tenant, Survey: sv, Answer: a, Single: true, Total: 1, Role: roleOf(r),
		Filter: readFilter(r, sv, "/"+tenant+"/surveys/"+slug+"/answers")}
	s.render(w, r, http.StatusOK, "answer", page)
	return nil
}

// answerTable shows a page of answers (?page=, from 1) as a table.
func (s *Server) answerTable(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	sv = sv.Numbered() // its texts' references as {{q3}}
	p, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page := answerPage{Tenant: tenant, Survey: sv, Page: max(p, 1), PageSize: answersPageSize, Role: roleOf(r), Deleted: r.URL.Query().Get("deleted") == "1",
		Filter: readFilter(r, sv, "/"+tenant+"/surveys/"+slug+"/answers/table")}
	page.View = readTableView(r, sv, page.Filter)
	if page.Filter.Segments, err = s.segmentsOf(r, sv, "answers/table", page.Filter); err != nil {
		return err
	}
	if !page.Filter.Invalid() {
		if page.View.Newest {
			page.Rows, err = s.pickNewest(r.Context(), &page, (page.Page-1)*answersPageSize, answersPageSize)
		} else {
			page.Rows, err = s.pickAnswers(r.Context(), &page, (page.Page-1)*answersPageSize, answersPageSize)
		}
		if err != nil {
			return err
		}
	}
	page.Pages = max((page.Total+answersPageSize-1)/answersPageSize, 1)
	s.render(w, r, page.Filter.status(), "answers", page)
	return nil
}

// pickAnswers returns up to limit of the answers the page's filter picks,
// from the offset-th (from 0) on, and sets the page's Total (and Of).
// Without a filter, and before any answer of the survey is deleted, an
// answer's number is its position in the list: the answers are read from
// there. Otherwise every answer is read once (a segment at a time) to
// number those picked, and only the page's are kept.
func (s *Server) pickAnswers(ctx context.Context, page *answerPage, offset, limit int) (rows []*survey.SurveyAnswer, err error) {
	rows, page.Total, page.Of, err = s.answersPicked(ctx, page.Tenant, page.Survey.Slug, page.Filter.Filter, offset, limit)
	return rows, err
}

// pickNewest is pickAnswers counted from the last answer: the offset-th
// newest on, newest first. It counts the answers the filter picks first
// (the summary says it without a filter; with one, that is a scan more).
func (s *Server) pickNewest(ctx context.Context, page *answerPage, offset, limit int) ([]*survey.SurveyAnswer, error) {
	if _, err := s.pickAnswers(ctx, page, 0, 0); err != nil {
		return nil, err
	}
	end := page.Total - offset // the first after the page, counted from the oldest
	if end <= 0 {
		return nil, nil
	}
	rows, err := s.pickAnswers(ctx, page, max(end-limit, 0), min(limit, end))
	slices.Reverse(rows)
	return rows, err
}

// answersPicked returns up to limit of the answers f picks from the
// offset-th on, how many f picks (total) and how many answers there are
// (all).
func (s *Server) answersPicked(ctx context.Context, tenant, slug string, f survey.AnswerFilter, offset, limit int) (rows []*survey.SurveyAnswer, total, all int, err error) {
	stored, _, err := s.summaries.Get(ctx, tenant, slug)
	switch {
	case survey.ErrorCode(err) == survey.ENOTFOUND:
		return nil, 0, 0, nil // no answers yet
	case err != nil:
		return nil, 0, 0, err
	case !f.Active() && stored.Gapless():
		rows, total, err := s.reader.Range(ctx, tenant, slug, offset, limit)
		return rows, total, total, err
	}
	all, err = s.scanFiltered(ctx, tenant, slug, f, func(n, _ int, a *survey.SurveyAnswer) error {
		total = n + 1
		if n >= offset && n < offset+limit {
			c := *a // the scan reuses *a, not its Answers
			rows = append(rows, &c)
		}
		return nil
	})
	return rows, total, all, err
}

// exportWindow is how long an export may take to write one batch of 500
// answers to a client before the server gives up on it.
const exportWindow = time.Minute

// answerTo is the answer to question id, for the templates.
func answerTo(a *survey.SurveyAnswer, id string) string {
	qa, _ := a.Answer(id)
	if k, ok := survey.KindOf(qa.Type); ok && k.Settings().Files {
		// Files by their names (the answer page links them).
		var names []string
		for _, f := range survey.DecodeFiles(qa.Answer) {
			names = append(names, f.Name)
		}
		return strings.Join(names, "; ")
	}
	return qa.Answer
}
