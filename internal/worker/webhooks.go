package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/outbound"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/webhook"
)

// WebhookConfig tunes the webhooks worker.
type WebhookConfig struct {
	// Timeout bounds one request, from dialling to the end of the answer.
	Timeout time.Duration
	// Visibility hides a message while it is delivered; longer than
	// Timeout.
	Visibility time.Duration
	// Schedule are the waits after each failed attempt: a message is tried
	// len(Schedule)+1 times, then poisoned and its endpoint disabled.
	Schedule []time.Duration
	// DisableAfter disables an endpoint that has failed every delivery for
	// this long (with many events, before any one of them is poisoned).
	DisableAfter time.Duration
	// Parallel is how many deliveries run at once: one slow receiver holds
	// one of them, never the others.
	Parallel int
	// Share is the most of them one tenant holds at once (0: a quarter of
	// Parallel, at least 1): a tenant's slow endpoint, or its flood of
	// events, leaves the other slots to the other tenants. A message of a
	// tenant at its share is put back for Defer, doubled each time it is
	// put back, up to 16 times Defer (0: a second).
	Share int
	Defer time.Duration
	// MaxIdle is the longest pause between polls of an empty queue.
	MaxIdle time.Duration
}

// DefaultWebhookConfig is the configuration of surveys serve: an event is
// tried at once, then after 1 and 5 minutes, half an hour, 2, 5 and 10
// hours (about 18 hours in all), then poisoned; an endpoint that fails for
// a day is disabled. An idle queue is polled every 30 s at most; an event
// queued on this instance wakes the worker at once.
var DefaultWebhookConfig = WebhookConfig{
	Timeout: outbound.DefaultTimeout, Visibility: time.Minute,
	Schedule:     []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour},
	DisableAfter: 24 * time.Hour, Parallel: 16, Share: 4, Defer: time.Second, MaxIdle: 30 * time.Second,
}

// WebhookAlert is told once when an endpoint is disabled (AdminMail).
type WebhookAlert interface {
	Disabled(ctx context.Context, e *store.WebhookEndpoint)
}

// Webhooks drains the webhooks queue: each message is one event for one
// endpoint, POSTed through the guarded outbound client with the Standard
// Webhooks headers, signed afresh (a new webhook-timestamp) on every
// attempt and always with the same webhook-id. A 2xx answer deletes the
// message; anything else (another status, a refused or timed-out
// connection, an address the guard refuses) puts it back for the next
// wait of the schedule; after the last, the message goes to the poison
// queue with the reason and the endpoint is disabled, and its tenant's
// admins told. Every attempt is recorded among the endpoint's last
// deliveries.
type Webhooks struct {
	st     storage.Storage
	hooks  *store.WebhookStore
	client *http.Client
	cfg    WebhookConfig
	log    *slog.Logger
	now    func() time.Time
	wake   waker
	// Alert, when set, is told of each endpoint this worker disables.
	Alert WebhookAlert

	delivered, failed, poisoned, deferred prometheus.Counter
	lag                                   *lag

	// busy counts the slots each tenant holds (Run).
	mu   sync.Mutex
	busy map[string]int
}

// NewWebhooks returns a webhooks worker that posts through client (an
// outbound.Client's HTTP(); it should not follow redirects).
func NewWebhooks(st storage.Storage, hooks *store.WebhookStore, client *http.Client, cfg WebhookConfig, log *slog.Logger) *Webhooks {
	if log == nil {
		log = slog.Default()
	}
	if cfg.Parallel <= 0 {
		cfg.Parallel = 1
	}
	if cfg.Share <= 0 {
		cfg.Share = max(1, cfg.Parallel/4)
	}
	if cfg.Defer <= 0 {
		cfg.Defer = time.Second
	}
	return &Webhooks{st: st, hooks: hooks, client: client, cfg: cfg, log: log, now: time.Now, wake: newWaker(), busy: map[string]int{},
		delivered: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_webhooks_delivered_total", Help: "Webhook events their receiver took (a 2xx answer)."}),
		failed:    prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_webhooks_failed_total", Help: "Attempts to deliver a webhook event that failed (tried again, or poisoned)."}),
		poisoned:  prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_webhooks_poison_messages_total", Help: "Webhook events moved to the poison queue."}),
		deferred:  prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_webhooks_deferred_total", Help: "Webhook events put back for a while because their tenant held its share of the delivery slots."}),
		lag:       newLag("webhooks"),
	}
}

// Collectors returns the worker's metrics, to register.
func (w *Webhooks) Collectors() []prometheus.Collector {
	return append([]prometheus.Collector{w.delivered, w.failed, w.poisoned, w.deferred}, w.lag.collectors()...)
}

