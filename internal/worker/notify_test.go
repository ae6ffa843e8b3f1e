package worker_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/mail/mailtest"
	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
	"github.com/surveys-dev/surveys/internal/worker"
)

var notifyKey = []byte("0123456789abcdef0123456789abcdef")

// notifyFixture is an answers worker with notifications, a mail worker
// sending to a real SMTP server, and a clock the test moves.
type notifyFixture struct {
	st     *counting.Store
	mail   *mailFixture
	subs   *store.NotificationStore
	n      *worker.Notify
	w      *worker.Worker
	now    time.Time
	tenant string
	sv     *survey.Survey
}

func newNotifyFixture(t *testing.T, cfg worker.NotifyConfig) *notifyFixture {
	t.Helper()
	ctx := context.Background()
	st := counting.New(backends.Local(t))
	f := &notifyFixture{st: st, mail: newMailFixture(t, st), subs: store.NewNotificationStore(st), tenant: newTenant(), now: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	if err := worker.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	tpl, err := mail.LoadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	f.n = worker.NewNotify(st, f.subs, f.mail.outbox, tpl, notifyKey, "https://surveys.example", cfg, quiet)
	f.n.Now = func() time.Time { return f.now }
	f.w = worker.New(st, worker.DefaultConfig, quiet, nil)
	f.w.Notify = f.n
	f.sv = typedSurvey(t, st, f.tenant)
	return f
}

func (f *notifyFixture) subscribe(t *testing.T, email string, c survey.NotifyChoices) {
	t.Helper()
	if err := f.subs.Subscribe(context.Background(), f.tenant, f.sv.Slug, email, c, 0, f.now); err != nil {
		t.Fatal(err)
	}
}

// answer queues n answers whose text is why and counts them.
func (f *notifyFixture) answer(t *testing.T, n int, why string) {
	t.Helper()
	var answers []survey.SurveyAnswer
	for range n {
		a, err := survey.NewAnswer(f.sv, surveytest.Forms(map[string]string{f.sv.Questions[0].ID: "4", f.sv.Questions[1].ID: "Green", f.sv.Questions[2].ID: why}))
		if err != nil {
			t.Fatal(err)
		}
		a.ID, a.CreatedOn = store.NewAnswerID(f.now), f.now
		answers = append(answers, a)
	}
	if err := store.NewSurveyAnswerStore(f.st).EnqueueFor(context.Background(), survey.Standard, answers); err != nil {
		t.Fatal(err)
	}
	drain(t, f.st, f.w)
}

// sent sends every queued e-mail and returns those the SMTP server got
// since the last call.
func (f *notifyFixture) sent(t *testing.T, seen *int) []mailtest.Message {
	t.Helper()
	for {
		n, err := f.mail.w.RunOnce(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	all := f.mail.srv.Messages()
	got := all[*seen:]
	*seen = len(all)
	return got
}

func (f *notifyFixture) tick(t *testing.T) {
	t.Helper()
	if err := f.n.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
}

var unsubscribeRE = regexp.MustCompile(`https://surveys\.example/unsubscribe/(\S+)`)

// TestNotifyEachAnswer: a member who asked for each answer gets one
// e-mail per answer at the real SMTP server, with the answer's values
// (escaped in the HTML part), a link to the answer and a signed
// unsubscribe link; a member who did not, and another tenant's, get
// nothing; after the unsubscribe, nothing more.
func TestNotifyEachAnswer(t *testing.T) {
	f := newNotifyFixture(t, worker.NotifyConfig{Cap: 20, Tick: time.Hour, DigestEvery: 24 * time.Hour})
	f.subscribe(t, "ana@example.com", survey.NotifyChoices{EachAnswer: true})
	f.subscribe(t, "bob@example.com", survey.NotifyChoices{Digest: true})
	other := typedSurvey(t, f.st, newTenant()+"x")
	if err := f.subs.Subscribe(context.Background(), other.Tenant, other.Slug, "eve@example.com", survey.NotifyChoices{EachAnswer: true}, 0, f.now); err != nil {
		t.Fatal(err)
	}
	seen := 0
	f.answer(t, 2, `<script>alert("x")</script> & more`)
	got := f.sent(t, &seen)
	if len(got) != 2 {
		t.Fatalf("%d e-mails for 2 answers, want 2", len(got))
	}
	for i, m := range got {
		if len(m.To) != 1 || m.To[0] != "ana@example.com" || m.Subject != "New answer to CSAT" {
			t.Fatalf("e-mail %d: to %v, subject %q", i, m.To, m.Subject)
		}
		for _, want := range []string{"Rate us", "4", "Pick one", "Green", `<script>alert("x")</script> & more`, fmt.Sprintf("https://surveys.example/%s/surveys/%s/answers?i=%d", f.tenant, f.sv.Slug, i)} {
			if !strings.Contains(m.Text, want) {
				t.Errorf("text part of e-mail %d lacks %q:\n%s", i, want, m.Text)
			}
		}
		if strings.Contains(m.HTML, "<script>") || !strings.Contains(m.HTML, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; more") {
			t.Errorf("HTML part of e-mail %d does not escape the answer:\n%s", i, m.HTML)
		}
		if !strings.Contains(m.HTML, `href="https://surveys.example/unsubscribe/`) {
			t.Errorf("HTML part of e-mail %d has no unsubscribe link", i)
		}
	}
	// The unsubscribe link is signed, names its member, survey and kind.
	link := unsubscribeRE.FindStringSubmatch(got[0].Text)
	if link == nil {
		t.Fatalf("no unsubscribe link in:\n%s", got[0].Text)
	}
	u, err := survey.ParseUnsubscribe(notifyKey, link[1])
	if err != nil || u != (survey.Unsubscribe{Tenant: f.tenant, Slug: f.sv.Slug, Email: "ana@example.com", What: survey.NotifyEachAnswer}) {
		t.Fatalf("the link's token: %+v, %v", u, err)
	}
	if err := f.subs.Unsubscribe(context.Background(), u, f.now); err != nil {
		t.Fatal(err)
	}
	f.answer(t, 1, "after")
	if got := f.sent(t, &seen); len(got) != 0 {
		t.Fatalf("%d e-mails after the unsubscribe", len(got))
	}
}

// TestNotifyCapFolds: a burst beyond the hourly cap gets Cap e-mails (the
// last saying so), then, once the hour is over, one e-mail telling how
// many more answers came; the next hour starts a new count.
func TestNotifyCapFolds(t *testing.T) {
	f := newNotifyFixture(t, worker.NotifyConfig{Cap: 3, Tick: time.Hour, DigestEvery: 24 * time.Hour})
	f.subscribe(t, "ana@example.com", survey.NotifyChoices{EachAnswer: true})
	seen := 0
	f.answer(t, 2, "first")
	f.now = f.now.Add(10 * time.Minute)
	f.answer(t, 8, "burst")
	got := f.sent(t, &seen)
	if len(got) != 3 {
		t.Fatalf("%d e-mails for 10 answers under a cap of 3", len(got))
	}
	if !strings.Contains(got[2].Text, "last e-mail of this kind this hour") || strings.Contains(got[1].Text, "last e-mail") {
		t.Errorf("the third e-mail does not say the cap is reached:\n%s", got[2].Text)
	}
	// Within the hour: nothing more.
	f.now = f.now.Add(30 * time.Minute)
	f.tick(t)
	if got := f.sent(t, &seen); len(got) != 0 {
		t.Fatalf("%d e-mails within the hour", len(got))
	}
	// The hour is over: one e-mail of the 7 folded.
	f.now = f.now.Add(30 * time.Minute)
	f.tick(t)
	f.tick(t)
	got = f.sent(t, &seen)
	if len(got) != 1 || got[0].Subject != "7 more answers to CSAT" || !strings.Contains(got[0].Text, "/answers/table") {
		t.Fatalf("after the hour: %d e-mails: %+v", len(got), got)
	}
	// A new hour: answers are mailed again.
	f.answer(t, 1, "later")
	if got := f.sent(t, &seen); len(got) != 1 || got[0].Subject != "New answer to CSAT" {
		t.Fatalf("the next hour: %d e-mails", len(got))
	}
}

// TestNotifyCapFoldsIntoNextAnswers: answers folded in an hour are told
// before the first answer of a later hour when that comes before a tick.
func TestNotifyCapFoldsIntoNextAnswers(t *testing.T) {
	f := newNotifyFixture(t, worker.NotifyConfig{Cap: 1, Tick: time.Hour, DigestEvery: 24 * time.Hour})
	f.subscribe(t, "ana@example.com", survey.NotifyChoices{EachAnswer: true})
	seen := 0
	f.answer(t, 5, "burst")
	if got := f.sent(t, &seen); len(got) != 1 {
		t.Fatalf("%d e-mails under a cap of 1", len(got))
	}
	f.now = f.now.Add(61 * time.Minute)
	f.answer(t, 1, "later")
	got := f.sent(t, &seen)
	if len(got) != 2 || got[0].Subject != "4 more answers to CSAT" || got[1].Subject != "New answer to CSAT" {
		t.Fatalf("the next hour: %+v", got)
	}
}

// TestNotifyDigest: a digest a day with the count of new answers since
// the last, highlights and an unsubscribe link; none on a day without new
// answers; a second tick the same day sends nothing; one tick of two
// instances at once sends one.
func TestNotifyDigest(t *testing.T) {
	f := newNotifyFixture(t, worker.NotifyConfig{Cap: 20, Tick: time.Hour, DigestEvery: 24 * time.Hour})
	f.answer(t, 3, "before the subscription")
	if err := f.subs.Subscribe(context.Background(), f.tenant, f.sv.Slug, "ana@example.com", survey.NotifyChoices{Digest: true}, 3, f.now); err != nil {
		t.Fatal(err)
	}
	seen := 0
	f.answer(t, 5, "great service")
	f.now = f.now.Add(23 * time.Hour)
	f.tick(t)
	if got := f.sent(t, &seen); len(got) != 0 {
		t.Fatalf("%d e-mails before a day passed", len(got))
	}
	f.now = f.now.Add(time.Hour)
	// Two instances tick at once: one digest.
	other := worker.NewNotify(f.st, store.NewNotificationStore(f.st), f.mail.outbox, mustTemplates(t), notifyKey, "https://surveys.example", worker.DefaultNotifyConfig, quiet)
	other.Now = f.n.Now
	f.tick(t)
	if err := other.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := f.sent(t, &seen)
	if len(got) != 1 {
		t.Fatalf("%d digests, want 1", len(got))
	}
	d := got[0]
	if d.To[0] != "ana@example.com" || d.Subject != "5 new answers to CSAT today" {
		t.Fatalf("digest: to %v, subject %q", d.To, d.Subject)
	}
	for _, want := range []string{"(8 in all)", "Rate us: 4.0 stars on average", "“Green” is the most chosen (8)", "/analyze", "https://surveys.example/unsubscribe/"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("digest lacks %q:\n%s", want, d.Text)
		}
	}
	if !strings.Contains(d.HTML, "<li>Rate us: 4.0 stars on average</li>") {
		t.Errorf("digest's HTML part:\n%s", d.HTML)
	}
	// A day without answers: nothing.
	f.now = f.now.Add(24 * time.Hour)
	f.tick(t)
	if got := f.sent(t, &seen); len(got) != 0 {
		t.Fatalf("%d e-mails on a day without answers", len(got))
	}
	// Then 1 answer: "1 new answer".
	f.answer(t, 1, "one more")
	f.now = f.now.Add(24 * time.Hour)
	f.tick(t)
	f.tick(t)
	got = f.sent(t, &seen)
	if len(got) != 1 || got[0].Subject != "1 new answer to CSAT today" {
		t.Fatalf("the third day: %+v", got)
	}
	// The digest's unsubscribe link stops it.
	link := unsubscribeRE.FindStringSubmatch(got[0].Text)
	u, err := survey.ParseUnsubscribe(notifyKey, link[1])
	if err != nil || u.What != survey.NotifyDigest {
		t.Fatalf("the digest's link: %+v, %v", u, err)
	}
	if err := f.subs.Unsubscribe(context.Background(), u, f.now); err != nil {
		t.Fatal(err)
	}
	f.answer(t, 1, "one more")
	f.now = f.now.Add(48 * time.Hour)
	f.tick(t)
	if got := f.sent(t, &seen); len(got) != 0 {
		t.Fatalf("%d e-mails after the unsubscribe", len(got))
	}
}

func mustTemplates(t *testing.T) *mail.Templates {
	t.Helper()
	tpl, err := mail.LoadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// TestNotifyCost: answers of a survey without subscribers cost the
// answers worker exactly what they cost without notifications (the
// tenant's subscriptions, none, are cached); with one subscriber of each
// answer, a batch costs one read of the survey (its row and questions),
// one write of the
// subscription and one enqueue per e-mail; an idle tick of the digest
// worker costs one query.
func TestNotifyCost(t *testing.T) {
	f := newNotifyFixture(t, worker.NotifyConfig{Cap: 1000, Tick: time.Hour, DigestEvery: 24 * time.Hour})
	// Warm: the summary, list and the tenant's subscriptions (none) are cached.
	f.answer(t, 32, "warm")
	cost := func(n *worker.Notify) int64 {
		f.w.Notify = n
		defer func() { f.w.Notify = f.n }()
		before := f.st.Total("")
		f.answer(t, 32, "counted")
		return f.st.Total("") - before
	}
	without, with := cost(nil), cost(f.n)
	t.Logf("32 answers of a survey without subscribers: %d storage calls without notifications, %d with (%.2f ops/answer)", without, with, float64(with)/32)
	if with != without {
		t.Fatalf("32 answers cost %d storage calls with notifications on, %d without", with, without)
	}
	f.subscribe(t, "ana@example.com", survey.NotifyChoices{EachAnswer: true})
	cost(f.n) // the first batch reads the tenant's subscriptions again (changed)
	with1 := cost(f.n)
	t.Logf("32 answers with one subscriber of each answer: %d storage calls (%.2f ops/answer; %d more: the survey's row and questions, the subscription's write, 32 enqueues)", with1, float64(with1)/32, with1-without)
	if with1-without != 2+1+32 {
		t.Fatalf("one subscriber costs %d more storage calls a batch of 32, want 35", with1-without)
	}
	// An idle tick: one query.
	before := f.st.Total("")
	f.tick(t)
	idle := f.st.Total("") - before
	t.Logf("an idle tick: %d storage calls; every %v: %.3f per idle minute", idle, worker.DefaultNotifyConfig.Tick, float64(idle)/worker.DefaultNotifyConfig.Tick.Minutes())
	if idle != 1 {
		t.Fatalf("an idle tick costs %d storage calls (%v)", idle, f.st.Snapshot())
	}
}
