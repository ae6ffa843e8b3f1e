package migrate_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/migrate"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/azure"
	"github.com/surveys-dev/surveys/internal/storage/azure/azuritetest"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
	"github.com/surveys-dev/surveys/internal/storage/local"
)

func TestMain(m *testing.M) { azuritetest.Main(m) }

// newAzurite opens the test binary's Azurite account.
func newAzurite(t *testing.T) storage.Storage {
	t.Helper()
	st, err := azure.New(azure.Config{ConnectionString: azuritetest.ConnectionString()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// source is an embedded store of names of its own (tests share one Azurite
// account), holding every kind of thing a migration copies.
type source struct {
	path   string
	prefix string // of every table, container and queue
	// public and private are the containers, queue the queue.
	public, private, queue string
	tables                 []string
}

func newSource(t *testing.T) *source {
	t.Helper()
	ctx := context.Background()
	p := "m" + strings.ToLower(rand.Text()[:8])
	src := &source{path: filepath.Join(t.TempDir(), "surveys.db"), prefix: p,
		public: p + "-logos", private: p + "-answers", queue: p + "-work", tables: []string{p + "big", p + "empty"}}
	s, err := local.Open(src.path)
	must(t, "Open", err)
	defer s.Close()
	for _, table := range src.tables {
		must(t, "CreateTable", s.CreateTable(ctx, table))
	}
	when := time.Date(2026, 3, 4, 5, 6, 7, 8000000, time.UTC)
	// 250 entities in 3 partitions: transactions are split at 100.
	for i := range 250 {
		e := storage.Entity{PartitionKey: fmt.Sprint("part", i%3), RowKey: fmt.Sprintf("row%04d", i), Properties: map[string]any{
			"Title": fmt.Sprintf("entity %d, ünïcode", i), "N": int64(i) << 40, "On": i%2 == 0, "When": when.Add(time.Duration(i) * time.Millisecond),
			"Raw": []byte{byte(i), 0, 255},
		}}
		_, err := s.InsertEntity(ctx, src.tables[0], e)
		must(t, "InsertEntity", err)
	}
	must(t, "CreateContainer", s.CreateContainer(ctx, src.public, true))
	must(t, "CreateContainer", s.CreateContainer(ctx, src.private, false))
	_, err = s.PutBlob(ctx, src.public, "logo.png", []byte("\x89PNG not really"), storage.PutOptions{ContentType: "image/png"})
	must(t, "PutBlob", err)
	for i := range 7 {
		_, err := s.PutBlob(ctx, src.private, fmt.Sprintf("answer %d.json", i), bytes.Repeat([]byte(fmt.Sprint(i)), 100*i), storage.PutOptions{ContentType: "application/json"})
		must(t, "PutBlob", err)
	}
	must(t, "CreateQueue", s.CreateQueue(ctx, src.queue))
	for i := range 10 {
		o := storage.EnqueueOptions{TTL: time.Hour}
		switch i {
		case 8:
			o.TTL = -1 // never expires
		case 9:
			o.Delay = 30 * time.Minute // not yet due
		}
		_, err := s.Enqueue(ctx, src.queue, []byte(fmt.Sprint("message ", i)), o)
		must(t, "Enqueue", err)
	}
	// Two messages taken by a worker (that then stopped): invisible, not done.
	got, err := s.Dequeue(ctx, src.queue, 2, time.Hour)
	if err != nil || len(got) != 2 {
		t.Fatalf("Dequeue = %v, %v", got, err)
	}
	return src
}

func (src *source) snapshot(t *testing.T) *local.Snapshot {
	t.Helper()
	snap, err := local.OpenSnapshot(context.Background(), src.path)
	must(t, "OpenSnapshot", err)
	t.Cleanup(func() { snap.Close() })
	return snap
}

func (src *source) copy(t *testing.T, dst storage.Storage) (migrate.Copied, error) {
	t.Helper()
	return migrate.Copy(context.Background(), src.snapshot(t), dst, migrate.Options{
		Checkpoint: src.path + ".checkpoint", Destination: "azurite"})
}

// compare checks that dst holds exactly what src holds: every entity with
// its properties, every blob with its content type, the containers' public
// flags, and every message once (the delayed one is still invisible; the
// ones a worker had taken are visible again).
func (src *source) compare(t *testing.T, dst storage.Storage) {
	t.Helper()
	ctx := context.Background()
	snap := src.snapshot(t)
	report, err := migrate.Verify(ctx, snap, dst, nil)
	must(t, "Verify", err)
	if !report.OK() {
		var b strings.Builder
		report.Print(&b)
		t.Fatalf("counts differ:\n%s", b.String())
	}
	for _, table := range src.tables {
		must(t, "Entities", snap.Entities(ctx, table, func(want storage.Entity) error {
			got, err := dst.GetEntity(ctx, table, want.PartitionKey, want.RowKey)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(got.Properties, want.Properties) {
				t.Errorf("%s/%s/%s: %#v, want %#v", table, want.PartitionKey, want.RowKey, got.Properties, want.Properties)
			}
			return nil
		}))
	}
	for _, c := range []string{src.public, src.private} {
		must(t, "Blobs", snap.Blobs(ctx, c, func(b local.BlobInfo, data []byte) error {
			got, err := dst.GetBlob(ctx, c, b.Name)
			if err != nil {
				return err
			}
			if !bytes.Equal(got.Data, data) || got.ContentType != b.ContentType {
				t.Errorf("blob %s/%s: %q %s, want %q %s", c, b.Name, got.Data, got.ContentType, data, b.ContentType)
			}
			return nil
		}))
	}
	// Public means anonymous reads.
	base := blobEndpoint(t)
	for c, public := range map[string]bool{src.public + "/logo.png": true, src.private + "/answer%201.json": false} {
		resp, err := http.Get(base + "/" + c)
		must(t, "anonymous GET", err)
		resp.Body.Close()
		if (resp.StatusCode == http.StatusOK) != public {
			t.Errorf("anonymous GET %s = %d; public: %v", c, resp.StatusCode, public)
		}
	}
	var want []string
	must(t, "Messages", snap.Messages(ctx, src.queue, func(m local.QueuedMessage) error {
		if m.DequeueCount > 0 || !m.VisibleAt.After(snap.At) {
			want = append(want, string(m.Data))
		}
		return nil
	}))
	got := dequeueAll(t, dst, src.queue)
	slices.Sort(want)
	slices.Sort(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("visible messages at the destination:\n%q, want\n%q", got, want)
	}
}

// dequeueAll takes every visible message of queue.
func dequeueAll(t *testing.T, st storage.Storage, queue string) []string {
	t.Helper()
	var out []string
	for {
		msgs, err := st.Dequeue(context.Background(), queue, storage.MaxDequeue, time.Hour)
		must(t, "Dequeue", err)
		if len(msgs) == 0 {
			return out
		}
		for _, m := range msgs {
			out = append(out, string(m.Data))
		}
	}
}

func blobEndpoint(t *testing.T) string {
	t.Helper()
	for _, part := range strings.Split(azuritetest.ConnectionString(), ";") {
		if k, v, ok := strings.Cut(part, "="); ok && k == "BlobEndpoint" {
			return strings.TrimSuffix(v, "/")
		}
	}
	t.Fatal("no BlobEndpoint in Azurite's connection string")
	return ""
}

func TestCopy(t *testing.T) {
	src := newSource(t)
	dst := newAzurite(t)
	c, err := src.copy(t, dst)
	must(t, "Copy", err)
	if c.Entities != 250 || c.Blobs != 8 || c.Messages != 10 {
		t.Errorf("copied %+v", c)
	}
	// The messages keep their remaining time to live.
	ctx := context.Background()
	msgs, err := dst.Dequeue(ctx, src.queue, storage.MaxDequeue, time.Second)
	must(t, "Dequeue", err)
	for _, m := range msgs {
		ttl := time.Until(m.ExpiresAt)
		if string(m.Data) == "message 8" {
			if ttl < 365*24*time.Hour {
				t.Errorf("the message that never expires expires in %v", ttl)
			}
		} else if ttl > time.Hour || ttl < 50*time.Minute {
			t.Errorf("%s expires in %v, want about an hour", m.Data, ttl)
		}
		_, err := dst.UpdateVisibility(ctx, src.queue, m.ID, m.PopReceipt, 0)
		must(t, "UpdateVisibility", err)
	}
	src.compare(t, dst)

	// Run again: nothing is copied twice.
	c, err = src.copy(t, dst)
	must(t, "Copy again", err)
	if c.Entities != 0 || c.Blobs != 0 || c.Messages != 0 || c.SkippedTables != 2 || c.SkippedBlobs != 8 || c.SkippedMessages != 10 {
		t.Errorf("the second run copied %+v", c)
	}
	n, err := dst.ApproximateCount(ctx, src.queue)
	if err != nil || n != 10 {
		t.Errorf("%d messages after a second run (%v), want 10", n, err)
	}
}

// errInjected is the failure of a destination that died (faulty.Store).
var errInjected = faulty.ErrCrash

// writesOf is a destination that dies at its write number failAt
// (counting from 1): before the write reaches the account, or, with after,
// once the account has done it (a reply lost on the network, or a crash
// before the checkpoint). 0 never fails: a clean run, which counts.
func writesOf(dst storage.Storage, failAt int64, after bool) *faulty.Store {
	f := faulty.At(dst, failAt, after)
	f.Counts = faulty.Writes
	return f
}

// kinds are the kinds of the writes f counted, in order.
func kinds(f *faulty.Store) []string {
	var out []string
	for _, c := range f.Ops() {
		out = append(out, c.Kind)
	}
	return out
}

// TestResume interrupts a migration at its k-th destination write, for
// every k of the migration (a table transaction, a blob, a message...),
// runs it again, and checks that the destination then equals the source,
// with no message twice.
func TestResume(t *testing.T) {
	// How many writes a whole migration makes.
	probe := newSource(t)
	counter := writesOf(newAzurite(t), 0, false)
	_, err := probe.copy(t, counter)
	must(t, "Copy", err)
	total := counter.Calls()
	if total < 20 {
		t.Fatalf("a migration made %d writes: %v", total, kinds(counter))
	}
	ks := []int64{1, 2, 3, 4, 5, 6, 7, 8, total / 2, total - 3, total - 1, total}
	for _, k := range ks {
		t.Run(fmt.Sprintf("k=%d-%s", k, kinds(counter)[k-1]), func(t *testing.T) {
			src := newSource(t)
			dst := newAzurite(t)
			_, err := src.copy(t, writesOf(dst, k, false))
			if !errors.Is(err, errInjected) {
				t.Fatalf("Copy failing at write %d = %v", k, err)
			}
			_, err = src.copy(t, dst)
			must(t, "Copy again", err)
			src.compare(t, dst)
		})
	}
}

// TestResumeAfterEnqueue: a migration interrupted after an enqueue and
// before its checkpoint enqueues that message again when run again; it
// costs one duplicate message, never a lost one. (The answers worker
// tolerates the duplicate: see TestDuplicateAnswerMessage.)
func TestResumeAfterEnqueue(t *testing.T) {
	src := newSource(t)
	dst := newAzurite(t)
	counter := writesOf(newAzurite(t), 0, false)
	_, err := newSource(t).copy(t, counter)
	must(t, "Copy", err)
	k := int64(slices.Index(kinds(counter), "enqueue") + 3) // the third message
	_, err = src.copy(t, writesOf(dst, k+1, true))
	if !errors.Is(err, errInjected) {
		t.Fatalf("Copy = %v", err)
	}
	_, err = src.copy(t, dst)
	must(t, "Copy again", err)
	got := dequeueAll(t, dst, src.queue)
	slices.Sort(got)
	dups := 0
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			dups++
		}
	}
	if len(got) != 10 || dups != 1 {
		t.Errorf("visible messages %q: want the 9 due ones once and one of them twice", got)
	}
	// The counts allow the duplicate the checkpoint tells of, and no more.
	possible, err := migrate.PossibleDuplicates(src.path + ".checkpoint")
	must(t, "PossibleDuplicates", err)
	if !reflect.DeepEqual(possible, map[string]int64{src.queue: 1}) {
		t.Errorf("PossibleDuplicates = %v", possible)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		dups map[string]int64
		ok   bool
	}{{possible, true}, {nil, false}} {
		report, err := migrate.Verify(ctx, src.snapshot(t), dst, tc.dups)
		must(t, "Verify", err)
		var b strings.Builder
		report.Print(&b)
		if report.OK() != tc.ok || (tc.ok && !strings.Contains(b.String(), "1 copied twice by a crash")) {
			t.Errorf("Verify with duplicates %v: OK = %v, want %v\n%s", tc.dups, report.OK(), tc.ok, b.String())
		}
	}
}

func TestCheckpointForAnotherDestination(t *testing.T) {
	src := newSource(t)
	dst := newAzurite(t)
	_, err := src.copy(t, dst)
	must(t, "Copy", err)
	_, err = migrate.Copy(context.Background(), src.snapshot(t), dst, migrate.Options{
		Checkpoint: src.path + ".checkpoint", Destination: "another account"})
	if err == nil || !strings.Contains(err.Error(), "was written for the destination azurite") {
		t.Fatalf("Copy with another destination's checkpoint = %v", err)
	}
}
