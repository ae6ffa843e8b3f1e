package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TransfersPoisonQueue receives the transfer requests that failed every
// attempt, with the reason.
const TransfersPoisonQueue = "surveytransfers-poison"

// TransferStatusContainer holds the status of each survey's last transfer,
// <tenant>-<slug>, in the tenant's region.
const TransferStatusContainer = "surveytransferstatus"

// TransferRequest asks the worker to copy a survey's answers into the
// tenant's SQL database.
type TransferRequest struct {
	Tenant      string    `json:"tenant"`
	Slug        string    `json:"slug"`
	RequestedOn time.Time `json:"requestedOn"`
}

// TransferState is where a transfer is.
type TransferState string

const (
	TransferRequested TransferState = "requested"
	TransferRunning   TransferState = "running"
	TransferDone      TransferState = "done"
	TransferFailed    TransferState = "failed" // will be tried again
	TransferGaveUp    TransferState = "gaveup" // in the poison queue
)

// TransferStatus is the state of a survey's last transfer, as the worker
// wrote it, for the survey's page.
type TransferStatus struct {
	Tenant      string        `json:"tenant"`
	Slug        string        `json:"slug"`
	State       TransferState `json:"state"`
	RequestedOn time.Time     `json:"requestedOn"`
	StartedOn   time.Time     `json:"startedOn,omitzero"`
	FinishedOn  time.Time     `json:"finishedOn,omitzero"`
	// Answers and Rows are what the last successful transfer wrote, in
	// Duration.
	Answers  int           `json:"answers,omitempty"`
	Rows     int64         `json:"rows,omitempty"`
	Duration time.Duration `json:"duration,omitempty"`
	// Error is the last failure, told for a person; Attempt is its
	// delivery number, of MaxAttempts; RetryAt is when it is tried again.
	Error       string    `json:"error,omitempty"`
	Attempt     int       `json:"attempt,omitempty"`
	MaxAttempts int       `json:"maxAttempts,omitempty"`
	RetryAt     time.Time `json:"retryAt,omitzero"`
	// Deferred counts the times the worker put the request back
	// unattempted because another copy of the tenant was under way (each
	// time as a new message, so none is an attempt).
	Deferred int `json:"deferred,omitempty"`
}

// SurveyTransferStore puts transfer requests on the transfers queue and
// keeps the status of each survey's last transfer.
type SurveyTransferStore struct {
	st  storage.Storage
	now func() time.Time

	// Requested, when set, is called after a request is queued: it wakes
	// this instance's transfer worker (worker.Transfers.Wake).
	Requested func()
}

// NewSurveyTransferStore returns a SurveyTransferStore over st.
func NewSurveyTransferStore(st storage.Storage) *SurveyTransferStore {
	return &SurveyTransferStore{st: st, now: time.Now}
}

// TransferPendingFor is how long a request that has not finished keeps
// another request of the same survey out: past it (a request lost with a
// crash, say) the subscriber may ask again.
const TransferPendingFor = time.Hour

// Pending reports whether the transfer is waiting, running or to be tried
// again, and so holds its survey's place in the queue at now.
func (s *TransferStatus) Pending(now time.Time) bool {
	switch s.State {
	case TransferRequested:
		return now.Before(s.RequestedOn.Add(TransferPendingFor))
	case TransferRunning:
		return now.Before(s.StartedOn.Add(TransferPendingFor))
	case TransferFailed:
		return now.Before(s.RetryAt.Add(TransferPendingFor))
	}
	return false
}

