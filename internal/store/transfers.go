package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TransferRequest asks the worker to copy a survey's answers into the
// tenant's SQL database.
type TransferRequest struct {
	Tenant      string    `json:"tenant"`
	Slug        string    `json:"slug"`
	RequestedOn time.Time `json:"requestedOn"`
}

// SurveyTransferStore puts transfer requests on the transfers queue.
type SurveyTransferStore struct {
	st  storage.Storage
	now func() time.Time
}

// NewSurveyTransferStore returns a SurveyTransferStore over st.
func NewSurveyTransferStore(st storage.Storage) *SurveyTransferStore {
	return &SurveyTransferStore{st: st, now: time.Now}
}

// Request enqueues a transfer of a survey's answers.
func (ts *SurveyTransferStore) Request(ctx context.Context, tenant, slug string) error {
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) {
		return survey.Errorf(survey.ENOTFOUND, "Survey not found.")
	}
	data, err := json.Marshal(TransferRequest{Tenant: tenant, Slug: slug, RequestedOn: ts.now().UTC()})
	if err != nil {
		return fmt.Errorf("store: encode transfer request: %w", err)
	}
	_, err = ts.st.Enqueue(ctx, TransfersQueue, data, storage.EnqueueOptions{})
	return mapErr(err, "Transfer request")
}
