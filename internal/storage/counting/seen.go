package counting

import (
	"sync"
	"sync/atomic"
)

// Seen is what this process's own calls have shown of one queue, as
// positions in one sequence of queue events (0: never): a later event has
// a larger number, whatever the clock does. /metrics uses it to skip
// reading a queue that its worker has just found empty.
type Seen struct {
	// Enqueued is the last message this process put on the queue.
	Enqueued int64
	// Empty is the last dequeue that found no visible message.
	Empty int64
	// Taken is the last dequeue that returned messages.
	Taken int64
}

// Idle reports whether the last thing this process saw of the queue was a
// dequeue that found it empty.
func (s Seen) Idle() bool { return s.Empty > s.Enqueued && s.Empty > s.Taken }

// Busy reports whether the queue had work put on it, or taken from it, by
// this process after event number since.
func (s Seen) Busy(since int64) bool { return s.Enqueued > since || s.Taken > since }

// queueSeen keeps a Seen per queue. Queue names come from the code, never
// from a request, so the map holds as many entries as the program has
// queues.
type queueSeen struct {
	seq    atomic.Int64
	mu     sync.RWMutex
	queues map[string]*seenQueue
}

type seenQueue struct{ enqueued, empty, taken atomic.Int64 }

func (q *queueSeen) get(queue string) *seenQueue {
	q.mu.RLock()
	s := q.queues[queue]
	q.mu.RUnlock()
	if s != nil {
		return s
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.queues == nil {
		q.queues = map[string]*seenQueue{}
	}
	if s = q.queues[queue]; s == nil {
		s = &seenQueue{}
		q.queues[queue] = s
	}
	return s
}

func (q *queueSeen) enqueued(queue string) { q.get(queue).enqueued.Store(q.seq.Add(1)) }

func (q *queueSeen) dequeued(queue string, n int) {
	s := q.get(queue)
	if n == 0 {
		s.empty.Store(q.seq.Add(1))
	} else {
		s.taken.Store(q.seq.Add(1))
	}
}

// Now is the number of the last queue event seen: events after it have
// larger numbers.
func (s *Store) Now() int64 { return s.seen.seq.Load() }

// Seen returns what this process's calls have shown of queue.
func (s *Store) Seen(queue string) Seen {
	q := s.seen.get(queue)
	return Seen{Enqueued: q.enqueued.Load(), Empty: q.empty.Load(), Taken: q.taken.Load()}
}
