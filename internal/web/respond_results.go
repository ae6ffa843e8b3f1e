package web

import (
	"net/http"
	"time"

	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/lrucache"
	"github.com/surveys-dev/surveys/internal/survey"
)

// A survey may show its results publicly (survey.PublicResults): the charts
// of the questions the subscriber marked (Question.InResults), drawn from
// the stored summary, at /survey/{tenant}/{slug}/results, linked from the
// thank-you page. Nothing else of the survey or its answers shows: no
// other question, no answer's page, and nothing a respondent wrote, whatever
// the settings: a question whose answers are texts is left off, and the
// words of "Other (please specify)" texts are dropped from a chart
// (publicView).

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

// forgetResults drops the rendered results pages of survey slug of
// tenant, in every language (respondent.cacheKey): after a deletion they
// would show one answer too many for up to resultsTTL.
func (s *Server) forgetResults(tenant, slug string) {
	for _, l := range i18n.Languages() {
		for _, variant := range []string{l.Tag, l.Tag + "?"} {
			s.results.Remove(tenant + "/" + slug + "/" + variant)
		}
	}
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
			if !q.InResults || q.Hidden || writtenKind(q) {
				continue
			}
			n++
			v := newQuestionView(n, q, questionSummary(sum, q.ID), sum.TotalAnswers, sv.Language)
			v.Text = who.QText(q)
			v.lang = who.L
			p.Questions = append(p.Questions, publicView(v))
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

// writtenKind reports whether q's answers are texts people write or
// files they send (a kind with Settings().Text or Files): such a
// question has no public chart.
func writtenKind(q survey.Question) bool {
	k, ok := survey.KindOf(q.Type)
	return !ok || k.Settings().Text || k.Settings().Files
}

// publicView is v without anything a respondent wrote: no words (of
// texts or of "Other" answers), in the chart or in its rows, and no
// written answers.
func publicView(v questionView) questionView {
	v.Words, v.OtherWords, v.Written, v.WrittenURL = nil, 0, nil, ""
	v.Chart = publicChart(v.Chart)
	return v
}

// publicChart is c without its words, in it and its rows.
func publicChart(c survey.Chart) survey.Chart {
	c.Words, c.OtherWords = nil, 0
	if c.Rows != nil {
		rows := make([]survey.Chart, len(c.Rows))
		for i, r := range c.Rows {
			rows[i] = publicChart(r)
		}
		c.Rows = rows
	}
	return c
}
