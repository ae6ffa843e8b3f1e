package local_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/storage/storagetest"
)

func TestContract(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Storage {
		return open(t, filepath.Join(t.TempDir(), "surveys.db"))
	})
}

// open opens a store at path and closes it when the test ends.
func open(t testing.TB, path string) *local.Store {
	t.Helper()
	s, err := local.Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func must(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func TestPersistence(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "odd ?#% name.db")

	s, err := local.Open(path)
	must(t, "Open", err)
	must(t, "CreateTable", s.CreateTable(ctx, "Surveys"))
	etag, err := s.InsertEntity(ctx, "surveys", storage.Entity{PartitionKey: "p", RowKey: "r",
		Properties: map[string]any{"T": "x", "When": time.Unix(1, 5).UTC()}})
	must(t, "InsertEntity", err)
	must(t, "CreateContainer", s.CreateContainer(ctx, "logos", true))
	betag, err := s.PutBlob(ctx, "logos", "a.png", []byte("png"), storage.PutOptions{ContentType: "image/png"})
	must(t, "PutBlob", err)
	must(t, "CreateQueue", s.CreateQueue(ctx, "work"))
	id, err := s.Enqueue(ctx, "work", []byte("job"), storage.EnqueueOptions{})
	must(t, "Enqueue", err)
	must(t, "Close", s.Close())

	s = open(t, path)
	e, err := s.GetEntity(ctx, "SURVEYS", "p", "r")
	must(t, "GetEntity after reopen", err)
	if e.ETag != etag || e.String("T") != "x" || !e.Time("When").Equal(time.Unix(1, 5)) {
		t.Errorf("entity after reopen = %+v", e)
	}
	b, err := s.GetBlob(ctx, "logos", "a.png")
	must(t, "GetBlob after reopen", err)
	if string(b.Data) != "png" || b.ETag != betag || b.ContentType != "image/png" {
		t.Errorf("blob after reopen = %+v", b)
	}
	public, err := s.ContainerIsPublic(ctx, "logos")
	must(t, "ContainerIsPublic", err)
	if !public {
		t.Error("container is not public after reopen")
	}
	msgs, err := s.Dequeue(ctx, "work", 32, time.Minute)
	must(t, "Dequeue after reopen", err)
	if len(msgs) != 1 || msgs[0].ID != id || string(msgs[0].Data) != "job" {
		t.Fatalf("messages after reopen = %+v", msgs)
	}
	// Enqueue after reopen continues the order and gives a fresh ID.
	id2, err := s.Enqueue(ctx, "work", []byte("job2"), storage.EnqueueOptions{})
	must(t, "Enqueue", err)
	if id2 == id {
		t.Error("ID reused")
	}
}

func TestContainerIsPublic(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "db"))
	must(t, "CreateContainer", s.CreateContainer(ctx, "private", false))
	// A second create does not change the flag.
	must(t, "CreateContainer", s.CreateContainer(ctx, "private", true))
	public, err := s.ContainerIsPublic(ctx, "private")
	must(t, "ContainerIsPublic", err)
	if public {
		t.Error("private container reported public")
	}
	_, err = s.ContainerIsPublic(ctx, "missing")
	if !errors.Is(err, storage.ErrContainerNotFound) {
		t.Errorf("ContainerIsPublic of a missing container: %v", err)
	}
}

