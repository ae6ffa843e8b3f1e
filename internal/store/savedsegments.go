package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Saved segments (survey.Segment: a filter with a name) are rows of
// SavedSegmentsTable, partitioned by tenant, keyed "<slug>_<id>": a
// survey's are one partition range, read in one query (at most
// survey.MaxSegments of them). They are not the answer segments
// (segments.go), the blobs that hold a survey's answers.
const SavedSegmentsTable = "SavedSegments"

// SavedSegmentStore keeps the surveys' saved segments.
type SavedSegmentStore struct{ st storage.Storage }

// NewSavedSegmentStore returns a SavedSegmentStore over st.
func NewSavedSegmentStore(st storage.Storage) *SavedSegmentStore { return &SavedSegmentStore{st: st} }

// savedSegmentRange is the row keys of a survey's segments: from
// "<slug>_" to "<slug>`" ('`' follows '_').
func savedSegmentRange(slug string) storage.Query {
	return storage.Query{RowKeyFrom: slug + "_", RowKeyTo: slug + "`"}
}

// List returns a survey's segments, by name.
func (ss *SavedSegmentStore) List(ctx context.Context, tenant, slug string) ([]*survey.Segment, error) {
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) {
		return nil, survey.Errorf(survey.ENOTFOUND, "No such survey.")
	}
	var out []*survey.Segment
	q := savedSegmentRange(slug)
	for {
		page, err := ss.st.QueryPartition(ctx, SavedSegmentsTable, tenant, q)
		if err != nil {
			return nil, mapErr(err, "Segment")
		}
		for _, e := range page.Entities {
			out = append(out, &survey.Segment{Tenant: tenant, Slug: slug, ID: strings.TrimPrefix(e.RowKey, slug+"_"),
				Name: e.String("Name"), Query: e.String("Query"), CreatedBy: e.String("CreatedBy"), CreatedOn: e.Time("CreatedOn")})
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	slices.SortFunc(out, func(a, b *survey.Segment) int {
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	return out, nil
}

// Get returns one of a survey's segments; ENOTFOUND when it has none of
// that ID.
func (ss *SavedSegmentStore) Get(ctx context.Context, tenant, slug, id string) (*survey.Segment, error) {
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) || !validSegmentID(id) {
		return nil, survey.Errorf(survey.ENOTFOUND, "No such segment.")
	}
	e, err := ss.st.GetEntity(ctx, SavedSegmentsTable, tenant, slug+"_"+id)
	if err != nil {
		return nil, mapErr(err, "Segment")
	}
	return &survey.Segment{Tenant: tenant, Slug: slug, ID: id, Name: e.String("Name"), Query: e.String("Query"),
		CreatedBy: e.String("CreatedBy"), CreatedOn: e.Time("CreatedOn")}, nil
}

// Create saves g with a new ID: ECONFLICT when the survey has a segment
// of that name (case aside), EINVALID when it has survey.MaxSegments.
// Two creations at once may both pass the checks: the names are kept
// apart by people, not by the store.
func (ss *SavedSegmentStore) Create(ctx context.Context, g *survey.Segment) error {
	list, err := ss.List(ctx, g.Tenant, g.Slug)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(list, func(o *survey.Segment) bool { return strings.EqualFold(o.Name, g.Name) }) {
		return &survey.Error{Code: survey.ECONFLICT, Message: "The segment was not saved.", Fields: map[string]string{"name": "A segment of this survey has that name: choose another."}}
	}
	if len(list) >= survey.MaxSegments {
		return &survey.Error{Code: survey.EINVALID, Message: "The segment was not saved.", Fields: map[string]string{"name": "A survey keeps at most 50 segments: delete one first."}}
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	g.ID = hex.EncodeToString(b[:])
	_, err = ss.st.InsertEntity(ctx, SavedSegmentsTable, storage.Entity{PartitionKey: g.Tenant, RowKey: g.Slug + "_" + g.ID, Properties: map[string]any{
		"Name": g.Name, "Query": g.Query, "CreatedBy": g.CreatedBy, "CreatedOn": g.CreatedOn.UTC()}})
	return mapErr(err, "Segment")
}

// Delete removes one of a survey's segments; ENOTFOUND when it has none
// of that ID.
func (ss *SavedSegmentStore) Delete(ctx context.Context, tenant, slug, id string) error {
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) || !validSegmentID(id) {
		return survey.Errorf(survey.ENOTFOUND, "No such segment.")
	}
	return mapErr(ss.st.DeleteEntity(ctx, SavedSegmentsTable, tenant, slug+"_"+id, ""), "Segment")
}

// deleteAll removes a survey's segments (the survey is deleted).
func (ss *SavedSegmentStore) deleteAll(ctx context.Context, tenant, slug string) error {
	list, err := ss.List(ctx, tenant, slug)
	if err != nil {
		return err
	}
	for _, g := range list {
		if err := ss.Delete(ctx, tenant, slug, g.ID); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
			return err
		}
	}
	return nil
}

// validSegmentID reports whether id is one Create gives: twelve
// hexadecimal digits.
func validSegmentID(id string) bool {
	if len(id) != 12 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}
