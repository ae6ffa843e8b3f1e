package worker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/worker"
)

// TestUnreadableAnswerHoldsUpNoOther: a message whose answer cannot be
// read (its spill blob gone, as an enqueue that seemed to fail but stored
// the message leaves it) fails alone, and goes to the poison queue with
// the reason; the answers of the messages beside it, in the same batches,
// are counted.
func TestUnreadableAnswerHoldsUpNoOther(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	f := newFixture(t, st, newTenant(), 4, 1, 0) // answer 0 is spilled
	page, err := st.ListBlobs(ctx, store.SpillContainer, storage.ListOptions{})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("spills: %v %v", page.Items, err)
	}
	if err := st.DeleteBlob(ctx, store.SpillContainer, page.Items[0].Name, ""); err != nil {
		t.Fatal(err)
	}
	w := worker.New(st, worker.Config{Batch: 32, Visibility: time.Second, MaxAttempts: 3, MaxIdle: 50 * time.Millisecond}, quiet, nil)
	drainQuiet(st, w)

	sum, _, err := store.NewSurveyAnswersSummaryStore(st).Get(ctx, f.survey.Tenant, f.survey.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if sum.TotalAnswers != 3 {
		t.Fatalf("%d answers counted, want the 3 readable ones", sum.TotalAnswers)
	}
	msgs, err := st.Dequeue(ctx, worker.PoisonQueue, 32, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || !strings.Contains(string(msgs[0].Data), "could not be read") && !strings.Contains(string(msgs[0].Data), "not found") {
		t.Fatalf("poison queue: %d messages, want the unreadable one with its reason", len(msgs))
	}
}
