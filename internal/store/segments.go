package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Answer segments hold a survey's answers in the order of its answer list,
// many to a blob, so that reading every answer (exports, copies, tables,
// recounts) costs one GET per segment instead of one per answer. The
// answer blobs stay the record; segments are written beside them by the
// worker, at the same positions as the list and in the same way: a
// positional append, so that a batch written twice (a worker died between
// the summary and the segment, and the next writer finished its work) is
// written once.
//
// Segment blobs are named <tenant>-<slug>/<start>, start being the list
// position of its first answer (ten digits, so that names sort as
// positions); a segment holds one JSON answer per line. The last segment
// is open: each batch rewrites it with its answers added (If-Match), until
// it holds SegmentMaxAnswers answers or SegmentMaxBytes bytes; the next
// answer then starts a new one (If-None-Match). Whether a segment is full
// depends on its content only, so writers never disagree on where the next
// one starts.
//
// SegmentMaxBytes was 256 KiB: a segment then held about 85 answers of a
// survey of every kind (3 KB each), 0.012 reads an answer. At 1 MiB it
// holds about 340 (0.003), and a batch's rewrite of the open segment is
// at most 1 MiB. Segments sealed at 256 KiB stay as they are; an open one
// grows on to the new cap. (While writers of both caps run side by side,
// one may start a new segment at the position another appends to the old
// one: the same answers at the same positions, which Scan reads once.)
const (
	SegmentContainer  = "surveyanswersegments"
	SegmentMaxAnswers = 1000
	SegmentMaxBytes   = 1 << 20
)

// ErrSegmentsBehind: a survey's segments end before the position a writer
// wants to append at. Its older answers (taken before segments existed)
// must be put in segments first (BuildSegments).
var ErrSegmentsBehind = errors.New("store: the survey's segments end before the answers to append")

// segmentPrefix is the prefix of a survey's segments.
func segmentPrefix(tenant, slug string) string { return tenant + "-" + slug + "/" }

func segmentName(tenant, slug string, start int) string {
	return fmt.Sprintf("%s%010d", segmentPrefix(tenant, slug), start)
}

// segmentRef is a segment as listed: its name and first position.
type segmentRef struct {
	name  string
	start int
}

// segments lists a survey's segments in order.
func (as *SurveyAnswerStore) segments(ctx context.Context, tenant, slug string) ([]segmentRef, error) {
	var out []segmentRef
	prefix := segmentPrefix(tenant, slug)
	err := eachBlob(ctx, as.st, SegmentContainer, prefix, "Answer segments", func(it storage.BlobItem) error {
		start, err := strconv.Atoi(strings.TrimPrefix(it.Name, prefix))
		if err != nil || start < 0 {
			return nil // not a segment of this survey (a longer slug)
		}
		out = append(out, segmentRef{name: it.Name, start: start})
		return nil
	})
	return out, err
}

// SegmentTail is the open end of a survey's segments as a writer last saw
// it: a worker keeps it between batches so that an append costs one blob
// write, not a listing, a read and a write.
type SegmentTail struct {
	start int    // the last segment's first position
	count int    // its answers
	data  []byte // its content
	etag  string // "" when it does not exist yet
}

// End is the position after the last answer in segments.
func (t *SegmentTail) End() int { return t.start + t.count }

// Size is what the tail holds in memory, in bytes (its room to grow
// included).
func (t *SegmentTail) Size() int64 { return int64(cap(t.data)) + 64 }

func (t *SegmentTail) full() bool {
	return t.count >= SegmentMaxAnswers || len(t.data) >= SegmentMaxBytes
}

// readSegmentTail reads the last segment of a survey.
func (as *SurveyAnswerStore) readSegmentTail(ctx context.Context, tenant, slug string) (*SegmentTail, error) {
	segs, err := as.segments(ctx, tenant, slug)
	if err != nil || len(segs) == 0 {
		return &SegmentTail{}, err
	}
	last := segs[len(segs)-1]
	b, err := as.st.GetBlob(ctx, SegmentContainer, last.name)
	if err != nil {
		return nil, mapErr(err, "Answer segment")
	}
	return &SegmentTail{start: last.start, count: bytes.Count(b.Data, []byte("\n")), data: b.Data, etag: b.ETag}, nil
}