// Wake makes Run take the queue now: this instance queued an event. It
// never blocks.
func (w *Webhooks) Wake() { w.wake.Wake() }

// Run delivers the queue's events until ctx is done, up to Parallel at
// once: it takes more as deliveries finish, not batch by batch, so a slow
// receiver keeps one slot only. A tenant holds at most Share slots: its
// further messages are put back (defer) instead of taking one, so that
// its slow endpoints or its many events never hold back another tenant's.
// Deliveries under way when ctx ends are stopped and their messages made
// visible again.
func (w *Webhooks) Run(ctx context.Context) error {
	slots := make(chan struct{}, w.cfg.Parallel)
	var wg sync.WaitGroup
	defer wg.Wait()
	return poll(ctx, func() (int, error) {
		// One slot at least (waiting for it), and every other one free.
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return 0, nil
		}
		n := 1
	more:
		for n < min(w.cfg.Parallel, storage.MaxDequeue) {
			select {
			case slots <- struct{}{}:
				n++
			default:
				break more
			}
		}
		msgs, err := w.take(ctx, n)
		for range n - len(msgs) {
			<-slots
		}
		var soonest time.Duration
		for _, m := range msgs {
			tenant := messageTenant(m)
			if !w.claim(tenant) {
				<-slots
				d, derr := w.putBack(ctx, m)
				if derr != nil {
					w.log.Warn("webhooks worker: put back a message of a tenant at its share", "tenant", tenant, "err", derr)
				} else if soonest == 0 || d < soonest {
					soonest = d
				}
				continue
			}
			wg.Add(1)
			go func() {
				defer func() { w.release(tenant); <-slots; wg.Done() }()
				if err := w.handle(ctx, m); err != nil {
					w.log.Warn("webhooks worker: message failed", "err", err)
				}
			}()
		}
		if soonest > 0 {
			// The messages put back are visible again then: poll at
			// once, not after the idle backoff (a wake after Run ended
			// does nothing).
			time.AfterFunc(soonest, w.Wake)
		}
		return len(msgs), err
	}, w.cfg.MaxIdle, w.wake, 0, w.log, "webhooks worker: dequeue failed")
}

// RunOnce takes up to Parallel messages, delivers them at once and waits
// for them all (whatever their tenants' shares: it is for tests and
// tools). It returns the number taken.
func (w *Webhooks) RunOnce(ctx context.Context) (int, error) {
	msgs, err := w.take(ctx, min(w.cfg.Parallel, storage.MaxDequeue))
	if err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(msgs))
	for i, m := range msgs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = w.handle(ctx, m)
		}()
	}
	wg.Wait()
	return len(msgs), errors.Join(errs...)
}

func (w *Webhooks) take(ctx context.Context, n int) ([]storage.Message, error) {
	msgs, err := w.st.Dequeue(ctx, store.WebhooksQueue, n, w.cfg.Visibility)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil
		}
		return nil, fmt.Errorf("webhooks worker: dequeue: %w", err)
	}
	w.lag.took(store.WebhooksQueue, msgs, w.now())
	w.lag.progressed()
	return msgs, nil
}

