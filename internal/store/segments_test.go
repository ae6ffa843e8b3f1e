package store_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// spyStorage is faulty.Store, with the blob calls it saw by container.
type spyStorage struct{ *faulty.Store }

// errInjected is the failure of a process that died (faulty.Store).
var errInjected = faulty.ErrCrash

// newSpy fails every call from the failAt-th on (0: none), as a process
// that died there: before the call is made, or just after it was (after).
func newSpy(st storage.Storage, failAt int, after bool) spyStorage {
	return spyStorage{faulty.At(st, int64(failAt), after)}
}

// blobCalls is the number of calls of kind to container.
func (s spyStorage) blobCalls(kind, container string) int {
	n := 0
	for _, c := range s.Ops() {
		if c.Service == "blob" && c.Kind == kind && c.Target == container {
			n++
		}
	}
	return n
}

// answerGets is the number of answer blobs read through s.
func (s spyStorage) answerGets(tenant, slug string) int {
	return s.blobCalls("get", store.AnswersContainer(tenant, slug))
}

// segmentPuts is the number of segment blobs written through s.
func (s spyStorage) segmentPuts() int { return s.blobCalls("put", store.SegmentContainer) }

// segSurvey creates a survey of one text question.
func segSurvey(t *testing.T, st storage.Storage, tenant, title string) *survey.Survey {
	t.Helper()
	s := &survey.Survey{Tenant: tenant, Title: title, State: survey.Published,
		Questions: []survey.Question{{Text: "Say", Type: survey.SimpleText}}}
	if err := store.NewSurveyStore(st).Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s
}

// segAnswers makes n answers to s, the i-th with a text of about size(i)
// bytes (none when 0).
func segAnswers(s *survey.Survey, n int, size func(i int) int) []*survey.SurveyAnswer {
	out := make([]*survey.SurveyAnswer, n)
	for i := range out {
		out[i] = &survey.SurveyAnswer{ID: store.NewAnswerID(time.Now()), Tenant: s.Tenant, Slug: s.Slug, Title: s.Title, CreatedOn: time.Now().UTC()}
		if size(i) > 0 {
			text := fmt.Sprintf("answer %d ", i)
			text += strings.Repeat("é<&>", max(size(i)-len(text), 0)/5+1)
			out[i].Answers = []survey.QuestionAnswer{{QuestionID: s.Questions[0].ID, QuestionText: "Say", Type: survey.SimpleText, Answer: text}}
		}
	}
	return out
}

// small answers: a thousand fit a segment.
func small(int) int { return 0 }

func idsOf(answers []*survey.SurveyAnswer) []string {
	ids := make([]string, len(answers))
	for i, a := range answers {
		ids[i] = a.ID
	}
	return ids
}

func byID(answers []*survey.SurveyAnswer) map[string]*survey.SurveyAnswer {
	m := map[string]*survey.SurveyAnswer{}
	for _, a := range answers {
		m[a.ID] = a
	}
	return m
}

// fileBeforeSegments stores answers as a survey answered before segments
// existed: each answer's blob, the list of all but the last pending ones,
// and the summary naming those pending as its last batch (merged, not
// listed yet).
func fileBeforeSegments(t testing.TB, st storage.Storage, s *survey.Survey, answers []*survey.SurveyAnswer, pending int) {
	t.Helper()
	ctx := context.Background()
	as := store.NewSurveyAnswerStore(st)
	for _, a := range answers {
		if _, err := as.File(ctx, a, "m1"); err != nil {
			t.Fatal(err)
		}
	}
	ids := idsOf(answers)
	listed := len(ids) - pending
	for pos := 0; pos < listed; pos += store.ListChunkSize {
		if _, err := as.AppendAt(ctx, s.Tenant, s.Slug, nil, pos, ids[pos:min(pos+store.ListChunkSize, listed)]); err != nil {
			t.Fatal(err)
		}
	}
	sum := &store.StoredSummary{SurveyAnswersSummary: *survey.NewSummary(s), Pending: ids[listed:], ListFrom: int64(listed)}
	sum.TotalAnswers = int64(len(ids))
	if _, err := store.NewSurveyAnswersSummaryStore(st).Put(ctx, sum, ""); err != nil {
		t.Fatal(err)
	}
}

