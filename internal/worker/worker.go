// Package worker drains the answers queue and keeps each survey's summary
// and answer list: the Task/Queue/Task pattern. Several workers, in one
// process or many, may run against one storage account.
package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/lrucache"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/webhook"
)

// PoisonQueue receives the answers-queue messages that keep failing, with
// the reason.
const PoisonQueue = "surveyanswers-poison"

// Config tunes a worker.
type Config struct {
	// Batch is the most messages one dequeue takes (1..32).
	Batch int
	// Visibility hides a dequeued message from other workers; a message
	// not deleted by then is delivered again.
	Visibility time.Duration
	// MaxAttempts is how many deliveries a message gets before it goes to
	// the poison queue.
	MaxAttempts int
	// MaxIdle is the longest pause between polls of an empty queue.
	MaxIdle time.Duration
}

// DefaultConfig is the configuration of surveys serve.
// An idle worker polls its two queues every MaxIdle (12 dequeues a minute);
// answers this instance takes wake it at once (WakeFor), and answers taken by
// a web-only instance wait at most MaxIdle for a poll.
var DefaultConfig = Config{Batch: 32, Visibility: time.Minute, MaxAttempts: 5, MaxIdle: 10 * time.Second}

// Worker updates summaries from the answers queue.
type Worker struct {
	st      storage.Storage
	surveys *store.SurveyStore
	answers *store.SurveyAnswerStore
	sums    *store.SurveyAnswersSummaryStore
	ranks   *store.RankingStore
	cfg     Config
	log     *slog.Logger
	now     func() time.Time
	m       *Metrics
	wake    waker
	hints   *queueHints
	// Behind, when set, is told of a survey whose segments end before its
	// answer list (answered before segments existed): see Segments.
	Behind func(tenant, slug string)
	// Webhooks, when set, gets a response.created event for each answer
	// merged, and survey.closed for a survey closed at its limit (see
	// emitAnswers).
	Webhooks *store.WebhookStore
	// Notify, when set, e-mails the members who asked for each new answer
	// (after the summary write: see Notify.Answers).
	Notify *Notify

	mu sync.Mutex
	// cache holds the summaries this worker wrote last, with their ETags,
	// so that a batch costs one summary write, not a read and a write. It
	// is bounded in entries and bytes: a summary it dropped is read again.
	cache *lrucache.Cache[string, cached]
	// tails holds the end of each survey's answer list, as this worker
	// last wrote it.
	tails map[string]*store.ListTail
	// segTails holds the open segment of each survey, as this worker last
	// wrote it; bounded in bytes (a dropped one is read again).
	segTails *lrucache.Cache[string, *store.SegmentTail]
	// deleted holds, by survey, the messages this worker merged and then
	// deleted, to trim from the summary's AppliedMessages at its next write.
	deleted map[string][]string
	// failures remembers the last error of a message, for the poison queue.
	failures map[string]string
	// passes counts batches, for a batch of one to alternate the queues.
	passes int
}

type cached struct {
	sum  *store.StoredSummary
	etag string
}

// New returns a worker. m may be shared by several workers; nil makes one.
func New(st storage.Storage, cfg Config, log *slog.Logger, m *Metrics) *Worker {
	if m == nil {
		m = NewMetrics()
	}
	if log == nil {
		log = slog.Default()
	}
	return &Worker{
		st: st, surveys: store.NewSurveyStore(st), answers: store.NewSurveyAnswerStore(st),
		sums: store.NewSurveyAnswersSummaryStore(st), ranks: store.NewRankingStore(st), cfg: cfg, log: log, now: time.Now, m: m, wake: newWaker(), hints: newQueueHints(),
		cache:    lrucache.New(maxCachedSummaries, maxCachedSummaryBytes, cachedSummaryTTL, func(_ string, c cached) int64 { return summaryBytes(c.sum) }),
		segTails: lrucache.New(maxCachedSummaries, maxSegmentTailBytes, cachedSummaryTTL, func(_ string, t *store.SegmentTail) int64 { return t.Size() }),
		tails:    map[string]*store.ListTail{}, deleted: map[string][]string{}, failures: map[string]string{},
	}
}

// Init creates the poison queue.
func Init(ctx context.Context, st storage.Storage) error {
	if err := st.CreateQueue(ctx, PoisonQueue); err != nil {
		return fmt.Errorf("worker: create queue %s: %w", PoisonQueue, err)
	}
	return nil
}

// Run drains the queue until ctx is done. The batch in hand when ctx ends
// is finished (within the visibility timeout) before Run returns.
func (w *Worker) Run(ctx context.Context) error {
	return poll(ctx, func() (int, error) { return w.runOnce(context.WithoutCancel(ctx), true) }, w.cfg.MaxIdle, w.wake, w.cfg.Batch, w.log, "worker: batch failed")
}

// WakeFor makes Run take the queues now, queue among them even if it was
// found empty lately (see emptyRecheck): this instance queued answers to
// it (store.Notifier's Queued). It never blocks.
func (w *Worker) WakeFor(queue string) {
	w.hints.woken(queue) // before the wake: the poll it causes takes queue
	w.wake.Wake()
}

// errSurveyGone: the survey of queued answers was deleted.
var errSurveyGone = errors.New("worker: the survey was deleted")

// queued is a dequeued message and the queue it came from.
type queued struct {
	storage.Message
	queue string
}

// message is a dequeued message with its decoded answers.
type message struct {
	storage.Message
	queue   string
	plan    survey.Plan
	answers []store.PendingAnswer // each answer ID once
	spills  []string              // blobs to delete with the message
	failed  bool
}

