package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestMailQuotaCopies: a respondent's copy of an answer goes to one
// address once (whatever the case of the address) and to at most three
// addresses; it counts against the tenant's quotas and the address's
// daily one; a refused copy counts nothing; on both backends.
func TestMailQuotaCopies(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		now := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
		q := store.NewMailQuotaStore(st, store.MailQuota{
			Paid:  store.MailLimits{PerHour: 6, PerDay: 100, PerRecipient: 2},
			Trial: store.MailLimits{PerHour: 1, PerDay: 1, PerRecipient: 1},
		}).WithClock(func() time.Time { return now })
		refused := func(err error, reason string) {
			t.Helper()
			var qe *store.QuotaError
			if !errors.As(err, &qe) || qe.Reason != reason {
				t.Fatalf("err = %v, want a %s refusal", err, reason)
			}
		}
		a1, a2, a3 := store.NewAnswerID(now), store.NewAnswerID(now.Add(time.Millisecond)), store.NewAnswerID(now.Add(2*time.Millisecond))
		if err := q.TakeCopy(ctx, tenant, survey.Standard, a1, "ana@example.com"); err != nil {
			t.Fatal(err)
		}
		refused(q.TakeCopy(ctx, tenant, survey.Standard, a1, "Ana@Example.COM"), store.CopySent)
		for _, addr := range []string{"ben@example.com", "cy@example.com"} {
			if err := q.TakeCopy(ctx, tenant, survey.Standard, a1, addr); err != nil {
				t.Fatal(err)
			}
		}
		refused(q.TakeCopy(ctx, tenant, survey.Standard, a1, "dee@example.com"), store.CopyAddresses)
		// Another answer: the address's own daily limit (2) holds.
		if err := q.TakeCopy(ctx, tenant, survey.Standard, a2, "ana@example.com"); err != nil {
			t.Fatal(err)
		}
		refused(q.TakeCopy(ctx, tenant, survey.Standard, a3, "ana@example.com"), store.QuotaRecipient)
		// Copies count against the tenant's hour with its other mails:
		// 4 so far, 2 left.
		if err := q.Take(ctx, tenant, survey.Standard, []string{"eve@example.com", "fay@example.com"}); err != nil {
			t.Fatal(err)
		}
		refused(q.TakeCopy(ctx, tenant, survey.Standard, a3, "gus@example.com"), store.QuotaTenant)
		// Refused copies counted nothing: an hour later, a3 may still go
		// to three addresses.
		now = now.Add(time.Hour)
		for _, addr := range []string{"dee@example.com", "gus@example.com", "hal@example.com"} {
			if err := q.TakeCopy(ctx, tenant, survey.Standard, a3, addr); err != nil {
				t.Fatalf("copy of a3 to %s: %v", addr, err)
			}
		}
		if err := q.TakeCopy(ctx, tenant, survey.Standard, "not-an-id", "ana@example.com"); survey.ErrorCode(err) != survey.EINVALID {
			t.Errorf("a copy of no answer: %v", err)
		}
	})
}