// handle delivers one message; ctx stops the request, not the
// bookkeeping.
func (w *Webhooks) handle(ctx context.Context, m storage.Message) error {
	sendCtx := ctx
	ctx = context.WithoutCancel(ctx)
	var msg store.WebhookMessage
	if err := json.Unmarshal(m.Data, &msg); err != nil || msg.Tenant == "" || msg.Endpoint == "" || msg.ID == "" {
		return w.poison(ctx, m, msg, nil, fmt.Sprintf("cannot decode the message: %v", err))
	}
	e, err := w.endpoint(ctx, msg.Tenant, msg.Endpoint)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		// The endpoint was deleted: its events go with it.
		w.log.Info("webhooks worker: dropped an event of a deleted endpoint", "tenant", msg.Tenant, "endpoint", msg.Endpoint, "id", msg.ID)
		return w.done(ctx, m, msg)
	}
	if err != nil {
		return err // comes back after its visibility timeout
	}
	attempt := msg.Tries + int(m.DequeueCount)
	if e.Disabled && msg.Event != webhook.Test {
		return w.poison(ctx, m, msg, nil, "the endpoint is disabled: "+e.DisabledReason)
	}
	body, err := w.hooks.Body(ctx, msg)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return w.poison(ctx, m, msg, nil, "its body is gone")
	}
	if err != nil {
		return err
	}
	d := w.post(sendCtx, e, msg, body)
	d.Attempt = attempt
	if sendCtx.Err() != nil && !d.OK() {
		// Shutting down: the message comes back at once for a worker.
		_, err := w.st.UpdateVisibility(ctx, store.WebhooksQueue, m.ID, m.PopReceipt, 0)
		return err
	}
	if d.Status == http.StatusGone && e.Hook {
		// A REST-hook subscription whose receiver says it is gone
		// (Zapier's convention): unsubscribed, its events dropped.
		return w.unsubscribe(ctx, m, msg, e)
	}
	rec, err := w.hooks.Record(ctx, e.Tenant, e.ID, d)
	if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		w.log.Warn("webhooks worker: record a delivery", "tenant", e.Tenant, "endpoint", e.ID, "err", err)
	}
	if d.OK() {
		w.delivered.Inc()
		w.log.Info("webhooks worker: delivered", "tenant", e.Tenant, "endpoint", e.ID, "event", msg.Event, "id", msg.ID, "attempt", attempt, "status", d.Status)
		return w.done(ctx, m, msg)
	}
	w.failed.Inc()
	why := d.Error
	w.log.Warn("webhooks worker: attempt failed", "tenant", e.Tenant, "endpoint", e.ID, "event", msg.Event, "id", msg.ID, "attempt", attempt, "problem", why)
	if msg.Event == webhook.Test {
		// A test is tried once: its outcome is on the page.
		return w.done(ctx, m, msg)
	}
	if attempt > len(w.cfg.Schedule) {
		return w.poison(ctx, m, msg, e, fmt.Sprintf("failed %d attempts; last: %s", attempt, why))
	}
	if rec != nil && !rec.FailingSince.IsZero() && w.now().Sub(rec.FailingSince) >= w.cfg.DisableAfter {
		w.disable(ctx, e, fmt.Sprintf("every delivery failed for %s; last: %s", roundDuration(w.now().Sub(rec.FailingSince)), why))
	}
	if _, err := w.st.UpdateVisibility(ctx, store.WebhooksQueue, m.ID, m.PopReceipt, w.cfg.Schedule[attempt-1]); err != nil {
		return fmt.Errorf("webhooks worker: put back %s: %w", m.ID, err)
	}
	return nil
}

// unsubscribe deletes a REST-hook subscription whose receiver answered
// 410 Gone, and the message; the subscription's other queued events are
// dropped as they come up (its endpoint is gone). If the deletion fails
// the message comes back, and is tried again.
func (w *Webhooks) unsubscribe(ctx context.Context, m storage.Message, msg store.WebhookMessage, e *store.WebhookEndpoint) error {
	if err := w.hooks.Delete(ctx, e.Tenant, e.ID); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		return fmt.Errorf("webhooks worker: unsubscribe %s/%s: %w", e.Tenant, e.ID, err)
	}
	w.log.Info("webhooks worker: unsubscribed a REST hook its receiver says is gone (410)", "tenant", e.Tenant, "endpoint", e.ID, "id", msg.ID)
	return w.done(ctx, m, msg)
}

// messageTenant is the tenant of a message ("" when it cannot be read:
// handle poisons it).
func messageTenant(m storage.Message) string {
	var t struct {
		Tenant string `json:"tenant"`
	}
	_ = json.Unmarshal(m.Data, &t)
	return t.Tenant
}

// claim takes a slot for tenant if it holds fewer than its share.
func (w *Webhooks) claim(tenant string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if tenant != "" && w.busy[tenant] >= w.cfg.Share {
		return false
	}
	w.busy[tenant]++
	return true
}

// release gives back a slot claimed for tenant.
func (w *Webhooks) release(tenant string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.busy[tenant]--; w.busy[tenant] <= 0 {
		delete(w.busy, tenant)
	}
}

// putBack puts a message of a tenant at its share back on the queue, to
// come back after the returned wait (Defer, doubled each time it was put
// back, up to 16 times Defer). This dequeue was no attempt: the message
// goes back as a copy that carries the attempts made so far (Tries),
// since the queue counts every dequeue; the copy is queued before the
// message is deleted, so a crash between them leaves two copies with one
// webhook-id (at least once), never none.
func (w *Webhooks) putBack(ctx context.Context, m storage.Message) (time.Duration, error) {
	ctx = context.WithoutCancel(ctx)
	var msg store.WebhookMessage
	if err := json.Unmarshal(m.Data, &msg); err != nil {
		return 0, err
	}
	wait := w.cfg.Defer << min(msg.Deferred, 4)
	msg.Tries += int(m.DequeueCount) - 1
	msg.Deferred++
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, err
	}
	if _, err := w.st.Enqueue(ctx, store.WebhooksQueue, data, storage.EnqueueOptions{TTL: -1, Delay: wait}); err != nil {
		return 0, fmt.Errorf("webhooks worker: put back %s: %w", m.ID, err)
	}
	w.deferred.Inc()
	if err := w.st.DeleteMessage(ctx, store.WebhooksQueue, m.ID, m.PopReceipt); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return wait, fmt.Errorf("webhooks worker: delete %s put back: %w", m.ID, err)
	}
	return wait, nil
}

