package counting_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/storage/storagetest"
)

func openLocal(t *testing.T) storage.Storage {
	t.Helper()
	s, err := local.Open(filepath.Join(t.TempDir(), "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// The counting layer is transparent: the contract suite passes through it.
func TestContractThroughCounting(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Storage { return counting.New(openLocal(t)) })
}

func TestCounts(t *testing.T) {
	ctx := context.Background()
	c := counting.New(openLocal(t))
	if err := c.CreateContainer(ctx, "box", false); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := c.PutBlob(ctx, "box", "b", []byte("x"), storage.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = c.GetBlob(ctx, "box", "missing")
	_ = c.CreateQueue(ctx, "work")
	_, _ = c.Enqueue(ctx, "work", []byte("m"), storage.EnqueueOptions{})
	_, _ = c.Dequeue(ctx, "work", 32, 30e9)
	_, _ = c.PeekMessages(ctx, "work", 1)
	_, _ = c.PeekMessages(ctx, "missing", 1)

	want := map[string][2]int64{
		"blob.create_container": {1, 0},
		"blob.put":              {3, 0},
		"blob.get":              {1, 1},
		"queue.create_queue":    {1, 0},
		"queue.enqueue":         {1, 0},
		"queue.dequeue":         {1, 0},
		"queue.peek":            {2, 1},
		"table.get":             {0, 0},
	}
	got := map[string][2]int64{}
	for _, row := range c.Snapshot() {
		got[row.Op.String()] = [2]int64{row.Calls, row.Errors}
	}
	for op, w := range want {
		if got[op] != w {
			t.Errorf("%s = %v calls/errors, want %v", op, got[op], w)
		}
	}
	if c.Total("blob") != 5 || c.Total("queue") != 5 || c.Total("") != 10 {
		t.Errorf("totals blob %d queue %d all %d", c.Total("blob"), c.Total("queue"), c.Total(""))
	}
}