// RunOnce takes one batch from the queue and handles it. It returns the
// number of messages taken.
func (w *Worker) RunOnce(ctx context.Context) (int, error) { return w.runOnce(ctx, false) }

// runOnce is RunOnce; with skipEmpty (Run's polls) it leaves out a queue
// found empty lately and not woken since (see emptyRecheck).
func (w *Worker) runOnce(ctx context.Context, skipEmpty bool) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.Visibility)
	defer cancel()
	msgs, err := w.dequeue(ctx, skipEmpty)
	if err != nil {
		return 0, err
	}
	defer w.m.lag.progressed() // a batch done, or the queues found empty
	if len(msgs) == 0 {
		return 0, nil
	}
	w.m.batches.Inc()
	batch := w.decode(ctx, msgs)
	var errs []error
	for _, g := range bySurvey(batch) {
		if err := w.apply(ctx, g.key, g.tenant, g.slug, g.msgs); err != nil {
			errs = append(errs, err)
			for _, m := range g.msgs {
				m.failed = true
				w.setFailure(m.ID, err.Error())
			}
		}
	}
	return len(msgs), errors.Join(append(errs, w.deleteMerged(ctx, batch))...)
}

// dequeue takes a batch from the two answers queues, Premium's first (see
// premiumShare). A take that fails is logged, and the batch is what the
// others gave; dequeue fails only when a take failed and nothing was
// taken.
func (w *Worker) dequeue(ctx context.Context, skipEmpty bool) ([]queued, error) {
	var msgs []queued
	take := func(q string, n int) error {
		if n <= 0 || skipEmpty && w.hints.empty(q, w.now()) {
			return nil
		}
		gen := w.hints.before(q)
		got, err := w.st.Dequeue(ctx, q, n, w.cfg.Visibility)
		if err != nil {
			return err
		}
		w.hints.took(q, gen, len(got), w.now())
		w.m.lag.took(q, got, w.now())
		for _, m := range got {
			msgs = append(msgs, queued{m, q})
		}
		return nil
	}
	// Premium tenants' answers first, but never the whole batch: the
	// standard queue always gets its share (a quarter, at least one
	// message), so a busy Premium queue cannot starve it. What the
	// standard queue leaves goes back to Premium.
	premium := w.premiumShare()
	var errs []error
	if err := take(store.PremiumAnswersQueue, premium); err != nil {
		errs = append(errs, err)
	}
	fromPremium := len(msgs)
	if err := take(store.AnswersQueue, w.cfg.Batch-len(msgs)); err != nil {
		errs = append(errs, err)
	}
	if fromPremium == premium && len(msgs) < w.cfg.Batch && len(errs) == 0 {
		if err := take(store.PremiumAnswersQueue, w.cfg.Batch-len(msgs)); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		if len(msgs) == 0 {
			return nil, errors.Join(errs...)
		}
		w.log.Warn("worker: dequeue failed", "err", errors.Join(errs...))
	}
	return msgs, nil
}

// decode returns the messages of msgs with their answers, each answer ID
// once (an answer twice in a message is counted as a duplicate). A message
// that cannot be decoded, or that failed MaxAttempts deliveries, goes to
// the poison queue with the reason instead.
func (w *Worker) decode(ctx context.Context, msgs []queued) []*message {
	var batch []*message
	for _, m := range msgs {
		switch am, err := store.DecodeAnswerMessage(m.Data); {
		case err != nil:
			w.poison(ctx, m, "cannot decode the message: "+err.Error())
		case m.DequeueCount > int64(w.cfg.MaxAttempts):
			w.poison(ctx, m, fmt.Sprintf("failed %d deliveries; last error: %s", m.DequeueCount-1, w.failure(m.ID)))
		default:
			answers, repeats := am.Pending()
			if repeats > 0 {
				// One answer twice in a message (a form posted twice at once).
				w.m.duplicates.Add(float64(repeats))
			}
			batch = append(batch, &message{Message: m.Message, queue: m.queue, plan: am.Plan, answers: answers, spills: am.Spills()})
		}
	}
	return batch
}

// surveyMessages are the messages of a batch with answers to one survey
// (key is tenant/slug), in the batch's order.
type surveyMessages struct {
	key, tenant, slug string
	msgs              []*message
}

// bySurvey groups the messages of batch by the surveys of their answers,
// in the order the surveys first appear; a message with answers to
// several surveys is in each of their groups, and is done when all of
// them are.
func bySurvey(batch []*message) []*surveyMessages {
	groups := map[string]*surveyMessages{}
	var order []*surveyMessages
	for _, m := range batch {
		for _, a := range m.answers {
			key := a.Tenant + "/" + a.Slug
			g := groups[key]
			if g == nil {
				g = &surveyMessages{key: key, tenant: a.Tenant, slug: a.Slug}
				groups[key] = g
				order = append(order, g)
			}
			if len(g.msgs) == 0 || g.msgs[len(g.msgs)-1] != m {
				g.msgs = append(g.msgs, m)
			}
		}
	}
	return order
}