// AppendSegments makes positions pos, pos+1, … of a survey's segments hold
// the answers ids name, appending those not there yet: an answer is taken
// from encoded (its line, as FileLine gives it) or known, or else read from
// its blob. tail is where the writer last saw
// the segments' end (nil when unknown); the new tail is returned. When the
// segments end before pos, it fails with ErrSegmentsBehind. Concurrent
// writers are serialised with ETags: a stale tail costs a re-read.
func (as *SurveyAnswerStore) AppendSegments(ctx context.Context, tenant, slug string, tail *SegmentTail, pos int, ids []string, known map[string]*survey.SurveyAnswer, encoded map[string][]byte) (*SegmentTail, error) {
	lines := map[int][]byte{} // encoded answers, by index in ids
	line := func(i int) ([]byte, error) {
		if l, ok := lines[i]; ok {
			return l, nil
		}
		if l := encoded[ids[i]]; l != nil {
			return l, nil
		}
		a := known[ids[i]]
		if a == nil {
			var err error
			a, err = as.Get(ctx, tenant, slug, ids[i])
			if survey.ErrorCode(err) == survey.ENOTFOUND {
				// Deleted (DeleteAnswer): its position holds a tombstone.
				lines[i] = tombstone(ids[i])
				return lines[i], nil
			}
			if err != nil {
				return nil, fmt.Errorf("store: segment of %s/%s: %w", tenant, slug, err)
			}
		}
		l, err := segmentLine(a)
		if err != nil {
			return nil, err
		}
		lines[i] = l
		return l, nil
	}
	for conflicts := 0; ; {
		read := tail == nil
		if read {
			var err error
			if tail, err = as.readSegmentTail(ctx, tenant, slug); err != nil {
				return nil, err
			}
		}
		have := tail.End()
		if have < pos {
			if !read {
				tail = nil // others appended since: look again
				continue
			}
			return tail, fmt.Errorf("%w (%s/%s: segments end at %d, answers from %d)", ErrSegmentsBehind, tenant, slug, have, pos)
		}
		if have >= pos+len(ids) {
			return tail, nil
		}
		// The answers are appended in place, in the room past the tail's
		// end: the tail is its caller's alone (the worker takes it out of
		// its cache), and a write that fails drops it (re-read, or the
		// error returned), so its bytes are never read again.
		next := &SegmentTail{start: tail.start, count: tail.count, data: tail.data}
		o := storage.PutOptions{ContentType: "application/x-ndjson", IfMatch: tail.etag}
		if tail.etag == "" || tail.full() {
			// A new segment: it must not exist yet.
			o = storage.PutOptions{ContentType: "application/x-ndjson", IfNoneMatch: storage.ETagAny}
			if tail.etag != "" {
				next = &SegmentTail{start: have}
			}
		}
		// The lines that fit, then the segment's room for them made at
		// once: at least twice what it holds (append's growth of a large
		// buffer, a quarter at a time, copied a segment of 1 MiB some
		// eight times over as it filled; now at most twice), never much
		// past the cap.
		add, size := 0, len(next.data)
		var adding [][]byte
		for i := have - pos; i < len(ids) && next.count+add < SegmentMaxAnswers && size < SegmentMaxBytes; i++ {
			l, err := line(i)
			if err != nil {
				return nil, err
			}
			adding = append(adding, l)
			add++
			size += len(l)
		}
		if size > cap(next.data) {
			grown := make([]byte, len(next.data), max(size, min(2*cap(next.data), SegmentMaxBytes)))
			copy(grown, next.data)
			next.data = grown
		}
		for _, l := range adding {
			next.data = append(next.data, l...)
		}
		next.count += add
		var err error
		next.etag, err = as.st.PutBlob(ctx, SegmentContainer, segmentName(tenant, slug, next.start), next.data, o)
		if isContainerNotFound(err) {
			if err := as.st.CreateContainer(ctx, SegmentContainer, false); err != nil {
				return nil, mapErr(err, "Answer segments")
			}
			next.etag, err = as.st.PutBlob(ctx, SegmentContainer, segmentName(tenant, slug, next.start), next.data, o)
		}
		switch {
		case err == nil:
			tail = next
		case isPrecondition(err):
			// Another writer wrote first: read again.
			tail = nil
			if conflicts++; conflicts == 50 {
				return nil, survey.Errorf(survey.ECONFLICT, "The answer segments of %s/%s are too busy; try again.", tenant, slug)
			}
		default:
			return nil, mapErr(err, "Answer segment")
		}
	}
}

