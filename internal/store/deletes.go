package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// MaxDeletedAnswers bounds the answers deleted from one survey: their IDs
// stay in its summary, which every batch of the worker rewrites.
const MaxDeletedAnswers = 10_000

// tombstone is the segment line of a deleted answer: its position stays,
// its content goes.
func tombstone(id string) []byte {
	l, _ := encodeJSON(struct {
		ID      string `json:"id"`
		Deleted bool   `json:"deleted"`
	}{id, true})
	return append(l, '\n')
}

// DeleteAnswer deletes one answer of survey sv (spam, say): from its
// summary, exports, tables and copies, exactly once whatever crashes.
//
// The summary write is the commit point: the summary, recounted from the
// survey's segments without the answer, names it in Deleted (If-Match; a
// worker that wrote meanwhile costs a recount of its batch only). From
// then on readers leave it out and the worker never counts it again (the
// same form posted again). Then its segment line becomes a tombstone and
// its blob is deleted; a crash before these leaves them for the next call,
// which finds the answer deleted and finishes them. An answer the summary
// does not count gives ENOTFOUND.
//
// Right after the summary, the ranked lists (the dashboard's counts and
// most answered, the home page's) take the summary's count (rank), so
// every page shows one number; a crash before that leaves it to the next
// call, or to the worker's next merge into the summary, which rank the
// same way. A count older than the ranks' changes nothing
// (RankingStore.SetCount), whoever writes last.
//
// The quota cells the answer took (SurveyAnswer.Quotas) are given back
// after the summary's write and before its blob goes
// (QuotaStore.GiveDeleted, once per answer).
func (as *SurveyAnswerStore) DeleteAnswer(ctx context.Context, sv *survey.Survey, id string) error {
	tenant, slug := sv.Tenant, sv.Slug
	if !ValidAnswerID(id) {
		return survey.Errorf(survey.ENOTFOUND, "Answer not found.")
	}
	sums := NewSurveyAnswersSummaryStore(as.st)
	// The recount so far: of positions [0, scanned), for a summary whose
	// Deleted was gone.
	var fresh *survey.SurveyAnswersSummary
	var gone []string
	scanned, at, expired := 0, -1, int64(0)
	var victim *survey.SurveyAnswer
	for attempt := 0; attempt < 20; attempt++ {
		sum, etag, err := sums.Get(ctx, tenant, slug)
		if err != nil {
			if survey.ErrorCode(err) == survey.ENOTFOUND {
				return survey.Errorf(survey.ENOTFOUND, "Answer not found.")
			}
			return err
		}
		if slices.Contains(sum.Deleted, id) {
			// Deleted before: finish what a crash may have left. Its
			// blob, while it is left, gives its quota cells back (once).
			if len(sv.Quotas) > 0 {
				if a, err := as.Get(ctx, tenant, slug, id); err == nil {
					if err := NewQuotaStore(as.st).GiveDeleted(ctx, tenant, slug, a); err != nil {
						return err
					}
				}
			}
			return as.finishDelete(ctx, tenant, slug, id, sum)
		}
		if len(sum.Deleted) >= MaxDeletedAnswers {
			return survey.Errorf(survey.EFORBIDDEN, "This survey has had %d answers deleted, the most it can.", MaxDeletedAnswers)
		}
		if fresh == nil || !slices.Equal(gone, sum.Deleted) || expired != sum.Expired {
			// Another answer was deleted meanwhile, or old ones expired:
			// start again (from where the answers start).
			fresh, gone, scanned, at, expired = survey.NewSummary(sv), slices.Clone(sum.Deleted), int(sum.Expired), -1, sum.Expired
		}
		end := int(sum.Len())
		if scanned < end {
			skip := make(map[string]bool, len(gone))
			for _, g := range gone {
				skip[g] = true
			}
			err := as.scanAll(ctx, sum, tenant, slug, scanned, func(pos int, a *survey.SurveyAnswer) error {
				if pos >= end {
					return errStopScan
				}
				scanned = pos + 1
				switch {
				case skip[a.ID]:
				case a.ID == id:
					at, victim = pos, &survey.SurveyAnswer{ID: a.ID, Quotas: slices.Clone(a.Quotas)}
				default:
					fresh.Add(*a)
				}
				return nil
			})
			if err != nil && !errors.Is(err, errStopScan) {
				return err
			}
			if scanned < end {
				return fmt.Errorf("store: delete answer %s/%s/%s: the answers end at %d, the summary at %d", tenant, slug, id, scanned, end)
			}
		}
		if at < 0 {
			return survey.Errorf(survey.ENOTFOUND, "Answer not found.")
		}
		next := *sum
		next.SurveyAnswersSummary = *fresh // not added to again if written
		next.Positions = int64(end)
		next.Deleted = append(slices.Clone(sum.Deleted), id)
		// A partial answer deleted is no partial answer its complete one
		// replaces (worker/partials.go).
		next.Partials = slices.DeleteFunc(slices.Clone(sum.Partials), func(p string) bool { return p == id })
		_, err = sums.Put(ctx, &next, etag)
		if survey.ErrorCode(err) == survey.ECONFLICT {
			continue // a worker merged a batch: recount it too
		}
		if err != nil {
			return err
		}
		// The quota cells it took are given back (once: GiveDeleted),
		// before its blob goes, so that a call again after a crash
		// here still finds them.
		if err := NewQuotaStore(as.st).GiveDeleted(ctx, tenant, slug, victim); err != nil {
			return err
		}
		return as.finishDelete(ctx, tenant, slug, id, &next)
	}
	return survey.Errorf(survey.ECONFLICT, "The survey is too busy to delete an answer now; try again.")
}