// TestGroupCommit runs many concurrent writers of every kind, some failing,
// and checks that each got its own outcome.
func TestGroupCommit(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "db"))
	must(t, "CreateTable", s.CreateTable(ctx, "counts"))
	must(t, "CreateContainer", s.CreateContainer(ctx, "blobs", false))
	must(t, "CreateQueue", s.CreateQueue(ctx, "jobs"))

	const workers, each = 64, 20
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				key := fmt.Sprintf("w%02d-%02d", w, i)
				if _, err := s.InsertEntity(ctx, "counts", storage.Entity{PartitionKey: "p", RowKey: key}); err != nil {
					errs <- err
				}
				// Every insert of row "dup" but one fails, alone.
				_, err := s.InsertEntity(ctx, "counts", storage.Entity{PartitionKey: "p", RowKey: "dup"})
				if err != nil && !errors.Is(err, storage.ErrExists) {
					errs <- err
				}
				if _, err := s.PutBlob(ctx, "blobs", key, []byte(key), storage.PutOptions{IfNoneMatch: "*"}); err != nil {
					errs <- err
				}
				if _, err := s.Enqueue(ctx, "jobs", []byte(key), storage.EnqueueOptions{}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	n := 0
	for q := (storage.Query{}); ; {
		page, err := s.QueryPartition(ctx, "counts", "p", q)
		must(t, "QueryPartition", err)
		n += len(page.Entities)
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	if want := workers*each + 1; n != want {
		t.Errorf("%d rows, want %d", n, want)
	}
	page, err := s.ListBlobs(ctx, "blobs", storage.ListOptions{})
	must(t, "ListBlobs", err)
	if len(page.Items) != workers*each {
		t.Errorf("%d blobs, want %d", len(page.Items), workers*each)
	}
	count, err := s.ApproximateCount(ctx, "jobs")
	must(t, "ApproximateCount", err)
	if count != workers*each {
		t.Errorf("%d messages, want %d", count, workers*each)
	}

	// Concurrent consumers see every message exactly once.
	seen := make(map[string]int)
	var mu sync.Mutex
	for range 16 {
		wg.Go(func() {
			for {
				msgs, err := s.Dequeue(ctx, "jobs", 32, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if len(msgs) == 0 {
					return
				}
				for _, m := range msgs {
					mu.Lock()
					seen[string(m.Data)]++
					mu.Unlock()
					if err := s.DeleteMessage(ctx, "jobs", m.ID, m.PopReceipt); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Wait()
	if len(seen) != workers*each {
		t.Errorf("%d distinct messages delivered, want %d", len(seen), workers*each)
	}
	for body, n := range seen {
		if n != 1 {
			t.Errorf("message %s delivered %d times", body, n)
		}
	}
}

func TestQueueOrder(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "db"))
	must(t, "CreateQueue", s.CreateQueue(ctx, "fifo"))
	for i := range 50 {
		_, err := s.Enqueue(ctx, "fifo", []byte{byte(i)}, storage.EnqueueOptions{})
		must(t, "Enqueue", err)
	}
	var got []byte
	for len(got) < 50 {
		msgs, err := s.Dequeue(ctx, "fifo", 7, time.Minute)
		must(t, "Dequeue", err)
		if len(msgs) == 0 {
			t.Fatalf("queue ran dry after %d", len(got))
		}
		for _, m := range msgs {
			got = append(got, m.Data...)
		}
	}
	for i, b := range got {
		if int(b) != i {
			t.Fatalf("delivery %d is message %d", i, b)
		}
	}
	// A message ID from a deleted queue does not name a message of the new one.
	msgs, err := s.Dequeue(ctx, "fifo", 1, time.Second)
	must(t, "Dequeue", err)
	_ = msgs
	must(t, "DeleteQueue", s.DeleteQueue(ctx, "fifo"))
	must(t, "CreateQueue", s.CreateQueue(ctx, "fifo"))
	id, err := s.Enqueue(ctx, "fifo", []byte("new"), storage.EnqueueOptions{})
	must(t, "Enqueue", err)
	fresh, err := s.Dequeue(ctx, "fifo", 1, time.Minute)
	must(t, "Dequeue", err)
	if len(fresh) != 1 || fresh[0].ID != id {
		t.Fatalf("fresh = %+v", fresh)
	}
	err = s.DeleteMessage(ctx, "fifo", "00000000-0000-0001-0000-000000000000", fresh[0].PopReceipt)
	if !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("DeleteMessage of a made-up ID: %v", err)
	}
	err = s.DeleteMessage(ctx, "fifo", "garbage", fresh[0].PopReceipt)
	if !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("DeleteMessage of a garbage ID: %v", err)
	}
	err = s.DeleteMessage(ctx, "fifo", id, "stale")
	if !errors.Is(err, storage.ErrPrecondition) {
		t.Errorf("DeleteMessage with a wrong pop receipt: %v", err)
	}
}

func TestContinuationTokens(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "db"))
	must(t, "CreateTable", s.CreateTable(ctx, "rows"))
	must(t, "CreateContainer", s.CreateContainer(ctx, "blobs", false))
	for _, k := range []string{"a", "b", "c"} {
		_, err := s.InsertEntity(ctx, "rows", storage.Entity{PartitionKey: "p", RowKey: k})
		must(t, "InsertEntity", err)
		_, err = s.PutBlob(ctx, "blobs", k, nil, storage.PutOptions{})
		must(t, "PutBlob", err)
	}
	page, err := s.QueryPartition(ctx, "rows", "p", storage.Query{Top: 2})
	must(t, "QueryPartition", err)
	if len(page.Entities) != 2 || page.Continuation == "" {
		t.Fatalf("first page = %+v", page)
	}
	// Exactly a full last page has no continuation.
	page, err = s.QueryPartition(ctx, "rows", "p", storage.Query{Top: 3})
	must(t, "QueryPartition", err)
	if len(page.Entities) != 3 || page.Continuation != "" {
		t.Fatalf("full page = %+v", page)
	}
	_, err = s.QueryPartition(ctx, "rows", "p", storage.Query{Continuation: "bogus"})
	if !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("bogus continuation: %v", err)
	}
	_, err = s.ListBlobs(ctx, "blobs", storage.ListOptions{Marker: "bogus"})
	if !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("bogus marker: %v", err)
	}
	bp, err := s.ListBlobs(ctx, "blobs", storage.ListOptions{MaxResults: 1})
	must(t, "ListBlobs", err)
	bp, err = s.ListBlobs(ctx, "blobs", storage.ListOptions{MaxResults: 5, Marker: bp.NextMarker})
	must(t, "ListBlobs", err)
	if len(bp.Items) != 2 || bp.Items[0].Name != "b" || bp.NextMarker != "" {
		t.Errorf("second blob page = %+v", bp)
	}
	b, err := s.GetBlob(ctx, "blobs", "a")
	must(t, "GetBlob", err)
	if b.Data == nil || len(b.Data) != 0 || b.ContentType != "application/octet-stream" {
		t.Errorf("empty blob = %+v", b)
	}
}

