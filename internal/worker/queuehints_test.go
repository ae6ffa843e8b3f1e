package worker

import (
	"testing"
	"time"
)

// TestQueueHints: a take that found a queue empty marks it so, unless a
// wake came while it ran (the wake's message may have come after the take
// read the queue); a take that found messages, or a wake, clears the mark;
// the mark lasts emptyRecheck.
func TestQueueHints(t *testing.T) {
	t0 := time.Now()
	tests := []struct {
		name      string
		steps     func(h *queueHints)
		at        time.Duration
		wantEmpty bool
	}{
		{"never taken", func(h *queueHints) {}, 0, false},
		{"found empty", func(h *queueHints) { h.took("q", h.before("q"), 0, t0) }, 0, true},
		{"found empty, later", func(h *queueHints) { h.took("q", h.before("q"), 0, t0) }, emptyRecheck, false},
		{"found messages", func(h *queueHints) { h.took("q", h.before("q"), 3, t0) }, 0, false},
		{"found empty, then woken", func(h *queueHints) { h.took("q", h.before("q"), 0, t0); h.woken("q") }, 0, false},
		{"woken during the take", func(h *queueHints) {
			gen := h.before("q")
			h.woken("q")
			h.took("q", gen, 0, t0)
		}, 0, false},
		{"another queue found empty", func(h *queueHints) { h.took("other", h.before("other"), 0, t0) }, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newQueueHints()
			tt.steps(h)
			if got := h.empty("q", t0.Add(tt.at)); got != tt.wantEmpty {
				t.Errorf("empty = %v, want %v", got, tt.wantEmpty)
			}
		})
	}
}