// DropDeleted deletes the blob of a deleted answer, if a worker filed it
// again (its form posted again), and first its files: a crash between
// leaves the blob, and the next call deletes both.
func (as *SurveyAnswerStore) DropDeleted(ctx context.Context, tenant, slug, id string) error {
	if err := NewUploadStore(as.st).DeleteAnswerFiles(ctx, tenant, slug, id); err != nil {
		return err
	}
	if err := as.st.DeleteBlob(ctx, AnswersContainer(tenant, slug), id, ""); err != nil && !isNotFound(err) {
		return mapErr(err, "Answer")
	}
	return nil
}

// clearDeleted removes what is left of a deleted answer: its line in a
// segment becomes a tombstone, and its blob goes. A position not in a
// segment yet gets its tombstone when the worker writes it (the blob is
// gone).
func (as *SurveyAnswerStore) clearDeleted(ctx context.Context, tenant, slug, id string) error {
	segs, err := as.segments(ctx, tenant, slug)
	if err != nil {
		return err
	}
	needle := []byte(`"id":"` + id + `"`)
	for attempt := 0; attempt < 20; attempt++ {
		done, err := as.bury(ctx, segs, needle, id)
		if err != nil {
			return err
		}
		if done {
			break
		}
	}
	return as.DropDeleted(ctx, tenant, slug, id)
}

// bury turns the line of answer id in segs into a tombstone. It reports
// false when a writer changed the segment meanwhile (try again).
func (as *SurveyAnswerStore) bury(ctx context.Context, segs []segmentRef, needle []byte, id string) (bool, error) {
	// Newest first: a spam answer is most often a recent one.
	for i := len(segs) - 1; i >= 0; i-- {
		b, err := as.st.GetBlob(ctx, SegmentContainer, segs[i].name)
		if err != nil {
			return false, mapErr(err, "Answer segment")
		}
		var out []byte
		found := false
		for data := b.Data; len(data) > 0; {
			line := data
			if j := bytes.IndexByte(data, '\n'); j >= 0 {
				line, data = data[:j+1], data[j+1:]
			} else {
				data = nil
			}
			// The answer's own ID comes first in its line; a text that
			// quotes it is escaped, so never matches.
			if !found && bytes.HasPrefix(line, append([]byte("{"), needle...)) {
				found = true
				if bytes.Contains(line, []byte(`"deleted":true`)) {
					return true, nil // buried before
				}
				line = tombstone(id)
			}
			out = append(out, line...)
		}
		if !found {
			continue
		}
		_, err = as.st.PutBlob(ctx, SegmentContainer, segs[i].name, out, storage.PutOptions{ContentType: "application/x-ndjson", IfMatch: b.ETag})
		if isPrecondition(err) {
			return false, nil
		}
		return err == nil, mapErr(err, "Answer segment")
	}
	return true, nil // not in a segment yet
}

// finishDelete does what follows the summary's write of a deletion (sum):
// the ranks take its count, and what is left of the answer goes. Each is
// tried whatever the other did; a failure is left to the next call (and
// the ranks to the worker's next merge too).
func (as *SurveyAnswerStore) finishDelete(ctx context.Context, tenant, slug, id string, sum *StoredSummary) error {
	return errors.Join(as.rank(ctx, tenant, slug, sum), as.clearDeleted(ctx, tenant, slug, id))
}

// rank moves the survey in the ranked lists to the count of its summary
// sum, as the answers worker does after a merge.
func (as *SurveyAnswerStore) rank(ctx context.Context, tenant, slug string, sum *StoredSummary) error {
	if err := NewRankingStore(as.st).SetCount(ctx, tenant, slug, sum.TotalAnswers, sum.DeletedCount()); err != nil {
		return fmt.Errorf("store: ranks after a deletion: %w", err)
	}
	return nil
}