// segmentBlobs lists a survey's segment blobs: name → answers in it.
func segmentBlobs(t *testing.T, st storage.Storage, tenant, slug string) map[string]int {
	t.Helper()
	ctx := context.Background()
	page, err := st.ListBlobs(ctx, store.SegmentContainer, storage.ListOptions{Prefix: tenant + "-" + slug + "/"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, it := range page.Items {
		b, err := st.GetBlob(ctx, store.SegmentContainer, it.Name)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimPrefix(it.Name, tenant+"-"+slug+"/")] = strings.Count(string(b.Data), "\n")
	}
	return out
}

// checkScan asserts that a scan from position from gives want[from:], in
// order, at their positions, each equal to want's answer.
func checkScan(t *testing.T, as *store.SurveyAnswerStore, tenant, slug string, from int, want []*survey.SurveyAnswer) {
	t.Helper()
	next := max(from, 0)
	err := as.Scan(context.Background(), tenant, slug, from, func(pos int, a *survey.SurveyAnswer) error {
		if pos != next {
			return fmt.Errorf("position %d after %d", pos, next-1)
		}
		if pos >= len(want) {
			return fmt.Errorf("position %d past the %d answers", pos, len(want))
		}
		if !sameAnswer(a, want[pos]) {
			return fmt.Errorf("position %d holds %+v, want %+v", pos, a, want[pos])
		}
		next++
		return nil
	})
	if err != nil {
		t.Fatalf("scan from %d: %v", from, err)
	}
	if end := max(len(want), max(from, 0)); next != end {
		t.Fatalf("scan from %d ended at %d, want %d", from, next, end)
	}
}

func sameAnswer(a, b *survey.SurveyAnswer) bool {
	return a.ID == b.ID && a.Tenant == b.Tenant && a.Slug == b.Slug && a.Title == b.Title &&
		a.CreatedOn.Equal(b.CreatedOn) && reflect.DeepEqual(a.Answers, b.Answers)
}

// TestAppendSegments: appends are positional and idempotent, like the
// answer list's.
func TestAppendSegments(t *testing.T) {
	type step struct {
		tail     string // the tail passed: "" (none), "last" or "first" (stale)
		from, to int    // the answers appended: ids[from:to] at position from
		wantErr  error
		wantPuts int // segment writes of the step
	}
	cases := []struct {
		name  string
		steps []step
		want  int // answers in segments at the end
	}{
		{"one batch", []step{{from: 0, to: 5, wantPuts: 1}}, 5},
		{"the same batch twice", []step{{from: 0, to: 5, wantPuts: 1}, {from: 0, to: 5}, {tail: "last", from: 0, to: 5}}, 5},
		{"an overlapping batch adds only the new part", []step{{from: 0, to: 5, wantPuts: 1}, {tail: "last", from: 3, to: 8, wantPuts: 1}}, 8},
		{"an older batch inside", []step{{from: 0, to: 8, wantPuts: 1}, {from: 2, to: 4}}, 8},
		{"a stale tail re-reads, then appends", []step{{from: 0, to: 3, wantPuts: 1}, {tail: "last", from: 3, to: 6, wantPuts: 1}, {tail: "first", from: 6, to: 9, wantPuts: 1}}, 9},
		// The stale tail's write is refused (its ETag), then nothing is left to write.
		{"a stale tail of a batch written since", []step{{from: 0, to: 3, wantPuts: 1}, {tail: "last", from: 3, to: 6, wantPuts: 1}, {tail: "first", from: 3, to: 6, wantPuts: 1}}, 6},
		{"behind: nothing yet", []step{{from: 5, to: 8, wantErr: store.ErrSegmentsBehind}}, 0},
		{"behind: a gap", []step{{from: 0, to: 3, wantPuts: 1}, {tail: "last", from: 4, to: 6, wantErr: store.ErrSegmentsBehind}}, 3},
	}
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := segSurvey(t, st, tenant, c.name)
				answers := segAnswers(s, 10, small)
				ids := idsOf(answers)
				var tails []*store.SegmentTail
				written := 0 // answers in segments before the step
				for i, step := range c.steps {
					spy := newSpy(st, 0, false)
					as := store.NewSurveyAnswerStore(spy)
					var tail *store.SegmentTail
					switch step.tail {
					case "last":
						tail = tails[len(tails)-1]
					case "first":
						tail = tails[0]
					}
					// The answers are known; those in segments already
					// are changed, so that rewriting one would show.
					known := byID(answers)
					for _, a := range answers[:written] {
						changed := *a
						changed.Title = "rewritten"
						known[a.ID] = &changed
					}
					got, err := as.AppendSegments(ctx, s.Tenant, s.Slug, tail, step.from, ids[step.from:step.to], known, nil)
					if !errors.Is(err, step.wantErr) {
						t.Fatalf("step %d: err = %v, want %v", i, err, step.wantErr)
					}
					if step.wantErr == nil {
						tails = append(tails, got)
						written = max(written, step.to)
						if got.End() < step.to {
							t.Fatalf("step %d: tail ends at %d, want at least %d", i, got.End(), step.to)
						}
					}
					if n := spy.segmentPuts(); n != step.wantPuts {
						t.Fatalf("step %d: %d segment writes, want %d", i, n, step.wantPuts)
					}
					if n := spy.answerGets(s.Tenant, s.Slug); n != 0 {
						t.Fatalf("step %d: %d answer blobs read, want none (all known)", i, n)
					}
				}
				as := store.NewSurveyAnswerStore(st)
				if n, err := as.Segmented(ctx, s.Tenant, s.Slug); err != nil || n != c.want {
					t.Fatalf("Segmented = %d, %v; want %d", n, err, c.want)
				}
				checkScanSegments(t, as, s, answers[:c.want])
			})
		}
	})
}

