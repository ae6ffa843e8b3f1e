package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// ResumeStore keeps the progress a respondent of a multi-page survey saved
// to finish later: one blob per saved respondent,
// surveyresume/<tenant>-<slug>/<key>, holding what the web layer sealed
// (the store neither reads nor checks it). The key is random and
// unguessable: it is the respondent's link back. A blob is deleted when
// its respondent submits, when the survey is deleted (DeleteAll), and when
// it is asked for after the survey closed.
type ResumeStore struct {
	st storage.Storage
}

// NewResumeStore returns a ResumeStore over st.
func NewResumeStore(st storage.Storage) *ResumeStore { return &ResumeStore{st: st} }

// MaxResumeBytes bounds a saved blob.
const MaxResumeBytes = 4 << 20

// resumeKeyLen is the length of a key: 128 random bits in hex.
const resumeKeyLen = 32

// NewResumeKey returns a new random key.
func NewResumeKey() string {
	b := make([]byte, resumeKeyLen/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ValidResumeKey reports whether key has a key's shape (checked before
// any lookup).
func ValidResumeKey(key string) bool {
	if len(key) != resumeKeyLen {
		return false
	}
	for _, c := range key {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func resumePrefix(tenant, slug string) string { return tenant + "-" + slug + "/" }

func (rs *ResumeStore) check(tenant, slug, key string) error {
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) || !ValidResumeKey(key) {
		return survey.Errorf(survey.ENOTFOUND, "This link to finish the survey is not valid.")
	}
	return nil
}

// Save writes (or replaces) the saved progress under key: one storage call.
func (rs *ResumeStore) Save(ctx context.Context, tenant, slug, key string, data []byte) error {
	if err := rs.check(tenant, slug, key); err != nil {
		return err
	}
	if len(data) > MaxResumeBytes {
		return survey.Errorf(survey.EINVALID, "Your answers are too long to save.")
	}
	_, err := rs.st.PutBlob(ctx, ResumeContainer, resumePrefix(tenant, slug)+key, data, storage.PutOptions{ContentType: "text/plain"})
	return mapErr(err, "Saved answers")
}

// Get reads the saved progress under key (ENOTFOUND when there is none).
func (rs *ResumeStore) Get(ctx context.Context, tenant, slug, key string) ([]byte, error) {
	if err := rs.check(tenant, slug, key); err != nil {
		return nil, err
	}
	b, err := rs.st.GetBlob(ctx, ResumeContainer, resumePrefix(tenant, slug)+key)
	if err != nil {
		if isNotFound(err) {
			return nil, survey.Errorf(survey.ENOTFOUND, "These saved answers are gone: they were sent, or the survey closed.")
		}
		return nil, mapErr(err, "Saved answers")
	}
	return b.Data, nil
}

// Delete removes the saved progress under key; none is not an error.
func (rs *ResumeStore) Delete(ctx context.Context, tenant, slug, key string) error {
	if err := rs.check(tenant, slug, key); err != nil {
		return nil
	}
	if err := rs.st.DeleteBlob(ctx, ResumeContainer, resumePrefix(tenant, slug)+key, ""); err != nil && !isNotFound(err) {
		return mapErr(err, "Saved answers")
	}
	return nil
}

// DeleteAll removes every saved progress of a survey.
func (rs *ResumeStore) DeleteAll(ctx context.Context, tenant, slug string) error {
	for {
		// Each pass deletes what it listed: start again from the top.
		page, err := rs.st.ListBlobs(ctx, ResumeContainer, storage.ListOptions{Prefix: resumePrefix(tenant, slug)})
		if isContainerNotFound(err) {
			return nil
		}
		if err != nil {
			return mapErr(err, "Saved answers")
		}
		if len(page.Items) == 0 {
			return nil
		}
		for _, it := range page.Items {
			if err := rs.st.DeleteBlob(ctx, ResumeContainer, it.Name, ""); err != nil && !isNotFound(err) {
				return mapErr(err, "Saved answers")
			}
		}
	}
}
