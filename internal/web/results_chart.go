package web

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/chartdraw"
)

// chartPolicy is a chart image's Content-Security-Policy: nothing it
// holds runs or loads anything, should a browser open it.
const chartPolicy = "default-src 'none'; sandbox"

// chartSVG is one question's chart of the analysis as an SVG document
// (…/analyze/{question}/chart.svg, with the page's filter).
func (s *Server) chartSVG(w http.ResponseWriter, r *http.Request) error {
	return s.chartImage(w, r, "svg", "image/svg+xml", chartdraw.WriteSVG)
}

// chartPNG is the same chart as a PNG image (…/chart.png).
func (s *Server) chartPNG(w http.ResponseWriter, r *http.Request) error {
	return s.chartImage(w, r, "png", "image/png", chartdraw.WritePNG)
}

// chartImage writes the chart of question {question} as the analysis
// page counts it, filtered by the request's query (?from=&to=&q=&a=&
// status=, a bad filter an EINVALID error), drawn by draw, as a download.
func (s *Server) chartImage(w http.ResponseWriter, r *http.Request, ext, contentType string, draw func(io.Writer, chartdraw.Question) error) error {
	ctx := r.Context()
	tenant, slug, id := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug"), chi.URLParam(r, "question")
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
	sum, _, err := s.summaryFor(ctx, sv, f)
	if err != nil {
		return err
	}
	// And any question the summary counts that no version has now: the
	// page's questions, numbered as it numbers them.
	sv = sv.Everything(sum).Numbered()
	for i, q := range sv.Questions {
		if q.ID != id {
			continue
		}
		v := newQuestionView(i+1, q, questionSummary(sum, q.ID), sum.TotalAnswers, sv.Language)
		var buf bytes.Buffer
		if err := draw(&buf, v.drawing()); err != nil {
			return fmt.Errorf("chart of %s/%s %s: %w", tenant, slug, id, err)
		}
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Content-Disposition", contentDisposition(fmt.Sprintf("%s-%s-q%d.%s", tenant, slug, i+1, ext)))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", chartPolicy)
		h.Set("Cache-Control", "private, no-store")
		h.Set("Content-Length", strconv.Itoa(buf.Len()))
		_, err = buf.WriteTo(w)
		return err
	}
	return notFound("This survey has no such question.")
}

// drawing is what the chart's image shows: the page's chart and most
// used words.
func (v questionView) drawing() chartdraw.Question {
	return chartdraw.Question{N: v.N, Text: v.Text, Kind: v.Kind, Count: v.Count, Chart: v.Chart, Words: v.Words, OtherWords: v.OtherWords}
}
