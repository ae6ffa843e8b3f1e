// Package storetest writes what the stores keep, in bulk, for tests and
// benchmarks: data laid out as the application writes it, without going
// through the queue and the worker one batch at a time.
package storetest

import (
	"context"
	"fmt"
	"sync"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// batch is how many answers PutAnswers lists and segments at a time.
const batch = 1000

// PutAnswers stores answers to survey sv as the answers worker does: each
// answer its own blob (store.File), then, in order, the answer list, the
// segments and the summary (counting them). The last pending answers are
// merged into the summary, which names them as its last batch (Pending),
// but neither listed nor segmented: as a worker leaves them that dies
// between the summary and the list, and as they are for a moment after
// every write. Blobs are written by 16 goroutines at once; the list and
// segments in batches of 1,000 answers.
func PutAnswers(ctx context.Context, st storage.Storage, sv *survey.Survey, answers []*survey.SurveyAnswer, pending int) error {
	if err := fileAll(ctx, store.NewSurveyAnswerStore(st), answers); err != nil {
		return err
	}
	return put(ctx, st, sv, answers, pending)
}

// PutSegmented is PutAnswers without the answers' own blobs, every answer
// listed: the answer list, the segments and the summary only. It is for
// benchmarks of what reads answers from segments over a backend too slow
// to take a blob per answer in reasonable time (Azurite writes about 500
// a second on two shared cores).
func PutSegmented(ctx context.Context, st storage.Storage, sv *survey.Survey, answers []*survey.SurveyAnswer) error {
	return put(ctx, st, sv, answers, 0)
}

// put writes the list, the segments and the summary.
func put(ctx context.Context, st storage.Storage, sv *survey.Survey, answers []*survey.SurveyAnswer, pending int) error {
	as := store.NewSurveyAnswerStore(st)
	sums := store.NewSurveyAnswersSummaryStore(st)
	sum, etag, err := sums.Get(ctx, sv.Tenant, sv.Slug)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		sum, err = &store.StoredSummary{SurveyAnswersSummary: *survey.NewSummary(sv)}, nil
	}
	if err != nil {
		return err
	}
	// The summary's last batch first, as the next writer does.
	base := int(sum.TotalAnswers)
	ids := append([]string(nil), sum.Pending...)
	known := map[string]*survey.SurveyAnswer{}
	listed := len(answers) - min(max(pending, 0), len(answers))
	for _, a := range answers[:listed] {
		ids = append(ids, a.ID)
		known[a.ID] = a
	}
	var list *store.ListTail
	var segs *store.SegmentTail
	for i, from := 0, int(sum.ListFrom); i < len(ids); i += batch {
		part := ids[i:min(i+batch, len(ids))]
		if list, err = as.AppendAt(ctx, sv.Tenant, sv.Slug, list, from+i, part); err != nil {
			return fmt.Errorf("storetest: answer list: %w", err)
		}
		if segs, err = as.AppendSegments(ctx, sv.Tenant, sv.Slug, segs, from+i, part, known, nil); err != nil {
			return fmt.Errorf("storetest: answer segments: %w", err)
		}
	}
	sum.Pending, sum.ListFrom = nil, int64(base+listed)
	for _, a := range answers {
		sum.Add(*a)
	}
	for _, a := range answers[listed:] {
		sum.Pending = append(sum.Pending, a.ID)
	}
	if _, err := sums.Put(ctx, sum, etag); err != nil {
		return fmt.Errorf("storetest: summary: %w", err)
	}
	return nil
}

// fileAll files every answer as its own blob, 16 at a time.
func fileAll(ctx context.Context, as *store.SurveyAnswerStore, answers []*survey.SurveyAnswer) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int
		ferr error
	)
	take := func() (*survey.SurveyAnswer, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next == len(answers) || ferr != nil {
			return nil, false
		}
		next++
		return answers[next-1], true
	}
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a, ok := take(); ok; a, ok = take() {
				if _, err := as.File(ctx, a, "storetest"); err != nil {
					mu.Lock()
					ferr = fmt.Errorf("storetest: file answer %s: %w", a.ID, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return ferr
}
