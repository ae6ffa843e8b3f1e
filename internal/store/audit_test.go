package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestAuditLog: events come back newest first with what was appended,
// page by page with a cursor, through the filters (action, actor, days);
// another tenant's are apart; retention deletes those older than its
// start, and only those.
func TestAuditLog(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, key string) {
		ctx := context.Background()
		as := store.NewAuditStore(st)
		day := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
		// 25 events, one an hour from day, actors alternating.
		for i := range 25 {
			e := survey.AuditEvent{Tenant: key, At: day.Add(time.Duration(i) * time.Hour), Actor: fmt.Sprintf("m%d@example.com", i%2),
				Action: survey.AuditExport, Target: fmt.Sprintf("s%02d", i), IP: "203.0.113.7", Detail: "CSV"}
			if i%5 == 0 {
				e.Action = survey.AuditSurveyPublished
			}
			if err := as.Append(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		// Two at the same instant both stay.
		same := survey.AuditEvent{Tenant: key, At: day.Add(-time.Hour), Actor: "system", Action: survey.AuditSurveyClosed, Target: "twin"}
		for range 2 {
			if err := as.Append(ctx, same); err != nil {
				t.Fatal(err)
			}
		}
		if err := as.Append(ctx, survey.AuditEvent{Tenant: key, Action: "survey.hacked"}); survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("an action not in the set: %v", err)
		}
		other := newTenant()
		if err := as.Append(ctx, survey.AuditEvent{Tenant: other, At: day, Actor: "x@example.com", Action: survey.AuditSignIn}); err != nil {
			t.Fatal(err)
		}

		// All, in pages of 10, newest first.
		var all []survey.AuditEvent
		cursor := ""
		for pages := 0; ; pages++ {
			list, next, err := as.List(ctx, key, survey.AuditFilter{}, cursor, 10)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, list...)
			if next == "" {
				break
			}
			if pages > 5 {
				t.Fatal("the pages do not end")
			}
			cursor = next
		}
		if len(all) != 27 {
			t.Fatalf("%d events, want 27", len(all))
		}
		first := all[0]
		if first.Target != "s24" || first.Actor != "m0@example.com" || first.IP != "203.0.113.7" || first.Detail != "CSV" || first.Action != survey.AuditExport ||
			!first.At.Equal(day.Add(24*time.Hour)) || first.Tenant != key {
			t.Fatalf("newest = %+v", first)
		}
		for i := 1; i < len(all); i++ {
			if all[i].At.After(all[i-1].At) {
				t.Fatalf("event %d (%v) is newer than %d (%v)", i, all[i].At, i-1, all[i-1].At)
			}
		}
		if all[25].Target != "twin" || all[26].Target != "twin" {
			t.Fatalf("oldest = %+v, %+v", all[25], all[26])
		}

		count := func(f survey.AuditFilter) int {
			t.Helper()
			n, cursor := 0, ""
			for {
				list, next, err := as.List(ctx, key, f, cursor, 4)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range list {
					if !f.Match(e) {
						t.Fatalf("%+v does not pass %+v", e, f)
					}
				}
				n += len(list)
				if next == "" {
					return n
				}
				cursor = next
			}
		}
		if n := count(survey.AuditFilter{Action: survey.AuditSurveyPublished}); n != 5 {
			t.Fatalf("published: %d, want 5", n)
		}
		if n := count(survey.AuditFilter{Actor: "M1@example.com"}); n != 12 {
			t.Fatalf("by m1: %d, want 12", n)
		}
		// Day 10 March is hours 0–11 of the 25 (12:00 to 23:00) and the twins.
		if n := count(survey.AuditFilter{From: day.Truncate(24 * time.Hour), To: day.Truncate(24 * time.Hour)}); n != 14 {
			t.Fatalf("10 March: %d, want 14", n)
		}
		if n := count(survey.AuditFilter{From: day.AddDate(0, 0, 1).Truncate(24 * time.Hour)}); n != 13 {
			t.Fatalf("from 11 March: %d, want 13", n)
		}
		if _, _, err := as.List(ctx, key, survey.AuditFilter{}, "not-a-key", 10); survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("a bad cursor: %v", err)
		}

		// Retention: everything before day+10h goes (the twins and 10).
		n, err := as.DeleteOlder(ctx, key, day.Add(10*time.Hour))
		if err != nil || n != 12 {
			t.Fatalf("deleted %d, %v; want 12", n, err)
		}
		list, _, err := as.List(ctx, key, survey.AuditFilter{}, "", 100)
		if err != nil || len(list) != 15 || list[14].Target != "s10" {
			t.Fatalf("after retention: %d events, %v", len(list), err)
		}
		if list, _, err := as.List(ctx, other, survey.AuditFilter{}, "", 100); err != nil || len(list) != 1 {
			t.Fatalf("the other tenant's: %v, %v", list, err)
		}
	})
}
