package worker

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Partial answers: the rules that count each respondent once.
//
// A survey that keeps partial answers saves a respondent's progress at
// each page move (store.PartialStore), under the ID of their form: T, the
// ID their complete answer will have. The Promoter below queues progress
// left KeepPartial as an answer marked Partial under P = store.PartialID(T)
// (T with one bit flipped: the two IDs name each other), and deletes it;
// submitting deletes it too. Both go through the answers queue and apply,
// so a message delivered again or an answer queued twice is handled as
// any answer is (AppliedMessages, the blob that names its message). On
// top of that, the summary, whose write is the commit point, names the
// partial answers it counts (StoredSummary.Partials), and apply follows
// two rules against the summary it read, re-checked on every attempt:
//
//   - A partial answer P is kept only if the complete answer T is not
//     filed (its blob is written before its summary, and a filed answer
//     is counted: its message comes back until it is), not counted in
//     this batch and not deleted (keepPartial). Otherwise it is
//     discarded: the complete answer counts for the respondent.
//   - A complete answer T whose P the summary counts replaces it in the
//     same write (countPartial): P leaves Partials and the Partial count,
//     and joins Deleted, so readers (tables, exports, segments) leave it
//     out and a copy of its message delivered later is not counted again.
//
// Whichever order the two arrive in, and whatever crashes, the ETag makes
// one of them commit first and the other see it: if T commits first, P's
// attempt conflicts, reads the summary again and finds T filed; if P
// commits first, T's attempt finds P in Partials. So the respondent is
// counted once, as complete when they completed.

// MaxPartialAnswers bounds the partial answers a summary counts at once
// (their IDs are in it); more are discarded.
const MaxPartialAnswers = 10_000

// keepPartial says whether the partial answer a (of message m) is to be
// counted (see the rules above); one it discards whose blob this message
// filed (an attempt before a conflict) is deleted again.
func (w *Worker) keepPartial(ctx context.Context, b *surveyBatch, mg *merge, m *message, a *survey.SurveyAnswer) (bool, error) {
	if mg.partials[a.ID] {
		return true, nil // counted already: its filing says it is a duplicate
	}
	complete := store.PartialID(a.ID)
	keep := !mg.counted[complete] && !mg.gone[complete] && len(mg.sum.Partials) < MaxPartialAnswers
	if keep {
		_, err := w.answers.Get(ctx, b.tenant, b.slug, complete)
		switch {
		case err == nil:
			keep = false
		case survey.ErrorCode(err) != survey.ENOTFOUND:
			return false, err
		}
	}
	if keep {
		return true, nil
	}
	w.m.discarded.Inc()
	if b.filed[answerKey{m.ID, a.ID}] {
		if err := w.answers.DropDeleted(ctx, b.tenant, b.slug, a.ID); err != nil {
			return false, err
		}
		delete(b.filed, answerKey{m.ID, a.ID})
		delete(b.lines, answerKey{m.ID, a.ID})
	}
	return false, nil
}

// countPartial keeps the summary's Partials as a, counted now, changes
// it: a partial answer joins them; a complete one replaces its partial
// answer if it is counted.
func (mg *merge) countPartial(a *survey.SurveyAnswer) {
	if a.Partial {
		mg.partials[a.ID] = true
		mg.sum.Partials = append(mg.sum.Partials, a.ID)
		return
	}
	p := store.PartialID(a.ID)
	if !mg.partials[p] {
		return
	}
	delete(mg.partials, p)
	mg.sum.Partials = slices.DeleteFunc(mg.sum.Partials, func(id string) bool { return id == p })
	// Counted by an earlier write, or earlier in this batch (AddAll adds
	// the batch's after this).
	mg.sum.Partial--
	mg.sum.Deleted = append(mg.sum.Deleted, p)
	mg.gone[p] = true
	mg.replaced = append(mg.replaced, p)
}

// complete returns the IDs of the complete answers the attempt counts, in
// order: those webhooks and e-mails are sent for.
func (mg *merge) complete() []string {
	var out []string
	for _, id := range mg.fresh {
		if a := mg.known[id]; a == nil || !a.Partial {
			out = append(out, id)
		}
	}
	return out
}

// dropReplaced deletes the blobs of the partial answers the summary just
// written replaced; readers leave them out already (Deleted), so one left
// by a failure or a crash is only unused.
func (w *Worker) dropReplaced(ctx context.Context, b *surveyBatch, mg *merge) {
	for _, p := range mg.replaced {
		if err := w.answers.DropDeleted(ctx, b.tenant, b.slug, p); err != nil {
			w.log.Warn("worker: delete a replaced partial answer", "tenant", b.tenant, "survey", b.slug, "answer", p, "err", err)
		}
	}
}

// Promoter queues the partial answers whose respondents left: each saved
// progress (store.PartialStore) written KeepPartial ago or more, for a
// survey that still keeps partial answers, becomes an answer marked
// partial on the answers queue (see the rules above); one of a survey
// that is gone or keeps none any more is deleted.
//
// Idle, a pass is one listing of the partials container: with the
// default Every of a minute, one storage call a minute. Saved progress
// younger than survey.MinKeepPartial costs nothing more; older, one read
// of its survey a pass (per survey), and three calls when it is promoted.
type Promoter struct {
	partials *store.PartialStore
	surveys  *store.SurveyStore
	log      *slog.Logger
	// Every is the pause between passes.
	Every time.Duration
	// Now is the clock (a test's).
	Now func() time.Time
}

// NewPromoter returns a Promoter over st.
func NewPromoter(st storage.Storage, log *slog.Logger) *Promoter {
	if log == nil {
		log = slog.Default()
	}
	return &Promoter{partials: store.NewPartialStore(st), surveys: store.NewSurveyStore(st), log: log, Every: time.Minute, Now: time.Now}
}

// Run makes a pass every Every until ctx is done.
func (p *Promoter) Run(ctx context.Context) error {
	t := time.NewTimer(p.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if err := p.RunOnce(ctx); err != nil && ctx.Err() == nil {
			p.log.Warn("worker: promote partial answers", "err", err)
		}
		t.Reset(p.Every)
	}
}

// RunOnce makes one pass: it queues every partial answer due.
func (p *Promoter) RunOnce(ctx context.Context) error {
	now := p.Now()
	type known struct {
		keep time.Duration
		gone bool
	}
	surveys := map[string]known{}
	return p.partials.List(ctx, now.Add(-survey.MinKeepPartial), func(sp store.SavedPartial) error {
		key := sp.Tenant + "/" + sp.Slug
		k, ok := surveys[key]
		if !ok {
			sv, err := p.surveys.Get(ctx, sp.Tenant, sp.Slug)
			switch {
			case survey.ErrorCode(err) == survey.ENOTFOUND:
				k.gone = true
			case err != nil:
				return err
			default:
				k.keep = sv.KeepPartial
			}
			surveys[key] = k
		}
		switch {
		case k.gone || k.keep == 0:
			return p.partials.Discard(ctx, sp)
		case !sp.Saved.Add(k.keep).After(now):
			return p.partials.Promote(ctx, sp)
		}
		return nil
	})
}