// BuildSegments puts the answers of a survey's list that are not in its
// segments yet into segments, reading each from its blob (several at
// once): for surveys
// answered before segments existed, once. It is resumable (what it wrote
// is kept; a second run carries on from the segments' end) and safe beside
// the worker's appends (both write positions of the list). It returns the
// number of answers it added.
func (as *SurveyAnswerStore) BuildSegments(ctx context.Context, tenant, slug string) (int, error) {
	tail, err := as.readSegmentTail(ctx, tenant, slug)
	if err != nil {
		return 0, err
	}
	added := 0
	for {
		have := tail.End()
		ids, total, err := as.Page(ctx, tenant, slug, have, 100)
		if err != nil {
			return added, err
		}
		if len(ids) == 0 || have >= total {
			return added, nil
		}
		known, err := as.getAll(ctx, tenant, slug, ids)
		if err != nil {
			return added, err
		}
		if tail, err = as.AppendSegments(ctx, tenant, slug, tail, have, ids, known, nil); err != nil {
			return added, err
		}
		added += tail.End() - have
	}
}

// buildReads is how many answer blobs BuildSegments reads at once: each
// is a round trip on Azure.
const buildReads = 16

// getAll reads answers from their blobs, buildReads at once.
func (as *SurveyAnswerStore) getAll(ctx context.Context, tenant, slug string, ids []string) (map[string]*survey.SurveyAnswer, error) {
	got := make([]*survey.SurveyAnswer, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	slots := make(chan struct{}, buildReads)
	for i, id := range ids {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			got[i], errs[i] = as.Get(ctx, tenant, slug, id)
		}()
	}
	wg.Wait()
	known := make(map[string]*survey.SurveyAnswer, len(ids))
	for i, a := range got {
		if survey.ErrorCode(errs[i]) == survey.ENOTFOUND {
			continue // deleted: AppendSegments writes its tombstone
		}
		if errs[i] != nil {
			return nil, fmt.Errorf("store: segment of %s/%s: %w", tenant, slug, errs[i])
		}
		known[ids[i]] = a
	}
	return known, nil
}

// Scan calls f with a survey's answers in the order of its answer list,
// from position from: from segments, then, for the newest answers not in a
// segment yet, from their own blobs (the list, then the summary's last
// batch, name them). The answer f is given is written over by the next
// one: a shallow copy keeps it (its Answers are its own). Memory stays
// flat: two segments at most (one read ahead) are held at a time.
//
// Deleted answers (the summary's Deleted) are left out; their positions
// are skipped.
func (as *SurveyAnswerStore) Scan(ctx context.Context, tenant, slug string, from int, f func(pos int, a *survey.SurveyAnswer) error) error {
	sum, err := as.summary(ctx, tenant, slug)
	if err != nil {
		return err
	}
	return as.scan(ctx, sum, tenant, slug, from, f)
}

// summary reads a survey's summary for a scan: an empty one when it has
// none.
func (as *SurveyAnswerStore) summary(ctx context.Context, tenant, slug string) (*StoredSummary, error) {
	sum, _, err := NewSurveyAnswersSummaryStore(as.st).Get(ctx, tenant, slug)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return &StoredSummary{}, nil
	}
	return sum, err
}

// scan is Scan with the survey's summary read.
func (as *SurveyAnswerStore) scan(ctx context.Context, sum *StoredSummary, tenant, slug string, from int, f func(pos int, a *survey.SurveyAnswer) error) error {
	gone := make(map[string]bool, len(sum.Deleted))
	for _, id := range sum.Deleted {
		gone[id] = true
	}
	return as.scanAll(ctx, sum, tenant, slug, from, func(pos int, a *survey.SurveyAnswer) error {
		if gone[a.ID] || a.Tenant == "" {
			return nil // deleted (a tombstone has its ID only)
		}
		return f(pos, a)
	})
}

// scanAll is Scan, deleted answers' positions included (a deleted answer
// whose tombstone is written comes with its ID only). sum, the survey's
// summary read before, names the newest answers not listed yet.
func (as *SurveyAnswerStore) scanAll(ctx context.Context, sum *StoredSummary, tenant, slug string, from int, f func(pos int, a *survey.SurveyAnswer) error) error {
	return as.scanLines(ctx, sum, tenant, slug, from, nil, f)
}

// scanLines is scanAll where a segment's line that skip (when not nil)
// says to skip is not decoded, nor given to f.
func (as *SurveyAnswerStore) scanLines(ctx context.Context, sum *StoredSummary, tenant, slug string, from int, skip func(line []byte) bool, f func(pos int, a *survey.SurveyAnswer) error) error {
	segs, err := as.segments(ctx, tenant, slug)
	if err != nil {
		return err
	}
	// Positions before Expired were removed (ExpireAnswers): the
	// answers start there.
	pos := max(from, int(sum.Expired), 0)
	first := firstSegment(segs, pos)
	pos, _, err = as.scanSegments(ctx, segs[first:], pos, -1, skip, f)
	if err != nil {
		return err
	}
	return as.scanBlobs(ctx, sum, tenant, slug, pos, f)
}

