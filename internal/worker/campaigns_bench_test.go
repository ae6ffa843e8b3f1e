package worker_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/surveys-dev/surveys/internal/mail/mailtest"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
)

// BenchmarkCampaignCost sends a campaign's invitation, then its reminder
// (to every contact: none answered), to a list of n contacts through a
// local SMTP server, over the embedded store wrapped in the counting
// layer, and reports every storage operation of each step (the queue's
// too) per contact: the target is at most 3. Each iteration is a whole
// campaign of a fresh store.
func BenchmarkCampaignCost(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for range b.N {
				benchCampaign(b, n)
			}
		})
	}
}

func benchCampaign(b *testing.B, n int) {
	b.StopTimer()
	ctx := context.Background()
	st := counting.New(backends.Local(b))
	f := newCampaignFixture(b, st, n, 1, false)
	srv := mailtest.Start(b, mailtest.Options{})
	cfg := campaignConfig
	cfg.Batch = 90
	w := newCampaignWorker(b, st, srv, cfg)
	step := func(want int) float64 {
		before := st.Total("")
		for range 100 {
			if _, err := w.RunOnce(ctx); err != nil {
				b.Fatal(err)
			}
			c, _, err := store.NewCampaignStore(st).Get(ctx, f.tenant, f.c.ID)
			if err != nil {
				b.Fatal(err)
			}
			if len(c.Finished) >= want {
				// The Get just above is the benchmark's, not the step's.
				return float64(st.Total("")-before-1) / float64(n)
			}
		}
		b.Fatalf("step %d did not finish", want)
		return 0
	}
	b.StartTimer()
	invitation := step(1)
	b.StopTimer()
	if _, err := store.NewCampaignStore(st).RemindNow(ctx, f.tenant, f.c.ID); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	reminder := step(2)
	b.StopTimer()
	if got := len(srv.Messages()); got != 2*n {
		b.Fatalf("%d mails, want %d", got, 2*n)
	}
	b.ReportMetric(invitation, "ops/contact/invitation")
	b.ReportMetric(reminder, "ops/contact/reminder")
}