// checkScanSegments asserts that a scan of a survey from its first answer
// gives want.
func checkScanSegments(t *testing.T, as *store.SurveyAnswerStore, s *survey.Survey, want []*survey.SurveyAnswer) {
	t.Helper()
	var got []*survey.SurveyAnswer
	err := as.Scan(context.Background(), s.Tenant, s.Slug, 0, func(pos int, a *survey.SurveyAnswer) error {
		if pos != len(got) {
			return fmt.Errorf("position %d after %d answers", pos, len(got))
		}
		c := *a
		got = append(got, &c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("scan gave %d answers, want %d", len(got), len(want))
	}
	for i := range got {
		if !sameAnswer(got[i], want[i]) {
			t.Fatalf("position %d holds %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestAppendSegmentsReadsBlobs: an answer not known is read from its blob.
func TestAppendSegmentsReadsBlobs(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		s := segSurvey(t, st, tenant, "Blobs")
		answers := segAnswers(s, 6, small)
		fileBeforeSegments(t, st, s, answers, 0)
		spy := newSpy(st, 0, false)
		as := store.NewSurveyAnswerStore(spy)
		known := byID(answers[:2])
		if _, err := as.AppendSegments(ctx, s.Tenant, s.Slug, nil, 0, idsOf(answers), known, nil); err != nil {
			t.Fatal(err)
		}
		if n := spy.answerGets(s.Tenant, s.Slug); n != 4 {
			t.Fatalf("%d answer blobs read, want 4", n)
		}
		checkScanSegments(t, store.NewSurveyAnswerStore(st), s, answers)
		// An answer neither known nor filed (deleted: DeleteAnswer) keeps
		// its position as a tombstone, which scans leave out.
		missing := segAnswers(s, 1, small)
		if _, err := as.AppendSegments(ctx, s.Tenant, s.Slug, nil, 6, idsOf(missing), nil, nil); err != nil {
			t.Fatalf("append of a missing answer: %v", err)
		}
		if n, err := as.Segmented(ctx, s.Tenant, s.Slug); n != 7 || err != nil {
			t.Fatalf("Segmented = %d, %v; want 7", n, err)
		}
		checkScanSegments(t, store.NewSurveyAnswerStore(st), s, answers)
	})
}

// TestSegmentSealing: a segment is full at SegmentMaxAnswers answers or
// SegmentMaxBytes bytes; the next answer starts a new one, named by its
// position. The answer that crosses the byte cap stays in its segment, so
// an answer larger than the cap is alone in a segment only when it starts
// one.
func TestSegmentSealing(t *testing.T) {
	// Sizes in parts of the cap: two fifths of it (three fill a
	// segment), more than all of it, and a small part.
	twoFifths, over, tiny := store.SegmentMaxBytes*2/5, store.SegmentMaxBytes*6/5, store.SegmentMaxBytes/256
	cases := []struct {
		name  string
		n     int
		size  func(i int) int
		batch int
		want  map[string]int // segment → answers
	}{
		{"by answers", store.SegmentMaxAnswers + 5, small, 300,
			map[string]int{"0000000000": store.SegmentMaxAnswers, fmt.Sprintf("%010d", store.SegmentMaxAnswers): 5}},
		{"by answers, in one batch", store.SegmentMaxAnswers + 1, small, store.SegmentMaxAnswers + 1,
			map[string]int{"0000000000": store.SegmentMaxAnswers, fmt.Sprintf("%010d", store.SegmentMaxAnswers): 1}},
		{"by bytes", 7, func(int) int { return twoFifths }, 2,
			map[string]int{"0000000000": 3, "0000000003": 3, "0000000006": 1}},
		{"an answer over the cap starts a segment", 3, func(i int) int { return []int{over, tiny, tiny}[i] }, 1,
			map[string]int{"0000000000": 1, "0000000001": 2}},
		{"an answer over the cap in an open segment", 4, func(i int) int { return []int{tiny, over, tiny, tiny}[i] }, 4,
			map[string]int{"0000000000": 2, "0000000002": 2}},
	}
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		as := store.NewSurveyAnswerStore(st)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				s := segSurvey(t, st, tenant, c.name)
				answers := segAnswers(s, c.n, c.size)
				ids, known := idsOf(answers), byID(answers)
				var tail *store.SegmentTail
				for pos := 0; pos < c.n; pos += c.batch {
					var err error
					if tail, err = as.AppendSegments(ctx, s.Tenant, s.Slug, tail, pos, ids[pos:min(pos+c.batch, c.n)], known, nil); err != nil {
						t.Fatal(err)
					}
				}
				if got := segmentBlobs(t, st, s.Tenant, s.Slug); !reflect.DeepEqual(got, c.want) {
					t.Fatalf("segments = %v, want %v", got, c.want)
				}
				checkScanSegments(t, as, s, answers)
				// A writer without a tail finds the same end.
				if n, err := as.Segmented(ctx, s.Tenant, s.Slug); n != c.n || err != nil {
					t.Fatalf("Segmented = %d, %v", n, err)
				}
			})
		}
	})
}

