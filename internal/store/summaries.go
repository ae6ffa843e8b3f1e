package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// SurveyAnswersSummaryStore keeps each survey's summary as one JSON blob,
// surveyanswerssummaries/<tenant>-<slug>, written with ETags so that
// concurrent workers never lose each other's counts.
type SurveyAnswersSummaryStore struct {
	st storage.Storage
}

// NewSurveyAnswersSummaryStore returns a SurveyAnswersSummaryStore over st.
func NewSurveyAnswersSummaryStore(st storage.Storage) *SurveyAnswersSummaryStore {
	return &SurveyAnswersSummaryStore{st: st}
}

// StoredSummary is a summary as stored, with the worker's bookkeeping.
type StoredSummary struct {
	survey.SurveyAnswersSummary
	// AppliedMessages holds the IDs of the queue messages merged into this
	// summary whose deletion no worker has confirmed yet: a message
	// delivered again is not counted twice. Workers trim it once they have
	// deleted the messages.
	AppliedMessages []string `json:"appliedMessages,omitempty"`
	// Pending holds the IDs of the answers merged by the last write, which
	// belong at positions ListFrom… of the answer list. The next writer
	// first makes sure they are there, so a worker that died between the
	// summary and the list loses nothing and lists nothing twice.
	Pending  []string `json:"pending,omitempty"`
	ListFrom int64    `json:"listFrom,omitempty"`
	// Positions is the length of the answer list this summary covers:
	// TotalAnswers plus the answers deleted since (0 in a summary written
	// before deletions existed: TotalAnswers then).
	Positions int64 `json:"positions,omitempty"`
	// Deleted holds the IDs of the answers deleted from the survey (see
	// SurveyAnswerStore.DeleteAnswer): readers leave them out, and the
	// worker never counts them again.
	Deleted []string `json:"deleted,omitempty"`
	// Partials holds the IDs of the partial answers counted (in
	// Partial) and not replaced by their complete answer since: the
	// worker's partial rules (worker/partials.go) read and write it in
	// the same write as the counts, so a partial answer moves to complete
	// exactly once.
	Partials []string `json:"partials,omitempty"`
	// Expired is where the survey's answers start: every position before
	// it was removed by its retention rule (ExpireAnswers), or deleted
	// before. Readers start there; the IDs of Deleted before it are
	// dropped from Deleted, and counted in Removed instead.
	Expired int64 `json:"expired,omitempty"`
	// Removed counts the answers removed that Deleted no longer names
	// (DeletedCount).
	Removed int64 `json:"removed,omitempty"`
}

// DeletedCount is the number of answers deleted from the survey ever,
// by a person or by its retention rule: it only grows (the ranks order
// a survey's counts by it, RankingStore.SetCount).
func (s *StoredSummary) DeletedCount() int64 { return s.Removed + int64(len(s.Deleted)) }

// Gapless reports whether every position of the summary's answer list
// holds a counted answer: none deleted, none expired.
func (s *StoredSummary) Gapless() bool {
	return len(s.Deleted) == 0 && s.Expired == 0 && s.Removed == 0
}

// Len is the length of the answer list the summary covers: its answers
// and those deleted.
func (s *StoredSummary) Len() int64 {
	if s.Positions > 0 {
		return s.Positions
	}
	return s.TotalAnswers
}

// Get returns a survey's summary and its ETag; ENOTFOUND when the survey
// has no summary yet.
func (ss *SurveyAnswersSummaryStore) Get(ctx context.Context, tenant, slug string) (*StoredSummary, string, error) {
	b, err := ss.st.GetBlob(ctx, SummariesContainer, summaryBlob(tenant, slug))
	if err != nil {
		return nil, "", mapErr(err, "Summary")
	}
	var s StoredSummary
	if err := json.Unmarshal(b.Data, &s); err != nil {
		return nil, "", fmt.Errorf("store: decode summary %s/%s: %w", tenant, slug, err)
	}
	// An empty count is omitted from the JSON: each question's kind gives
	// it back, so that merging a text answer into a question that has no
	// word yet (only stop words so far) finds its map.
	s.RestoreEmpty()
	return &s, b.ETag, nil
}

// Put writes a survey's summary if it is still at etag ("" when there was
// none), and returns the new ETag; ECONFLICT when another writer was first.
func (ss *SurveyAnswersSummaryStore) Put(ctx context.Context, s *StoredSummary, etag string) (string, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("store: encode summary: %w", err)
	}
	o := storage.PutOptions{ContentType: "application/json", IfMatch: etag}
	if etag == "" {
		o = storage.PutOptions{ContentType: "application/json", IfNoneMatch: storage.ETagAny}
	}
	newTag, err := ss.st.PutBlob(ctx, SummariesContainer, summaryBlob(s.Tenant, s.Slug), data, o)
	if err != nil {
		return "", mapErr(err, "Summary")
	}
	return newTag, nil
}
