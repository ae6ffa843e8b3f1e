package worker

import (
	"sync"
	"time"
)

// emptyRecheck is how long Run leaves alone an answers queue that a take
// found empty, unless this instance queued to it since (WakeFor): at one
// respondent at a time every batch would otherwise pay a dequeue of the
// Premium queue, empty but for Premium tenants. Answers another instance
// queued wait at most this long more, and only while the worker is busy:
// the polls of an idle worker are further apart than this.
const emptyRecheck = 500 * time.Millisecond

// queueHints remembers, by queue, when a take last found it empty.
type queueHints struct {
	mu sync.Mutex
	// gen counts the wakes of each queue, so that a take that began
	// before a wake does not mark the queue empty after it.
	gen     map[string]uint64
	emptyAt map[string]time.Time
}

func newQueueHints() *queueHints {
	return &queueHints{gen: map[string]uint64{}, emptyAt: map[string]time.Time{}}
}

// woken: this instance queued to q.
func (h *queueHints) woken(q string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gen[q]++
	delete(h.emptyAt, q)
}

// before returns q's wake count, to pass to took.
func (h *queueHints) before(q string) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gen[q]
}

// took records what a take of q that began at wake count gen found.
func (h *queueHints) took(q string, gen uint64, n int, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case n > 0:
		delete(h.emptyAt, q)
	case h.gen[q] == gen:
		h.emptyAt[q] = now
	}
}

// empty reports whether q was found empty less than emptyRecheck ago and
// not woken since.
func (h *queueHints) empty(q string, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	at, ok := h.emptyAt[q]
	return ok && now.Sub(at) < emptyRecheck
}