// readFixture is a survey of 16 answers of about a fifth of a segment (five to a
// segment): positions 0–11 in segments (0–4, 5–9 and the open 10–11),
// 12–13 listed only, 14–15 the summary's last batch, not listed yet.
func readFixture(t *testing.T, st storage.Storage, tenant string) (*survey.Survey, []*survey.SurveyAnswer) {
	t.Helper()
	s := segSurvey(t, st, tenant, "Reads")
	answers := segAnswers(s, 16, fifthOfSegment)
	fileBeforeSegments(t, st, s, answers, 2)
	as := store.NewSurveyAnswerStore(st)
	if _, err := as.AppendSegments(context.Background(), s.Tenant, s.Slug, nil, 0, idsOf(answers[:12]), nil, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"0000000000": 5, "0000000005": 5, "0000000010": 2}
	if got := segmentBlobs(t, st, s.Tenant, s.Slug); !reflect.DeepEqual(got, want) {
		t.Fatalf("segments = %v, want %v", got, want)
	}
	return s, answers
}

// TestScan reads from any position: from segments, then single blobs for
// the answers listed and not in segments, then for the summary's batch not
// listed yet; a single blob is read only for those.
func TestScan(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		s, answers := readFixture(t, st, tenant)
		for _, from := range []int{-1, 0, 3, 4, 5, 9, 10, 11, 12, 13, 14, 15, 16, 20} {
			t.Run(fmt.Sprint(from), func(t *testing.T) {
				spy := newSpy(st, 0, false)
				checkScan(t, store.NewSurveyAnswerStore(spy), s.Tenant, s.Slug, from, answers)
				if got, want := spy.answerGets(s.Tenant, s.Slug), min(max(16-max(from, 12), 0), 4); got != want {
					t.Fatalf("%d answer blobs read, want %d", got, want)
				}
			})
		}
		// f's error ends the scan.
		stop := errors.New("stop")
		n := 0
		err := store.NewSurveyAnswerStore(st).Scan(context.Background(), s.Tenant, s.Slug, 3, func(int, *survey.SurveyAnswer) error {
			if n++; n == 4 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != 4 {
			t.Fatalf("scan stopped with %v after %d answers", err, n)
		}
	})
}

// TestRangeAndLatest pages through a survey's answers, oldest or newest
// first.
func TestRangeAndLatest(t *testing.T) {
	seq := func(from, to int) []int { // from… to, either way, to included
		var out []int
		for i := from; ; {
			out = append(out, i)
			if i == to {
				return out
			}
			if from < to {
				i++
			} else {
				i--
			}
		}
	}
	ranges := []struct {
		offset, limit int
		want          []int
	}{
		{0, 5, seq(0, 4)},
		{3, 4, seq(3, 6)},
		{8, 6, seq(8, 13)}, // across segments and into the listed blobs
		{10, 10, seq(10, 15)},
		{13, 100, seq(13, 15)},
		{15, 1, seq(15, 15)},
		{16, 5, nil},
		{40, 5, nil},
		{0, 0, nil},
		{-3, 2, seq(0, 1)},
		{0, 100, seq(0, 15)},
	}
	latest := []struct {
		skip, limit int
		want        []int
	}{
		{0, 3, seq(15, 13)},
		{2, 3, seq(13, 11)},
		{5, 6, seq(10, 5)},
		{14, 5, seq(1, 0)},
		{16, 3, nil},
		{30, 3, nil},
		{0, 0, nil},
		{0, 100, seq(15, 0)},
	}
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		s, answers := readFixture(t, st, tenant)
		as := store.NewSurveyAnswerStore(st)
		check := func(what string, got []*survey.SurveyAnswer, total int, err error, want []int) {
			t.Helper()
			if err != nil || total != 16 || len(got) != len(want) {
				t.Fatalf("%s: %d answers of %d, %v; want %d of 16", what, len(got), total, err, len(want))
			}
			for i, p := range want {
				if !sameAnswer(got[i], answers[p]) {
					t.Fatalf("%s: answer %d is %s, want position %d (%s)", what, i, got[i].ID, p, answers[p].ID)
				}
			}
		}
		for _, r := range ranges {
			got, total, err := as.Range(ctx, s.Tenant, s.Slug, r.offset, r.limit)
			check(fmt.Sprintf("Range(%d, %d)", r.offset, r.limit), got, total, err, r.want)
		}
		for _, l := range latest {
			got, total, err := as.LatestAnswers(ctx, s.Tenant, s.Slug, l.skip, l.limit)
			check(fmt.Sprintf("LatestAnswers(%d, %d)", l.skip, l.limit), got, total, err, l.want)
		}
		// A survey without answers.
		empty := segSurvey(t, st, tenant, "Empty")
		if got, total, err := as.Range(ctx, empty.Tenant, empty.Slug, 0, 10); len(got) != 0 || total != 0 || err != nil {
			t.Fatalf("Range of no answers = %d, %d, %v", len(got), total, err)
		}
		if got, total, err := as.LatestAnswers(ctx, empty.Tenant, empty.Slug, 0, 10); len(got) != 0 || total != 0 || err != nil {
			t.Fatalf("LatestAnswers of no answers = %d, %d, %v", len(got), total, err)
		}
	})
}