func TestClose(t *testing.T) {
	ctx := context.Background()
	s, err := local.Open(filepath.Join(t.TempDir(), "db"))
	must(t, "Open", err)
	must(t, "CreateContainer", s.CreateContainer(ctx, "blobs", false))

	// Writes racing with Close either succeed or fail with ErrClosed.
	// Close comes once every writer has written (not after a while).
	var wg, started sync.WaitGroup
	for w := range 32 {
		started.Add(1)
		wg.Go(func() {
			once := sync.OnceFunc(started.Done)
			defer once()
			for i := 0; ; i++ {
				_, err := s.PutBlob(ctx, "blobs", fmt.Sprintf("%d-%d", w, i), []byte("x"), storage.PutOptions{})
				if errors.Is(err, local.ErrClosed) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				once()
			}
		})
	}
	started.Wait()
	must(t, "Close", s.Close())
	wg.Wait()
	must(t, "second Close", s.Close())

	if _, err := s.GetBlob(ctx, "blobs", "0-0"); !errors.Is(err, local.ErrClosed) {
		t.Errorf("GetBlob after Close: %v", err)
	}
	if err := s.CreateTable(ctx, "after"); !errors.Is(err, local.ErrClosed) {
		t.Errorf("CreateTable after Close: %v", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, local.ErrClosed) {
		t.Errorf("Ping after Close: %v", err)
	}
}

func TestCanceledContext(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "db"))
	must(t, "CreateContainer", s.CreateContainer(context.Background(), "blobs", false))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.PutBlob(ctx, "blobs", "b", []byte("x"), storage.PutOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("PutBlob with a canceled context: %v", err)
	}
	if _, err := s.GetBlob(context.Background(), "blobs", "b"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("canceled put wrote the blob: %v", err)
	}

	// A context that ends while its write waits either wrote or did not:
	// the error says which.
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%5)*100*time.Microsecond)
			defer cancel()
			name := fmt.Sprint(i)
			_, err := s.PutBlob(ctx, "blobs", name, []byte(name), storage.PutOptions{})
			_, gerr := s.GetBlob(context.Background(), "blobs", name)
			switch {
			case err == nil && gerr != nil:
				t.Errorf("put %s succeeded but get failed: %v", name, gerr)
			case err != nil && !errors.Is(err, context.DeadlineExceeded):
				t.Errorf("put %s: %v", name, err)
			case err != nil && !errors.Is(gerr, storage.ErrNotFound):
				t.Errorf("put %s timed out but the blob is there (%v)", name, gerr)
			}
		})
	}
	wg.Wait()
}

