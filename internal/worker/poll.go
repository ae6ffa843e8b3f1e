package worker

import (
	"context"
	"log/slog"
	"time"
)

// minIdle is the first pause after a poll that found no work.
const minIdle = 10 * time.Millisecond

// poll calls once until ctx is done. After a call that took nothing it
// pauses, minIdle at first and twice as long each time up to maxIdle, so an
// idle worker costs few storage calls and a busy one never waits. A failed
// call is logged with msg and counts as one that took nothing.
func poll(ctx context.Context, once func() (int, error), maxIdle time.Duration, log *slog.Logger, msg string) error {
	idle := minIdle
	for ctx.Err() == nil {
		n, err := once()
		if err != nil {
			log.Warn(msg, "err", err)
		}
		if n > 0 {
			idle = minIdle
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(idle):
		}
		idle = min(idle*2, maxIdle)
	}
	return nil
}
