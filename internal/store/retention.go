package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// MaxExpiredPerCall bounds the answers one ExpireAnswers call removes (the
// IDs it holds in memory); a survey with more past its retention period
// loses the rest in the calls after.
const MaxExpiredPerCall = 20_000

// ExpireAnswers removes the answers of survey sv made before before (its
// retention rule: "delete answers older than N days"), exactly once
// whatever crashes, as DeleteAnswer removes one, and returns how many it
// removed.
//
// Answers are listed in the order they came, so the old ones are a
// prefix of the survey's answer list: the call reads the segments from
// where the answers start (StoredSummary.Expired) up to the first answer
// made at or after before, and no further. Only answers already in
// segments are removed (the newest, not in one yet, are young anyway).
// An answer that came late (a queue held it) and stands after a younger
// one waits until the younger one expires too.
//
// The summary's write is the commit point, as in DeleteAnswer: the
// summary, recounted from the answers after the cut, says where the
// answers start now (Expired), drops from Deleted the deleted answers
// before the cut (counted in Removed, so DeletedCount only grows) and
// from Partials the expired ones. From then on every reader starts at the
// cut. Then the ranks take the summary's count, and what is left of the
// expired answers goes (clearExpired): their files and blobs, then their
// segment lines (a segment wholly before the cut is deleted, except the
// last). A crash after the commit leaves those to the next call, which
// finds the segments before the cut not cleared yet and finishes them.
// The quota cells the expired answers took are kept: they were answered.
//
// An expired answer's form cannot be posted again (a form's token lives a
// day, a retention period is one day at least), and a queue message
// delivered again is still named in the summary's AppliedMessages, so
// nothing expired is ever counted again.
func (as *SurveyAnswerStore) ExpireAnswers(ctx context.Context, sv *survey.Survey, before time.Time) (int, error) {
	tenant, slug := sv.Tenant, sv.Slug
	sums := NewSurveyAnswersSummaryStore(as.st)
	for attempt := 0; attempt < 20; attempt++ {
		sum, etag, err := sums.Get(ctx, tenant, slug)
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			return 0, nil // no answers yet
		}
		if err != nil {
			return 0, err
		}
		segs, err := as.segments(ctx, tenant, slug)
		if err != nil {
			return 0, err
		}
		cache := newSegmentCache(as.st)
		// The crash of an earlier call may have left answers before the
		// cut to clear, and then maybe the ranks to move (they are moved
		// before the answers are cleared).
		if left, err := as.unclearedBefore(ctx, sum, segs, cache); err != nil {
			return 0, err
		} else if left {
			if err := as.rank(ctx, tenant, slug, sum); err != nil {
				return 0, err
			}
			if err := as.clearExpired(ctx, sum, segs, cache); err != nil {
				return 0, err
			}
		}
		cut, expired, prefix, err := as.expiredPrefix(ctx, sum, segs, cache, before)
		if err != nil || cut == int(sum.Expired) {
			return 0, err
		}
		// The recount of the answers after the cut.
		fresh := survey.NewSummary(sv)
		gone := toSet(sum.Deleted)
		end, scanned := int(sum.Len()), cut
		err = as.scanAll(ctx, sum, tenant, slug, cut, func(pos int, a *survey.SurveyAnswer) error {
			if pos >= end {
				return errStopScan
			}
			scanned = pos + 1
			if !gone[a.ID] && a.Tenant != "" {
				fresh.Add(*a)
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopScan) {
			return 0, err
		}
		if scanned < end {
			return 0, fmt.Errorf("store: expire answers of %s/%s: the answers end at %d, the summary at %d", tenant, slug, scanned, end)
		}
		next := *sum
		next.SurveyAnswersSummary = *fresh
		next.Positions = int64(end)
		next.Expired = int64(cut)
		dropped := 0
		next.Deleted = slices.DeleteFunc(slices.Clone(sum.Deleted), func(id string) bool {
			if prefix[id] {
				dropped++
				return true
			}
			return false
		})
		next.Removed = sum.Removed + int64(expired+dropped)
		next.Partials = slices.DeleteFunc(slices.Clone(sum.Partials), func(id string) bool { return prefix[id] })
		if _, err := sums.Put(ctx, &next, etag); survey.ErrorCode(err) == survey.ECONFLICT {
			continue // a worker merged a batch, or an answer was deleted: again
		} else if err != nil {
			return 0, err
		}
		// The ranks first: a crash before the answers are cleared leaves
		// both to the next call.
		if err := as.rank(ctx, tenant, slug, &next); err != nil {
			return expired, err
		}
		return expired, as.clearExpired(ctx, &next, segs, cache)
	}
	return 0, survey.Errorf(survey.ECONFLICT, "The survey is too busy to remove its old answers now; they are removed later.")
}

// segmentBlob is a segment as read, with its ETag.
type segmentBlob struct {
	data []byte
	etag string
}

// segmentCache reads segments, each once per call (the cut's segment is
// both cleared and scanned), and keeps what the call wrote.
type segmentCache struct {
	st  storage.Storage
	got map[string]segmentBlob
}

func newSegmentCache(st storage.Storage) *segmentCache {
	return &segmentCache{st: st, got: map[string]segmentBlob{}}
}

func (c *segmentCache) read(ctx context.Context, name string) (segmentBlob, error) {
	if b, ok := c.got[name]; ok {
		return b, nil
	}
	b, err := c.st.GetBlob(ctx, SegmentContainer, name)
	if err != nil {
		return segmentBlob{}, mapErr(err, "Answer segment")
	}
	c.got[name] = segmentBlob{data: b.Data, etag: b.ETag}
	return c.got[name], nil
}

// segmentLines calls f with each line of a segment that starts at
// position start and its position, until f returns false.
func segmentLines(data []byte, start int, f func(pos int, line []byte) bool) {
	for p := start; len(data) > 0; {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !f(p, line) {
			return
		}
		p++
	}
}

// expiredPrefix reads the segments from where the answers start and
// returns where they would start without those made before before: the
// cut, how many counted answers stand before it (expired), and the IDs
// of every position before it from the start (deleted ones too).
func (as *SurveyAnswerStore) expiredPrefix(ctx context.Context, sum *StoredSummary, segs []segmentRef, cache *segmentCache, before time.Time) (int, int, map[string]bool, error) {
	start := int(sum.Expired)
	cut, expired := start, 0
	prefix := map[string]bool{}
	gone := toSet(sum.Deleted)
	var a survey.SurveyAnswer
	var dec lineDecoder
	for i, s := range segs {
		if i+1 < len(segs) && segs[i+1].start <= start {
			continue // wholly before the start
		}
		if s.start > cut {
			break // a gap: cannot happen
		}
		b, err := cache.read(ctx, s.name)
		if err != nil {
			return 0, 0, nil, err
		}
		stop := false
		segmentLines(b.data, s.start, func(pos int, line []byte) bool {
			if pos < cut {
				return true
			}
			if pos >= int(sum.Len()) || len(prefix) >= MaxExpiredPerCall {
				stop = true
				return false
			}
			if err = dec.decode(bytes.TrimSpace(line), &a); err != nil {
				err = fmt.Errorf("store: decode answer segment %s: %w", s.name, err)
				stop = true
				return false
			}
			switch {
			case a.Tenant == "" || gone[a.ID]:
				// Deleted: its position goes with the cut.
			case a.CreatedOn.Before(before):
				expired++
			default:
				stop = true
				return false
			}
			prefix[a.ID] = true
			cut = pos + 1
			return true
		})
		if err != nil {
			return 0, 0, nil, err
		}
		if stop {
			break
		}
	}
	return cut, expired, prefix, nil
}

// unclearedBefore reports whether an answer before the start of sum
// (Expired) is left to clear: a segment wholly before it (not the last),
// or a line before it that is not a tombstone.
func (as *SurveyAnswerStore) unclearedBefore(ctx context.Context, sum *StoredSummary, segs []segmentRef, cache *segmentCache) (bool, error) {
	start := int(sum.Expired)
	for i, s := range segs {
		if s.start >= start {
			break
		}
		if i+1 < len(segs) && segs[i+1].start <= start {
			return true, nil
		}
		b, err := cache.read(ctx, s.name)
		if err != nil {
			return false, err
		}
		left := false
		segmentLines(b.data, s.start, func(pos int, line []byte) bool {
			left = pos < start && !bytes.Contains(line, []byte(`"deleted":true`))
			return pos < start && !left
		})
		if left {
			return true, nil
		}
	}
	return false, nil
}

// clearExpired removes what is left of the answers before the start of
// sum (Expired): the files and blob of each answer whose segment line is
// not a tombstone yet, then the line, which becomes a tombstone; a
// segment wholly before the start is deleted instead, unless it is the
// last (the next segment's writer starts from it). Each segment is
// cleared after its answers' blobs, so a crash between leaves the line
// that names them for the next call.
func (as *SurveyAnswerStore) clearExpired(ctx context.Context, sum *StoredSummary, segs []segmentRef, cache *segmentCache) error {
	start := int(sum.Expired)
	for i, s := range segs {
		if s.start >= start {
			break
		}
		last := i+1 == len(segs)
		wholly := !last && segs[i+1].start <= start
		b, err := cache.read(ctx, s.name)
		if err != nil {
			return err
		}
		var out []byte
		var ids []string
		segmentLines(b.data, s.start, func(pos int, line []byte) bool {
			if pos < start && !bytes.Contains(line, []byte(`"deleted":true`)) {
				id, ok := lineID(line)
				if !ok {
					err = fmt.Errorf("store: an answer segment line of %s has no ID", s.name)
					return false
				}
				ids = append(ids, id)
				line = tombstone(id)
			}
			out = append(out, line...)
			return true
		})
		if err != nil {
			return err
		}
		if len(ids) == 0 && !wholly {
			continue // cleared before
		}
		for _, id := range ids {
			if err := as.DropDeleted(ctx, sum.Tenant, sum.Slug, id); err != nil {
				return err
			}
		}
		if wholly {
			err = as.st.DeleteBlob(ctx, SegmentContainer, s.name, b.etag)
		} else {
			var etag string
			etag, err = as.st.PutBlob(ctx, SegmentContainer, s.name, out, storage.PutOptions{ContentType: "application/x-ndjson", IfMatch: b.etag})
			if err == nil {
				cache.got[s.name] = segmentBlob{data: out, etag: etag}
			}
		}
		if err != nil && !isNotFound(err) && !isPrecondition(err) {
			// (Changed meanwhile: a deletion buried a line, or the worker
			// appended; the next call clears it.)
			return mapErr(err, "Answer segment")
		}
	}
	return nil
}

// lineID is the ID of a segment line: the answer's ID comes first.
func lineID(line []byte) (string, bool) {
	const key = `{"id":"`
	if !bytes.HasPrefix(line, []byte(key)) {
		return "", false
	}
	rest := line[len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || !ValidAnswerID(string(rest[:j])) {
		return "", false
	}
	return string(rest[:j]), true
}

// toSet is the set of ids.
func toSet(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}
