package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/webhook"
)

// TestWebhookSendTestLimit: an endpoint is sent at most 3 test events in
// any minute, counted across two instances (two stores over one storage)
// and kept through a delivery's record; the limit says when the next may
// go, and a minute after the first the next goes.
func TestWebhookSendTestLimit(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
		clock := func() time.Time { return now }
		one, two := newWebhookStore(t, st), newWebhookStore(t, st)
		store.SetWebhookClock(one, clock)
		store.SetWebhookClock(two, clock)
		e, err := one.Add(ctx, tenant, store.NewWebhook{URL: "https://hooks.example.com/in", Events: []string{webhook.SurveyClosed}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = two.List(ctx, tenant) // the second instance's cache holds the endpoint from now
		steps := []struct {
			ws      *store.WebhookStore
			advance time.Duration
			retry   time.Duration // 0: sent
		}{
			{one, 0, 0},
			{two, 10 * time.Second, 0},
			{one, 10 * time.Second, 0},
			{two, 0, 40 * time.Second},
			{one, 39 * time.Second, time.Second},
			{two, time.Second, 0}, // a minute after the first
			{one, 0, 10 * time.Second},
		}
		for i, s := range steps {
			now = now.Add(s.advance)
			if i == 2 {
				// A delivery recorded on the other instance keeps the
				// tests' times.
				if _, err := two.Record(ctx, tenant, e.ID, store.WebhookDelivery{At: now, Event: webhook.Test, ID: "msg_x", Attempt: 1, Status: 204}); err != nil {
					t.Fatal(err)
				}
			}
			err := s.ws.SendTest(ctx, tenant, e.ID)
			var limited *store.TestLimitError
			switch {
			case s.retry == 0 && err != nil:
				t.Fatalf("step %d: %v, want sent", i, err)
			case s.retry > 0 && (!errors.As(err, &limited) || limited.RetryAfter != s.retry || limited.Limit != 3):
				t.Fatalf("step %d: %v (%+v), want the limit with %v to wait", i, err, limited, s.retry)
			}
		}
		msgs, err := st.PeekMessages(ctx, store.WebhooksQueue, 32)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 4 {
			t.Fatalf("%d test events queued, want 4", len(msgs))
		}
	})
}
