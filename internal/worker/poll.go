package worker

import (
	"context"
	"log/slog"
	"time"
)

// minIdle is the first pause after a poll that found no work (a variable
// for the test of wake-ups only).
var minIdle = 10 * time.Millisecond

// wakeGather is how long a batch worker lets work gather (see poll).
const wakeGather = 20 * time.Millisecond

// waker wakes a worker's poll at once: work this instance put on the queue
// (an answer taken, a view flushed, a copy requested), so that the worker
// may poll an empty queue seldom (its MaxIdle) and still take that work
// without delay. Work another instance queued waits for a poll.
type waker chan struct{}

func newWaker() waker { return make(waker, 1) }

// Wake makes the worker poll now; it never blocks.
func (w waker) Wake() {
	select {
	case w <- struct{}{}:
	default:
	}
}

// poll calls once until ctx is done. After a call that took nothing it
// pauses, minIdle at first and twice as long each time up to maxIdle, so an
// idle worker costs few storage calls and a busy one never waits; a wake
// ends the pause at once and starts the backoff again. A failed call is
// logged with msg and counts as one that took nothing.
//
// A worker whose calls take batches (full > 0: the most one call takes)
// lets answers gather for wakeGather after a call that took less than a
// quarter of a full batch, or after a wake: at a low rate a batch then
// takes several (a batch has costs of its own, the summary and the list).
// At a higher rate the answers that came during a batch are enough, and
// the next batch follows at once: a pause then would only add to each
// answer's wait for its summary (the load run's open loop at 500 answers
// a second: p99 from about 130 ms to about 65 ms).
func poll(ctx context.Context, once func() (int, error), maxIdle time.Duration, wake <-chan struct{}, full int, log *slog.Logger, msg string) error {
	idle := minIdle
	for ctx.Err() == nil {
		n, err := once()
		if err != nil {
			log.Warn(msg, "err", err)
		}
		if n > 0 {
			idle = minIdle
			if gathers(n, full) && !pause(ctx, wakeGather) {
				return nil
			}
			continue
		}
		t := time.NewTimer(idle)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-wake:
			t.Stop()
			idle = minIdle
			if full > 0 && !pause(ctx, wakeGather) {
				return nil
			}
			continue
		case <-t.C:
		}
		idle = min(idle*2, maxIdle)
	}
	return nil
}

// gathers reports whether a batch worker lets answers gather after a call
// that took n of at most full (see poll).
func gathers(n, full int) bool { return full > 0 && n < max(1, full/4) }

// pause waits d, or less when ctx ends first (false then).
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
