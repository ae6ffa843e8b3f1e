package local_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/local"
)

// TestSnapshot: a snapshot lists every table, container and queue and
// reads every entity (with its property types), blob and message (the
// invisible and the never-expiring too, not the expired), as of when it
// began: writes made meanwhile are not in it.
func TestSnapshot(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "surveys.db")
	s := open(t, path)
	// The messages are queued a second ago: the one that lives 1 ms has
	// expired when the worker and the snapshot come.
	var skew atomic.Int64
	skew.Store(int64(-time.Second))
	local.SetClock(s, func() time.Time { return time.Now().Add(time.Duration(skew.Load())) })
	when := time.Date(2026, 1, 2, 3, 4, 5, 6000000, time.UTC)
	must(t, "CreateTable", s.CreateTable(ctx, "Surveys"))
	must(t, "CreateTable", s.CreateTable(ctx, "Empty"))
	props := map[string]any{"S": "text", "I": int64(1) << 60, "B": true, "D": when, "X": []byte{0, 1, 2}}
	for _, pk := range []string{"a", "b"} {
		for _, rk := range []string{"1", "2"} {
			_, err := s.InsertEntity(ctx, "Surveys", storage.Entity{PartitionKey: pk, RowKey: rk, Properties: props})
			must(t, "InsertEntity", err)
		}
	}
	must(t, "CreateContainer", s.CreateContainer(ctx, "logos", true))
	must(t, "CreateContainer", s.CreateContainer(ctx, "private", false))
	_, err := s.PutBlob(ctx, "logos", "a.png", []byte("png!"), storage.PutOptions{ContentType: "image/png"})
	must(t, "PutBlob", err)
	must(t, "CreateQueue", s.CreateQueue(ctx, "work"))
	for i, o := range []storage.EnqueueOptions{{}, {TTL: -1}, {Delay: time.Hour}, {TTL: time.Millisecond}} {
		_, err := s.Enqueue(ctx, "work", []byte(fmt.Sprint("m", i)), o)
		must(t, "Enqueue", err)
	}
	skew.Store(0)
	// A message taken by a worker is invisible, and still in the queue.
	msgs, err := s.Dequeue(ctx, "work", 1, time.Minute)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("Dequeue = %v, %v", msgs, err)
	}

	snap, err := local.OpenSnapshot(ctx, path)
	must(t, "OpenSnapshot", err)
	defer snap.Close()
	// Written after the snapshot began: not in it.
	_, err = s.InsertEntity(ctx, "Surveys", storage.Entity{PartitionKey: "c", RowKey: "1", Properties: props})
	must(t, "InsertEntity", err)
	must(t, "CreateQueue", s.CreateQueue(ctx, "later"))
	_, err = s.PutBlob(ctx, "private", "later", []byte("x"), storage.PutOptions{})
	must(t, "PutBlob", err)

	tables, err := snap.Tables(ctx)
	must(t, "Tables", err)
	if !reflect.DeepEqual(tables, []string{"empty", "surveys"}) {
		t.Errorf("Tables = %v", tables)
	}
	var keys []string
	must(t, "Entities", snap.Entities(ctx, "Surveys", func(e storage.Entity) error {
		keys = append(keys, e.PartitionKey+e.RowKey)
		if !reflect.DeepEqual(e.Properties, props) {
			t.Errorf("entity %s/%s: %#v, want %#v", e.PartitionKey, e.RowKey, e.Properties, props)
		}
		return nil
	}))
	if !reflect.DeepEqual(keys, []string{"a1", "a2", "b1", "b2"}) {
		t.Errorf("entities = %v", keys)
	}
	containers, err := snap.Containers(ctx)
	must(t, "Containers", err)
	if !reflect.DeepEqual(containers, []local.Container{{"logos", true}, {"private", false}}) {
		t.Errorf("Containers = %v", containers)
	}
	var blobs []string
	must(t, "Blobs", snap.Blobs(ctx, "logos", func(b local.BlobInfo, data []byte) error {
		blobs = append(blobs, fmt.Sprintf("%s %s %d %s", b.Name, b.ContentType, b.Size, data))
		return nil
	}))
	if !reflect.DeepEqual(blobs, []string{"a.png image/png 4 png!"}) {
		t.Errorf("blobs = %v", blobs)
	}
	queues, err := snap.Queues(ctx)
	must(t, "Queues", err)
	if !reflect.DeepEqual(queues, []string{"work"}) {
		t.Errorf("Queues = %v", queues)
	}
	var got []string
	must(t, "Messages", snap.Messages(ctx, "work", func(m local.QueuedMessage) error {
		got = append(got, fmt.Sprintf("%s dequeued=%d invisible=%v expires=%v", m.Data, m.DequeueCount, m.VisibleAt.After(snap.At), !m.ExpiresAt.IsZero()))
		return nil
	}))
	want := []string{"m0 dequeued=1 invisible=true expires=true", "m1 dequeued=0 invisible=false expires=false", "m2 dequeued=0 invisible=true expires=true"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("messages =\n%v, want\n%v", got, want)
	}
	c, err := snap.Counts(ctx)
	must(t, "Counts", err)
	wantCounts := local.Counts{
		Entities:  map[string]int64{"surveys": 4, "empty": 0},
		Blobs:     map[string]int64{"logos": 1, "private": 0},
		BlobBytes: map[string]int64{"logos": 4, "private": 0},
		Messages:  map[string]int64{"work": 3},
	}
	if !reflect.DeepEqual(c, wantCounts) {
		t.Errorf("Counts = %+v, want %+v", c, wantCounts)
	}
}