func TestEntityTypes(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "db"))
	must(t, "CreateTable", s.CreateTable(ctx, "types"))
	when := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", 3600))
	in := map[string]any{
		"Max": int64(1<<63 - 1), "Min": int64(-1 << 63), "When": when, "Zero": time.Time{},
		"Nil": []byte(nil), "Bytes": []byte{0xff}, "F": false,
	}
	_, err := s.UpsertEntity(ctx, "types", storage.Entity{PartitionKey: "p", RowKey: "r", Properties: in})
	must(t, "UpsertEntity", err)
	e, err := s.GetEntity(ctx, "types", "p", "r")
	must(t, "GetEntity", err)
	if e.Int("Max") != 1<<63-1 || e.Int("Min") != -1<<63 {
		t.Errorf("ints = %v %v", e.Properties["Max"], e.Properties["Min"])
	}
	if got := e.Time("When"); !got.Equal(when) || got.Location() != time.UTC {
		t.Errorf("When = %v", got)
	}
	if !e.Time("Zero").IsZero() {
		t.Errorf("Zero = %v", e.Properties["Zero"])
	}
	if b, ok := e.Properties["Nil"].([]byte); !ok || len(b) != 0 {
		t.Errorf("Nil = %#v", e.Properties["Nil"])
	}
	if !bytes.Equal(e.Bytes("Bytes"), []byte{0xff}) {
		t.Errorf("Bytes = %#v", e.Properties["Bytes"])
	}
	if f, ok := e.Properties["F"].(bool); !ok || f {
		t.Errorf("F = %#v", e.Properties["F"])
	}
}