// endpoint returns the endpoint a message is for: from the store's cache
// of the tenant's endpoints, or read now when the cache does not have it
// (one added on another instance since).
func (w *Webhooks) endpoint(ctx context.Context, tenant, id string) (*store.WebhookEndpoint, error) {
	eps, err := w.hooks.Endpoints(ctx, tenant)
	if err != nil {
		return nil, err
	}
	for _, e := range eps {
		if e.ID == id {
			return e, nil
		}
	}
	return w.hooks.Get(ctx, tenant, id)
}

// post sends the event once and says how it went. The receiver's answer
// is read (up to the client's cap) and dropped: it is never shown.
func (w *Webhooks) post(ctx context.Context, e *store.WebhookEndpoint, msg store.WebhookMessage, body []byte) store.WebhookDelivery {
	start := w.now()
	d := store.WebhookDelivery{At: start.UTC(), Event: msg.Event, ID: msg.ID}
	ctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(body))
	if err == nil {
		req.Header.Set("User-Agent", "Surveys-Webhooks/1")
		err = e.Format().Header(req.Header, msg.ID, start, body, e.Secrets(start))
	}
	var resp *http.Response
	if err == nil {
		resp, err = w.client.Do(req)
	}
	if err == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		d.Status = resp.StatusCode
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			d.Error = fmt.Sprintf("it answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
		}
	} else {
		d.Error = outbound.Problem(err)
		if errors.Is(err, context.DeadlineExceeded) {
			d.Error = "it did not answer in time"
		}
	}
	d.Duration = w.now().Sub(start)
	return d
}

func roundDuration(d time.Duration) string {
	if d >= time.Hour {
		return d.Round(time.Hour).String()
	}
	return d.Round(time.Second).String()
}

// disable disables an endpoint and tells the tenant's admins, once.
func (w *Webhooks) disable(ctx context.Context, e *store.WebhookEndpoint, reason string) {
	changed, err := w.hooks.Disable(ctx, e.Tenant, e.ID, reason)
	if err != nil {
		if survey.ErrorCode(err) != survey.ENOTFOUND {
			w.log.Warn("webhooks worker: disable an endpoint", "tenant", e.Tenant, "endpoint", e.ID, "err", err)
		}
		return
	}
	if !changed {
		return
	}
	w.log.Warn("webhooks worker: disabled an endpoint", "tenant", e.Tenant, "endpoint", e.ID, "reason", reason)
	if err := store.NewAuditStore(w.st).Append(ctx, survey.AuditEvent{Tenant: e.Tenant, At: w.now(), Actor: survey.AuditSystem,
		Action: survey.AuditWebhookDisabled, Target: e.ID, Detail: reason}); err != nil {
		w.log.Error("webhooks worker: the audit event was not written", "tenant", e.Tenant, "endpoint", e.ID, "err", err)
	}
	if w.Alert != nil {
		c := *e
		c.Disabled, c.DisabledReason = true, reason
		w.Alert.Disabled(ctx, &c)
	}
}

// done deletes a message that needs no more attempts, and its body blob.
func (w *Webhooks) done(ctx context.Context, m storage.Message, msg store.WebhookMessage) error {
	if err := w.st.DeleteMessage(ctx, store.WebhooksQueue, m.ID, m.PopReceipt); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("webhooks worker: delete %s: %w", m.ID, err)
	}
	if err := w.hooks.Done(ctx, msg); err != nil {
		w.log.Warn("webhooks worker: delete a spilled body", "spill", msg.Spill, "err", err)
	}
	return nil
}