// TestBuildSegments builds the segments of a survey answered before they
// existed, and resumes a build that failed part-way (before or after any
// storage call): what it wrote is kept, and the next build finishes with
// no answer missing or twice.
func TestBuildSegments(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		s := segSurvey(t, st, tenant, "Before segments")
		// 230 answers: three pages of the list as the build reads it;
		// the last two are the summary's batch, not listed yet (a build
		// leaves them to their writer).
		answers := segAnswers(s, 230, small)
		fileBeforeSegments(t, st, s, answers, 2)
		as := store.NewSurveyAnswerStore(st)
		check := func() {
			t.Helper()
			if n, err := as.Segmented(ctx, s.Tenant, s.Slug); n != 228 || err != nil {
				t.Fatalf("Segmented = %d, %v; want 228", n, err)
			}
			checkScanSegments(t, as, s, answers)
		}
		reset := func() {
			t.Helper()
			page, err := st.ListBlobs(ctx, store.SegmentContainer, storage.ListOptions{Prefix: s.Tenant + "-" + s.Slug + "/"})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range page.Items {
				if err := st.DeleteBlob(ctx, store.SegmentContainer, it.Name, ""); err != nil {
					t.Fatal(err)
				}
			}
		}
		// A clean build, then one with nothing to do.
		clean := newSpy(st, 0, false)
		if n, err := store.NewSurveyAnswerStore(clean).BuildSegments(ctx, s.Tenant, s.Slug); n != 228 || err != nil {
			t.Fatalf("BuildSegments = %d, %v; want 228", n, err)
		}
		check()
		calls := int(clean.Calls())
		t.Logf("a build of 228 answers makes %d storage calls", calls)
		if n, err := as.BuildSegments(ctx, s.Tenant, s.Slug); n != 0 || err != nil {
			t.Fatalf("a second BuildSegments = %d, %v; want 0", n, err)
		}
		// Builds that fail at call n (before, or just after it), then a
		// build that finishes.
		for _, n := range []int{1, 2, 3, 50, 104, 105, 106, 150, calls - 1, calls} {
			for _, after := range []bool{false, true} {
				t.Run(fmt.Sprintf("fail at %d, after %v", n, after), func(t *testing.T) {
					reset()
					added, err := store.NewSurveyAnswerStore(newSpy(st, n, after)).BuildSegments(ctx, s.Tenant, s.Slug)
					if !errors.Is(err, errInjected) {
						t.Fatalf("failing build: %d, %v", added, err)
					}
					have, err := as.Segmented(ctx, s.Tenant, s.Slug)
					if err != nil || have < added {
						t.Fatalf("Segmented = %d, %v after a build that added %d", have, err, added)
					}
					rest, err := as.BuildSegments(ctx, s.Tenant, s.Slug)
					if err != nil || have+rest != 228 {
						t.Fatalf("the next build added %d to %d, %v; want 228 in all", rest, have, err)
					}
					check()
				})
			}
		}
		// Builds each allowed 120 calls, one after the other, until one
		// finishes: each carries on where the last stopped.
		reset()
		runs := 0
		for total := 0; ; runs++ {
			if runs == 50 {
				t.Fatalf("50 builds of 120 calls added %d answers", total)
			}
			n, err := store.NewSurveyAnswerStore(newSpy(st, 120, false)).BuildSegments(ctx, s.Tenant, s.Slug)
			total += n
			if err == nil {
				if total != 228 {
					t.Fatalf("builds added %d answers in all, want 228", total)
				}
				break
			}
		}
		check()
		t.Logf("%d builds of at most 120 calls", runs+1)
	})
}

