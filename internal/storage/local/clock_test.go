package local

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
)

// fakeClock is a settable clock for the store's now field.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func openWithClock(t *testing.T) (*Store, *fakeClock) {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := &fakeClock{t: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}
	s.now = c.now // before any operation that reads it
	return s, c
}

func TestQueueClock(t *testing.T) {
	ctx := context.Background()
	s, clock := openWithClock(t)
	if err := s.CreateQueue(ctx, "q-clock"); err != nil {
		t.Fatal(err)
	}
	enqueue := func(body string, o storage.EnqueueOptions) string {
		t.Helper()
		id, err := s.Enqueue(ctx, "q-clock", []byte(body), o)
		if err != nil {
			t.Fatalf("Enqueue %s: %v", body, err)
		}
		return id
	}
	dequeue := func(vis time.Duration) []string {
		t.Helper()
		msgs, err := s.Dequeue(ctx, "q-clock", 32, vis)
		if err != nil {
			t.Fatalf("Dequeue: %v", err)
		}
		var bodies []string
		for _, m := range msgs {
			bodies = append(bodies, string(m.Data))
		}
		return bodies
	}
	count := func() int {
		t.Helper()
		n, err := s.ApproximateCount(ctx, "q-clock")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	enqueue("hour", storage.EnqueueOptions{TTL: time.Hour})
	enqueue("default", storage.EnqueueOptions{})
	enqueue("forever", storage.EnqueueOptions{TTL: -1})
	enqueue("delayed", storage.EnqueueOptions{Delay: 10 * time.Minute})

	if got := dequeue(time.Minute); len(got) != 3 || got[0] != "hour" || got[1] != "default" || got[2] != "forever" {
		t.Fatalf("first dequeue = %v", got)
	}
	clock.advance(59 * time.Second)
	if got := dequeue(time.Minute); len(got) != 0 {
		t.Fatalf("dequeue before the visibility timeout = %v", got)
	}
	clock.advance(10 * time.Minute)
	if got := dequeue(time.Minute); len(got) != 4 {
		t.Fatalf("dequeue after 11 minutes = %v", got)
	}
	clock.advance(time.Hour)
	if got := dequeue(time.Minute); len(got) != 3 {
		t.Fatalf("dequeue after the hour = %v, want the hour message gone", got)
	}
	if n := count(); n != 3 {
		t.Errorf("count after the hour = %d", n)
	}
	clock.advance(7 * 24 * time.Hour)
	got := dequeue(time.Minute)
	if len(got) != 1 || got[0] != "forever" {
		t.Fatalf("dequeue after a week = %v", got)
	}
	if n := count(); n != 1 {
		t.Errorf("count after a week = %d", n)
	}
	// Expired messages were purged, not just hidden.
	var rows int
	if err := s.rdb.QueryRow("SELECT COUNT(*) FROM messages").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 1 {
		t.Errorf("%d message rows left, want 1", rows)
	}
}

func TestExpiredMessageOps(t *testing.T) {
	ctx := context.Background()
	s, clock := openWithClock(t)
	if err := s.CreateQueue(ctx, "q-exp"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Enqueue(ctx, "q-exp", []byte("x"), storage.EnqueueOptions{TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	msgs, err := s.Dequeue(ctx, "q-exp", 1, 30*time.Second)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("Dequeue = %v, %v", msgs, err)
	}
	m := msgs[0]
	if want := clock.now().Add(time.Minute); !m.ExpiresAt.Equal(want) || !m.InsertedAt.Equal(clock.now()) {
		t.Errorf("InsertedAt %v ExpiresAt %v", m.InsertedAt, m.ExpiresAt)
	}
	clock.advance(2 * time.Minute)
	if _, err := s.UpdateVisibility(ctx, "q-exp", m.ID, m.PopReceipt, 0); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("UpdateVisibility of an expired message: %v", err)
	}
	if err := s.DeleteMessage(ctx, "q-exp", m.ID, m.PopReceipt); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("DeleteMessage of an expired message: %v", err)
	}
}

func TestEntityTimestamp(t *testing.T) {
	ctx := context.Background()
	s, clock := openWithClock(t)
	if err := s.CreateTable(ctx, "stamps"); err != nil {
		t.Fatal(err)
	}
	clock.advance(123456789 * time.Nanosecond)
	if _, err := s.InsertEntity(ctx, "stamps", storage.Entity{PartitionKey: "p", RowKey: "r"}); err != nil {
		t.Fatal(err)
	}
	e, err := s.GetEntity(ctx, "stamps", "p", "r")
	if err != nil {
		t.Fatal(err)
	}
	if !e.Timestamp.Equal(clock.now()) || e.Timestamp.Location() != time.UTC {
		t.Errorf("Timestamp = %v, want %v", e.Timestamp, clock.now())
	}
}

func TestSchemaVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if s, err := Open(path); err == nil {
		s.Close()
		t.Fatal("Open accepted a file with another schema version")
	}
}
