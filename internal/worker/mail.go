package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
)

// MailConfig tunes the mail worker.
type MailConfig struct {
	// Visibility hides a message while it is sent; longer than a send
	// takes (mail.DefaultTimeout per command).
	Visibility time.Duration
	// MaxAttempts is how many times a message is tried before it goes to
	// the poison queue.
	MaxAttempts int
	// RetryBase is the wait after the first failure; it doubles after each
	// failure, up to RetryMax.
	RetryBase, RetryMax time.Duration
	// MaxIdle is the longest pause between polls of an empty queue.
	MaxIdle time.Duration
}

// DefaultMailConfig is the configuration of surveys serve: a message is
// tried at once, then after 1, 2, 4, 8 and 16 minutes (about half an
// hour in all), then poisoned. An idle queue is polled every 30 s at most
// (2 dequeues a minute); a message queued on this instance wakes the
// worker at once (Wake).
var DefaultMailConfig = MailConfig{Visibility: 5 * time.Minute, MaxAttempts: 6, RetryBase: time.Minute, RetryMax: 30 * time.Minute, MaxIdle: 30 * time.Second}

func (c MailConfig) backoff(attempt int) time.Duration {
	return TransferConfig{RetryBase: c.RetryBase, RetryMax: c.RetryMax}.backoff(attempt)
}

// MailSender sends one message (mail.Sender).
type MailSender interface {
	Send(ctx context.Context, m mail.Message) error
}

// Mail drains the mail queue: each message is sent through the SMTP
// server and deleted once the server took it. A failure puts it back for a
// growing wait; after MaxAttempts, or at once when the server refuses it
// for good (5xx) or it cannot be decoded, it goes to the mail poison queue
// with the reason.
type Mail struct {
	st   storage.Storage
	send MailSender
	cfg  MailConfig
	log  *slog.Logger
	now  func() time.Time
	wake waker

	sent, failed, poisoned prometheus.Counter
	lag                    *lag
}

// NewMail returns a mail worker that sends through send.
func NewMail(st storage.Storage, send MailSender, cfg MailConfig, log *slog.Logger) *Mail {
	if log == nil {
		log = slog.Default()
	}
	return &Mail{st: st, send: send, cfg: cfg, log: log, now: time.Now, wake: newWaker(),
		sent:     prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_mail_sent_total", Help: "E-mail messages the SMTP server accepted."}),
		failed:   prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_mail_failed_total", Help: "Attempts to send an e-mail message that failed (tried again, or poisoned)."}),
		poisoned: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_mail_poison_messages_total", Help: "E-mail messages moved to the poison queue."}),
		lag:      newLag("mail"),
	}
}

// Collectors returns the mail worker's metrics, to register.
func (w *Mail) Collectors() []prometheus.Collector {
	return append([]prometheus.Collector{w.sent, w.failed, w.poisoned}, w.lag.collectors()...)
}

// Run sends the queue's messages until ctx is done. A send under way when
// ctx ends is stopped and its message made visible again at once, for
// another worker or this one restarted (the delivery still counts toward
// MaxAttempts).
func (w *Mail) Run(ctx context.Context) error {
	return poll(ctx, func() (int, error) { return w.RunOnce(ctx) }, w.cfg.MaxIdle, w.wake, 0, w.log, "mail worker: message failed")
}

// Wake makes Run take the queue now: this instance queued a message. It
// never blocks.
func (w *Mail) Wake() { w.wake.Wake() }

// RunOnce takes one message and handles it. It returns the number of
// messages taken (0 or 1).
func (w *Mail) RunOnce(ctx context.Context) (int, error) {
	msgs, err := w.st.Dequeue(ctx, store.MailQueue, 1, w.cfg.Visibility)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil
		}
		return 0, fmt.Errorf("mail worker: dequeue: %w", err)
	}
	w.lag.took(store.MailQueue, msgs, w.now())
	defer w.lag.progressed()
	if len(msgs) == 0 {
		return 0, nil
	}
	return 1, w.handle(ctx, msgs[0])
}

// handle sends one message; ctx stops the send, not the bookkeeping.
func (w *Mail) handle(ctx context.Context, m storage.Message) error {
	sendCtx := ctx
	ctx = context.WithoutCancel(ctx)
	var msg mail.Message
	if err := json.Unmarshal(m.Data, &msg); err != nil {
		return w.poison(ctx, m, "cannot decode the message: "+err.Error())
	}
	attempt := int(m.DequeueCount)
	sctx, cancel := context.WithTimeout(sendCtx, w.cfg.Visibility*2/3)
	err := w.send.Send(sctx, msg)
	cancel()
	if err == nil {
		w.sent.Inc()
		w.log.Info("mail worker: sent", "id", m.ID, "attempt", attempt)
		return w.delete(ctx, m)
	}
	if sendCtx.Err() != nil {
		// Shutting down: the message comes back at once for a worker.
		_, err := w.st.UpdateVisibility(ctx, store.MailQueue, m.ID, m.PopReceipt, 0)
		return err
	}
	w.failed.Inc()
	w.log.Warn("mail worker: attempt failed", "id", m.ID, "attempt", attempt, "err", err)
	switch {
	case mail.Permanent(err):
		return w.poison(ctx, m, fmt.Sprintf("refused on attempt %d: %s", attempt, err))
	case attempt >= w.cfg.MaxAttempts:
		return w.poison(ctx, m, fmt.Sprintf("failed %d attempts; last error: %s", attempt, err))
	}
	if _, err := w.st.UpdateVisibility(ctx, store.MailQueue, m.ID, m.PopReceipt, w.cfg.backoff(attempt)); err != nil {
		return fmt.Errorf("mail worker: put back %s: %w", m.ID, err)
	}
	return nil
}

func (w *Mail) delete(ctx context.Context, m storage.Message) error {
	if err := w.st.DeleteMessage(ctx, store.MailQueue, m.ID, m.PopReceipt); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("mail worker: delete %s: %w", m.ID, err)
	}
	return nil
}

// poison moves a message to the mail poison queue with the reason, then
// deletes it. If the move fails the message stays, to come back.
func (w *Mail) poison(ctx context.Context, m storage.Message, reason string) error {
	w.log.Error("mail worker: poison message", "id", m.ID, "dequeueCount", m.DequeueCount, "reason", reason)
	data, err := json.Marshal(PoisonMessage{MessageID: m.ID, Queue: store.MailQueue, Reason: reason, Data: m.Data, PoisonOn: w.now().UTC()})
	if err != nil {
		return err
	}
	if _, err := w.st.Enqueue(ctx, store.MailPoisonQueue, data, storage.EnqueueOptions{TTL: -1}); err != nil {
		return fmt.Errorf("mail worker: move %s to the poison queue: %w", m.ID, err)
	}
	w.poisoned.Inc()
	return w.delete(ctx, m)
}
