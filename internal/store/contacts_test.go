package store_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestContacts: a list is made, filled one by one and by import (an
// address in it already is skipped, not doubled), edited and emptied; an
// address flagged unsubscribed or bounced stays flagged when its contact
// is removed and added again, or its list deleted; another tenant sees
// none of it.
func TestContacts(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		cs := store.NewContactStore(st)
		if _, err := cs.CreateList(ctx, tenant, "  "); survey.ErrorCode(err) != survey.EINVALID {
			t.Fatalf("a list without a name: %v", err)
		}
		l, err := cs.CreateList(ctx, tenant, "Customers")
		if err != nil {
			t.Fatal(err)
		}
		ana, err := cs.Add(ctx, tenant, l.ID, survey.Recipient{Email: " Ana@Example.com ", Name: "Ana", Attrs: map[string]string{"dept": "Sales"}})
		if err != nil || ana.Email != "ana@example.com" || ana.ID != store.ContactID("ana@example.com") {
			t.Fatalf("Add: %+v, %v", ana, err)
		}
		var se *survey.Error
		if _, err := cs.Add(ctx, tenant, l.ID, survey.Recipient{Email: "ana@example.com"}); !errors.As(err, &se) || se.Fields["email"] == "" {
			t.Fatalf("the same address again: %v", err)
		}
		if _, err := cs.Add(ctx, tenant, l.ID, survey.Recipient{Email: "not an address"}); !errors.As(err, &se) || se.Fields["email"] == "" {
			t.Fatalf("a bad address: %v", err)
		}
		var many []survey.Recipient
		for i := range 130 { // two transactions
			many = append(many, survey.Recipient{Email: "p" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + "@" + string(rune('a'+i/26)) + ".example"})
		}
		many = append(many, survey.Recipient{Email: "ana@example.com"}) // added meanwhile
		n, err := cs.Import(ctx, tenant, l.ID, many)
		if err != nil || n != 130 {
			t.Fatalf("Import: %d, %v", n, err)
		}
		list, err := cs.Contacts(ctx, tenant, l.ID)
		if err != nil || len(list) != 131 {
			t.Fatalf("Contacts: %d, %v", len(list), err)
		}
		if c, err := cs.Update(ctx, tenant, l.ID, ana.ID, "Ana María", map[string]string{"dept": "Support"}); err != nil || c.Name != "Ana María" || c.Attrs["dept"] != "Support" {
			t.Fatalf("Update: %+v, %v", c, err)
		}
		if _, err := cs.Add(ctx, tenant, l.ID, survey.Recipient{Email: "bo@example.com", Attrs: map[string]string{"region": "North", "dept": "Sales"}}); err != nil {
			t.Fatal(err)
		}
		if attrs, err := cs.Attributes(ctx, tenant); err != nil || len(attrs) != 1 || !slices.Equal(attrs[l.ID], []string{"dept", "region"}) {
			t.Fatalf("Attributes: %v, %v", attrs, err)
		}
		if attrs, err := cs.Attributes(ctx, newTenant()); err != nil || len(attrs) != 0 {
			t.Fatalf("another tenant's attributes: %v, %v", attrs, err)
		}
		if err := cs.Suppress(ctx, tenant, "ANA@example.com", store.SuppressUnsubscribed); err != nil {
			t.Fatal(err)
		}
		if err := cs.Suppress(ctx, tenant, "ana@example.com", store.SuppressBounced); err != nil {
			t.Fatal(err)
		}
		if err := cs.Remove(ctx, tenant, l.ID, ana.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.Add(ctx, tenant, l.ID, survey.Recipient{Email: "ana@example.com"}); err != nil {
			t.Fatal(err)
		}
		c, err := cs.Contact(ctx, tenant, l.ID, ana.ID)
		if err != nil || !c.Unsubscribed || !c.Bounced || !c.Suppressed() {
			t.Fatalf("the flags did not outlive the contact: %+v, %v", c, err)
		}
		// Another tenant: nothing of it.
		other := newTenant()
		if _, err := cs.List(ctx, other, l.ID); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("another tenant's list: %v", err)
		}
		if _, err := cs.Contact(ctx, other, l.ID, ana.ID); survey.ErrorCode(err) != survey.ENOTFOUND {
			t.Fatalf("another tenant's contact: %v", err)
		}
		if sup, _ := cs.Suppressions(ctx, other); len(sup) != 0 {
			t.Fatalf("another tenant's flags: %v", sup)
		}
		if err := cs.DeleteList(ctx, tenant, l.ID); err != nil {
			t.Fatal(err)
		}
		if lists, err := cs.Lists(ctx, tenant); err != nil || len(lists) != 0 {
			t.Fatalf("lists after delete: %v, %v", lists, err)
		}
		if sup, err := cs.Suppressions(ctx, tenant); err != nil || !sup[ana.ID].Unsubscribed {
			t.Fatalf("the flags went with the list: %v, %v", sup, err)
		}
	})
}

