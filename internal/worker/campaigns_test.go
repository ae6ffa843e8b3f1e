package worker_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/mail/mailtest"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/faulty"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

var campaignKey = []byte("campaign test key 0123456789abcdef")

// campaignConfig retries at once; its lease is long enough for a test's
// sends on a busy machine.
var campaignConfig = worker.CampaignConfig{Lease: time.Minute, Batch: 3, MaxAttempts: 2, RetryBase: time.Second, RetryMax: time.Second, MaxIdle: 20 * time.Millisecond}

// campaignFixture is a tenant's survey (one answer per personal link,
// with a hidden field "dept"), a list of contacts and a campaign of it.
type campaignFixture struct {
	st       storage.Storage
	tenant   string
	sv       *survey.Survey
	list     string
	contacts []store.Contact
	c        *store.Campaign
}

// newCampaignFixture makes n contacts (c0…@example.com, the last of which
// unsubscribed when flagged) and a campaign with reminders.
func newCampaignFixture(t testing.TB, st storage.Storage, n, reminders int, flagged bool) *campaignFixture {
	t.Helper()
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	// A tenant of its own (tests on Azurite share an account), named
	// Adatum, with a survey taken by personal link.
	var b [6]byte
	_, _ = rand.Read(b[:])
	tenant := "t" + hex.EncodeToString(b[:])
	if err := store.NewTenantStore(st).Create(ctx, &survey.Tenant{Key: tenant, Name: "Adatum", Plan: survey.Standard}); err != nil {
		t.Fatal(err)
	}
	sv := &survey.Survey{Tenant: tenant, Title: "Customer panel", State: survey.Published, OnePer: survey.OnePerLink, HiddenFields: []string{"dept"},
		Questions: []survey.Question{{Text: "Rate us", Type: survey.FiveStars}}}
	if err := store.NewSurveyStore(st).Create(ctx, sv); err != nil {
		t.Fatal(err)
	}
	cs := store.NewContactStore(st)
	l, err := cs.CreateList(ctx, tenant, "Customers")
	if err != nil {
		t.Fatal(err)
	}
	var rs []survey.Recipient
	for i := range n {
		rs = append(rs, survey.Recipient{Email: fmt.Sprintf("c%d@example.com", i), Name: fmt.Sprintf("Contact %d", i), Attrs: map[string]string{"dept": "Sales", "region": "North"}})
	}
	for start := 0; start < len(rs); start += 5000 {
		if _, err := cs.Import(ctx, tenant, l.ID, rs[start:min(start+5000, len(rs))]); err != nil {
			t.Fatal(err)
		}
	}
	if flagged {
		if err := cs.Suppress(ctx, tenant, rs[n-1].Email, store.SuppressUnsubscribed); err != nil {
			t.Fatal(err)
		}
	}
	contacts, err := cs.Contacts(ctx, tenant, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	c, err := store.NewCampaignStore(st).Create(ctx, tenant, store.NewCampaign{Survey: sv.Slug, List: l.ID, Subject: "Tell us", Text: "Dear customer,\n\nplease answer.",
		SendAt: time.Now(), RemindEvery: 24 * time.Hour, MaxReminders: reminders, CreatedBy: "ana@adatum.example"})
	if err != nil {
		t.Fatal(err)
	}
	return &campaignFixture{st: st, tenant: tenant, sv: sv, list: l.ID, contacts: contacts, c: c}
}

// newCampaignWorker is a campaigns worker over st sending to srv, with
// the quota of a paid plan raised for the test.
func newCampaignWorker(t testing.TB, st storage.Storage, srv *mailtest.Server, cfg worker.CampaignConfig, quota ...*store.MailQuotaStore) *worker.Campaigns {
	t.Helper()
	return newCampaignWorkerWith(t, st, srv, cfg, func(d *worker.CampaignDeps) {
		if len(quota) > 0 {
			d.Quota = quota[0]
		}
	})
}

// newCampaignWorkerWith is newCampaignWorker with its dependencies
// changed by opt.
func newCampaignWorkerWith(t testing.TB, st storage.Storage, srv *mailtest.Server, cfg worker.CampaignConfig, opt func(*worker.CampaignDeps)) *worker.Campaigns {
	t.Helper()
	mcfg, err := mail.Load(mail.Settings{URL: "smtp://" + srv.Addr + "?tls=none", From: "Surveys <surveys@example.com>"})
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := mail.LoadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	big := store.MailLimits{PerHour: 100000, PerDay: 100000, PerRecipient: 10}
	d := worker.CampaignDeps{Storage: st, Campaigns: store.NewCampaignStore(st), Contacts: store.NewContactStore(st), Links: store.NewPersonalLinkStore(st),
		Quota: store.NewMailQuotaStore(st, store.MailQuota{Paid: big, Trial: big}), Tenants: store.NewTenantStore(st), Surveys: store.NewSurveyStore(st),
		Send: mail.NewSender(*mcfg), Templates: tpl, Key: campaignKey, PublicURL: "https://surveys.example"}
	opt(&d)
	return worker.NewCampaigns(d, cfg, quiet)
}

// ledger is what the SMTP server took, by recipient: each message's
// Message-ID.
func ledger(srv *mailtest.Server) map[string][]string {
	out := map[string][]string{}
	for _, m := range srv.Messages() {
		out[m.To[0]] = append(out[m.To[0]], m.Header.Get("Message-Id"))
	}
	return out
}

// clock is a test's time, moved forward past leases.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestCampaignStepOnceUnderCrashes: a process that dies at any write of a
// campaign's invitation (before the write reaches storage, or just after),
// then a new process that takes over once the leases run out, mail every
// contact but the unsubscribed one exactly once: one Message-ID each. The
// one window where the SMTP server may take a mail twice is a death after
// it accepted the mail and before the ledger marks it sent: the second
// copy has the same Message-ID, and no run has more than one such copy.
func TestCampaignStepOnceUnderCrashes(t *testing.T) {
	ctx := context.Background()
	// A clean run counts the writes of the step.
	st := backends.Local(t)
	f := newCampaignFixture(t, st, 7, 0, true)
	srv := mailtest.Start(t, mailtest.Options{})
	counter := faulty.New(st)
	counter.Counts = faulty.Writes
	if wait, err := newCampaignWorker(t, counter, srv, campaignConfig).Step(ctx, f.tenant, f.c, 0, nil); err != nil || wait != 0 {
		t.Fatalf("clean run: wait %v, %v", wait, err)
	}
	writes := counter.Calls()
	if got := ledger(srv); len(got) != 6 {
		t.Fatalf("clean run mailed %d contacts, want 6: %v", len(got), got)
	}
	if writes < 5 {
		t.Fatalf("a clean run made %d writes", writes)
	}
	copies := 0 // runs where the SMTP server took a second copy
	for at := int64(1); at <= writes; at++ {
		for _, after := range []bool{false, true} {
			t.Run(fmt.Sprintf("die at write %d after=%v", at, after), func(t *testing.T) {
				st := backends.Local(t)
				f := newCampaignFixture(t, st, 7, 0, true)
				srv := mailtest.Start(t, mailtest.Options{})
				dying := faulty.At(st, at, after)
				dying.Counts = faulty.Writes
				clk := &clock{t: time.Now()}
				_, err := newCampaignWorker(t, dying, srv, campaignConfig).WithClock(clk.now).Step(ctx, f.tenant, f.c, 0, nil)
				if err == nil {
					t.Fatalf("the dying process finished")
				}
				// A new process, once the dead one's leases have run out.
				clk.advance(campaignConfig.Lease + time.Second)
				w := newCampaignWorker(t, st, srv, campaignConfig).WithClock(clk.now)
				for i := 0; ; i++ {
					wait, err := w.Step(ctx, f.tenant, f.c, 0, nil)
					if err != nil {
						t.Fatal(err)
					}
					if wait == 0 {
						break
					}
					if i > 5 {
						t.Fatalf("the step does not finish: wait %v", wait)
					}
					clk.advance(wait)
				}
				got := ledger(srv)
				dups := 0
				for i, ct := range f.contacts {
					ids := got[ct.Email]
					if i == len(f.contacts)-1 {
						if len(ids) != 0 {
							t.Errorf("the unsubscribed %s was mailed", ct.Email)
						}
						continue
					}
					if len(ids) == 0 {
						t.Errorf("%s was skipped", ct.Email)
						continue
					}
					for _, id := range ids[1:] {
						if id != ids[0] {
							t.Errorf("%s got two different mails: %v", ct.Email, ids)
						}
						dups++
					}
				}
				if dups > 1 {
					t.Errorf("%d second copies after one death", dups)
				}
				copies += dups
			})
		}
	}
	// The window is real, and the test reaches it: a death at the write
	// that marks a mail sent, before it reaches storage.
	if copies == 0 {
		t.Errorf("no run died between a mail and its mark")
	}
}

// TestCampaignReminderAndBounce runs a campaign through the queue: the
// invitation goes to every contact with the headers and links it must
// carry; a contact whose address the server refuses for good (5xx) is
// marked bounced and flagged; the reminder, made due at once, goes only
// to the contacts whose link has no answer yet.
func TestCampaignReminderAndBounce(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	f := newCampaignFixture(t, st, 4, 1, false)
	srv := mailtest.Start(t, mailtest.Options{})
	w := newCampaignWorker(t, st, srv, campaignConfig)
	bad := f.contacts[3].Email
	srv.RefuseRecipient(bad, 550)
	runUntil := func(steps int) {
		t.Helper()
		for range 20 {
			if _, err := w.RunOnce(ctx); err != nil {
				t.Fatal(err)
			}
			c, _, err := store.NewCampaignStore(st).Get(ctx, f.tenant, f.c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Finished) >= steps {
				return
			}
		}
		t.Fatalf("the campaign did not finish %d steps", steps)
	}
	runUntil(1)
	msgs := srv.Messages()
	if len(msgs) != 3 {
		t.Fatalf("invitation: %d mails, want 3", len(msgs))
	}
	m := msgs[0]
	unsub := m.Header.Get("List-Unsubscribe")
	if !strings.HasPrefix(unsub, "<https://surveys.example/unsubscribe/") || m.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
		t.Errorf("headers: List-Unsubscribe %q, List-Unsubscribe-Post %q", unsub, m.Header.Get("List-Unsubscribe-Post"))
	}
	if !strings.Contains(m.Subject, "Adatum") || !strings.Contains(m.Text, "Sent by Adatum") || !strings.Contains(m.Text, "https://surveys.example/survey/"+f.tenant+"/"+f.sv.Slug+"?dept=Sales&k=plk_") {
		t.Errorf("the mail lacks the organisation's name or the link (with the hidden field, not the other attribute):\n%s\n%s", m.Subject, m.Text)
	}
	if strings.Contains(m.Text, "region=") {
		t.Errorf("an attribute that is no hidden field of the survey is in the link:\n%s", m.Text)
	}
	sup, err := store.NewContactStore(st).Suppressions(ctx, f.tenant)
	if err != nil || !sup[f.contacts[3].ID].Bounced {
		t.Fatalf("the refused address is not flagged bounced: %v, %v", sup, err)
	}
	// Contact 0 answers with its link.
	links := store.NewPersonalLinkStore(st)
	tok := store.CampaignToken(campaignKey, f.tenant, f.c.ID, f.contacts[0].ID)
	if _, err := links.Use(ctx, f.tenant, f.sv.Slug, tok, "answer-0", false); err != nil {
		t.Fatal(err)
	}
	if _, err := store.NewCampaignStore(st).RemindNow(ctx, f.tenant, f.c.ID); err != nil {
		t.Fatal(err)
	}
	runUntil(2)
	got := ledger(srv)
	for i, ct := range f.contacts {
		want := map[int]int{0: 1, 1: 2, 2: 2, 3: 0}[i]
		if len(got[ct.Email]) != want {
			t.Errorf("%s got %d mails, want %d", ct.Email, len(got[ct.Email]), want)
		}
	}
}