// deleteMerged deletes the messages of batch that were merged, several at
// a time: on Azure each is a round trip; on the embedded store they share
// one commit.
func (w *Worker) deleteMerged(ctx context.Context, batch []*message) error {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	slots := make(chan struct{}, deleteParallel)
	for _, m := range batch {
		if m.failed {
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			if err := w.st.DeleteMessage(ctx, m.queue, m.ID, m.PopReceipt); err != nil {
				// Delivered again later; the summary knows it is merged.
				mu.Lock()
				errs = append(errs, fmt.Errorf("worker: delete message %s: %w", m.ID, err))
				mu.Unlock()
				return
			}
			w.confirmDeleted(m)
			if len(m.spills) == 0 {
				return
			}
			// The message is gone: nothing else will delete its spills,
			// so the batch's deadline does not cut this short.
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			if err := w.answers.DeleteSpills(sctx, m.spills); err != nil {
				// Left behind; nothing reads it any more.
				w.log.Warn("worker: delete spilled answers", "message", m.ID, "err", err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// premiumShare is how many messages a batch takes from the Premium queue
// first. A batch of one alternates between the queues.
func (w *Worker) premiumShare() int {
	if w.cfg.Batch <= 1 {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.passes++
		return w.passes % 2
	}
	return w.cfg.Batch - max(1, w.cfg.Batch/4)
}

// apply files the answers of msgs for one survey as blobs, merges them into
// its summary once, and lists them in its answer list once. Each answer
// blob names the message that filed it, so an answer sent twice (a form
// submitted twice) is counted with one message only; the summary names the
// messages it merged, so a message delivered again is not merged again.
// The summary write is the commit point: it also names the batch it merged
// (Pending, at ListFrom), and every writer first lists the batch of the
// write before its own. Then the survey moves in the ranked lists, before
// the messages go (see afterCommit).
//
// An attempt reads the summary, lists the last writer's batch
// (listPending), reads the answers (readAnswers), files them (fileAll),
// counts them (mergeMessages) and writes the summary (commit); a write
// that loses to another writer's starts again from the summary, keeping
// the answers read, the blobs filed and the webhooks queued (surveyBatch).
func (w *Worker) apply(ctx context.Context, key, tenant, slug string, msgs []*message) error {
	b := newSurveyBatch(key, tenant, slug, msgs)
	for attempt := 0; ; attempt++ {
		if attempt == 20 {
			return fmt.Errorf("worker: summary of %s: too many conflicting writers", key)
		}
		sum, etag, err := w.summary(ctx, key, tenant, slug)
		if errors.Is(err, errSurveyGone) {
			w.discardGone(b)
			return nil
		}
		if err != nil {
			return err
		}
		if err := w.listPending(ctx, b, sum); err != nil {
			return err
		}
		mg := newMerge(sum, etag)
		mg.adding = make([]survey.SurveyAnswer, 0, b.answers())
		w.readAnswers(ctx, b, mg)
		if err := w.fileAll(ctx, key, tenant, slug, msgs, mg.applied, mg.gone, b.resolved, b.filed, b.lines); err != nil {
			return err
		}
		if err := w.mergeMessages(ctx, b, mg); err != nil {
			return err
		}
		// The batch's answers counted at once: a text question's words
		// are bounded once a batch, not once an answer (AddAll).
		sum.AddAll(mg.adding)
		if w.trim(key, sum) {
			mg.changed = true
		}
		if !mg.changed {
			// Merged before; the ranks may not have been moved.
			w.remember(key, sum, etag)
			return w.rank(ctx, key, tenant, slug, sum)
		}
		// Webhooks before the commit point: a crash from here to the
		// summary write merges the batch again and queues its events
		// again, with the same webhook-ids (at least once).
		if err := w.emitAnswers(ctx, tenant, slug, mg.complete(), mg.known, b.emitted); err != nil {
			return err
		}
		newTag, written, err := w.commit(ctx, b, mg)
		if err != nil {
			return err
		}
		if !written {
			continue // another writer's summary came first: merge again
		}
		return w.followCommit(ctx, b, mg, newTag)
	}
}

// answerKey names an answer of a message: a message's ID and the answer's.
type answerKey struct{ msg, id string }

// surveyBatch is one survey's share of a batch, as apply merges it, with
// what apply keeps from one attempt to the next: an answer read, a blob
// filed or an answer's webhooks queued once is not again when a
// conflicting writer makes apply merge again.
type surveyBatch struct {
	key, tenant, slug string
	msgs              []*message
	filed             map[answerKey]bool                 // the message's to count
	lines             map[answerKey][]byte               // the segment line of the blob filed (FileLine)
	resolved          map[answerKey]*survey.SurveyAnswer // the whole answer
	emitted           map[string]bool                    // answer IDs whose webhooks are queued
}

// newSurveyBatch returns the surveyBatch of msgs for the survey key
// (tenant/slug), nothing read, filed or queued yet.
func newSurveyBatch(key, tenant, slug string, msgs []*message) *surveyBatch {
	return &surveyBatch{key: key, tenant: tenant, slug: slug, msgs: msgs,
		filed: map[answerKey]bool{}, lines: map[answerKey][]byte{}, resolved: map[answerKey]*survey.SurveyAnswer{}, emitted: map[string]bool{}}
}

// answers is the number of answers of b's messages (to any survey).
func (b *surveyBatch) answers() int {
	n := 0
	for _, m := range b.msgs {
		n += len(m.answers)
	}
	return n
}

// merge is one attempt of apply: the survey's summary as read, and what
// the batch adds to it.
type merge struct {
	sum       *store.StoredSummary
	etag      string
	applied   map[string]bool                 // the messages the summary merged already
	gone      map[string]bool                 // the answers deleted from the survey
	base      int64                           // the summary's answers before the batch's
	changed   bool                            // the summary is to be written
	fresh     []string                        // the IDs of the answers counted, in order
	adding    []survey.SurveyAnswer           // the fresh answers, in order
	known     map[string]*survey.SurveyAnswer // the fresh answers, by ID
	lines     map[string][]byte               // the segment lines of fresh answers this worker filed, by ID
	created   []time.Time                     // of the fresh answers, for the delay metric
	counted   map[string]bool                 // the fresh answers' IDs
	byID      map[string]store.Question       // the summary's questions, made by questions
	refreshed bool                            // the questions were read again (refreshQuestions)
	partials  map[string]bool                 // the partial answers counted, not replaced (partials.go)
	replaced  []string                        // the partial answers this attempt replaced
}

// newMerge returns the attempt that merges into sum, read with etag.
func newMerge(sum *store.StoredSummary, etag string) *merge {
	return &merge{sum: sum, etag: etag, applied: toSet(sum.AppliedMessages), gone: toSet(sum.Deleted), base: sum.Len(),
		known: map[string]*survey.SurveyAnswer{}, lines: map[string][]byte{}, counted: map[string]bool{}, partials: toSet(sum.Partials)}
}

// questions returns the summary's questions by ID, which the answers are
// read with; made once, and again after refreshQuestions.
func (mg *merge) questions() map[string]store.Question {
	if mg.byID == nil {
		mg.byID = make(map[string]store.Question, len(mg.sum.Questions))
		for _, q := range mg.sum.Questions {
			mg.byID[q.QuestionID] = store.Question{Text: q.QuestionText, Type: q.Type}
		}
	}
	return mg.byID
}

// count adds a to the answers the attempt counts: to the summary's
// (adding), to the list's (fresh), to those the writes after the commit
// use (known), and to the delay metric's (created).
func (mg *merge) count(a *survey.SurveyAnswer) {
	mg.countPartial(a)
	mg.counted[a.ID] = true
	mg.adding = append(mg.adding, *a)
	mg.fresh = append(mg.fresh, a.ID)
	mg.known[a.ID] = a
	if !a.CreatedOn.IsZero() {
		mg.created = append(mg.created, a.CreatedOn)
	}
}

// discardGone counts the answers of b as discarded: their survey was
// deleted, so nothing is filed or merged, and apply lets the messages go.
func (w *Worker) discardGone(b *surveyBatch) {
	for _, m := range b.msgs {
		w.m.discarded.Add(float64(len(m.answers)))
	}
	w.log.Info("worker: dropped the answers of a deleted survey", "tenant", b.tenant, "survey", b.slug, "messages", len(b.msgs))
}

// listPending makes the answer list and the segments hold the batch the
// summary's last write named (Pending, at ListFrom), before this attempt
// names its own.
func (w *Worker) listPending(ctx context.Context, b *surveyBatch, sum *store.StoredSummary) error {
	// The last writer may have died before listing its batch.
	if err := w.list(ctx, b.key, b.tenant, b.slug, sum.ListFrom, sum.Pending); err != nil {
		return err
	}
	return w.segment(ctx, b.key, b.tenant, b.slug, sum.ListFrom, sum.Pending, nil, nil)
}

// readAnswers reads into b.resolved every answer to the survey of the
// messages the summary has not merged, before any is merged. A message
// with an answer that cannot be read is marked failed: it is left out
// whole, and comes back alone.
func (w *Worker) readAnswers(ctx context.Context, b *surveyBatch, mg *merge) {
	for _, m := range b.msgs {
		if mg.applied[m.ID] || m.failed {
			continue
		}
		if err := w.resolveAll(ctx, b.resolved, m, b.tenant, b.slug, mg.questions); err != nil {
			// Every answer of a message is read before any is merged,
			// so a message whose answer cannot be read (its spill
			// gone, or a read failed) is left out whole: it alone
			// comes back, and fails to the poison queue with the
			// reason, while its neighbours are merged.
			m.failed = true
			w.setFailure(m.ID, err.Error())
			w.log.Warn("worker: a message's answer could not be read", "tenant", b.tenant, "survey", b.slug, "message", m.ID, "err", err)
		}
	}
}

// mergeMessages counts into mg the answers of each message the summary
// has not merged (mergeAnswer), and names each such message in the
// summary's AppliedMessages; a message merged already counts its answers
// as duplicates, and a failed one is left out.
func (w *Worker) mergeMessages(ctx context.Context, b *surveyBatch, mg *merge) error {
	for _, m := range b.msgs {
		if mg.applied[m.ID] {
			// Merged already; delivered again.
			w.m.duplicates.Add(float64(len(m.answers)))
			continue
		}
		if m.failed {
			continue // one of its answers could not be read (readAnswers)
		}
		for _, p := range m.answers {
			if err := w.mergeAnswer(ctx, b, mg, m, p); err != nil {
				return err
			}
		}
		mg.sum.AppliedMessages = append(mg.sum.AppliedMessages, m.ID)
		mg.changed = true
	}
	return nil
}

// mergeAnswer counts answer p of m into mg, or leaves it out: an answer
// to another survey is skipped; one deleted from the survey (its blob
// dropped again), one counted already in the batch and one whose blob
// another message filed are duplicates; one that fits not even every
// question the survey has had (refreshQuestions) is discarded.
func (w *Worker) mergeAnswer(ctx context.Context, b *surveyBatch, mg *merge, m *message, p store.PendingAnswer) error {
	if p.Tenant != b.tenant || p.Slug != b.slug {
		return nil
	}
	if mg.gone[p.ID] {
		// A deleted answer's form, posted again: not counted,
		// and its blob (filed by an attempt that read an older
		// summary) goes again.
		w.m.duplicates.Inc()
		return w.answers.DropDeleted(ctx, b.tenant, b.slug, p.ID)
	}
	if mg.counted[p.ID] {
		// The same answer twice in this batch.
		w.m.duplicates.Inc()
		return nil
	}
	a, err := w.resolve(ctx, b.resolved, m, p, mg.questions)
	if errors.Is(err, store.ErrUnknownQuestion) && !mg.refreshed {
		// A question added to the published survey since its
		// summary was made, or dropped by an edit while the
		// answer was on its way: the summary learns every
		// question the survey has had (once an attempt: a retry
		// after a conflict starts from a summary read again), and the
		// answer is read again.
		if err := w.refreshQuestions(ctx, b, mg); err != nil {
			return err
		}
		a, err = w.resolve(ctx, b.resolved, m, p, mg.questions)
	}
	if errors.Is(err, store.ErrUnknownQuestion) {
		w.m.discarded.Inc()
		w.log.Warn("worker: dropped an answer that does not fit its survey", "tenant", b.tenant, "survey", b.slug, "answer", p.ID, "err", err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("worker: answer %s/%s: %w", b.key, p.ID, err)
	}
	if a.Partial {
		keep, err := w.keepPartial(ctx, b, mg, m, a)
		if err != nil || !keep {
			return err
		}
	}
	own, err := w.fileOnce(ctx, b, m, a)
	if err != nil {
		return err
	}
	if !own {
		// The same form, submitted twice: counted with the other message.
		w.m.duplicates.Inc()
		return nil
	}
	mg.count(a)
	if l := b.lines[answerKey{m.ID, a.ID}]; l != nil {
		mg.lines[a.ID] = l
	}
	return nil
}

// refreshQuestions makes the summary know every question the survey has
// had (QuestionsEver), and the answers be read with them; once an attempt.
func (w *Worker) refreshQuestions(ctx context.Context, b *surveyBatch, mg *merge) error {
	mg.refreshed = true
	ever, err := w.surveys.QuestionsEver(ctx, b.tenant, b.slug)
	if err != nil {
		return fmt.Errorf("worker: questions of %s: %w", b.key, err)
	}
	mg.sum.AddQuestions(&survey.Survey{Questions: ever})
	mg.byID = nil
	return nil
}

// fileOnce files a's blob for m, unless fileAll (or an earlier attempt)
// did, and says whether the blob is m's: an answer is counted with the
// message its blob names.
func (w *Worker) fileOnce(ctx context.Context, b *surveyBatch, m *message, a *survey.SurveyAnswer) (bool, error) {
	if own, ok := b.filed[answerKey{m.ID, a.ID}]; ok {
		return own, nil
	}
	own, line, err := w.answers.FileLine(ctx, a, m.ID)
	if err != nil {
		return false, fmt.Errorf("worker: file answer %s/%s: %w", b.key, a.ID, err)
	}
	b.filed[answerKey{m.ID, a.ID}] = own
	if line != nil {
		b.lines[answerKey{m.ID, a.ID}] = line
	}
	return own, nil
}

// commit writes the merged summary if it is still the one read (its
// ETag): the commit point. The write names the attempt's answers
// (Pending, at ListFrom), which the next writer lists if this one dies
// before it does. It returns the new ETag, or written false when another
// writer's summary came first (nothing written; apply merges again). When
// the write fails or loses, the summary is not kept in the cache.
func (w *Worker) commit(ctx context.Context, b *surveyBatch, mg *merge) (etag string, written bool, err error) {
	sum := mg.sum
	// The previous batch is listed (listPending): this write names its own.
	sum.Pending, sum.ListFrom, sum.Positions = mg.fresh, mg.base, mg.base+int64(len(mg.fresh))
	newTag, err := w.sums.Put(ctx, sum, mg.etag)
	if survey.ErrorCode(err) == survey.ECONFLICT {
		w.m.conflicts.Inc()
		w.forget(b.key)
		return "", false, nil
	}
	if err != nil {
		w.forget(b.key)
		return "", false, err
	}
	return newTag, true, nil
}

// followCommit does what follows a summary write, in this order: the
// answers and their delays go to the metrics (once each, now that their
// count is written), the summary to the cache with its new ETag, the
// e-mails of the new answers out (at most once each), the list, segment
// and rank writes (afterCommit) and, at the plan's answer limit, the
// survey closed.
func (w *Worker) followCommit(ctx context.Context, b *surveyBatch, mg *merge, etag string) error {
	w.m.answers.Add(float64(len(mg.fresh)))
	// Each answer's delay once, now that its count is written.
	now := w.now()
	for _, c := range mg.created {
		w.m.delay.Observe(now.Sub(c).Seconds())
	}
	w.remember(b.key, mg.sum, etag)
	// Counted: e-mails of the new answers, at most once each.
	w.Notify.Answers(ctx, b.tenant, b.slug, mg.base, mg.complete(), mg.known)
	w.dropReplaced(ctx, b, mg)
	if err := w.afterCommit(ctx, b.key, b.tenant, b.slug, mg.sum, mg.base, mg.fresh, mg.known, mg.lines); err != nil {
		return err
	}
	w.closeAtLimit(ctx, b.tenant, b.slug, b.msgs, mg.sum.TotalAnswers)
	return nil
}

// afterCommit does, all at once, the three writes that follow a summary
// write: the batch's answers listed, added to the segments, and the
// survey moved in the ranked lists. Each is a write of its own (two blobs
// and some table rows) that the next writer repairs if this one dies
// part-way (list and segment at the start of apply: listPending; the
// ranks when the messages come back), so none needs to wait for another; the messages
// are deleted once all three are done.
func (w *Worker) afterCommit(ctx context.Context, key, tenant, slug string, sum *store.StoredSummary, base int64, fresh []string, known map[string]*survey.SurveyAnswer, lines map[string][]byte) error {
	var wg sync.WaitGroup
	var errs [3]error
	wg.Go(func() { errs[0] = w.list(ctx, key, tenant, slug, base, fresh) })
	wg.Go(func() { errs[1] = w.segment(ctx, key, tenant, slug, base, fresh, known, lines) })
	wg.Go(func() { errs[2] = w.rank(ctx, key, tenant, slug, sum) })
	wg.Wait()
	return errors.Join(errs[:]...)
}

// fileParallel is how many answer blobs a batch files at once, and
// deleteParallel how many of its messages it deletes at once: on Azure
// each is a round trip, on the embedded store they share commits (a batch
// at full speed holds some 300 answers: filed 16 at a time, they took
// 60 % of its time beside a busy web server).
const (
	fileParallel   = 64
	deleteParallel = 32
)

// fileAll files, several at a time, the answers of msgs that the merge
// (mergeAnswer) would file one by one: those read already (resolved), not of a
// message merged (applied) or left out, not deleted (gone), not filed
// yet. What each put found is kept in filed (by message and answer ID: whether
// the blob is this message's), which the merge then reads instead of
// filing. The blob decides which message an answer is counted with: the
// same answer in several messages of the batch (a form submitted again)
// is filed by one goroutine in the messages' order, so the first one sent
// is the one kept, as when the batch is filed one by one.
func (w *Worker) fileAll(ctx context.Context, key, tenant, slug string, msgs []*message, applied, gone map[string]bool, resolved map[answerKey]*survey.SurveyAnswer, filed map[answerKey]bool, lines map[answerKey][]byte) error {
	type job struct {
		key answerKey
		msg string
		a   *survey.SurveyAnswer
	}
	var (
		order []string             // answer IDs, first seen first
		jobs  = map[string][]job{} // answer ID → its filings, in message order
	)
	for _, m := range msgs {
		if applied[m.ID] || m.failed {
			continue
		}
		for _, p := range m.answers {
			k := answerKey{m.ID, p.ID}
			// A partial answer is filed by mergeAnswer, once its rules
			// (keepPartial) keep it.
			if a := resolved[k]; a != nil && !a.Partial && p.Tenant == tenant && p.Slug == slug && !gone[p.ID] {
				if _, done := filed[k]; !done {
					if jobs[p.ID] == nil {
						order = append(order, p.ID)
					}
					jobs[p.ID] = append(jobs[p.ID], job{k, m.ID, a})
				}
			}
		}
	}
	if len(order) == 0 {
		return nil
	}
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	slots := make(chan struct{}, fileParallel)
	for _, id := range order {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			for _, j := range jobs[id] {
				own, line, err := w.answers.FileLine(ctx, j.a, j.msg)
				mu.Lock()
				if err != nil {
					errs = append(errs, fmt.Errorf("worker: file answer %s/%s: %w", key, j.a.ID, err))
				} else {
					filed[j.key] = own
					if line != nil {
						lines[j.key] = line
					}
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// emitAnswers queues a response.created event, for each endpoint of the
// tenant that wants it, of each answer of ids not emitted yet, with the
// survey's typed values (the JSON export's shape); the webhook-id is of
// the endpoint and the answer's ID, so an answer merged again after a
// crash is queued again with the same id. A tenant without such an
// endpoint costs nothing per answer: its endpoints are cached (one query
// per tenant per 30 s, store.WebhookStore.Endpoints), and the survey's
// definition is read only when one wants the answers.
func (w *Worker) emitAnswers(ctx context.Context, tenant, slug string, ids []string, known map[string]*survey.SurveyAnswer, emitted map[string]bool) error {
	if w.Webhooks == nil || len(ids) == 0 {
		return nil
	}
	eps, err := w.Webhooks.Endpoints(ctx, tenant)
	if err != nil {
		return fmt.Errorf("worker: webhooks of %s: %w", tenant, err)
	}
	if !slices.ContainsFunc(eps, func(e *store.WebhookEndpoint) bool { return e.Wants(webhook.ResponseCreated, slug) }) {
		return nil
	}
	sv, err := w.surveys.Get(ctx, tenant, slug)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return nil
	}
	if err != nil {
		return fmt.Errorf("worker: survey %s/%s for its webhooks: %w", tenant, slug, err)
	}
	for _, id := range ids {
		a := known[id]
		if a == nil || emitted[id] {
			continue
		}
		if _, err := w.Webhooks.EmitNotice(ctx, tenant, webhook.ResponseCreated, slug, a.ID, func() (webhook.Notice, error) {
			return webhook.AnswerNotice(sv, a, w.Webhooks.PublicURL), nil
		}); err != nil {
			return fmt.Errorf("worker: webhooks of answer %s: %w", id, err)
		}
		emitted[id] = true
	}
	return nil
}

// resolveAll reads every answer of m to the survey (an answer that no
// longer fits its survey is dropped later, in mergeAnswer).
func (w *Worker) resolveAll(ctx context.Context, resolved map[answerKey]*survey.SurveyAnswer, m *message, tenant, slug string, questions func() map[string]store.Question) error {
	for _, p := range m.answers {
		if p.Tenant != tenant || p.Slug != slug {
			continue
		}
		if _, err := w.resolve(ctx, resolved, m, p, questions); err != nil && !errors.Is(err, store.ErrUnknownQuestion) {
			return fmt.Errorf("worker: answer %s/%s/%s: %w", tenant, slug, p.ID, err)
		}
	}
	return nil
}

// resolve returns the whole answer p of m stands for, once per apply: its
// question texts and types come from the survey's summary, which holds its
// definition's.
func (w *Worker) resolve(ctx context.Context, resolved map[answerKey]*survey.SurveyAnswer, m *message, p store.PendingAnswer, questions func() map[string]store.Question) (*survey.SurveyAnswer, error) {
	key := answerKey{m.ID, p.ID}
	if a := resolved[key]; a != nil {
		return a, nil
	}
	a, err := w.answers.Resolve(ctx, p, questions())
	if err != nil {
		return nil, err
	}
	resolved[key] = &a
	return &a, nil
}

// closeAtLimit closes a survey whose summary reached its plan's answer
// limit, so that respondents are told it is closed. Answers already on the
// queue when it closes are kept and counted: nothing acknowledged is lost,
// so a survey may end a few answers over its limit. A failure here is
// logged; the next batch of the survey tries again.
func (w *Worker) closeAtLimit(ctx context.Context, tenant, slug string, msgs []*message, total int64) {
	plan := msgs[len(msgs)-1].plan
	if plan == "" || plan.AnswersLeft(total) {
		return
	}
	s, err := w.surveys.SetState(ctx, tenant, slug, survey.Closed)
	switch survey.ErrorCode(err) {
	case "":
		w.log.Info("worker: closed a survey at its plan's answer limit", "tenant", tenant, "survey", slug, "plan", plan, "answers", total, "state", s.State)
		if w.Webhooks != nil {
			if _, err := w.Webhooks.EmitSurvey(ctx, s); err != nil {
				w.log.Warn("worker: queue the webhooks of a survey closed at its limit", "tenant", tenant, "survey", slug, "err", err)
			}
		}
	case survey.ECONFLICT, survey.ENOTFOUND:
		// A draft again, or deleted: nothing to close.
	default:
		w.log.Warn("worker: close a survey at its answer limit", "tenant", tenant, "survey", slug, "err", err)
	}
}

// list makes positions pos… of the survey's answer list hold ids.
func (w *Worker) list(ctx context.Context, key, tenant, slug string, pos int64, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	w.mu.Lock()
	tail := w.tails[key]
	delete(w.tails, key)
	w.mu.Unlock()
	tail, err := w.answers.AppendAt(ctx, tenant, slug, tail, int(pos), ids)
	if err != nil {
		return fmt.Errorf("worker: answer list of %s: %w", key, err)
	}
	w.mu.Lock()
	if len(w.tails) > 10_000 {
		w.tails = map[string]*store.ListTail{}
	}
	w.tails[key] = tail
	w.mu.Unlock()
	return nil
}

// segment makes positions pos… of the survey's segments hold the answers
// ids name (their lines as filed, or encoded from known, or read from
// their blobs). A survey whose segments are behind its list is left to the
// segment builder (Behind).
func (w *Worker) segment(ctx context.Context, key, tenant, slug string, pos int64, ids []string, known map[string]*survey.SurveyAnswer, lines map[string][]byte) error {
	if len(ids) == 0 {
		return nil
	}
	tail, _ := w.segTails.Get(key)
	w.segTails.Remove(key)
	tail, err := w.answers.AppendSegments(ctx, tenant, slug, tail, int(pos), ids, known, lines)
	if errors.Is(err, store.ErrSegmentsBehind) {
		if w.Behind != nil {
			w.Behind(tenant, slug)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("worker: answer segments of %s: %w", key, err)
	}
	w.segTails.Add(key, tail)
	return nil
}

// summary returns the survey's summary to change: the cached one, or the
// stored one, or a new one.
func (w *Worker) summary(ctx context.Context, key, tenant, slug string) (*store.StoredSummary, string, error) {
	c, ok := w.cache.Get(key)
	w.cache.Remove(key) // taken; remember puts it back after a write
	if ok {
		return c.sum, c.etag, nil
	}
	sum, etag, err := w.sums.Get(ctx, tenant, slug)
	if err == nil {
		return sum, etag, nil
	}
	if survey.ErrorCode(err) != survey.ENOTFOUND {
		return nil, "", err
	}
	s, err := w.surveys.Get(ctx, tenant, slug)
	switch survey.ErrorCode(err) {
	case "":
		return &store.StoredSummary{SurveyAnswersSummary: *survey.NewSummary(s)}, "", nil
	case survey.ENOTFOUND:
		// The survey (or its tenant) was deleted with its answers: answers
		// still on the queue are dropped, not filed into a new container.
		return nil, "", errSurveyGone
	default:
		return nil, "", err
	}
}

func (w *Worker) remember(key string, sum *store.StoredSummary, etag string) {
	w.cache.Add(key, cached{sum: sum, etag: etag})
}

func (w *Worker) forget(key string) { w.cache.Remove(key) }

// Bounds of the summaries a worker keeps. A summary is bounded itself
// (survey.MaxSummaryWords per text question); an hour without a write
// drops it, since another worker has most likely written it since.
const (
	maxCachedSummaries    = 10_000
	maxCachedSummaryBytes = 64 << 20
	cachedSummaryTTL      = time.Hour
	// maxSegmentTailBytes bounds the open segments kept (each at most
	// about store.SegmentMaxBytes).
	maxSegmentTailBytes = 64 << 20
)

// summaryBytes is what a kept summary is counted as: about its size in
// memory (strings, and a map entry per counted word).
func summaryBytes(s *store.StoredSummary) int64 {
	n := 256 + len(s.Tenant) + len(s.Slug) + 48*(len(s.AppliedMessages)+len(s.Pending))
	for _, q := range s.Questions {
		n += 160 + len(q.QuestionID) + len(q.QuestionText)
		for _, c := range q.Choices {
			n += 48 + len(c.Answer)
		}
		for w := range q.Words {
			n += 48 + len(w)
		}
	}
	return int64(n)
}

// confirmDeleted notes that a merged message is gone from the queue, so the
// summaries it touched may forget it.
func (w *Worker) confirmDeleted(m *message) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.failures, m.ID)
	done := map[string]bool{}
	for _, a := range m.answers {
		key := a.Tenant + "/" + a.Slug
		if !done[key] {
			done[key] = true
			w.deleted[key] = append(w.deleted[key], m.ID)
		}
	}
}

// trim drops from sum.AppliedMessages the messages this worker deleted.
func (w *Worker) trim(key string, sum *store.StoredSummary) bool {
	w.mu.Lock()
	gone := toSet(w.deleted[key])
	delete(w.deleted, key)
	w.mu.Unlock()
	if len(gone) == 0 {
		return false
	}
	kept := sum.AppliedMessages[:0]
	for _, id := range sum.AppliedMessages {
		if !gone[id] {
			kept = append(kept, id)
		}
	}
	trimmed := len(kept) != len(sum.AppliedMessages)
	sum.AppliedMessages = kept
	return trimmed
}

func (w *Worker) failure(id string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if f := w.failures[id]; f != "" {
		return f
	}
	return "unknown (another worker saw it)"
}

func (w *Worker) setFailure(id, reason string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.failures) > 10_000 {
		w.failures = map[string]string{}
	}
	w.failures[id] = reason
}

// PoisonMessage is a message of the poison queue.
type PoisonMessage struct {
	MessageID string    `json:"messageId"`
	Queue     string    `json:"queue,omitempty"`
	Reason    string    `json:"reason"`
	Data      []byte    `json:"data"`
	PoisonOn  time.Time `json:"poisonOn"`
}

// poison moves a message to the poison queue with the reason, then deletes
// it; if the move fails the message stays, to be tried again.
func (w *Worker) poison(ctx context.Context, m queued, reason string) {
	w.log.Error("worker: poison message", "id", m.ID, "dequeueCount", m.DequeueCount, "reason", reason)
	data, err := json.Marshal(PoisonMessage{MessageID: m.ID, Queue: m.queue, Reason: reason, Data: m.Data, PoisonOn: w.now().UTC()})
	if err == nil && len(data) > storage.MaxMessageSize {
		data, err = json.Marshal(PoisonMessage{MessageID: m.ID, Queue: m.queue, Reason: reason + " (body too large to keep)", PoisonOn: w.now().UTC()})
	}
	if err == nil {
		_, err = w.st.Enqueue(ctx, PoisonQueue, data, storage.EnqueueOptions{TTL: -1})
	}
	if err != nil {
		w.log.Error("worker: cannot move message to the poison queue", "id", m.ID, "err", err)
		return
	}
	w.m.poison.Inc()
	if err := w.st.DeleteMessage(ctx, m.queue, m.ID, m.PopReceipt); err != nil {
		w.log.Warn("worker: delete poisoned message", "id", m.ID, "err", err)
	}
}

func toSet(ids []string) map[string]bool {
	s := make(map[string]bool, len(ids))
	for _, id := range ids {
		s[id] = true
	}
	return s
}

// Metrics are the workers' Prometheus metrics.
type Metrics struct {
	batches, answers, duplicates, poison, conflicts, discarded prometheus.Counter
	delay                                                      prometheus.Histogram
	lag                                                        *lag
}

// NewMetrics returns unregistered metrics.
func NewMetrics() *Metrics {
	return &Metrics{
		batches:    prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_worker_batches_total", Help: "Batches taken from the answers queue."}),
		answers:    prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_worker_answers_total", Help: "Answers merged into summaries."}),
		duplicates: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_worker_duplicates_total", Help: "Answers delivered again and not counted twice."}),
		poison:     prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_worker_poison_messages_total", Help: "Messages moved to the poison queue."}),
		conflicts:  prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_worker_summary_conflicts_total", Help: "Summary writes that lost an ETag race and were retried."}),
		discarded:  prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_worker_discarded_answers_total", Help: "Queued answers dropped because their survey was deleted."}),
		delay: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "surveys_summary_delay_seconds", Help: "From an answer's acknowledgement to its summary write.",
			Buckets: []float64{.01, .025, .05, .075, .1, .15, .25, .5, 1, 2.5, 5, 10, 30, 60}}),
		lag: newLag("answers"),
	}
}

// Collectors returns the metrics to register.
func (m *Metrics) Collectors() []prometheus.Collector {
	return append([]prometheus.Collector{m.batches, m.answers, m.duplicates, m.poison, m.conflicts, m.discarded, m.delay}, m.lag.collectors()...)
}
