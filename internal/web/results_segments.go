package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// SavedSegments keeps the surveys' saved segments (store.SavedSegmentStore).
type SavedSegments interface {
	List(ctx context.Context, tenant, slug string) ([]*survey.Segment, error)
	Get(ctx context.Context, tenant, slug, id string) (*survey.Segment, error)
	Create(ctx context.Context, g *survey.Segment) error
	Delete(ctx context.Context, tenant, slug, id string) error
}

// segmentPages are the pages a segment's links and forms go back to: the
// survey's pages that take a filter.
var segmentPages = []string{"analyze", "answers", "answers/table"}

// segmentLink is a saved segment as a page offers it: a link to the page
// with its filter.
type segmentLink struct {
	ID, Name, URL string
	// Current: the page shows this segment's answers.
	Current bool
}

// segmentsView is the saved segments of a page that takes a filter.
type segmentsView struct {
	Links []segmentLink
	// Everyone is a link to the page unfiltered.
	Everyone string
	// Base is the survey's path; Page the page's, after it ("analyze").
	Base, Page string
	// Query is the page's filter, which "Save as a segment" saves.
	Query string
	// MaySave: the member may save and delete segments.
	MaySave bool
	// Full: the survey has survey.MaxSegments.
	Full bool
}

// segmentsOf is the saved segments of survey sv for a page (one of
// segmentPages) filtered by f.
func (s *Server) segmentsOf(r *http.Request, sv *survey.Survey, page string, f filterView) (segmentsView, error) {
	base := "/" + sv.Tenant + "/surveys/" + sv.Slug
	v := segmentsView{Everyone: base + "/" + page, Base: base, Page: page, Query: f.Query, MaySave: roleOf(r).May(survey.EditSurveys)}
	if s.segments == nil {
		return v, nil
	}
	list, err := s.segments.List(r.Context(), sv.Tenant, sv.Slug)
	if err != nil {
		return v, err
	}
	v.Full = len(list) >= survey.MaxSegments
	for _, g := range list {
		l := segmentLink{ID: g.ID, Name: g.Name, URL: base + "/" + page + "?" + g.Query}
		// The page shows the segment when its filter reads as the
		// segment's (whatever order the query came in).
		if gf, err := g.Filter(sv); err == nil && f.Active() && gf.Values().Encode() == f.Filter.Values().Encode() {
			l.Current = true
		}
		v.Links = append(v.Links, l)
	}
	return v, nil
}

// segmentSavePage asks again for a segment's name, when the one given
// would not do.
type segmentSavePage struct {
	Tenant string
	Survey *survey.Survey
	Name   string
	Query  string
	Back   string
	Errors map[string]string
	// Describe says what the filter picks.
	Describe string
}

// saveSegment saves the filter of the form's query as a segment of the
// survey, named, and goes back to the page it came from, showing it. A
// bad name is a 422 that asks again; a bad filter (the survey changed
// since) says what is wrong.
func (s *Server) saveSegment(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	sv = sv.Everything(nil).Numbered()
	page := segmentSavePage{Tenant: tenant, Survey: sv, Name: r.PostFormValue("name"), Query: r.PostFormValue("query"), Back: r.PostFormValue("page")}
	if !slices.Contains(segmentPages, page.Back) {
		page.Back = "analyze"
	}
	v, err := url.ParseQuery(page.Query)
	if err != nil {
		return survey.Errorf(survey.EINVALID, "The filter to save cannot be read.")
	}
	f, err := survey.AnswerFilterOf(sv, v)
	if err != nil {
		return err
	}
	page.Describe = f.Describe()
	by := ""
	if sess := sessionFrom(r.Context()); sess != nil {
		by = sess.Email
	}
	g, err := survey.NewSegment(sv, page.Name, f, by, time.Now())
	if err == nil {
		err = s.segments.Create(r.Context(), g)
	}
	if fe := fieldErrorsOf(err); fe != nil {
		page.Errors = fe
		s.render(w, r, http.StatusUnprocessableEntity, "segmentsave", page)
		return nil
	}
	if err != nil {
		return err
	}
	s.audit(r, survey.AuditSegmentCreated, slug, g.Name+": "+page.Describe)
	http.Redirect(w, r, "/"+tenant+"/surveys/"+slug+"/"+page.Back+"?"+g.Query, http.StatusSeeOther)
	return nil
}

// deleteSegment deletes one of the survey's segments and goes back to
// the page it came from, unfiltered.
func (s *Server) deleteSegment(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	if _, err := s.surveys.Get(r.Context(), tenant, slug); err != nil {
		return err
	}
	if err := s.segments.Delete(r.Context(), tenant, slug, chi.URLParam(r, "id")); err != nil {
		return err
	}
	s.audit(r, survey.AuditSegmentDeleted, slug, "segment "+chi.URLParam(r, "id"))
	back := r.PostFormValue("page")
	if !slices.Contains(segmentPages, back) {
		back = "analyze"
	}
	http.Redirect(w, r, "/"+tenant+"/surveys/"+slug+"/"+back, http.StatusSeeOther)
	return nil
}

// fieldErrorsOf is the problems by field of an EINVALID or ECONFLICT
// error that has them; nil for any other.
func fieldErrorsOf(err error) map[string]string {
	if e, ok := err.(*survey.Error); ok && (e.Code == survey.EINVALID || e.Code == survey.ECONFLICT) && len(e.Fields) > 0 {
		return e.Fields
	}
	return nil
}
