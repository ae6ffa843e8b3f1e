package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestMailQuota: a tenant's e-mails to others are counted per hour, per day
// and per recipient and day, on both backends; a batch that would pass a
// limit is refused whole, saying which, and counts nothing; the Trial
// plan has its own, lower limits; a batch of more addresses than one
// table transaction holds is counted in full; racing senders never pass a
// recipient's limit.
func TestMailQuota(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		now := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
		q := store.NewMailQuotaStore(smallPages{st}, store.MailQuota{
			Paid:  store.MailLimits{PerHour: 200, PerDay: 300, PerRecipient: 3},
			Trial: store.MailLimits{PerHour: 5, PerDay: 8, PerRecipient: 2},
		}).WithClock(func() time.Time { return now })
		addr := func(i int) string { return fmt.Sprintf("person%d@%s.example", i, tenant) }
		refused := func(err error, reason string) *store.QuotaError {
			t.Helper()
			var qe *store.QuotaError
			if !errors.As(err, &qe) || qe.Reason != reason {
				t.Fatalf("err = %v, want a %s refusal", err, reason)
			}
			return qe
		}

		// Per recipient: three a day, whatever the case of the address.
		for i := range 3 {
			a := addr(0)
			if i == 1 {
				a = "Person0@" + tenant + ".EXAMPLE"
			}
			if err := q.Take(ctx, tenant, survey.Standard, []string{a}); err != nil {
				t.Fatalf("mail %d to one address: %v", i+1, err)
			}
		}
		qe := refused(q.Take(ctx, tenant, survey.Standard, []string{addr(1), addr(0)}), store.QuotaRecipient)
		if !slices.Equal(qe.Over, []string{addr(0)}) {
			t.Errorf("over = %v, want %s", qe.Over, addr(0))
		}
		// Refused whole: person1 was not counted, and may still get three.
		if err := q.Take(ctx, tenant, survey.Standard, []string{addr(1), addr(1), addr(1)}); err != nil {
			t.Fatalf("three to another address after a refused batch: %v", err)
		}

		// A batch of 150 addresses, more than one transaction holds: all
		// counted, so the hour has 200-6-150 = 44 left.
		var many []string
		for i := range 150 {
			many = append(many, addr(100+i))
		}
		if err := q.Take(ctx, tenant, survey.Standard, many); err != nil {
			t.Fatalf("150 at once: %v", err)
		}
		qe = refused(q.Take(ctx, tenant, survey.Standard, many[:45]), store.QuotaTenant)
		if want := "Your organisation may send 200 e-mails an hour on the Standard plan; 44 are left this hour, and the count starts again at 10:00 UTC. Send fewer, or later."; qe.Message != want {
			t.Errorf("message = %q, want %q", qe.Message, want)
		}
		var fresh []string
		for i := range 44 {
			fresh = append(fresh, addr(300+i))
		}
		if err := q.Take(ctx, tenant, survey.Standard, fresh); err != nil {
			t.Fatalf("the 44 left: %v", err)
		}
		// The next hour: the day's limit (300) holds, 100 left.
		now = now.Add(time.Hour)
		var more []string
		for i := range 101 {
			more = append(more, addr(400+i))
		}
		qe = refused(q.Take(ctx, tenant, survey.Standard, more), store.QuotaTenant)
		if want := "Your organisation may send 300 e-mails a day on the Standard plan; 100 are left today, and the count starts again at midnight UTC. Send fewer, or tomorrow."; qe.Message != want {
			t.Errorf("message = %q, want %q", qe.Message, want)
		}
		if err := q.Take(ctx, tenant, survey.Standard, more[:100]); err != nil {
			t.Fatalf("the day's 100 left: %v", err)
		}
		// The next day: all again, and person0 too.
		now = now.Add(24 * time.Hour)
		if err := q.Take(ctx, tenant, survey.Standard, []string{addr(0)}); err != nil {
			t.Fatalf("the next day: %v", err)
		}
		// The first mail of the day pruned every row of the day before
		// (hundreds of recipients' rows, read 50 a page here).
		for _, prefix := range []string{"d_", "h_", "r_"} {
			page, err := st.QueryPartition(ctx, store.MailQuotasTable, tenant, storage.Query{RowKeyFrom: prefix, RowKeyTo: prefix + "20260302"})
			if err != nil || len(page.Entities) != 0 {
				t.Errorf("rows %s… of the day before left after the next day's first mail: %d, %v", prefix, len(page.Entities), err)
			}
		}

		// Trial: 5 an hour, 2 per recipient.
		trial := tenant + "x"
		refused(q.Take(ctx, trial, survey.Trial, []string{addr(1), addr(2), addr(3), addr(4), addr(5), addr(6)}), store.QuotaTenant)
		if err := q.Take(ctx, trial, survey.Trial, []string{addr(1), addr(1)}); err != nil {
			t.Fatal(err)
		}
		refused(q.Take(ctx, trial, survey.Trial, []string{addr(1)}), store.QuotaRecipient)

		// Eight senders at once to one address: exactly three get through.
		racer := tenant + "r"
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok := 0
		for range 8 {
			wg.Go(func() {
				err := q.Take(ctx, racer, survey.Standard, []string{addr(7)})
				var qe *store.QuotaError
				if err != nil && !errors.As(err, &qe) && survey.ErrorCode(err) != survey.ECONFLICT {
					t.Errorf("racing take: %v", err)
				}
				if err == nil {
					mu.Lock()
					ok++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if ok != 3 {
			t.Errorf("%d of 8 racing mails to one address counted, want 3", ok)
		}
	})
}

// smallPages reads tables 50 entities a page, so that a store's reads
// must follow continuations.
type smallPages struct{ storage.Storage }

func (s smallPages) QueryPartition(ctx context.Context, table, pk string, q storage.Query) (storage.EntityPage, error) {
	if q.Top == 0 || q.Top > 50 {
		q.Top = 50
	}
	return s.Storage.QueryPartition(ctx, table, pk, q)
}