// firstSegment is the index in segs of the segment that holds position
// pos (0 when none does).
func firstSegment(segs []segmentRef, pos int) int {
	first := 0
	for first+1 < len(segs) && segs[first+1].start <= pos {
		first++
	}
	return first
}

// scanSegments gives f the lines of segs (in order, the first holding
// pos) from position pos on and before position limit (limit < 0: to
// the end); a line skip says to skip is not decoded. It returns the
// position after the last line it read, and whether it stopped at a
// gap (a segment that starts after that position: cannot happen, but
// the answers' blobs fill it).
func (as *SurveyAnswerStore) scanSegments(ctx context.Context, segs []segmentRef, pos, limit int, skip func(line []byte) bool, f func(pos int, a *survey.SurveyAnswer) error) (end int, gap bool, err error) {
	// A long scan reads the next segment while f is given this one's
	// answers (from its third segment on: a page of a table never pays
	// for a segment it does not show). Two buffers take turns: a segment
	// is read into the one whose answers were all given (decoded answers
	// hold copies of their strings, never the segment's bytes), so that
	// memory stays flat at two segments and a scan allocates none for
	// each (storage.GetBlobInto).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type fetched struct {
		data []byte
		err  error
	}
	read := func(s segmentRef, buf []byte) ([]byte, error) {
		b, err := storage.GetBlobInto(ctx, as.st, SegmentContainer, s.name, buf)
		if err != nil {
			return nil, mapErr(err, "Answer segment")
		}
		return b.Data, nil
	}
	var next chan fetched
	var spare []byte // a buffer whose answers were all given
	// One answer, decoded into again and again (each with Answers of its
	// own): f's answer is overwritten by the next.
	var a survey.SurveyAnswer
	var dec lineDecoder
	for i, s := range segs {
		if limit >= 0 && pos >= limit {
			break // the rest is another's
		}
		if s.start > pos {
			return pos, true, nil
		}
		var data []byte
		if next != nil {
			r := <-next
			next, data, err = nil, r.data, r.err
		} else {
			data, err = read(s, spare)
			spare = nil
		}
		if err != nil {
			return pos, false, err
		}
		if i > 0 && i+1 < len(segs) {
			next = make(chan fetched, 1)
			go func(s segmentRef, buf []byte, to chan<- fetched) {
				data, err := read(s, buf)
				to <- fetched{data, err}
			}(segs[i+1], spare, next)
			spare = nil
		}
		whole := data
		// One answer a line; a line before pos is skipped undecoded.
		for p := s.start; len(data) > 0; {
			if limit >= 0 && p >= limit {
				break
			}
			line := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				line, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if p < pos {
				p++
				continue
			}
			if skip != nil && skip(line) {
				p++
				pos = p
				continue
			}
			if err := dec.decode(line, &a); err != nil {
				return pos, false, fmt.Errorf("store: decode answer segment %s: %w", s.name, err)
			}
			if err := f(p, &a); err != nil {
				return pos, false, err
			}
			p++
			pos = p
		}
		spare = whole[:0]
	}
	return pos, false, nil
}

// ScanFiltered calls f with each of a survey's answers that filter picks,
// in the order of its list, and the number of answers before it (those
// the filter leaves out included, deleted answers not); it returns the
// number of answers read. It is Scan with the filter's Match, but a line
// of a segment is decoded whole only when the fields the filter looks at
// (its Fields, read first, the rest of the line skipped) say the filter
// picks it: a filter that picks a few answers costs a fraction of a scan
// of all of them. f's answer is Scan's: a shallow copy keeps it.
func (as *SurveyAnswerStore) ScanFiltered(ctx context.Context, tenant, slug string, filter survey.AnswerFilter, f func(of int, a *survey.SurveyAnswer) error) (int, error) {
	reads, err := as.ScanFilteredParts(ctx, tenant, slug, filter, 1, func(int) func(of int, a *survey.SurveyAnswer) error { return f })
	if len(reads) == 0 {
		return 0, err
	}
	return reads[0], err
}

