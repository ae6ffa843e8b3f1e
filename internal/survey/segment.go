package survey

import (
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// A Segment is a filter a survey's team saved with a name ("Promoters on
// mobile"): the analysis, answers, table and export pages, the comparison
// and the API apply its Query (an AnswerFilter's values) as if it were
// typed. Segments are shared by everyone who may read the survey's
// results.
type Segment struct {
	Tenant, Slug string
	ID           string
	Name         string
	// Query is the filter's query (AnswerFilter.Values, encoded).
	Query     string
	CreatedBy string
	CreatedOn time.Time
}

const (
	// MaxSegments bounds a survey's saved segments.
	MaxSegments = 50
	// MaxSegmentName bounds a segment's name, in characters.
	MaxSegmentName = 60
)

// NewSegment is the segment name of survey sv for filter f, or an
// EINVALID *Error whose Fields say what is wrong ("name", "filter").
func NewSegment(sv *Survey, name string, f AnswerFilter, by string, now time.Time) (*Segment, error) {
	name = strings.TrimSpace(CleanLine(name))
	errs := fieldErrors{}
	switch {
	case name == "":
		errs.add("name", "Give the segment a name.")
	case utf8.RuneCountInString(name) > MaxSegmentName:
		errs.add("name", "Give a name of at most %d characters.", MaxSegmentName)
	}
	if !f.Active() {
		errs.add("filter", "Filter the answers first: a segment is a filter with a name.")
	}
	if err := errs.err("The segment"); err != nil {
		return nil, err
	}
	return &Segment{Tenant: sv.Tenant, Slug: sv.Slug, Name: name, Query: f.Values().Encode(), CreatedBy: by, CreatedOn: now}, nil
}

// Filter is the segment's filter on survey sv as it is now: a question
// the filter named may be gone (an EINVALID error then).
func (g *Segment) Filter(sv *Survey) (AnswerFilter, error) {
	v, err := url.ParseQuery(g.Query)
	if err != nil {
		return AnswerFilter{}, Errorf(EINVALID, "The segment %q cannot be read.", g.Name)
	}
	return ParseAnswerFilter(sv, v)
}
