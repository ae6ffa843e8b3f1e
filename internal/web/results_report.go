package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/pdfreport"
	"github.com/surveys-dev/surveys/internal/survey"
)

// report is the analysis page as a PDF document (report.pdf): the same
// counts, from the stored summary or, filtered (?from=&to=&q=&a=&status=),
// from a recount of the answers the filter picks, read a segment at a
// time.
func (s *Server) report(w http.ResponseWriter, r *http.Request) error {
	err := s.reportTo(w, r, chi.URLParam(r, "tenant"), chi.URLParam(r, "slug"))
	s.auditExport(r, chi.URLParam(r, "slug"), "pdf report", err)
	return err
}

// reportTo writes the report of survey slug of tenant, filtered by the
// request's query (a bad filter is an EINVALID error); the API's
// report.pdf too.
func (s *Server) reportTo(w http.ResponseWriter, r *http.Request, tenant, slug string) error {
	ctx := r.Context()
	sv, err := s.surveys.Get(ctx, tenant, slug)
	if err != nil {
		return err
	}
	// Every version's questions: the hidden ones too, with their answers.
	sv = sv.Everything(nil).Numbered()
	f, err := filterOf(r, sv)
	if err != nil {
		return err
	}
	t, err := s.tenants.Get(ctx, tenant)
	if err != nil {
		return err
	}
	rep, err := s.reportOf(ctx, sv, f)
	if err != nil {
		return err
	}
	rep.Tenant, rep.Made = t.Name, time.Now().UTC()
	var buf bytes.Buffer
	if err := pdfreport.Write(&buf, rep); err != nil {
		return fmt.Errorf("report of %s/%s: %w", tenant, slug, err)
	}
	w.Header().Set("Content-Type", "application/pdf")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s-report.pdf"`, tenant, slug))
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	_, err = buf.WriteTo(w)
	return err
}

// reportOf is what the report of sv says: the stored summary's counts,
// or those of the answers f picks (read once, a segment at a time).
func (s *Server) reportOf(ctx context.Context, sv *survey.Survey, f survey.AnswerFilter) (pdfreport.Report, error) {
	rep := pdfreport.Report{Title: sv.Title, Lang: i18n.For(sv.Language), KeepsPartial: sv.KeepPartial > 0}
	sum, of, err := s.summaryFor(ctx, sv, f)
	if err != nil {
		return rep, err
	}
	if f.Active() {
		rep.Filter = reportFilter(sv, f, of)
	}
	rep.Total, rep.Partial = sum.TotalAnswers, sum.Partial
	// And any question the summary counts that no version has now.
	sv = sv.Everything(sum).Numbered()
	for i, q := range sv.Questions {
		v := newQuestionView(i+1, q, questionSummary(sum, q.ID), sum.TotalAnswers, sv.Language)
		rep.Questions = append(rep.Questions, pdfreport.Question{N: v.N, Text: v.Text, Kind: v.Kind, Optional: v.Optional, Hidden: v.Hidden,
			Count: v.Count, Skipped: v.Skipped, Chart: v.Chart})
	}
	return rep, nil
}

// summaryFor is the summary of sv's answers f picks: the stored
// summary, or with an active filter a recount of the answers it picks
// (read once, a segment at a time), as the filtered analysis page counts
// them, and how many answers the filter looked at (of).
func (s *Server) summaryFor(ctx context.Context, sv *survey.Survey, f survey.AnswerFilter) (sum *survey.SurveyAnswersSummary, of int, err error) {
	if !f.Active() {
		sum, err = s.storedSummary(ctx, sv)
		return sum, 0, err
	}
	sum, _, of, err = s.countFiltered(ctx, sv, f, 0)
	return sum, of, err
}

// reportFilter is filter f of sv for the report, of answers read.
func reportFilter(sv *survey.Survey, f survey.AnswerFilter, of int) *pdfreport.Filter {
	out := &pdfreport.Filter{From: f.From, To: f.To, Answer: f.Answer, Status: f.Status, Of: of}
	if n, ok := survey.HiddenName(f.Question); ok {
		out.About, out.Subject = n, pdfreport.AHiddenField
	} else if n, ok := survey.VarName(f.Question); ok {
		out.About, out.Subject = n, pdfreport.AVariable
	} else if f.Question != "" {
		out.About, out.Subject = f.Question, pdfreport.AQuestion
		for _, q := range sv.Questions {
			if q.ID == f.Question {
				out.About = q.Text
			}
		}
	}
	return out
}