func TestSnapshotOfSomethingElse(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	must(t, "write", os.WriteFile(text, bytes.Repeat([]byte("not a database\n"), 100), 0o600))
	for name, path := range map[string]string{"text file": text, "folder": dir} {
		if _, err := local.OpenSnapshot(ctx, path); !errors.Is(err, local.ErrNotStore) {
			t.Errorf("%s: OpenSnapshot = %v, want ErrNotStore", name, err)
		}
	}
	if _, err := local.OpenSnapshot(ctx, filepath.Join(dir, "missing.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: OpenSnapshot = %v", err)
	}
	if err := local.Backup(ctx, text, filepath.Join(dir, "copy.db")); !errors.Is(err, local.ErrNotStore) {
		t.Errorf("Backup of a text file = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "copy.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Backup of a text file wrote a file: %v", err)
	}
}

// TestBackupWhileWriting backs a store up while writers keep committing to
// it. Each writer puts a blob and then an entity naming it, in two
// commits, so a copy of one instant has an entity only for blobs it holds;
// and the copy passes integrity_check and opens as a store.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "surveys.db")
	s := open(t, path)
	must(t, "CreateTable", s.CreateTable(ctx, "Refs"))
	must(t, "CreateContainer", s.CreateContainer(ctx, "data", false))
	var (
		n    atomic.Int64
		stop = make(chan struct{})
		wg   sync.WaitGroup
	)
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("w%d-%06d", w, i)
				if _, err := s.PutBlob(ctx, "data", name, bytes.Repeat([]byte{'x'}, 1000), storage.PutOptions{}); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.InsertEntity(ctx, "Refs", storage.Entity{PartitionKey: "p", RowKey: name}); err != nil {
					t.Error(err)
					return
				}
				n.Add(1)
			}
		})
	}
	for n.Load() < 50 {
		time.Sleep(time.Millisecond)
	}
	var copies []string
	for i := range 3 {
		dst := filepath.Join(dir, fmt.Sprintf("backup%d.db", i))
		must(t, "Backup", local.Backup(ctx, path, dst))
		copies = append(copies, dst)
	}
	close(stop)
	wg.Wait()
	if err := local.Backup(ctx, path, copies[0]); !errors.Is(err, os.ErrExist) {
		t.Errorf("Backup over an existing file = %v", err)
	}
	for _, c := range copies {
		must(t, "Check", local.Check(ctx, c))
		b := open(t, c)
		refs, err := b.QueryPartition(ctx, "Refs", "p", storage.Query{})
		must(t, "QueryPartition", err)
		for _, e := range refs.Entities {
			if _, err := b.GetBlob(ctx, "data", e.RowKey); err != nil {
				t.Errorf("%s: entity %s without its blob: %v", c, e.RowKey, err)
			}
		}
		if len(refs.Entities) == 0 {
			t.Errorf("%s holds no entity", c)
		}
	}
	t.Logf("%d writes during the backups; the first copy holds a snapshot", n.Load())
}

// TestLockExclusive: a store open anywhere keeps LockExclusive from
// succeeding, and the exclusive lock keeps Open from succeeding.
func TestLockExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "surveys.db")
	s, err := local.Open(path)
	must(t, "Open", err)
	if _, err := local.LockExclusive(path); !errors.Is(err, local.ErrInUse) {
		t.Fatalf("LockExclusive of an open store = %v, want ErrInUse", err)
	}
	must(t, "Close", s.Close())
	release, err := local.LockExclusive(path)
	must(t, "LockExclusive of a closed store", err)
	if _, err := local.Open(path); !errors.Is(err, local.ErrInUse) {
		t.Errorf("Open under the exclusive lock = %v, want ErrInUse", err)
	}
	must(t, "release", release())
	open(t, path)
}
