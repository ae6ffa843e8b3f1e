package web

import (
	"net/http"
	"time"

	"github.com/surveys-dev/surveys/internal/lrucache"
	"github.com/surveys-dev/surveys/internal/survey"
)

// A survey may show its results publicly (survey.PublicResults): the charts
// of the questions the subscriber marked (Question.InResults), drawn from
// the stored summary, at /survey/{tenant}/{slug}/results, linked from the
// thank-you page. Nothing else of the survey or its answers shows: no
// written answers, no other question, no answer's page.

// resultsPage is the public results page.
type resultsPage struct {
	respondent
	Tenant    *survey.Tenant
	Survey    *survey.Survey
	LogoURL   string
	Total     int64
	Questions []questionView
}

// Bounds of the rendered results pages kept: anyone may ask for one, so a
// page is rendered at most once per survey every resultsTTL (a summary
// read), whatever the traffic.
const (
	maxResultsPages = 1000
	maxResultsBytes = 16 << 20
	resultsTTL      = 30 * time.Second
)

func newResultsCache() *lrucache.Cache[string, []byte] {
	return lrucache.New(maxResultsPages, maxResultsBytes, resultsTTL, func(k string, v []byte) int64 { return int64(len(k) + len(v) + 256) })
}

func (s *Server) publicResults(w http.ResponseWriter, r *http.Request) error {
	t, sv, err := s.publicSurvey(r)
	if err != nil {
		return err
	}
	if !sv.PublicResults {
		return notFound("This survey's results are not public.")
	}
	allowFraming(w, sv)
	who := s.respondentOf(w, r, sv).shared()
	key := t.Key + "/" + sv.Slug + "/" + who.cacheKey()
	page, ok := s.results.Get(key)
	if !ok {
		sum, err := s.storedSummary(r.Context(), sv)
		if err != nil {
			return err
		}
		p := resultsPage{respondent: who, Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Total: sum.TotalAnswers}
		n := 0
		for _, q := range sv.Questions {
			if !q.InResults || q.Hidden {
				continue
			}
			n++
			v := newQuestionView(n, q, questionSummary(sum, q.ID), sum.TotalAnswers)
			v.Text = who.QText(q)
			p.Questions = append(p.Questions, v)
		}
		if page, err = s.renderBytes("results", p, false); err != nil {
			return err
		}
		s.results.Add(key, page)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=30")
	// Vary (Accept-Language, Cookie): set by respondentOf.
	_, err = w.Write(page)
	return err
}