// TestDeleteSurveyDeletesSegments: deleting a survey deletes its segments
// and no other survey's (a slug that begins with its own included).
func TestDeleteSurveyDeletesSegments(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		as := store.NewSurveyAnswerStore(st)
		gone := segSurvey(t, st, tenant, "Survey")
		kept := segSurvey(t, st, tenant, "Survey 2")
		if !strings.HasPrefix(kept.Slug, gone.Slug) {
			t.Fatalf("slugs %q and %q", gone.Slug, kept.Slug)
		}
		for _, s := range []*survey.Survey{gone, kept} {
			answers := segAnswers(s, 12, fifthOfSegment)
			fileBeforeSegments(t, st, s, answers, 0)
			if n, err := as.BuildSegments(ctx, s.Tenant, s.Slug); n != 12 || err != nil {
				t.Fatalf("BuildSegments = %d, %v", n, err)
			}
			if n := len(segmentBlobs(t, st, s.Tenant, s.Slug)); n != 3 {
				t.Fatalf("%d segments, want 3", n)
			}
		}
		if err := store.NewSurveyStore(st).Delete(ctx, gone.Tenant, gone.Slug); err != nil {
			t.Fatal(err)
		}
		if got := segmentBlobs(t, st, gone.Tenant, gone.Slug); len(got) != 0 {
			t.Fatalf("segments left after Delete: %v", got)
		}
		if n, err := as.Segmented(ctx, gone.Tenant, gone.Slug); n != 0 || err != nil {
			t.Fatalf("Segmented after Delete = %d, %v", n, err)
		}
		if n := len(segmentBlobs(t, st, kept.Tenant, kept.Slug)); n != 3 {
			t.Fatalf("the other survey has %d segments, want 3", n)
		}
	})
}

// FuzzScanSegment reads a segment of arbitrary bytes: Scan fails or gives
// answers at consecutive positions; it never panics.
func FuzzScanSegment(f *testing.F) {
	f.Add([]byte("{\"id\":\"a\"}\n{\"id\":\"b\"}\n"))
	f.Add([]byte("{\"id\":\"a\"}"))
	f.Add([]byte("{\"id\":\"a\"}\n{\"id\":"))
	f.Add([]byte("\n\n"))
	f.Add([]byte("null\n[]\n"))
	f.Add([]byte("{\"answers\":[{\"answer\":\"\\u00e9\"}],\"createdOn\":\"not a time\"}\n"))
	f.Add([]byte{})
	st := backends.Local(f)
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		f.Fatal(err)
	}
	as := store.NewSurveyAnswerStore(st)
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := st.PutBlob(ctx, store.SegmentContainer, "fuzz-survey/0000000000", data, storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		next := 0
		err := as.Scan(ctx, "fuzz", "survey", 0, func(pos int, a *survey.SurveyAnswer) error {
			if pos != next {
				t.Fatalf("position %d after %d", pos, next-1)
			}
			next++
			return nil
		})
		if err == nil && 2*next > len(data) {
			t.Fatalf("%d answers from %q", next, data)
		}
		if _, err := as.Segmented(ctx, "fuzz", "survey"); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkBuildSegments builds the segments of a survey of 2,000 answers
// answered before segments existed, on each backend, and reports answers
// built per second and storage operations per answer (the start-up pass's
// cost for such a survey).
func BenchmarkBuildSegments(b *testing.B) {
	const n = 2000
	for _, backend := range backends.All {
		b.Run(backend.Name, func(b *testing.B) {
			ctx := context.Background()
			st := backend.Open(b)
			if err := store.Init(ctx, st); err != nil {
				b.Fatal(err)
			}
			tenant := newTenant()
			s := &survey.Survey{Tenant: tenant, Title: "Bench", State: survey.Published,
				Questions: []survey.Question{{Text: "Say", Type: survey.SimpleText}}}
			if err := store.NewSurveyStore(st).Create(ctx, s); err != nil {
				b.Fatal(err)
			}
			answers := segAnswers(s, n, func(int) int { return 200 })
			fileBeforeSegments(b, st, s, answers, 0)
			c := counting.New(st)
			as := store.NewSurveyAnswerStore(c)
			var ops int64
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				page, err := st.ListBlobs(ctx, store.SegmentContainer, storage.ListOptions{Prefix: tenant + "-" + s.Slug + "/"})
				if err != nil {
					b.Fatal(err)
				}
				for _, it := range page.Items {
					if err := st.DeleteBlob(ctx, store.SegmentContainer, it.Name, ""); err != nil {
						b.Fatal(err)
					}
				}
				before := c.Total("")
				b.StartTimer()
				if added, err := as.BuildSegments(ctx, tenant, s.Slug); added != n || err != nil {
					b.Fatalf("BuildSegments = %d, %v", added, err)
				}
				ops += c.Total("") - before
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "answers/s")
			b.ReportMetric(float64(ops)/float64(n*b.N), "ops/answer")
		})
	}
}

// fifthOfSegment: answers of which five fill a segment (each about 0.23
// of SegmentMaxBytes, its JSON included).
func fifthOfSegment(int) int { return store.SegmentMaxBytes * 60 / 256 }

