package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// PartialStore keeps the progress of respondents of surveys that keep
// partial answers (survey.Survey.KeepPartial): one blob per respondent,
// surveypartials/<tenant>/<slug>/<answer ID>, named by the ID of the
// respondent's form (the ID their complete answer will have), replaced at
// each page move (one write) and deleted when they submit. The promoter
// (worker/partials.go) queues a blob left KeepPartial after its last write
// as a partial answer, under PartialID, and deletes it.
type PartialStore struct {
	st      storage.Storage
	answers *SurveyAnswerStore
}

// NewPartialStore returns a PartialStore over st.
func NewPartialStore(st storage.Storage) *PartialStore {
	return &PartialStore{st: st, answers: NewSurveyAnswerStore(st)}
}

// MaxPartialBytes bounds a saved partial answer.
const MaxPartialBytes = 1 << 20

// storedPartial is a saved partial answer.
type storedPartial struct {
	Plan   survey.Plan         `json:"plan,omitempty"`
	Answer survey.SurveyAnswer `json:"answer"`
}

// PartialID is the ID of the partial answer of the form whose answer ID
// is id, and the other way round: the same tick count, the random
// suffix's top bit flipped. A complete answer and its partial one sort
// together, and neither is mistaken for another form's (a form's ID is
// unique by its tick count).
func PartialID(id string) string {
	if !ValidAnswerID(id) {
		return id
	}
	var v byte
	switch c := id[20]; {
	case c <= '9':
		v = c - '0'
	default:
		v = c - 'a' + 10
	}
	return id[:20] + string("0123456789abcdef"[v^8]) + id[21:]
}

func partialName(tenant, slug, id string) string { return tenant + "/" + slug + "/" + id }

// Save replaces the progress of the respondent whose form's answer ID is
// a.ID: one storage call.
func (ps *PartialStore) Save(ctx context.Context, plan survey.Plan, a *survey.SurveyAnswer) error {
	if !ValidAnswerID(a.ID) || survey.ValidateTenantKey(a.Tenant) != nil || !survey.ValidSlug(a.Slug) {
		return survey.Errorf(survey.EINVALID, "Answer ID %q is not valid.", a.ID)
	}
	data, err := json.Marshal(storedPartial{Plan: plan, Answer: *a})
	if err != nil {
		return fmt.Errorf("store: encode partial answer: %w", err)
	}
	if len(data) > MaxPartialBytes {
		return survey.Errorf(survey.EINVALID, "Your answers are too long to save.")
	}
	_, err = ps.st.PutBlob(ctx, PartialsContainer, partialName(a.Tenant, a.Slug, a.ID), data, storage.PutOptions{ContentType: "application/json"})
	return mapErr(err, "Partial answer")
}

// Delete removes the progress saved under the form's answer ID id (the
// respondent submitted); none is not an error.
func (ps *PartialStore) Delete(ctx context.Context, tenant, slug, id string) error {
	if !ValidAnswerID(id) {
		return nil
	}
	if err := ps.st.DeleteBlob(ctx, PartialsContainer, partialName(tenant, slug, id), ""); err != nil && !isNotFound(err) && !isContainerNotFound(err) {
		return mapErr(err, "Partial answer")
	}
	return nil
}

// SavedPartial is a listed saved partial answer.
type SavedPartial struct {
	Tenant, Slug, ID string
	name, etag       string
	// Saved is when its respondent last moved past a page.
	Saved time.Time
}

// List calls f with every saved partial answer last written before
// before, page by page: one call a page (one when there are none).
func (ps *PartialStore) List(ctx context.Context, before time.Time, f func(SavedPartial) error) error {
	marker := ""
	for {
		page, err := ps.st.ListBlobs(ctx, PartialsContainer, storage.ListOptions{Marker: marker})
		if isContainerNotFound(err) {
			return nil
		}
		if err != nil {
			return mapErr(err, "Partial answers")
		}
		for _, it := range page.Items {
			parts := strings.Split(it.Name, "/")
			if len(parts) != 3 || !it.LastModified.Before(before) {
				continue
			}
			if err := f(SavedPartial{Tenant: parts[0], Slug: parts[1], ID: parts[2], name: it.Name, etag: it.ETag, Saved: it.LastModified}); err != nil {
				return err
			}
		}
		if page.NextMarker == "" {
			return nil
		}
		marker = page.NextMarker
	}
}

// Promote queues the saved partial answer p as an answer marked partial,
// under PartialID of its form's, then deletes it unless the respondent
// saved again meanwhile (If-Match). Three calls: a read, the enqueue, the
// delete. A crash between the enqueue and the delete queues it again at
// the next pass: the worker files an answer ID once (the second message
// is a duplicate).
func (ps *PartialStore) Promote(ctx context.Context, p SavedPartial) error {
	b, err := ps.st.GetBlob(ctx, PartialsContainer, p.name)
	if isNotFound(err) || isContainerNotFound(err) {
		return nil // submitted, or promoted by another instance
	}
	if err != nil {
		return mapErr(err, "Partial answer")
	}
	var sp storedPartial
	if err := json.Unmarshal(b.Data, &sp); err != nil || sp.Answer.ID != p.ID || sp.Answer.Tenant != p.Tenant || sp.Answer.Slug != p.Slug {
		// Not ours to queue: dropped.
		return ps.drop(ctx, p.name, b.ETag)
	}
	a := sp.Answer
	a.ID, a.Partial, a.CreatedOn = PartialID(a.ID), true, b.LastModified.UTC()
	if len(a.Answers) > 0 {
		if err := ps.answers.EnqueueFor(ctx, sp.Plan, []survey.SurveyAnswer{a}); err != nil {
			return err
		}
	}
	return ps.drop(ctx, p.name, b.ETag)
}

// Discard deletes the saved partial answer p without queuing it (its
// survey is gone or keeps partial answers no more).
func (ps *PartialStore) Discard(ctx context.Context, p SavedPartial) error {
	return ps.drop(ctx, p.name, p.etag)
}

func (ps *PartialStore) drop(ctx context.Context, name, etag string) error {
	err := ps.st.DeleteBlob(ctx, PartialsContainer, name, etag)
	if err != nil && !isNotFound(err) && !isPrecondition(err) {
		return mapErr(err, "Partial answer")
	}
	return nil
}

// DeleteAll removes every saved progress of a survey (it is deleted: a
// survey made again under its name never gets them).
func (ps *PartialStore) DeleteAll(ctx context.Context, tenant, slug string) error {
	for {
		// Each pass deletes what it listed: start again from the top.
		page, err := ps.st.ListBlobs(ctx, PartialsContainer, storage.ListOptions{Prefix: tenant + "/" + slug + "/"})
		if isContainerNotFound(err) {
			return nil
		}
		if err != nil {
			return mapErr(err, "Partial answers")
		}
		if len(page.Items) == 0 {
			return nil
		}
		for _, it := range page.Items {
			if err := ps.st.DeleteBlob(ctx, PartialsContainer, it.Name, ""); err != nil && !isNotFound(err) {
				return mapErr(err, "Partial answers")
			}
		}
	}
}