// TestCampaignTwoWorkers: two workers on one storage (two instances, on
// each backend: Azurite too) run the same step of a campaign at once, each
// as if it had the message; the claims leave every contact mailed exactly
// once.
func TestCampaignTwoWorkers(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) { twoWorkers(t, st) })
}

func twoWorkers(t *testing.T, st storage.Storage) {
	ctx := context.Background()
	f := newCampaignFixture(t, st, 40, 0, false)
	srv := mailtest.Start(t, mailtest.Options{})
	cfg := campaignConfig
	cfg.Batch = 4
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		w := newCampaignWorker(t, st, srv, cfg)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				wait, err := w.Step(ctx, f.tenant, f.c, 0, nil)
				if err != nil {
					errs <- err
					return
				}
				if wait == 0 {
					return
				}
				// The other holds claims: look again soon.
				time.Sleep(10 * time.Millisecond)
			}
			errs <- fmt.Errorf("the step did not finish")
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := ledger(srv)
	for _, ct := range f.contacts {
		if n := len(got[ct.Email]); n != 1 {
			t.Errorf("%s got %d mails", ct.Email, n)
		}
	}
}

// TestCampaignMailInSurveyLanguage: the words the service adds around the
// sender's text (the link's line, the footer, the unsubscribe line) are in
// the survey's language; the sender's words are as written.
func TestCampaignMailInSurveyLanguage(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	f := newCampaignFixture(t, st, 1, 0, false)
	f.sv.Language = "fr"
	if err := store.NewSurveyStore(st).Update(ctx, f.sv); err != nil {
		t.Fatal(err)
	}
	srv := mailtest.Start(t, mailtest.Options{})
	if wait, err := newCampaignWorker(t, st, srv, campaignConfig).Step(ctx, f.tenant, f.c, 0, nil); err != nil || wait != 0 {
		t.Fatalf("step: %v, %v", wait, err)
	}
	m := srv.Messages()[0]
	for _, want := range []string{"Dear customer", "Votre lien personnel vers l'enquête", "Envoyé par Adatum", "Pour ne plus recevoir d'invitations de Adatum"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("the mail lacks %q:\n%s", want, m.Text)
		}
	}
	if !strings.Contains(m.HTML, `lang="fr"`) || !strings.Contains(m.HTML, "Se désabonner") {
		t.Errorf("the HTML part is not in French:\n%s", m.HTML)
	}
}

