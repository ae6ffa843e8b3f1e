package web

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// AnswerReader reads a survey's answers for browsing and export, many at a
// time (from the survey's answer segments): each method also gives the
// number of answers, or reads them in the order of the survey's list.
type AnswerReader interface {
	// Scan calls f with every answer from position from on, in order; f's
	// answer is only valid during the call.
	Scan(ctx context.Context, tenant, slug string, from int, f func(pos int, a *survey.SurveyAnswer) error) error
	// Range returns up to limit answers from position offset on.
	Range(ctx context.Context, tenant, slug string, offset, limit int) ([]*survey.SurveyAnswer, int, error)
	// LatestAnswers returns up to limit answers, newest first, after the
	// skip newest.
	LatestAnswers(ctx context.Context, tenant, slug string, skip, limit int) ([]*survey.SurveyAnswer, int, error)
}

type analyzePage struct {
	Tenant    string
	Survey    *survey.Survey
	Total     int64
	Questions []questionView
	Transfer  transferView
}

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
// of the bar (0–100).
type bar struct {
	Label   string
	Count   int64
	Percent float64
	Share   string
	Said    string
	Width   string
}

// bars are the bars of labels and counts, each a share of answered.
func bars(labels []string, counts []int64, answered int64) []bar {
	out := make([]bar, 0, len(labels))
	for i, l := range labels {
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
		out = append(out, bar{Label: l, Count: n, Percent: p, Share: share,
			Said:  survey.Count(n, "answer") + ", " + share,
			Width: strconv.FormatFloat(min(max(p, 0), 100), 'f', 1, 64)})
	}
	return out
}

// newQuestionView is question q (number n) of the analysis page, with its
// summary qs (nil when it has none yet) out of total answers.
func newQuestionView(n int, q survey.Question, qs *survey.QuestionAnswersSummary, total int64) questionView {
	v := questionView{N: n, ID: q.ID, Text: q.Text, Type: q.Type, Kind: string(q.Type), Optional: q.Optional, Hidden: q.Hidden, MaxWords: survey.MaxSummaryWords}
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
	v.Words, v.OtherWords = c.Words, c.OtherWords
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
// the server, and what the latest answers wrote.
func (s *Server) analyze(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	sum := survey.NewSummary(sv)
	if stored, _, err := s.summaries.Get(r.Context(), tenant, slug); err == nil {
		sum = &stored.SurveyAnswersSummary
	} else if survey.ErrorCode(err) != survey.ENOTFOUND {
		return err
	}
	// Every version's questions: the hidden ones too, with their answers.
	sv = sv.Everything(sum)
	page := analyzePage{Tenant: tenant, Survey: sv, Total: sum.TotalAnswers}
	if page.Transfer, err = s.transferViewFor(r, tenant, slug); err != nil {
		return err
	}
	written := false
	for i, q := range sv.Questions {
		var qs *survey.QuestionAnswersSummary
		for j := range sum.Questions {
			if sum.Questions[j].QuestionID == q.ID {
				qs = &sum.Questions[j]
			}
		}
		v := newQuestionView(i+1, q, qs, sum.TotalAnswers)
		if survey.HasWritten(q) {
			v.WrittenURL = "/" + tenant + "/surveys/" + slug + "/analyze/" + q.ID
			written = true
		}
		page.Questions = append(page.Questions, v)
	}
	if written && sum.TotalAnswers > 0 {
		// One read of the newest answers serves every question: the
		// summary, the segments' names and the segment that holds them
		// (single blobs for the newest not in a segment yet).
		latest, total, err := s.reader.LatestAnswers(r.Context(), tenant, slug, 0, latestWritten)
		if err != nil {
			return err
		}
		for i, a := range latest {
			for j, q := range sv.Questions {
				if page.Questions[j].WrittenURL == "" {
					continue
				}
				if t := survey.Written(q, answerTo(a, q.ID)); t != "" {
					page.Questions[j].Written = append(page.Questions[j].Written, writtenAnswer{Text: t, On: a.CreatedOn, Position: total - 1 - i})
				}
			}
		}
	}
	w.Header().Set("Refresh", "15") // refreshed as answers arrive, without JavaScript
	s.render(w, r, http.StatusOK, "analyze", page)
	return nil
}

// writtenPage is the page of what the answers to one question wrote.
type writtenPage struct {
	Tenant   string
	Survey   *survey.Survey
	Question questionView
	Answers  []writtenAnswer
	// Blank counts the answers of this page that wrote nothing here.
	Blank int
	// Page (from 1) of Pages, of PageSize answers each, newest first, out
	// of Total answers; From and To number the page's answers (from 1).
	Page, Pages, PageSize, Total, From, To int
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
	sv = sv.Everything(nil)
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
	latest, total, err := s.reader.LatestAnswers(r.Context(), tenant, slug, (p-1)*writtenPageSize, writtenPageSize)
	if err != nil {
		return err
	}
	pages := max((total+writtenPageSize-1)/writtenPageSize, 1)
	if p > pages {
		return notFound(fmt.Sprintf("There is no page %d: these answers fill %s.", p, survey.Count(pages, "page")))
	}
	page := writtenPage{Tenant: tenant, Survey: sv, Question: newQuestionView(n, q, nil, 0), Page: p, Pages: pages, PageSize: writtenPageSize, Total: total}
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

type answerPage struct {
	Tenant   string
	Survey   *survey.Survey
	Answer   *survey.SurveyAnswer
	Index    int // from 0
	Total    int
	Prev     int
	Next     int
	Last     int
	Rows     []*survey.SurveyAnswer
	Page     int
	Pages    int
	PageSize int
	// Deleted: the page comes after deleting an answer.
	Deleted bool
}

const answersPageSize = 25

// browse shows one answer, with first / previous / next / last, by its
// position in the survey's answer list.
func (s *Server) browse(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	i, _ := strconv.Atoi(r.URL.Query().Get("i"))
	one, total, err := s.reader.Range(r.Context(), tenant, slug, max(i, 0), 1)
	if err != nil {
		return err
	}
	page := answerPage{Tenant: tenant, Survey: sv, Total: total, Index: max(i, 0), Last: max(total-1, 0), Deleted: r.URL.Query().Get("deleted") == "1"}
	if len(one) == 1 {
		page.Answer = one[0]
	} else if total > 0 && !page.Deleted {
		return notFound("No answer at that position.")
	}
	page.Prev, page.Next = max(page.Index-1, 0), min(page.Index+1, page.Last)
	s.render(w, r, http.StatusOK, "answer", page)
	return nil
}

// answerTable shows a page of answers as a table.
func (s *Server) answerTable(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	p, _ := strconv.Atoi(r.URL.Query().Get("page"))
	p = max(p, 1)
	rows, total, err := s.reader.Range(r.Context(), tenant, slug, (p-1)*answersPageSize, answersPageSize)
	if err != nil {
		return err
	}
	page := answerPage{Tenant: tenant, Survey: sv, Total: total, Page: p, Pages: max((total+answersPageSize-1)/answersPageSize, 1), PageSize: answersPageSize, Rows: rows}
	s.render(w, r, http.StatusOK, "answers", page)
	return nil
}

// exportWindow is how long an export may take to write one batch of 500
// answers to a client before the server gives up on it.
const exportWindow = time.Minute

// answerTo is the answer to question id, for the templates.
func answerTo(a *survey.SurveyAnswer, id string) string {
	qa, _ := a.Answer(id)
	return qa.Answer
}