// poison moves a message to the poison queue with the reason (its body
// blob, if any, stays for it), then deletes it; with e, the endpoint is
// disabled too. If the move fails the message stays, to come back.
func (w *Webhooks) poison(ctx context.Context, m storage.Message, msg store.WebhookMessage, e *store.WebhookEndpoint, reason string) error {
	w.log.Error("webhooks worker: poison message", "id", m.ID, "webhookId", msg.ID, "dequeueCount", m.DequeueCount, "reason", reason)
	data, err := json.Marshal(PoisonMessage{MessageID: m.ID, Queue: store.WebhooksQueue, Reason: reason, Data: m.Data, PoisonOn: w.now().UTC()})
	if err != nil {
		return err
	}
	if _, err := w.st.Enqueue(ctx, store.WebhooksPoisonQueue, data, storage.EnqueueOptions{TTL: -1}); err != nil {
		return fmt.Errorf("webhooks worker: move %s to the poison queue: %w", m.ID, err)
	}
	w.poisoned.Inc()
	if e != nil {
		w.disable(ctx, e, reason)
	}
	if err := w.st.DeleteMessage(ctx, store.WebhooksQueue, m.ID, m.PopReceipt); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("webhooks worker: delete %s: %w", m.ID, err)
	}
	return nil
}

// AdminMail tells a tenant's admins by e-mail that an endpoint was
// disabled or a copy to the database gave up (through the mail outbox;
// nothing when mail is off). An admin who turned these alerts off
// (store.NotificationStore.SetAlerts, or the link in each alert) is not
// told.
type AdminMail struct {
	Users     *store.UserStore
	Outbox    *mail.Outbox
	Templates *mail.Templates
	// Notifications, when set, names the admins who turned the alerts
	// off; UnsubscribeKey, when set, signs the link in each alert that
	// turns them off.
	Notifications  *store.NotificationStore
	UnsubscribeKey []byte
	// PublicURL is the base of the link to the settings page.
	PublicURL string
	Log       *slog.Logger
}

// alertData is what an alert's templates show.
type alertData struct {
	Tenant, Survey, URL, Reason, Link string
	// Unsubscribe is the recipient's link that turns the alerts off.
	Unsubscribe string
}

// Disabled queues one message per admin of the endpoint's tenant.
func (a AdminMail) Disabled(ctx context.Context, e *store.WebhookEndpoint) {
	a.tell(ctx, e.Tenant, "webhookdisabled", alertData{Tenant: e.Tenant, URL: e.URL, Reason: e.DisabledReason, Link: strings.TrimRight(a.PublicURL, "/") + "/" + e.Tenant + "/settings/webhooks"})
}

// TransferGaveUp queues one message per admin of the tenant: the copy of a
// survey's answers to its database failed for good.
func (a AdminMail) TransferGaveUp(ctx context.Context, tenant, slug, title, reason string) {
	a.tell(ctx, tenant, "transferfailed", alertData{Tenant: tenant, Survey: title, Reason: reason, Link: strings.TrimRight(a.PublicURL, "/") + "/" + tenant + "/surveys/" + slug + "/analyze#transfer"})
}

// tell renders the mail template name for each admin of tenant and queues
// it; nothing when mail is off. A failure is logged: the alert is a
// courtesy, the page shows the state too.
func (a AdminMail) tell(ctx context.Context, tenant, name string, data alertData) {
	if a.Outbox == nil || a.Templates == nil || a.Users == nil {
		return
	}
	log := a.Log
	if log == nil {
		log = slog.Default()
	}
	members, err := a.Users.Members(ctx, tenant)
	if err != nil {
		log.Warn("admin mail: list the admins", "tenant", tenant, "mail", name, "err", err)
		return
	}
	off := map[string]bool{}
	if a.Notifications != nil {
		if off, err = a.Notifications.AlertsOff(ctx, tenant); err != nil {
			// Better an alert too many than none.
			log.Warn("admin mail: read who turned the alerts off", "tenant", tenant, "err", err)
			off = map[string]bool{}
		}
	}
	for _, m := range members {
		if m.Role != survey.Admin || off[m.Email] {
			continue
		}
		d := data
		if len(a.UnsubscribeKey) > 0 {
			d.Unsubscribe = unsubscribeLink(a.PublicURL, a.UnsubscribeKey, survey.Unsubscribe{Tenant: tenant, Email: m.Email, What: survey.NotifyAlerts})
		}
		msg, err := a.Templates.Render(name, m.Email, d)
		if err == nil {
			err = a.Outbox.Enqueue(ctx, msg)
		}
		if err != nil {
			log.Warn("admin mail: tell an admin", "tenant", tenant, "mail", name, "err", err)
		}
	}
}

// unsubscribeLink is the signed link that stops u, which works without
// signing in.
func unsubscribeLink(publicURL string, key []byte, u survey.Unsubscribe) string {
	return strings.TrimRight(publicURL, "/") + "/unsubscribe/" + u.Token(key)
}
