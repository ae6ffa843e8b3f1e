package worker_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// uploadSurvey is a published survey of a new tenant with a file upload
// question.
func uploadSurvey(t *testing.T, st storage.Storage) *survey.Survey {
	t.Helper()
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := worker.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	s := &survey.Survey{Tenant: newTenant(), Title: "Files", State: survey.Published, Questions: []survey.Question{
		{Text: "Your CV", Type: survey.FileUpload, PossibleAnswers: []string{"PDF"}, Max: "2", Scale: 5},
	}}
	if err := store.NewSurveyStore(st).Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// sweepNow is a sweeper for which every marker is past its grace.
func sweepNow(st storage.Storage) *worker.UploadSweeper {
	return worker.NewUploadSweeper(st, worker.SweepConfig{Grace: -time.Hour, Settle: time.Hour, Every: time.Hour, Batch: 10}, quiet)
}

// fileContent is the content of file i of a test: two and a half parts.
func fileContent(i int) []byte {
	return append([]byte(fmt.Sprintf("%%PDF-1.4\n%% file %d\n", i)), bytes.Repeat([]byte{byte('a' + i)}, 5*store.UploadPartSize/2)...)
}

// sendWithFile is a respondent's POST with one file, as the web does it:
// the storage taken, the answer's marker, the file's parts, the storage
// not used given back, then the answer made durable on the answers queue.
// It returns the answer and whether it was acknowledged.
func sendWithFile(st storage.Storage, s *survey.Survey, id string, content []byte) (survey.SurveyAnswer, bool) {
	ctx := context.Background()
	us := store.NewUploadStore(st)
	const limit = 5 << 20
	if err := us.Reserve(ctx, s.Tenant, limit, 100<<20); err != nil {
		return survey.SurveyAnswer{}, false
	}
	if err := us.Pending(ctx, s.Tenant, s.Slug, id); err != nil {
		return survey.SurveyAnswer{}, false
	}
	key := store.NewUploadKey(id)
	size, err := us.Put(ctx, s.Tenant, s.Slug, key, bytes.NewReader(content), "application/pdf", limit)
	if err != nil {
		return survey.SurveyAnswer{}, false
	}
	if err := us.Release(ctx, s.Tenant, limit-size); err != nil {
		return survey.SurveyAnswer{}, false
	}
	files := survey.EncodeFiles([]survey.UploadedFile{{Name: "cv.pdf", Size: size, Type: "application/pdf", Key: key}})
	a, err := survey.NewAnswer(s, map[string]survey.Form{s.Questions[0].ID: survey.Value(files)})
	if err != nil {
		panic(err)
	}
	a.ID, a.CreatedOn = id, time.Now().UTC()
	return a, store.NewSurveyAnswerStore(st).Enqueue(ctx, []survey.SurveyAnswer{a}) == nil
}

// checkUploads checks what the crash tests promise once the worker has
// filed every answer and the sweeper has settled every marker: every
// file a stored answer names is whole (its parts, its content), no part
// is stored that no answer names, no marker is left, and the tenant's
// storage counts at least the bytes stored (exactly, want >= 0).
func checkUploads(t *testing.T, st storage.Storage, s *survey.Survey, contents map[string][]byte, want int64) {
	t.Helper()
	ctx := context.Background()
	as, us := store.NewSurveyAnswerStore(st), store.NewUploadStore(st)
	claimed := map[string]bool{}
	err := as.ListAll(ctx, s.Tenant, s.Slug, func(id string) error {
		a, err := as.Get(ctx, s.Tenant, s.Slug, id)
		if err != nil {
			return err
		}
		qa, _ := a.Answer(s.Questions[0].ID)
		for _, f := range survey.DecodeFiles(qa.Answer) {
			claimed[f.Key] = true
			rc, err := us.Open(ctx, s.Tenant, s.Slug, f)
			if err != nil {
				t.Errorf("answer %s names file %s, which cannot be opened: %v", id, f.Key, err)
				continue
			}
			got, err := io.ReadAll(rc)
			if err != nil || !bytes.Equal(got, contents[id]) || int64(len(got)) != f.Size {
				t.Errorf("answer %s's file %s: %d bytes (%v), want %d", id, f.Key, len(got), err, len(contents[id]))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	page, err := st.ListBlobs(ctx, store.UploadsContainer(s.Tenant, s.Slug), storage.ListOptions{})
	if err != nil && !strings.Contains(err.Error(), "not found") {
		t.Fatal(err)
	}
	var stored int64
	for _, it := range page.Items {
		stored += it.Size
		if key := it.Name[:strings.LastIndexByte(it.Name, '/')]; !claimed[key] {
			t.Errorf("part %s is stored, and no answer claims it", it.Name)
		}
	}
	if left, err := us.PendingBefore(ctx, time.Now().Add(time.Hour), 10); err != nil || len(left) > 0 {
		t.Errorf("markers left: %v %v", left, err)
	}
	used, err := us.Usage(ctx, s.Tenant)
	if err != nil {
		t.Fatal(err)
	}
	if used < stored || want >= 0 && used != want {
		t.Errorf("the tenant's storage counts %d bytes; %d are stored (want %d)", used, stored, want)
	}
}

// TestUploadSweep: an answer filed keeps its file; the file of a
// respondent who never sent the form, and a second file sent in place of
// a first, are deleted by the sweeper, and their bytes given back; a
// marker younger than the grace is left.
func TestUploadSweep(t *testing.T) {
	// The embedded store only: on the test binary's shared Azurite
	// account, other tests' answers (the poison queue's among them) would
	// hold the sweep back. The parts and markers are checked on both
	// backends in store's TestUploadParts.
	st := backends.Local(t)
	ctx := context.Background()
	s := uploadSurvey(t, st)
	us := store.NewUploadStore(st)
	kept := store.NewAnswerID(time.Now())
	a, ok := sendWithFile(st, s, kept, fileContent(0))
	if !ok {
		t.Fatal("not acknowledged")
	}
	// The same form's first file, replaced before it was sent.
	first := store.NewUploadKey(kept)
	if _, err := us.Put(ctx, s.Tenant, s.Slug, first, bytes.NewReader(fileContent(1)), "application/pdf", 5<<20); err != nil {
		t.Fatal(err)
	}
	if err := us.Reserve(ctx, s.Tenant, int64(len(fileContent(1))), 0); err != nil {
		t.Fatal(err)
	}
	// A respondent who left.
	left := store.NewAnswerID(time.Now())
	if err := us.Pending(ctx, s.Tenant, s.Slug, left); err != nil {
		t.Fatal(err)
	}
	if err := us.Reserve(ctx, s.Tenant, int64(len(fileContent(2))), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := us.Put(ctx, s.Tenant, s.Slug, store.NewUploadKey(left), bytes.NewReader(fileContent(2)), "application/pdf", 5<<20); err != nil {
		t.Fatal(err)
	}
	drain(t, st, worker.New(st, patientConfig, quiet, nil))

	// Within the grace, nothing is swept.
	young := worker.NewUploadSweeper(st, worker.SweepConfig{Grace: time.Hour, Settle: time.Hour, Every: time.Hour, Batch: 10}, quiet)
	if n, err := young.RunOnce(ctx); err != nil || n != 0 {
		t.Fatalf("a sweep within the grace settled %d markers (%v)", n, err)
	}
	if n, err := sweepNow(st).RunOnce(ctx); err != nil || n != 2 {
		t.Fatalf("sweep settled %d markers (%v), want 2", n, err)
	}
	checkUploads(t, st, s, map[string][]byte{a.ID: fileContent(0)}, int64(len(fileContent(0))))
}

// TestUploadSweepHeld: while the answers queue holds an answer the worker
// has not filed for longer than Settle, the sweeper deletes nothing: the
// answer may claim its files.
func TestUploadSweepHeld(t *testing.T) {
	st := backends.Local(t)
	ctx := context.Background()
	s := uploadSurvey(t, st)
	a, ok := sendWithFile(st, s, store.NewAnswerID(time.Now()), fileContent(0))
	if !ok {
		t.Fatal("not acknowledged")
	}
	behind := worker.NewUploadSweeper(st, worker.SweepConfig{Grace: -time.Hour, Settle: -time.Hour, Every: time.Hour, Batch: 10}, quiet)
	if n, err := behind.RunOnce(ctx); err != nil || n != 0 {
		t.Fatalf("a sweep with the answers worker behind settled %d markers (%v)", n, err)
	}
	drain(t, st, worker.New(st, patientConfig, quiet, nil))
	if n, err := sweepNow(st).RunOnce(ctx); err != nil || n != 1 {
		t.Fatalf("sweep settled %d markers (%v), want 1", n, err)
	}
	checkUploads(t, st, s, map[string][]byte{a.ID: fileContent(0)}, int64(len(fileContent(0))))
}

// TestUploadCrash kills a respondent's POST with a file before and after
// each of its storage calls (the storage taken, the marker, each part,
// the storage given back, the answer's message); the respondent does not
// send it again. Then the worker files what was acknowledged and the
// sweeper settles the markers: an answer acknowledged has its file whole,
// no file is left that no answer claims, and the tenant's storage counts
// no fewer bytes than are stored. Then the sweeper itself is killed at
// each of its calls and run again: the same holds.
func TestUploadCrash(t *testing.T) {
	clean := faulty.New(backends.Local(t))
	s := uploadSurvey(t, clean.Unwrap())
	if _, ok := sendWithFile(clean, s, store.NewAnswerID(time.Now()), fileContent(0)); !ok {
		t.Fatal("a clean POST was not acknowledged")
	}
	total := clean.Calls()
	if total < 6 {
		t.Fatalf("a clean POST with a file makes %d storage calls", total)
	}
	for n := int64(1); n <= total; n++ {
		for _, after := range []bool{false, true} {
			t.Run(fmt.Sprintf("post/call=%d/after=%v", n, after), func(t *testing.T) {
				st := backends.Local(t)
				s := uploadSurvey(t, st)
				id := store.NewAnswerID(time.Now())
				a, acked := sendWithFile(faulty.At(st, n, after), s, id, fileContent(0))
				drain(t, st, worker.New(st, patientConfig, quiet, nil))
				if _, err := sweepNow(st).RunOnce(context.Background()); err != nil {
					t.Fatal(err)
				}
				if acked {
					if got, err := store.NewSurveyAnswerStore(st).Get(context.Background(), s.Tenant, s.Slug, a.ID); err != nil || len(store.Claimed(got)) != 1 {
						t.Fatalf("an acknowledged answer is not stored with its file: %v", err)
					}
				}
				checkUploads(t, st, s, map[string][]byte{id: fileContent(0)}, -1)
			})
		}
	}

	// The sweeper killed at each of its calls, then run again.
	prepare := func(st storage.Storage) (*survey.Survey, map[string][]byte) {
		s := uploadSurvey(t, st)
		contents := map[string][]byte{}
		for i := range 2 {
			id := store.NewAnswerID(time.Now())
			contents[id] = fileContent(i)
			if _, ok := sendWithFile(st, s, id, contents[id]); !ok {
				t.Fatal("not acknowledged")
			}
		}
		// A respondent who left.
		sendWithFile(faulty.At(st, 6, false), s, store.NewAnswerID(time.Now()), fileContent(5))
		drain(t, st, worker.New(st, patientConfig, quiet, nil))
		return s, contents
	}
	cleanSweep := faulty.New(backends.Local(t))
	prepare(cleanSweep.Unwrap())
	before := cleanSweep.Calls()
	if _, err := sweepNow(cleanSweep).RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	sweepCalls := cleanSweep.Calls() - before
	for n := int64(1); n <= sweepCalls; n++ {
		for _, after := range []bool{false, true} {
			t.Run(fmt.Sprintf("sweep/call=%d/after=%v", n, after), func(t *testing.T) {
				st := backends.Local(t)
				s, contents := prepare(st)
				_, _ = sweepNow(faulty.At(st, n, after)).RunOnce(context.Background())
				if _, err := sweepNow(st).RunOnce(context.Background()); err != nil {
					t.Fatal(err)
				}
				checkUploads(t, st, s, contents, -1)
			})
		}
	}
}