// TestCampaignLedger: a campaign is checked before it is stored; a send
// is claimed by one writer only (a second insert, or an update under a
// stale ETag, fails); the campaign's first step is on the queue.
func TestCampaignLedger(t *testing.T) {
	eachBackend(t, func(t *testing.T, st storage.Storage, tenant string) {
		ctx := context.Background()
		cs := store.NewCampaignStore(st)
		var se *survey.Error
		_, err := cs.Create(ctx, tenant, store.NewCampaign{Survey: "poll", List: "nolist", SendAt: time.Now().Add(-time.Hour), MaxReminders: 9})
		if !errors.As(err, &se) || se.Fields["subject"] == "" || se.Fields["text"] == "" || se.Fields["list"] == "" || se.Fields["sendAt"] == "" || se.Fields["reminders"] == "" {
			t.Fatalf("a bad campaign: %v", err)
		}
		if _, err := cs.Create(ctx, tenant, store.NewCampaign{Survey: "poll", List: "0123456789ab", Subject: "Hello", Text: "Answer, please.", SendAt: time.Now(),
			Segment: []survey.SegmentCondition{{Attr: "dept", Value: " "}}}); !errors.As(err, &se) || se.Fields["segment"] == "" {
			t.Fatalf("a condition without a value: %v", err)
		}
		c, err := cs.Create(ctx, tenant, store.NewCampaign{Survey: "poll", List: "0123456789ab", Subject: "Hello", Text: "Answer, please.", SendAt: time.Now(), MaxReminders: 1, RemindEvery: 2 * time.Hour,
			Segment: []survey.SegmentCondition{{Attr: "Dept", Value: " Sales "}, {Attr: "region", Value: "North"}}})
		if err != nil {
			t.Fatal(err)
		}
		if got, _, err := cs.Get(ctx, tenant, c.ID); err != nil || got.Subject != "Hello" || got.RemindEvery != 2*time.Hour || got.Due(1).Sub(got.Due(0)) != 2*time.Hour ||
			!slices.Equal(got.Segment, []survey.SegmentCondition{{Attr: "dept", Value: "Sales"}, {Attr: "region", Value: "North"}}) {
			t.Fatalf("Get: %+v, %v", got, err)
		}
		if list, err := cs.List(ctx, tenant, "poll"); err != nil || len(list) != 1 || len(list[0].Segment) != 2 {
			t.Fatalf("List: %+v, %v", list, err)
		}
		if _, _, err := cs.Get(ctx, newTenant(), c.ID); !errors.Is(err, store.ErrNoCampaign) {
			t.Fatalf("another tenant's campaign: %v", err)
		}
		a := &store.Send{Step: 0, Contact: store.ContactID("a@example.com"), Email: "a@example.com", State: store.SendClaimed, Until: time.Now().Add(time.Minute)}
		b := &store.Send{Step: 0, Contact: store.ContactID("b@example.com"), Email: "b@example.com", State: store.SendClaimed, Until: time.Now().Add(time.Minute)}
		if err := cs.Claim(ctx, tenant, c.ID, []*store.Send{a, b}); err != nil || a.ETag == "" || b.ETag == "" {
			t.Fatalf("Claim: %v (%q %q)", err, a.ETag, b.ETag)
		}
		again := *a
		again.ETag = ""
		if err := cs.Claim(ctx, tenant, c.ID, []*store.Send{&again}); !errors.Is(err, storage.ErrExists) {
			t.Fatalf("a second claim: %v", err)
		}
		stale := *a
		a.State = store.SendSent
		if err := cs.Mark(ctx, tenant, c.ID, a); err != nil {
			t.Fatal(err)
		}
		if err := cs.Claim(ctx, tenant, c.ID, []*store.Send{&stale}); !errors.Is(err, storage.ErrPrecondition) {
			t.Fatalf("a takeover under a stale ETag: %v", err)
		}
		sends, err := cs.Sends(ctx, tenant, c.ID, 0)
		if err != nil || len(sends) != 2 {
			t.Fatalf("Sends: %+v, %v", sends, err)
		}
		msgs, err := st.PeekMessages(ctx, store.CampaignsQueue, 32)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, m := range msgs {
			found = found || strings.Contains(string(m.Data), c.ID)
		}
		if !found {
			t.Fatalf("the campaign's first step is not queued")
		}
	})
}