// BenchmarkPutBlobParallel measures durable blob writes from many
// goroutines, which group commit shares fsyncs between: plain, and
// If-None-Match * with an answer's size, as the worker files answers.
func BenchmarkPutBlobParallel(b *testing.B) {
	for _, bc := range []struct {
		name string
		size int
		o    storage.PutOptions
	}{
		{"plain", 1024, storage.PutOptions{}},
		{"if-none-match", 2500, storage.PutOptions{ContentType: "application/json", IfNoneMatch: storage.ETagAny}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			s := open(b, filepath.Join(b.TempDir(), "db"))
			must(b, "CreateContainer", s.CreateContainer(ctx, "bench", false))
			data := bytes.Repeat([]byte("x"), bc.size)
			b.SetParallelism(16)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			var mu sync.Mutex
			next := 0
			b.RunParallel(func(pb *testing.PB) {
				mu.Lock()
				g := next
				next++
				mu.Unlock()
				for i := 0; pb.Next(); i++ {
					if _, err := s.PutBlob(ctx, "bench", fmt.Sprintf("g%d/%d", g, i), data, bc.o); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
		})
	}
}

// BenchmarkPutBlobSerial is the baseline: one writer, one fsync per write.
func BenchmarkPutBlobSerial(b *testing.B) {
	ctx := context.Background()
	s := open(b, filepath.Join(b.TempDir(), "db"))
	must(b, "CreateContainer", s.CreateContainer(ctx, "bench", false))
	data := bytes.Repeat([]byte("x"), 1024)
	b.SetBytes(int64(len(data)))
	for i := 0; b.Loop(); i++ {
		if _, err := s.PutBlob(ctx, "bench", fmt.Sprint(i), data, storage.PutOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
}

// BenchmarkGetBlobInto1MiB reads blobs of 1 MiB (an answer segment's
// cap) one after the other into one buffer, as a scan of a survey's
// segments does: ns/op is a blob's, with the process's CPU time.
func BenchmarkGetBlobInto1MiB(b *testing.B) {
	ctx := context.Background()
	s := open(b, filepath.Join(b.TempDir(), "db"))
	must(b, "CreateContainer", s.CreateContainer(ctx, "bench", false))
	const blobs = 32
	for i := range blobs {
		data := bytes.Repeat([]byte{byte('a' + i%26)}, 1<<20)
		if _, err := s.PutBlob(ctx, "bench", fmt.Sprint(i), data, storage.PutOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	var buf []byte
	b.SetBytes(1 << 20)
	start := cpuTime()
	for i := 0; b.Loop(); i++ {
		got, err := s.GetBlobInto(ctx, "bench", fmt.Sprint(i%blobs), buf)
		if err != nil || len(got.Data) != 1<<20 || got.Data[0] != byte('a'+i%blobs%26) {
			b.Fatalf("GetBlobInto = %d bytes, %v", len(got.Data), err)
		}
		buf = got.Data
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkWriteMix is the answer path's writes on their own: 64
// goroutines (as many as the worker files answers with at once) write
// answer-sized blobs under If-None-Match *, and every eighth write is a
// message enqueued (the notifier's) or a message dequeued and deleted
// (the worker's). It reports the process's CPU time per write, nearly
// all of it the writer goroutine's, and the writes per commit.
func BenchmarkWriteMix(b *testing.B) {
	ctx := context.Background()
	s, err := local.Open(filepath.Join(b.TempDir(), "db"))
	must(b, "Open", err)
	must(b, "CreateContainer", s.CreateContainer(ctx, "answers", false))
	must(b, "CreateQueue", s.CreateQueue(ctx, "answers"))
	answer := bytes.Repeat([]byte("a"), 2500)
	message := bytes.Repeat([]byte("m"), 8000)
	put := storage.PutOptions{ContentType: "application/json", IfNoneMatch: storage.ETagAny}
	commits0 := local.Commits(s)
	b.SetParallelism(32)
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	var (
		mu   sync.Mutex
		next int
	)
	b.RunParallel(func(pb *testing.PB) {
		mu.Lock()
		g := next
		next++
		mu.Unlock()
		for i := 0; pb.Next(); i++ {
			var err error
			switch i % 8 {
			case 0:
				_, err = s.Enqueue(ctx, "answers", message, storage.EnqueueOptions{})
			case 4:
				var msgs []storage.Message
				msgs, err = s.Dequeue(ctx, "answers", 1, time.Minute)
				for _, m := range msgs {
					if err == nil {
						err = s.DeleteMessage(ctx, "answers", m.ID, m.PopReceipt)
					}
				}
			default:
				_, err = s.PutBlob(ctx, "answers", fmt.Sprintf("g%d/%d", g, i), answer, put)
			}
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	cpu := cpuTime() - start
	b.StopTimer()
	must(b, "Close", s.Close())
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(b.N)/float64(local.Commits(s)-commits0), "ops/commit")
}