// Request marks a transfer of a survey's answers requested, and enqueues
// it. A survey has one request at a time: while one is pending (waiting,
// running or to be tried again) another is ECONFLICT and enqueues nothing,
// also when two arrive at once (the status is written with its ETag).
func (ts *SurveyTransferStore) Request(ctx context.Context, tenant, slug string) error {
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) {
		return survey.Errorf(survey.ENOTFOUND, "Survey not found.")
	}
	underWay := survey.Errorf(survey.ECONFLICT, "A copy is already under way: its answers go to your database once it is done, and its status shows here.")
	put := storage.PutOptions{ContentType: "application/json", IfNoneMatch: storage.ETagAny}
	var prev []byte
	cur, err := ts.st.GetBlob(ctx, TransferStatusContainer, transferStatusBlob(tenant, slug))
	switch {
	case err == nil:
		var s TransferStatus
		if json.Unmarshal(cur.Data, &s) == nil && s.Pending(ts.now()) {
			return underWay
		}
		put = storage.PutOptions{ContentType: "application/json", IfMatch: cur.ETag}
		prev = cur.Data
	case !isNotFound(err) && !isContainerNotFound(err):
		return mapErr(err, "Transfer")
	}
	req := TransferRequest{Tenant: tenant, Slug: slug, RequestedOn: ts.now().UTC()}
	data, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("store: encode transfer request: %w", err)
	}
	// The status first: a worker that takes the request at once then
	// writes over it, never the other way round.
	status, err := json.Marshal(&TransferStatus{Tenant: tenant, Slug: slug, State: TransferRequested, RequestedOn: req.RequestedOn})
	if err != nil {
		return fmt.Errorf("store: encode transfer status: %w", err)
	}
	etag, err := ts.st.PutBlob(ctx, TransferStatusContainer, transferStatusBlob(tenant, slug), status, put)
	if isPrecondition(err) {
		return underWay // another request won the race
	}
	if err != nil {
		return mapErr(err, "Transfer")
	}
	if _, err := ts.st.Enqueue(ctx, TransfersQueue, data, storage.EnqueueOptions{}); err != nil {
		// Not enqueued: give the survey its place back (unless a worker
		// or another request wrote since).
		undo := storage.PutOptions{ContentType: "application/json", IfMatch: etag}
		ctx := context.WithoutCancel(ctx) // the request may be gone; the undo is still owed
		if prev == nil {
			_ = ts.st.DeleteBlob(ctx, TransferStatusContainer, transferStatusBlob(tenant, slug), etag)
		} else {
			_, _ = ts.st.PutBlob(ctx, TransferStatusContainer, transferStatusBlob(tenant, slug), prev, undo)
		}
		return mapErr(err, "Transfer request")
	}
	if ts.Requested != nil {
		ts.Requested()
	}
	return nil
}

// Status returns the status of the survey's last transfer; ENOTFOUND when
// none was requested.
func (ts *SurveyTransferStore) Status(ctx context.Context, tenant, slug string) (*TransferStatus, error) {
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) {
		return nil, survey.Errorf(survey.ENOTFOUND, "Transfer not found.")
	}
	b, err := ts.st.GetBlob(ctx, TransferStatusContainer, transferStatusBlob(tenant, slug))
	if err != nil {
		return nil, mapErr(err, "Transfer")
	}
	var s TransferStatus
	if err := json.Unmarshal(b.Data, &s); err != nil {
		return nil, fmt.Errorf("store: decode transfer status %s/%s: %w", tenant, slug, err)
	}
	return &s, nil
}

// SetStatus writes the status of a survey's transfer.
func (ts *SurveyTransferStore) SetStatus(ctx context.Context, s *TransferStatus) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("store: encode transfer status: %w", err)
	}
	_, err = ts.st.PutBlob(ctx, TransferStatusContainer, transferStatusBlob(s.Tenant, s.Slug), data, storage.PutOptions{ContentType: "application/json"})
	return mapErr(err, "Transfer")
}

// deleteStatus removes a survey's transfer status (with the survey).
func (ts *SurveyTransferStore) deleteStatus(ctx context.Context, tenant, slug string) error {
	if err := ts.st.DeleteBlob(ctx, TransferStatusContainer, transferStatusBlob(tenant, slug), ""); err != nil && !isNotFound(err) && !isContainerNotFound(err) {
		return mapErr(err, "Transfer")
	}
	return nil
}

// transferStatusBlob names a survey's status in TransferStatusContainer.
func transferStatusBlob(tenant, slug string) string { return tenant + "-" + slug }

// Took is the duration of the last successful transfer, rounded for a page.
func (s *TransferStatus) Took() string {
	if s.Duration >= time.Second {
		return s.Duration.Round(100 * time.Millisecond).String()
	}
	return s.Duration.Round(time.Millisecond).String()
}

// WillRetry reports whether a failed transfer is tried again.
func (s *TransferStatus) WillRetry() bool { return s.State == TransferFailed }