// TestScanFiltered gives the answers a filter picks, in order, with the
// number of answers before each (deleted ones not counted), whether an
// answer is in a segment, listed only or in the summary's last batch,
// and counts every answer it read: what Scan and the filter's Match give.
func TestScanFiltered(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		s := segSurvey(t, st, tenant, "Filtered")
		answers := segAnswers(s, 20, small)
		yes := map[int]bool{}
		for i, a := range answers {
			text := []string{"No", "Yes", "yes "}[i%3]
			yes[i] = i%3 != 0
			a.Answers = []survey.QuestionAnswer{{QuestionID: s.Questions[0].ID, QuestionText: "Say", Type: survey.SimpleText, Answer: text}}
		}
		answers[4].Partial = true
		fileBeforeSegments(t, st, s, answers, 2)
		as := store.NewSurveyAnswerStore(st)
		if _, err := as.AppendSegments(ctx, s.Tenant, s.Slug, nil, 0, idsOf(answers[:14]), nil, nil); err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{2, 15} { // in a segment; listed only
			if err := as.DeleteAnswer(ctx, s, answers[i].ID); err != nil {
				t.Fatal(err)
			}
		}
		deleted := map[int]bool{2: true, 15: true}
		for _, c := range []struct {
			name  string
			query url.Values
			picks func(i int) bool
		}{
			{"none", url.Values{}, func(int) bool { return true }},
			{"an answer", url.Values{"c": {s.Questions[0].ID + "=yes"}}, func(i int) bool { return yes[i] }},
			{"an answer, complete", url.Values{"c": {s.Questions[0].ID + "=YES"}, "status": {"complete"}}, func(i int) bool { return yes[i] && i != 4 }},
			{"partial", url.Values{"status": {"partial"}}, func(i int) bool { return i == 4 }},
			{"no day", url.Values{"to": {"2001-01-01"}}, func(int) bool { return false }},
		} {
			t.Run(c.name, func(t *testing.T) {
				flt, err := survey.ParseAnswerFilter(s, c.query)
				if err != nil {
					t.Fatal(err)
				}
				var wantIDs []string
				var wantOf []int
				of := 0
				for i, a := range answers {
					if deleted[i] {
						continue
					}
					if c.picks(i) {
						wantIDs, wantOf = append(wantIDs, a.ID), append(wantOf, of)
					}
					of++
				}
				var gotIDs []string
				var gotOf []int
				read, err := as.ScanFiltered(ctx, s.Tenant, s.Slug, flt, func(of int, a *survey.SurveyAnswer) error {
					gotIDs, gotOf = append(gotIDs, a.ID), append(gotOf, of)
					return nil
				})
				if err != nil || read != 18 {
					t.Fatalf("ScanFiltered read %d answers, %v; want 18", read, err)
				}
				if !slices.Equal(gotIDs, wantIDs) || !slices.Equal(gotOf, wantOf) {
					t.Fatalf("picked %v at %v, want %v at %v", gotIDs, gotOf, wantIDs, wantOf)
				}
			})
		}
	})
}

// TestScanFilteredLong: a filtered scan of more answers than it peeks at
// to judge whether peeking pays gives what Scan and Match give, whether
// the filter picks most answers (it then stops peeking) or few.
func TestScanFilteredLong(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		testScanFilteredLong(t, st, tenant)
	})
}