// TestCampaignLinksOnCustomDomain: once the tenant's custom domain is
// verified, the invitation's personal link is on it; the unsubscribe
// link stays on the public URL (the domain serves the survey only).
func TestCampaignLinksOnCustomDomain(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	f := newCampaignFixture(t, st, 1, 0, false)
	ds := store.NewDomainStore(st)
	host := "links." + f.tenant + ".example"
	if _, err := ds.Claim(ctx, f.tenant, host); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.MarkVerified(ctx, f.tenant); err != nil {
		t.Fatal(err)
	}
	srv := mailtest.Start(t, mailtest.Options{})
	w := newCampaignWorkerWith(t, st, srv, campaignConfig, func(d *worker.CampaignDeps) { d.Domains = ds })
	if wait, err := w.Step(ctx, f.tenant, f.c, 0, nil); err != nil || wait != 0 {
		t.Fatalf("step: %v, %v", wait, err)
	}
	m := srv.Messages()[0]
	if !strings.Contains(m.Text, "https://"+host+"/survey/"+f.tenant+"/"+f.sv.Slug+"?") || strings.Contains(m.Text, "https://surveys.example/survey/") {
		t.Errorf("the invitation's link is not on %s:\n%s", host, m.Text)
	}
	if u := m.Header.Get("List-Unsubscribe"); !strings.HasPrefix(u, "<https://surveys.example/unsubscribe/") {
		t.Errorf("List-Unsubscribe %q, want the public URL's", u)
	}
}

