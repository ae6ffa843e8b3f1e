package api

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// Segments reads the surveys' saved segments (store.SavedSegmentStore).
type Segments interface {
	List(ctx context.Context, tenant, slug string) ([]*survey.Segment, error)
	Get(ctx context.Context, tenant, slug, id string) (*survey.Segment, error)
}

// jsonSegment is a saved segment as the API gives it.
type jsonSegment struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Query     string    `json:"query"`
	CreatedBy string    `json:"createdBy,omitempty"`
	CreatedOn time.Time `json:"createdOn"`
}

// listSegments is a survey's saved segments, by name.
func (s *server) listSegments(w http.ResponseWriter, r *http.Request) (int, any, error) {
	slug := chi.URLParam(r, "slug")
	if _, err := s.Surveys.Get(r.Context(), tenantOf(r), slug); err != nil {
		return 0, nil, err
	}
	out := struct {
		Segments []jsonSegment `json:"segments"`
	}{Segments: []jsonSegment{}}
	if s.Segments == nil {
		return http.StatusOK, out, nil
	}
	list, err := s.Segments.List(r.Context(), tenantOf(r), slug)
	if err != nil {
		return 0, nil, err
	}
	for _, g := range list {
		out.Segments = append(out.Segments, jsonSegment{ID: g.ID, Name: g.Name, Query: g.Query, CreatedBy: g.CreatedBy, CreatedOn: g.CreatedOn})
	}
	return http.StatusOK, out, nil
}

// withSegment puts a saved segment's filter (?segment=<id>) in place of
// the request's filter parameters, for the routes that filter answers;
// an unknown segment is a 404.
func (s *server) withSegment(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		id := q.Get("segment")
		if id == "" {
			next.ServeHTTP(w, r)
			return
		}
		v, err := s.segmentQuery(r, id)
		if err != nil {
			s.handle(func(http.ResponseWriter, *http.Request) (int, any, error) { return 0, nil, err })(w, r)
			return
		}
		for _, k := range []string{"segment", "from", "to", "q", "a", "c", "status"} {
			q.Del(k)
		}
		for k, vs := range v {
			q[k] = vs
		}
		r2 := r.Clone(r.Context())
		r2.URL.RawQuery = q.Encode()
		next.ServeHTTP(w, r2)
	})
}

// segmentQuery is the filter of the survey's saved segment id, as a query.
func (s *server) segmentQuery(r *http.Request, id string) (url.Values, error) {
	if s.Segments == nil {
		return nil, notFound("No such segment.")
	}
	g, err := s.Segments.Get(r.Context(), tenantOf(r), chi.URLParam(r, "slug"), id)
	if err != nil {
		return nil, err
	}
	return url.ParseQuery(g.Query)
}
