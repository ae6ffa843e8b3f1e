package local

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
)

// TestFailingOpUndoneAlone holds the group commit's promise: an op that
// fails in a batch is undone, its writes before the failure too, while
// the other ops of the batch are committed. The writer is held busy so
// that the ops queue up and are committed as one batch.
func TestFailingOpUndoneAlone(t *testing.T) {
	ctx := context.Background()
	s, _ := openWithClock(t)
	if err := s.CreateContainer(ctx, "batch", false); err != nil {
		t.Fatal(err)
	}
	release, started := make(chan struct{}), make(chan struct{})
	busy := make(chan error, 1)
	go func() {
		busy <- s.write(ctx, func(*wtx) error { close(started); <-release; return nil })
	}()
	<-started
	commits := s.commits // the writer is blocked in the busy op: no race

	boom := errors.New("boom")
	var (
		wg                    sync.WaitGroup
		errBefore, errAfter   error
		errFailing, errSingle error
	)
	put := func(name string, err *error) {
		wg.Go(func() {
			_, *err = s.PutBlob(ctx, "batch", name, []byte(name), storage.PutOptions{IfNoneMatch: storage.ETagAny})
		})
	}
	wait := func(n int) {
		for deadline := time.Now().Add(time.Minute); len(s.ops) < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d ops queued, want %d", len(s.ops), n)
			}
		}
	}
	put("before", &errBefore)
	wait(1)
	wg.Go(func() {
		// Writes, then fails: both its writes must be undone.
		errFailing = s.write(ctx, func(tx *wtx) error {
			for _, name := range []string{"failing-1", "failing-2"} {
				if _, err := tx.Exec(`INSERT INTO blobs (container, name, etag, modified, content_type, size, data)
					VALUES ('batch', ?, 'e', 0, 'text/plain', 1, x'00')`, name); err != nil {
					return err
				}
			}
			return boom
		})
	})
	wait(2)
	// A statement that fails on its own (the blob exists by then).
	wg.Go(func() {
		errSingle = s.write(ctx, func(tx *wtx) error {
			_, err := tx.Exec(`INSERT INTO blobs (container, name, etag, modified, content_type, size, data)
				VALUES ('batch', 'before', 'e', 0, 'text/plain', 1, x'00')`)
			return err
		})
	})
	wait(3)
	put("after", &errAfter)
	wait(4)
	close(release)
	wg.Wait()
	if err := <-busy; err != nil {
		t.Fatal(err)
	}

	if got := s.commits - commits; got != 1 {
		t.Errorf("the four ops took %d commits, want 1 (one batch)", got)
	}
	if errBefore != nil || errAfter != nil {
		t.Errorf("the ops around the failing ones failed: %v, %v", errBefore, errAfter)
	}
	if !errors.Is(errFailing, boom) {
		t.Errorf("the failing op returned %v, want %v", errFailing, boom)
	}
	if errSingle == nil {
		t.Error("the duplicate insert succeeded")
	}
	for name, want := range map[string]bool{"before": true, "after": true, "failing-1": false, "failing-2": false} {
		b, err := s.GetBlob(ctx, "batch", name)
		switch {
		case want && err != nil:
			t.Errorf("blob %s of a committed op: %v", name, err)
		case want && string(b.Data) != name:
			t.Errorf("blob %s = %q, want %q", name, b.Data, name)
		case !want && !errors.Is(err, storage.ErrNotFound):
			t.Errorf("blob %s of the failed op: %v, want it undone", name, err)
		}
	}
}