// TestCampaignWithinQuota: a campaign larger than what is left of the
// tenant's hour sends what the quota allows, then waits for the next hour
// and sends the rest; never more in an hour than the quota.
func TestCampaignWithinQuota(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	f := newCampaignFixture(t, st, 5, 0, false)
	srv := mailtest.Start(t, mailtest.Options{})
	clk := &clock{t: time.Date(2026, 12, 7, 10, 30, 0, 0, time.UTC)}
	small := store.MailLimits{PerHour: 3, PerDay: 100, PerRecipient: 3}
	quota := store.NewMailQuotaStore(st, store.MailQuota{Paid: small, Trial: small}).WithClock(clk.now)
	cfg := campaignConfig
	cfg.Batch = 2
	w := newCampaignWorker(t, st, srv, cfg, quota).WithClock(clk.now)
	wait, err := w.Step(ctx, f.tenant, f.c, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Messages()); n != 3 || wait < 29*time.Minute || wait > 32*time.Minute {
		t.Fatalf("first hour: %d mails, wait %v", n, wait)
	}
	first := len(srv.Messages())
	clk.advance(wait)
	if wait, err = w.Step(ctx, f.tenant, f.c, 0, nil); err != nil || wait != 0 {
		t.Fatalf("next hour: wait %v, %v", wait, err)
	}
	got := ledger(srv)
	for _, ct := range f.contacts {
		if len(got[ct.Email]) != 1 {
			t.Errorf("%s got %d mails", ct.Email, len(got[ct.Email]))
		}
	}
	if len(srv.Messages())-first > 3 {
		t.Errorf("%d mails in the second hour", len(srv.Messages())-first)
	}
}

