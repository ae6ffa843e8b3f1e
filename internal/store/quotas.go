package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// A survey's quota counters are one blob in SystemContainer,
// "quotas/<tenant>/<slug>": the count of each quota's cell by the quota's
// name, and the deleted answers whose cells were given back. Every change
// is a conditional write (If-Match its ETag, If-None-Match for the first),
// tried again on a conflict, so that whatever instances write at once,
// each change is applied to the counts it read.
//
// Take is called before an answer is acknowledged (enqueued), and takes
// one in every cell the answer falls into, all or none: no cell ever
// holds more than its limit. Give gives them back when the answer is then
// refused before it is enqueued (web/pages.go; not on a storage error of
// the enqueue, whose message may have been written). A crash between Take
// and the acknowledgement, or before Give, leaves a count one too high:
// the safe side (the cell may refuse an answer it had room for, never
// accept one too many). The
// answer names the cells it took (survey.SurveyAnswer.Quotas), and
// deleting it gives them back once (GiveDeleted). A cell whose quota
// skips to a section when full is not taken at its limit: the answer is
// accepted and names it in survey.SurveyAnswer.OverQuota (TakeCells), and
// deleting it gives nothing back for it.

// quotaCounts is the stored blob.
type quotaCounts struct {
	Counts map[string]int `json:"counts"`
	// Returned are the deleted answers whose cells were given back
	// (at most MaxDeletedAnswers).
	Returned []string `json:"returned,omitempty"`
}

// QuotaStore keeps surveys' quota counters.
type QuotaStore struct {
	st storage.Storage
}

// NewQuotaStore returns a QuotaStore over st.
func NewQuotaStore(st storage.Storage) *QuotaStore { return &QuotaStore{st: st} }

func quotaBlob(tenant, slug string) string { return "quotas/" + tenant + "/" + slug }

// quotaAttempts bounds the conditional writes of one change: many
// respondents filling a cell at once each win one round.
const quotaAttempts = 200

func (qs *QuotaStore) get(ctx context.Context, tenant, slug string) (quotaCounts, string, error) {
	b, err := qs.st.GetBlob(ctx, SystemContainer, quotaBlob(tenant, slug))
	if isNotFound(err) {
		return quotaCounts{Counts: map[string]int{}}, "", nil
	}
	if err != nil {
		return quotaCounts{}, "", mapErr(err, "Quota counts")
	}
	var c quotaCounts
	if err := json.Unmarshal(b.Data, &c); err != nil {
		return quotaCounts{}, "", fmt.Errorf("store: decode quota counts of %s/%s: %w", tenant, slug, err)
	}
	if c.Counts == nil {
		c.Counts = map[string]int{}
	}
	return c, b.ETag, nil
}

// Counts are the counts of a survey's quota cells, by quota name (a cell
// with none is absent).
func (qs *QuotaStore) Counts(ctx context.Context, tenant, slug string) (map[string]int, error) {
	c, _, err := qs.get(ctx, tenant, slug)
	return c.Counts, err
}

// update applies change to the counts, with a conditional write, until
// it is written or change says there is nothing to write (false).
func (qs *QuotaStore) update(ctx context.Context, tenant, slug string, change func(*quotaCounts) (bool, error)) error {
	wait := time.Millisecond
	for attempt := 0; attempt < quotaAttempts; attempt++ {
		c, etag, err := qs.get(ctx, tenant, slug)
		if err != nil {
			return err
		}
		write, err := change(&c)
		if err != nil || !write {
			return err
		}
		data, _ := json.Marshal(c)
		o := storage.PutOptions{ContentType: "application/json", IfMatch: etag}
		if etag == "" {
			o = storage.PutOptions{ContentType: "application/json", IfNoneMatch: storage.ETagAny}
		}
		_, err = qs.st.PutBlob(ctx, SystemContainer, quotaBlob(tenant, slug), data, o)
		if isPrecondition(err) || errors.Is(err, storage.ErrExists) {
			// Another writer won this round: wait a little, at random,
			// so that the losers do not meet again at once.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(rand.Int64N(int64(wait)) + 1)):
			}
			wait = min(2*wait, 50*time.Millisecond)
			continue
		}
		return mapErr(err, "Quota counts")
	}
	return survey.Errorf(survey.ECONFLICT, "Too many answers are being sent at once; please try again.")
}

// Take takes one in each cell of limits (the limit of each quota cell an
// answer falls into, by name), all or none. full is the first cell, in
// names' order, already at its limit: then nothing is taken.
func (qs *QuotaStore) Take(ctx context.Context, tenant, slug string, names []string, limits map[string]int) (full string, err error) {
	full, _, err = qs.TakeCells(ctx, tenant, slug, names, limits, nil)
	return full, err
}

// TakeCells is Take for cells some of which skip (their quotas skip to a
// section when full, survey.Quota.Skips): a cell of skip already at its
// limit is not taken, and is named in over; the others are taken, all or
// none. full is the first cell, in names' order, not of skip and already
// at its limit: then nothing is taken. The counts read and the counts
// written are those of one conditional write, so a cell is taken only
// below its limit, however many answers race for its last place.
func (qs *QuotaStore) TakeCells(ctx context.Context, tenant, slug string, names []string, limits map[string]int, skip map[string]bool) (full string, over []string, err error) {
	if len(names) == 0 {
		return "", nil, nil
	}
	err = qs.update(ctx, tenant, slug, func(c *quotaCounts) (bool, error) {
		full, over = "", nil // this round's counts decide
		for _, n := range names {
			switch {
			case c.Counts[n] < limits[n]:
			case skip[n]:
				over = append(over, n)
			default:
				full = n
				return false, nil
			}
		}
		if len(over) == len(names) {
			return false, nil // nothing to take
		}
		for _, n := range names {
			if !slices.Contains(over, n) {
				c.Counts[n]++
			}
		}
		return true, nil
	})
	if err != nil {
		return "", nil, err
	}
	return full, over, nil
}

// Give gives back one in each cell named (taken for an answer that was
// then not acknowledged). A count never goes below zero.
func (qs *QuotaStore) Give(ctx context.Context, tenant, slug string, names []string) error {
	if len(names) == 0 {
		return nil
	}
	return qs.update(ctx, tenant, slug, func(c *quotaCounts) (bool, error) {
		give(c, names)
		return true, nil
	})
}

func give(c *quotaCounts, names []string) {
	for _, n := range names {
		if c.Counts[n] > 1 {
			c.Counts[n]--
		} else {
			delete(c.Counts, n)
		}
	}
}

// GiveDeleted gives back the cells deleted answer a took
// (a.Quotas), once whatever crashes and calls again.
func (qs *QuotaStore) GiveDeleted(ctx context.Context, tenant, slug string, a *survey.SurveyAnswer) error {
	if a == nil || len(a.Quotas) == 0 {
		return nil
	}
	return qs.update(ctx, tenant, slug, func(c *quotaCounts) (bool, error) {
		if slices.Contains(c.Returned, a.ID) {
			return false, nil
		}
		give(c, a.Quotas)
		c.Returned = append(c.Returned, a.ID)
		if len(c.Returned) > MaxDeletedAnswers {
			c.Returned = c.Returned[len(c.Returned)-MaxDeletedAnswers:]
		}
		return true, nil
	})
}

// Delete deletes a survey's quota counters (the survey is deleted).
func (qs *QuotaStore) Delete(ctx context.Context, tenant, slug string) error {
	err := qs.st.DeleteBlob(ctx, SystemContainer, quotaBlob(tenant, slug), "")
	if err != nil && !isNotFound(err) {
		return mapErr(err, "Quota counts")
	}
	return nil
}
