package worker_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/mail/mailtest"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/worker"
)

// mailConfig retries at once, so that RunOnce takes a failed message again.
var mailConfig = worker.MailConfig{Visibility: time.Minute, MaxAttempts: 3, MaxIdle: 20 * time.Millisecond}

type mailFixture struct {
	st     storage.Storage
	srv    *mailtest.Server
	outbox *mail.Outbox
	w      *worker.Mail
}

func newMailFixture(t *testing.T, st storage.Storage) *mailFixture {
	t.Helper()
	ctx := context.Background()
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	// Messages an earlier run left on a shared account.
	for _, q := range []string{store.MailQueue, store.MailPoisonQueue} {
		drainQueue(t, st, q)
	}
	srv := mailtest.Start(t, mailtest.Options{Username: "ana", Password: "pw"})
	cfg, err := mail.Load(mail.Settings{URL: "smtp://ana@" + srv.Addr + "?tls=none", Password: "pw", From: "Surveys <surveys@example.com>"})
	if err != nil {
		t.Fatal(err)
	}
	f := &mailFixture{st: st, srv: srv, outbox: mail.NewOutbox(st, cfg), w: worker.NewMail(st, mail.NewSender(*cfg), mailConfig, quiet)}
	f.outbox.Queued = f.w.Wake
	return f
}

func (f *mailFixture) enqueue(t *testing.T, m mail.Message) {
	t.Helper()
	if err := f.outbox.Enqueue(context.Background(), m); err != nil {
		t.Fatal(err)
	}
}

func (f *mailFixture) runOnce(t *testing.T) {
	t.Helper()
	n, err := f.w.RunOnce(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("RunOnce = %d, %v; want 1 message taken", n, err)
	}
}

// poisoned returns the reasons in the mail poison queue, by recipient.
func (f *mailFixture) poisoned(t *testing.T) map[string]string {
	t.Helper()
	msgs, err := f.st.PeekMessages(context.Background(), store.MailPoisonQueue, 32)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range msgs {
		var p worker.PoisonMessage
		var msg mail.Message
		if err := json.Unmarshal(m.Data, &p); err != nil || json.Unmarshal(p.Data, &msg) != nil || p.Queue != store.MailQueue {
			t.Fatalf("poison message %s: %v", m.Data, err)
		}
		out[msg.To] = p.Reason
	}
	return out
}

// TestMailWorkerDelivers: a message goes from Enqueue through the running
// worker (woken by the enqueue) to the SMTP server and arrives whole. On
// both backends.
func TestMailWorkerDelivers(t *testing.T) {
	backends.Each(t, func(t *testing.T, st storage.Storage) {
		f := newMailFixture(t, st)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- f.w.Run(ctx) }()
		msg := mail.Message{To: "Zoë <zoe@example.com>", Subject: "Invitation à “Équipe” – 你好", Text: "Bonjour Zoë ✓\nLigne deux\n", HTML: "<p>Bonjour Zoë ✓</p>"}
		f.enqueue(t, msg)
		got := f.srv.Wait(t, 1)[0]
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if got.Subject != msg.Subject || got.Text != msg.Text || got.HTML != msg.HTML || got.To[0] != "zoe@example.com" || got.From != "surveys@example.com" {
			t.Fatalf("arrived %+v", got)
		}
		if !strings.Contains(got.Header.Get("To"), "<zoe@example.com>") {
			t.Errorf("To: %q", got.Header.Get("To"))
		}
		if n := queueLen(t, st, store.MailQueue); n != 0 {
			t.Fatalf("%d messages left in the queue after sending", n)
		}
		if v := testutil.ToFloat64(f.w.Collectors()[0]); v != 1 {
			t.Errorf("surveys_mail_sent_total = %v", v)
		}
	})
}

// TestMailWorkerRetriesThenPoisons: a server that answers 4xx, or is down,
// gets the message again until MaxAttempts, then the message goes to the
// poison queue with the reason; a 5xx refusal poisons it at once; a
// server that recovers gets the message.
func TestMailWorkerRetriesThenPoisons(t *testing.T) {
	f := newMailFixture(t, backends.Local(t))
	msg := func(to string) mail.Message {
		return mail.Message{To: to, Subject: "Hello " + to, Text: "Body"}
	}

	// Fails once, then the server recovers.
	f.srv.Fail(451)
	f.enqueue(t, msg("recovers@example.com"))
	f.runOnce(t)
	if n := queueLen(t, f.st, store.MailQueue); n != 1 {
		t.Fatalf("the message is not kept for a retry: %d in the queue", n)
	}
	f.srv.Fail(0)
	f.runOnce(t)
	if got := f.srv.Messages(); len(got) != 1 || got[0].To[0] != "recovers@example.com" {
		t.Fatalf("after the retry the server has %+v", got)
	}

	// 4xx every time: three attempts, then the poison queue.
	f.srv.Fail(451)
	f.enqueue(t, msg("busy@example.com"))
	for range mailConfig.MaxAttempts {
		f.runOnce(t)
	}
	// 5xx: refused for good at the first attempt.
	f.srv.Fail(550)
	f.enqueue(t, msg("refused@example.com"))
	f.runOnce(t)
	// Down: three attempts, then the poison queue.
	f.srv.Close()
	f.enqueue(t, msg("down@example.com"))
	for range mailConfig.MaxAttempts {
		f.runOnce(t)
	}
	if n := queueLen(t, f.st, store.MailQueue); n != 0 {
		t.Fatalf("%d messages left in the queue after giving up", n)
	}
	reasons := f.poisoned(t)
	for to, want := range map[string][]string{
		"busy@example.com":    {"failed 3 attempts", "451"},
		"refused@example.com": {"refused on attempt 1", "550"},
		"down@example.com":    {"failed 3 attempts", "connect"},
	} {
		for _, w := range want {
			if !strings.Contains(reasons[to], w) {
				t.Errorf("poison reason of %s = %q, want %q in it", to, reasons[to], w)
			}
		}
	}
	if len(reasons) != 3 {
		t.Errorf("poison queue = %v", reasons)
	}
	c := f.w.Collectors()
	for i, want := range []float64{1, 8, 3} { // sent, failed, poisoned
		if got := testutil.ToFloat64(c[i]); got != want {
			t.Errorf("%s = %v, want %v", []string{"sent", "failed", "poisoned"}[i], got, want)
		}
	}
}

// TestMailWorkerPoisonsUndecodable: a message that is not a mail.Message
// goes to the poison queue at once.
func TestMailWorkerPoisonsUndecodable(t *testing.T) {
	f := newMailFixture(t, backends.Local(t))
	if _, err := f.st.Enqueue(context.Background(), store.MailQueue, []byte("{not json"), storage.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	f.runOnce(t)
	msgs, err := f.st.PeekMessages(context.Background(), store.MailPoisonQueue, 32)
	if err != nil || len(msgs) != 1 || !strings.Contains(string(msgs[0].Data), "cannot decode") {
		t.Fatalf("poison queue = %d messages, %v", len(msgs), err)
	}
	if n, err := f.w.RunOnce(context.Background()); n != 0 || err != nil {
		t.Fatalf("RunOnce of an empty queue = %d, %v", n, err)
	}
}

// drainQueue deletes the messages in q.
func drainQueue(t *testing.T, st storage.Storage, q string) {
	t.Helper()
	ctx := context.Background()
	for {
		msgs, err := st.Dequeue(ctx, q, 32, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			return
		}
		for _, m := range msgs {
			if err := st.DeleteMessage(ctx, q, m.ID, m.PopReceipt); err != nil {
				t.Fatal(err)
			}
		}
	}
}
