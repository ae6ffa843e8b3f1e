package web

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// AnswerReader reads a survey's answers for browsing and export.
type AnswerReader interface {
	Get(ctx context.Context, tenant, slug, id string) (*survey.SurveyAnswer, error)
	Page(ctx context.Context, tenant, slug string, offset, limit int) ([]string, int, error)
	ListAll(ctx context.Context, tenant, slug string, f func(id string) error) error
}

type analyzePage struct {
	Tenant    string
	Survey    *survey.Survey
	Total     int64
	Questions []questionView
	Transfer  transferView
}

type questionView struct {
	N       int
	Text    string
	Type    survey.QuestionType
	Count   int64
	Bars    []bar // choices, or stars 1..5
	Average string
	Words   []survey.WordCount
	// OtherWords counts the uses of words past the summary's sample of
	// MaxSummaryWords distinct words.
	OtherWords int64
	MaxWords   int
	// Chart is the kind's chart of the summary, all of it (a matrix's
	// rows, figures, a note), for the kind's chart partial.
	Chart survey.Chart
}

// bar is one bar of a chart: its label, count, share in per cent, and the
// y offset of its row in the SVG.
type bar struct {
	Label   string
	Count   int64
	Percent float64
	Y       int
}

func bars(labels []string, counts []int64) []bar {
	var total int64
	for _, c := range counts {
		total += c
	}
	out := make([]bar, len(labels))
	for i, l := range labels {
		p := 0.0
		if total > 0 {
			p = 100 * float64(counts[i]) / float64(total)
		}
		out[i] = bar{Label: l, Count: counts[i], Percent: p, Y: i * 32}
	}
	return out
}

// analyze shows the survey's summary, with charts drawn on the server.
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
	page := analyzePage{Tenant: tenant, Survey: sv, Total: sum.TotalAnswers}
	if page.Transfer, err = s.transferViewFor(r, tenant, slug); err != nil {
		return err
	}
	for i, q := range sv.Questions {
		v := questionView{N: i + 1, Text: q.Text, Type: q.Type}
		for _, qs := range sum.Questions {
			if qs.QuestionID != q.ID {
				continue
			}
			v.Count = qs.Answered
			if k, ok := survey.KindOf(q.Type); ok {
				c := k.Chart(&qs)
				v.Chart = c
				if c.Labels != nil {
					v.Bars = bars(c.Labels, c.Counts)
				}
				if c.Averaged {
					v.Average = strconv.FormatFloat(c.Average, 'f', 2, 64)
				}
				v.Words, v.OtherWords, v.MaxWords = c.Words, c.OtherWords, survey.MaxSummaryWords
			}
		}
		page.Questions = append(page.Questions, v)
	}
	w.Header().Set("Refresh", "15") // refreshed as answers arrive, without JavaScript
	s.render(w, r, http.StatusOK, "analyze", page)
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
	ids, total, err := s.reader.Page(r.Context(), tenant, slug, max(i, 0), 1)
	if err != nil {
		return err
	}
	page := answerPage{Tenant: tenant, Survey: sv, Total: total, Index: max(i, 0), Last: max(total-1, 0)}
	if len(ids) == 1 {
		if page.Answer, err = s.reader.Get(r.Context(), tenant, slug, ids[0]); err != nil {
			return err
		}
	} else if total > 0 {
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
	ids, total, err := s.reader.Page(r.Context(), tenant, slug, (p-1)*answersPageSize, answersPageSize)
	if err != nil {
		return err
	}
	page := answerPage{Tenant: tenant, Survey: sv, Total: total, Page: p, Pages: max((total+answersPageSize-1)/answersPageSize, 1), PageSize: answersPageSize}
	for _, id := range ids {
		a, err := s.reader.Get(r.Context(), tenant, slug, id)
		if err != nil {
			return err
		}
		page.Rows = append(page.Rows, a)
	}
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