func testScanFilteredLong(t *testing.T, st storage.Storage, tenant string) {
	ctx := context.Background()
	s := segSurvey(t, st, tenant, "Long")
	answers := segAnswers(s, 2500, small)
	for i, a := range answers {
		a.Answers = []survey.QuestionAnswer{{QuestionID: s.Questions[0].ID, QuestionText: "Say", Type: survey.SimpleText, Answer: fmt.Sprint(i % 7)}}
	}
	as := store.NewSurveyAnswerStore(st)
	ids := idsOf(answers)
	for pos := 0; pos < len(ids); pos += store.ListChunkSize {
		if _, err := as.AppendAt(ctx, s.Tenant, s.Slug, nil, pos, ids[pos:min(pos+store.ListChunkSize, len(ids))]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := as.AppendSegments(ctx, s.Tenant, s.Slug, nil, 0, ids, byID(answers), nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query url.Values
		picks func(i int) bool
	}{
		{url.Values{"c": {s.Questions[0].ID + "=3"}}, func(i int) bool { return i%7 == 3 }},
		{url.Values{"status": {"complete"}}, func(int) bool { return true }},
		{url.Values{"c": {s.Questions[0].ID + "=5"}, "status": {"complete"}}, func(i int) bool { return i%7 == 5 }},
	} {
		flt, err := survey.ParseAnswerFilter(s, c.query)
		if err != nil {
			t.Fatal(err)
		}
		var want, got []int
		for i := range answers {
			if c.picks(i) {
				want = append(want, i)
			}
		}
		read, err := as.ScanFiltered(ctx, s.Tenant, s.Slug, flt, func(of int, a *survey.SurveyAnswer) error {
			if a.ID != answers[of].ID {
				t.Fatalf("answer %d is %s, want %s", of, a.ID, answers[of].ID)
			}
			got = append(got, of)
			return nil
		})
		if err != nil || read != len(answers) || !slices.Equal(got, want) {
			t.Fatalf("%v: read %d, %v, picked %d answers (want %d of %d)", c.query, read, err, len(got), len(want), len(answers))
		}
	}
}

// TestScanFilteredParts: a filtered scan shared out among parts gives
// each answer once, in its part, in order, and the parts in order with
// their reads give what ScanFiltered gives (the same answers at the same
// numbers), whatever the number of parts asked for; the answers after
// the segments (listed only, or in the summary's last batch) in the last
// part, and deleted ones in none. A segment gone (a gap) reads as one
// part, as Scan reads it.
func TestScanFilteredParts(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		s := segSurvey(t, st, tenant, "Parts")
		answers := segAnswers(s, 70, fifthOfSegment)
		for i, a := range answers {
			// The text fills the segments (five answers each); the
			// answer the filters look at is another's.
			pad := a.Answers[0]
			pad.QuestionID = "pad"
			a.Answers = []survey.QuestionAnswer{{QuestionID: s.Questions[0].ID, QuestionText: "Say", Type: survey.SimpleText, Answer: []string{"No", "Yes", "yes "}[i%3]}, pad}
		}
		answers[4].Partial, answers[33].Partial = true, true
		fileBeforeSegments(t, st, s, answers, 3)
		as := store.NewSurveyAnswerStore(st)
		if _, err := as.AppendSegments(ctx, s.Tenant, s.Slug, nil, 0, idsOf(answers[:60]), nil, nil); err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{7, 62} { // in a segment; listed only
			if err := as.DeleteAnswer(ctx, s, answers[i].ID); err != nil {
				t.Fatal(err)
			}
		}
		type picked struct {
			id string
			of int
		}
		filters := []url.Values{{}, {"c": {s.Questions[0].ID + "=yes"}}, {"c": {s.Questions[0].ID + "=no"}, "status": {"complete"}}}
		// Each scan reads 12 MiB of segments (under -race in make test,
		// a second or more), so a few scans: parts fewer and more than
		// the segments make, filters picking all and some, the partial
		// and deleted answers among them.
		check := func(t *testing.T, filters []url.Values, ns []int, wantParts func(n int) int) {
			for _, q := range filters {
				flt, err := survey.ParseAnswerFilter(s, q)
				if err != nil {
					t.Fatal(err)
				}
				var want []picked
				read, err := as.ScanFiltered(ctx, s.Tenant, s.Slug, flt, func(of int, a *survey.SurveyAnswer) error {
					want = append(want, picked{a.ID, of})
					return nil
				})
				if err != nil || read != 68 || len(want) == 0 && q.Get("status") != "partial" {
					t.Fatalf("%v: ScanFiltered read %d, picked %d, %v", q, read, len(want), err)
				}
				for _, n := range ns {
					var parts [][]picked
					reads, err := as.ScanFilteredParts(ctx, s.Tenant, s.Slug, flt, n, func(k int) func(int, *survey.SurveyAnswer) error {
						if k != len(parts) {
							if k != 0 {
								t.Fatalf("start(%d) after %d parts", k, len(parts))
							}
							parts = nil // started over
						}
						parts = append(parts, nil)
						return func(of int, a *survey.SurveyAnswer) error {
							parts[k] = append(parts[k], picked{a.ID, of})
							return nil
						}
					})
					if err != nil || len(reads) != wantParts(n) || len(parts) != len(reads) {
						t.Fatalf("%v in %d parts: %d parts, %d made, %v; want %d", q, n, len(reads), len(parts), err, wantParts(n))
					}
					var got []picked
					before := 0
					for k, part := range parts {
						for _, p := range part {
							got = append(got, picked{p.id, p.of + before})
						}
						before += reads[k]
					}
					if before != read || !slices.Equal(got, want) {
						t.Fatalf("%v in %d parts: read %d (%v), picked\n%v\nwant\n%v", q, n, before, reads, got, want)
					}
				}
			}
		}
		// Twelve segments: up to three parts of four.
		t.Run("segments", func(t *testing.T) {
			check(t, []url.Values{filters[0], filters[2]}, []int{2, 5}, func(n int) int { return min(n, 3) })
		})
		gone := fmt.Sprintf("%s-%s/%010d", s.Tenant, s.Slug, 25)
		if err := st.DeleteBlob(ctx, store.SegmentContainer, gone, ""); err != nil {
			t.Fatal(err)
		}
		t.Run("gap", func(t *testing.T) { check(t, filters[1:2], []int{4}, func(int) int { return 1 }) })
	})
}