// ScanFilteredParts is ScanFiltered with the survey's segments shared out
// in order among up to n parts, read at the same time (one goroutine
// each, each holding two segments at most): for a count of every answer
// a filter picks on every core. Before any answer is read, start(k)
// makes part k's f (k from 0, in the segments' order); part k's f is
// called with its answers in order, from its goroutine, with the number
// of the part's answers before each. It returns the number of answers
// each part read: an answer's number among all of them (ScanFiltered's)
// is its number in its part plus the reads of the parts before. So
// counts made part by part and merged in the parts' order are those of
// one scan. A survey of few segments is read as one part; parts that
// find their segments do not follow one another (a gap, which cannot
// happen) are dropped and the scan starts over as one part: start(0)
// again.
func (as *SurveyAnswerStore) ScanFilteredParts(ctx context.Context, tenant, slug string, filter survey.AnswerFilter, n int, start func(k int) func(of int, a *survey.SurveyAnswer) error) ([]int, error) {
	sum, err := as.summary(ctx, tenant, slug)
	if err != nil {
		return nil, err
	}
	gone := make(map[string]bool, len(sum.Deleted))
	for _, id := range sum.Deleted {
		gone[id] = true
	}
	segs, err := as.segments(ctx, tenant, slug)
	if err != nil {
		return nil, err
	}
	pos := max(int(sum.Expired), 0)
	first := firstSegment(segs, pos)
	segs = segs[first:]
	n = max(1, min(n, len(segs)/minPartSegments))
	// Part k reads segs[bounds[k]:bounds[k+1]], from the first one's
	// start (part 0 from pos) to the next part's.
	bounds := make([]int, n+1)
	for k := range bounds {
		bounds[k] = k * len(segs) / n
	}
	reads := make([]int, n)
	ends := make([]int, n)
	gaps := make([]bool, n)
	fs := make([]func(of int, a *survey.SurveyAnswer) error, n)
	for k := range fs {
		fs[k] = start(k)
	}
	part := func(ctx context.Context, k int) error {
		from, limit := pos, -1
		if k > 0 {
			from = segs[bounds[k]].start
		}
		if k+1 < n {
			limit = segs[bounds[k+1]].start
		}
		count := func(_ int, a *survey.SurveyAnswer) error {
			if gone[a.ID] || a.Tenant == "" {
				return nil // deleted (a tombstone has its ID only)
			}
			reads[k]++
			if !filter.Match(a) {
				return nil
			}
			return fs[k](reads[k]-1, a)
		}
		skip := peekSkip(filter, gone, &reads[k])
		end, gap, err := as.scanSegments(ctx, segs[bounds[k]:bounds[k+1]], from, limit, skip, count)
		ends[k], gaps[k] = end, gap
		if err != nil || k+1 < n || gap && n > 1 {
			return err // (a gap in one of several parts: read as one)
		}
		// The last part reads the newest answers, not in a segment yet.
		return as.scanBlobs(ctx, sum, tenant, slug, end, count)
	}
	if n == 1 {
		return reads, part(ctx, 0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range n {
		wg.Go(func() {
			if errs[k] = part(ctx, k); errs[k] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	// The first part's error that is not another's: the others were
	// then cancelled.
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return nil, err
		}
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for k := range n {
		if gaps[k] || k+1 < n && ends[k] < segs[bounds[k+1]].start {
			// Not one run of positions: as one part, as Scan reads it.
			return as.ScanFilteredParts(ctx, tenant, slug, filter, 1, start)
		}
	}
	return reads, nil
}

// minPartSegments is the fewest segments a part of a filtered scan
// reads: fewer are not worth a goroutine.
const minPartSegments = 4

// peekSkip is the skip of a filtered scan (scanSegments): whether the
// fields of a line filter looks at say the filter leaves it out (then
// counted in *read) or it is deleted. Nil when the filter picks every
// answer.
func peekSkip(filter survey.AnswerFilter, gone map[string]bool, read *int) func(line []byte) bool {
	if !filter.Active() {
		return nil
	}
	fields := filter.Fields()
	var (
		dec  lineDecoder // its own: decode's keeps the texts of whole answers
		some survey.SurveyAnswer
	)
	// Peeking pays when the filter leaves most answers out; when it
	// picks most of them (a filter of complete answers), each picked
	// line would be read twice, so after peekTrial lines that the
	// filter mostly picked the scan stops peeking.
	peeked, picked := 0, 0
	return func(line []byte) bool {
		if peeked == peekTrial && picked > peekTrial/2 {
			return false
		}
		if !dec.peek(line, &fields, &some) {
			return false // decoded whole, and looked at below
		}
		if gone[string(dec.id)] || some.Tenant == "" {
			return true
		}
		match := filter.Match(&some)
		if peeked < peekTrial {
			peeked++
			if match {
				picked++
			}
		}
		if !match {
			*read++
			return true
		}
		return false
	}
}

// peekTrial is how many answers a filtered scan peeks at before it
// judges whether peeking pays (ScanFiltered).
const peekTrial = 1000

// scanBlobs calls f with the answers from position pos on, each read from
// its blob: those listed, then those of the summary's last batch.
func (as *SurveyAnswerStore) scanBlobs(ctx context.Context, sum *StoredSummary, tenant, slug string, pos int, f func(pos int, a *survey.SurveyAnswer) error) error {
	each := func(ids []string) error {
		for _, id := range ids {
			a, err := as.Get(ctx, tenant, slug, id)
			if survey.ErrorCode(err) == survey.ENOTFOUND {
				a, err = &survey.SurveyAnswer{ID: id}, nil // deleted
			}
			if err != nil {
				return err
			}
			if err := f(pos, a); err != nil {
				return err
			}
			pos++
		}
		return nil
	}
	for {
		ids, total, err := as.Page(ctx, tenant, slug, pos, ListChunkSize)
		if err != nil {
			return err
		}
		if err := each(ids); err != nil {
			return err
		}
		if len(ids) == 0 || pos >= total {
			break
		}
	}
	// The last batch may be merged into the summary and not listed yet
	// (its writer died, or is between the two writes).
	if from, end := int(sum.ListFrom), int(sum.ListFrom)+len(sum.Pending); pos >= from && pos < end {
		return each(sum.Pending[pos-from:])
	}
	return nil
}

// Range returns the answers at positions offset… (up to limit of them) of
// a survey's list, and the list's length (deleted answers' positions
// included, which Range leaves out): for pages of a table.
func (as *SurveyAnswerStore) Range(ctx context.Context, tenant, slug string, offset, limit int) ([]*survey.SurveyAnswer, int, error) {
	sum, err := as.summary(ctx, tenant, slug)
	if err != nil {
		return nil, 0, err
	}
	return as.rangeOf(ctx, sum, tenant, slug, offset, limit)
}

// rangeOf is Range of a survey of total answers.
func (as *SurveyAnswerStore) rangeOf(ctx context.Context, sum *StoredSummary, tenant, slug string, offset, limit int) ([]*survey.SurveyAnswer, int, error) {
	total := int(sum.Len())
	if limit <= 0 || offset >= total {
		return nil, total, nil
	}
	out := make([]*survey.SurveyAnswer, 0, min(limit, total-offset))
	err := as.scan(ctx, sum, tenant, slug, max(offset, 0), func(_ int, a *survey.SurveyAnswer) error {
		c := *a // Scan reuses *a, not its Answers
		out = append(out, &c)
		if len(out) == limit {
			return errStopScan
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopScan) {
		return nil, 0, err
	}
	return out, total, nil
}

var errStopScan = errors.New("stop")

// deleteSegments deletes a survey's segments.
func (as *SurveyAnswerStore) deleteSegments(ctx context.Context, tenant, slug string) error {
	segs, err := as.segments(ctx, tenant, slug)
	if err != nil {
		return err
	}
	for _, s := range segs {
		if err := as.st.DeleteBlob(ctx, SegmentContainer, s.name, ""); err != nil && !isNotFound(err) {
			return mapErr(err, "Answer segment")
		}
	}
	return nil
}

// LatestAnswers returns up to limit of a survey's answers, newest first,
// after skipping the skip newest, and the number of answers.
func (as *SurveyAnswerStore) LatestAnswers(ctx context.Context, tenant, slug string, skip, limit int) ([]*survey.SurveyAnswer, int, error) {
	sum, err := as.summary(ctx, tenant, slug)
	if err != nil {
		return nil, 0, err
	}
	total := int(sum.Len())
	end := total - max(skip, 0)
	out, _, err := as.rangeOf(ctx, sum, tenant, slug, max(end-limit, 0), min(limit, max(end, 0)))
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, total, err
}

// Segmented returns the number of a survey's answers in segments: where
// its segments end.
func (as *SurveyAnswerStore) Segmented(ctx context.Context, tenant, slug string) (int, error) {
	tail, err := as.readSegmentTail(ctx, tenant, slug)
	if err != nil {
		return 0, err
	}
	return tail.End(), nil
}
