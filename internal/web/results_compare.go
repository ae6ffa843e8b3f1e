package web

import (
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// comparePage shows two segments of a survey's answers (or one and
// everyone) side by side: each question's chart for each.
type comparePage struct {
	Tenant string
	Survey *survey.Survey
	Role   survey.Role
	// Segments are the survey's saved segments, which the selects offer.
	Segments []*survey.Segment
	A, B     compareSide
	Rows     []compareRow
	Errors   map[string]string
}

// compareSide is one of the two sets of answers compared.
type compareSide struct {
	// ID is the segment's ("" for everyone); Name says which.
	ID, Name string
	Total    int64
	// Describe says what its filter picks; URL is its analysis page.
	Describe, URL string
	filter        survey.AnswerFilter
	sum           *survey.SurveyAnswersSummary
}

// compareRow is a question with its view in each set.
type compareRow struct {
	N    int
	Text string
	A, B questionView
}

// compare counts the answers of two segments (?a=, ?b=: their IDs, or
// none for everyone) in one read of the survey's answers, a segment of
// answers at a time, and shows each question's chart for both. A segment
// that is not the survey's is a 422 beside its select.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	sv = sv.Everything(nil).Numbered()
	page := comparePage{Tenant: tenant, Survey: sv, Role: roleOf(r), Errors: map[string]string{}}
	if s.segments != nil {
		if page.Segments, err = s.segments.List(r.Context(), tenant, slug); err != nil {
			return err
		}
	}
	q := r.URL.Query()
	a, b := q.Get("a"), q.Get("b")
	if !q.Has("a") && len(page.Segments) > 0 {
		a = page.Segments[0].ID // the first segment against everyone
	}
	base := "/" + tenant + "/surveys/" + slug + "/analyze"
	side := func(id, field string) compareSide {
		c := compareSide{ID: id, Name: "Everyone", URL: base, sum: survey.NewSummary(sv)}
		if id == "" {
			return c
		}
		at := slices.IndexFunc(page.Segments, func(o *survey.Segment) bool { return o.ID == id })
		if at < 0 {
			page.Errors[field] = "This survey has no such segment: choose one of the list."
			return c
		}
		g := page.Segments[at]
		f, err := g.Filter(sv)
		if err != nil {
			page.Errors[field] = "The segment “" + g.Name + "” names what the survey no longer has: " + err.Error()
			return c
		}
		c.Name, c.filter, c.Describe, c.URL = g.Name, f, f.Describe(), base+"?"+g.Query
		return c
	}
	page.A, page.B = side(a, "a"), side(b, "b")
	if len(page.Errors) > 0 {
		s.render(w, r, http.StatusUnprocessableEntity, "compare", page)
		return nil
	}
	// One read of the answers counts both.
	err = s.reader.Scan(r.Context(), tenant, slug, 0, func(_ int, ans *survey.SurveyAnswer) error {
		for _, c := range []*compareSide{&page.A, &page.B} {
			if c.filter.Match(ans) {
				c.sum.Add(*ans)
			}
		}
		return nil
	})
	if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		return err
	}
	var views [2]analyzePage
	for i, c := range []*compareSide{&page.A, &page.B} {
		views[i] = analyzePage{Tenant: tenant, Survey: sv}
		views[i].questions(c.sum, nil)
		c.Total = views[i].Total
	}
	for i := range min(len(views[0].Questions), len(views[1].Questions)) {
		qa, qb := views[0].Questions[i], views[1].Questions[i]
		page.Rows = append(page.Rows, compareRow{N: qa.N, Text: qa.Text, A: qa, B: qb})
	}
	s.render(w, r, http.StatusOK, "compare", page)
	return nil
}