// TestCampaignSegment: a campaign limited to the contacts whose dept is
// "sales" (compared without regard to case) mails the 2 of 4 contacts
// whose dept is Sales; its reminder goes only to the one of them who has
// not answered, not to the contacts outside the segment nor to a
// matching contact added after the invitation was sent (as any contact
// added late: a reminder follows an invitation).
func TestCampaignSegment(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	f := newCampaignFixture(t, st, 4, 1, false)
	cs := store.NewContactStore(st)
	for _, ct := range f.contacts[2:] {
		if _, err := cs.Update(ctx, f.tenant, f.list, ct.ID, ct.Name, map[string]string{"dept": "Support", "region": "North"}); err != nil {
			t.Fatal(err)
		}
	}
	camps := store.NewCampaignStore(st)
	c, err := camps.Create(ctx, f.tenant, store.NewCampaign{Survey: f.sv.Slug, List: f.list, Subject: "Sales only", Text: "Dear colleague,\n\nplease answer.",
		SendAt: time.Now(), RemindEvery: 24 * time.Hour, MaxReminders: 1, Segment: []survey.SegmentCondition{{Attr: "dept", Value: "sales"}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := mailtest.Start(t, mailtest.Options{})
	w := newCampaignWorker(t, st, srv, campaignConfig)
	runUntil := func(steps int) {
		t.Helper()
		for range 20 {
			if _, err := w.RunOnce(ctx); err != nil {
				t.Fatal(err)
			}
			got, _, err := camps.Get(ctx, f.tenant, c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Finished) >= steps {
				return
			}
		}
		t.Fatalf("the campaign did not finish %d steps", steps)
	}
	// The fixture's own campaign (to everyone) is marked over, so that
	// the worker drops its message: only the segment's campaign is sent.
	fc, etag, err := camps.Get(ctx, f.tenant, f.c.ID)
	if err != nil {
		t.Fatal(err)
	}
	fc.Step, fc.Done = fc.MaxReminders, true
	if err := camps.Update(ctx, f.tenant, fc, etag); err != nil {
		t.Fatal(err)
	}
	runUntil(1)
	got := ledger(srv)
	if len(srv.Messages()) != 2 || len(got[f.contacts[0].Email]) != 1 || len(got[f.contacts[1].Email]) != 1 {
		t.Fatalf("invitation: %v, want one mail to each of %s and %s", got, f.contacts[0].Email, f.contacts[1].Email)
	}
	if _, err := cs.Add(ctx, f.tenant, f.list, survey.Recipient{Email: "late@example.com", Attrs: map[string]string{"dept": "Sales"}}); err != nil {
		t.Fatal(err)
	}
	tok := store.CampaignToken(campaignKey, f.tenant, c.ID, f.contacts[0].ID)
	if _, err := store.NewPersonalLinkStore(st).Use(ctx, f.tenant, f.sv.Slug, tok, "answer-0", false); err != nil {
		t.Fatal(err)
	}
	if _, err := camps.RemindNow(ctx, f.tenant, c.ID); err != nil {
		t.Fatal(err)
	}
	runUntil(2)
	got = ledger(srv)
	for addr, want := range map[string]int{f.contacts[0].Email: 1, f.contacts[1].Email: 2, f.contacts[2].Email: 0, f.contacts[3].Email: 0, "late@example.com": 0} {
		if len(got[addr]) != want {
			t.Errorf("%s got %d mails, want %d", addr, len(got[addr]), want)
		}
	}
}
