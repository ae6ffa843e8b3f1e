package store

import (
	"context"
	"sync"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// Notifier puts respondents' answers on the answers queue, many to a
// message: the requests that arrive while a message is being written wait
// for the next one, so under load one enqueue carries many answers (and
// the worker's dequeue and delete are shared by them too). Notify returns
// once the answer's message is durably enqueued: then it may be
// acknowledged. The same answer (one form posted twice at once) is put in
// a batch once, and both requests get its outcome; each answer gets its
// own outcome, so no answer fails for another's.
type Notifier struct {
	answers *SurveyAnswerStore

	mu      sync.Mutex
	pending map[string]*notifyBatch // by tenant/slug, not yet being written
	slots   chan struct{}           // bounds the messages being written at once

	// Queued, when set, is called with the queue after each message is
	// written: it wakes this instance's answers worker
	// (worker.Worker.WakeFor), which then need not poll an empty queue
	// often to merge the answers at once.
	Queued func(queue string)
}

type notifyBatch struct {
	plan    survey.Plan
	answers []survey.SurveyAnswer
	at      map[string]int // answer ID: its place in answers
	done    chan struct{}
	errs    []error // by place in answers; set before done is closed
}

// maxBatchAnswers bounds the answers of one batch; EnqueueEach splits it
// into messages that fit storage.MaxMessageSize.
const maxBatchAnswers = 256

// NewNotifier returns a Notifier that writes at most parallel messages at
// once.
func NewNotifier(answers *SurveyAnswerStore, parallel int) *Notifier {
	return &Notifier{answers: answers, pending: map[string]*notifyBatch{}, slots: make(chan struct{}, parallel)}
}

// Notify enqueues an answer of a tenant on plan p, on its plan's queue, and
// waits until it is on the queue.
func (n *Notifier) Notify(ctx context.Context, a survey.SurveyAnswer, p survey.Plan) error {
	key := a.Tenant + "/" + a.Slug
	n.mu.Lock()
	b := n.pending[key]
	i, again := 0, false
	if b != nil && b.plan == p {
		i, again = b.at[a.ID]
	}
	if !again {
		if b == nil || len(b.answers) >= maxBatchAnswers || b.plan != p {
			b = &notifyBatch{plan: p, at: map[string]int{}, done: make(chan struct{})}
			n.pending[key] = b
			go n.flush(key, b)
		}
		i = len(b.answers)
		b.at[a.ID] = i
		b.answers = append(b.answers, a)
	}
	n.mu.Unlock()

	select {
	case <-b.done:
		return b.errs[i]
	case <-ctx.Done():
		// The answer may still be enqueued; the caller has not acknowledged it.
		return ctx.Err()
	}
}

// flush waits for a free slot, then takes the batch out of pending (so that
// later answers start a new one) and writes it.
func (n *Notifier) flush(key string, b *notifyBatch) {
	n.slots <- struct{}{}
	defer func() { <-n.slots }()
	n.mu.Lock()
	if n.pending[key] == b {
		delete(n.pending, key)
	}
	answers, plan := b.answers, b.plan
	n.mu.Unlock()
	// Not the request's context: other requests wait on this message too.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b.errs = n.answers.EnqueueEach(ctx, plan, answers)
	if n.Queued != nil {
		n.Queued(AnswersQueueFor(plan)) // before the answers' requests go on: it never blocks
	}
	close(b.done)
}
