package worker

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// TestPollWakes: a poll of an empty queue that would pause for an hour
// polls again at once when woken; wakes never block.
func TestPollWakes(t *testing.T) {
	defer func(d time.Duration) { minIdle = d }(minIdle)
	minIdle = time.Hour // every pause an hour: only a wake ends one
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newWaker()
	calls := make(chan int, 10)
	n := 0
	done := make(chan error, 1)
	go func() {
		done <- poll(ctx, func() (int, error) {
			n++
			calls <- n
			return 0, nil // nothing taken: the next pause is long
		}, time.Hour, w, 0, slog.New(slog.NewTextHandler(io.Discard, nil)), "test")
	}()
	// A bound on a broken test, not a measure of speed.
	next := func(want int) {
		t.Helper()
		select {
		case got := <-calls:
			if got != want {
				t.Fatalf("call %d, want %d", got, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("call %d never came", want)
		}
	}
	next(1)
	w.Wake()
	w.Wake() // a second wake before the first is taken does not block
	next(2)
	w.Wake()
	next(3)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestGathers: a batch worker pauses to let answers gather after a batch
// of less than a quarter of the most it takes; after a bigger one the
// next batch follows at once. A worker of single calls never gathers.
func TestGathers(t *testing.T) {
	for _, c := range []struct {
		n, full int
		want    bool
	}{
		{1, 32, true}, {7, 32, true}, {8, 32, false}, {31, 32, false}, {32, 32, false},
		{1, 4, false}, {1, 1, false}, {1, 0, false}, {3, 0, false},
	} {
		if got := gathers(c.n, c.full); got != c.want {
			t.Errorf("gathers(%d, %d) = %v, want %v", c.n, c.full, got, c.want)
		}
	}
}
