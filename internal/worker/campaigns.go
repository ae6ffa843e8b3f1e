package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// CampaignConfig tunes the campaigns worker.
type CampaignConfig struct {
	// Lease is how long a claim on a contact's mail (and the queue
	// message of the step) is the worker's: longer than a batch's sends
	// take. A send is not started when less than a third of its claim's
	// lease is left.
	Lease time.Duration
	// Batch is how many contacts are claimed (and counted against the
	// quota) in one write: at most 90 (a quota write's limit).
	Batch int
	// MaxAttempts is how many times a temporary SMTP failure is tried
	// before the contact is marked failed; RetryBase is the wait after the
	// first, doubling up to RetryMax.
	MaxAttempts         int
	RetryBase, RetryMax time.Duration
	// MaxIdle is the longest pause between polls of an empty queue.
	MaxIdle time.Duration
}

// DefaultCampaignConfig is surveys serve's.
var DefaultCampaignConfig = CampaignConfig{Lease: 5 * time.Minute, Batch: 90, MaxAttempts: 5, RetryBase: time.Minute, RetryMax: 30 * time.Minute, MaxIdle: 30 * time.Second}

// CampaignMailer sends one message (mail.Sender).
type CampaignMailer interface {
	Send(ctx context.Context, m mail.Message) error
}

// CampaignDeps are what the campaigns worker reads and writes.
type CampaignDeps struct {
	Storage   storage.Storage
	Campaigns *store.CampaignStore
	Contacts  *store.ContactStore
	Links     *store.PersonalLinkStore
	Quota     *store.MailQuotaStore
	Tenants   interface {
		Get(ctx context.Context, key string) (*survey.Tenant, error)
	}
	Surveys interface {
		Get(ctx context.Context, tenant, slug string) (*survey.Survey, error)
	}
	Send      CampaignMailer
	Templates *mail.Templates
	// Key signs the unsubscribe links and derives the personal links'
	// tokens (store.CampaignToken).
	Key []byte
	// PublicURL starts every link mailed.
	PublicURL string
	// Domains, when set, gives a tenant's verified custom domain
	// (store.DomainStore.VerifiedHost, cached): its invitations link to
	// the survey there (the unsubscribe links stay on PublicURL).
	Domains interface {
		VerifiedHost(ctx context.Context, tenant string) (string, error)
	}
}

// Campaigns drains the campaigns queue: each message is one step of a
// campaign (the invitation, or reminder k), sent to every contact of its
// list who is due it, exactly once per contact (see docs/architecture.md,
// "A campaign's mail, once per contact and step").
type Campaigns struct {
	d    CampaignDeps
	cfg  CampaignConfig
	log  *slog.Logger
	now  func() time.Time
	wake waker

	sent, failed, bounced prometheus.Counter
}

// NewCampaigns returns the campaigns worker.
func NewCampaigns(d CampaignDeps, cfg CampaignConfig, log *slog.Logger) *Campaigns {
	if log == nil {
		log = slog.Default()
	}
	if cfg.Batch < 1 || cfg.Batch > 90 {
		cfg.Batch = 90
	}
	return &Campaigns{d: d, cfg: cfg, log: log, now: time.Now, wake: newWaker(),
		sent:    prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_campaign_mails_sent_total", Help: "Campaign e-mails the SMTP server accepted."}),
		failed:  prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_campaign_mails_failed_total", Help: "Attempts to send a campaign e-mail that failed for now."}),
		bounced: prometheus.NewCounter(prometheus.CounterOpts{Name: "surveys_campaign_mails_bounced_total", Help: "Campaign e-mails the SMTP server refused for good."}),
	}
}

// WithClock makes the worker tell the time with now (tests); it returns w.
func (w *Campaigns) WithClock(now func() time.Time) *Campaigns {
	w.now = now
	return w
}

// Collectors returns the worker's metrics, to register.
func (w *Campaigns) Collectors() []prometheus.Collector {
	return []prometheus.Collector{w.sent, w.failed, w.bounced}
}

// Wake makes Run take the queue now. It never blocks.
func (w *Campaigns) Wake() { w.wake.Wake() }

// Run sends the campaigns' steps until ctx is done.
func (w *Campaigns) Run(ctx context.Context) error {
	return poll(ctx, func() (int, error) { return w.RunOnce(ctx) }, w.cfg.MaxIdle, w.wake, 0, w.log, "campaigns worker: step failed")
}

// RunOnce takes one step's message and handles it: 0 or 1 taken.
func (w *Campaigns) RunOnce(ctx context.Context) (int, error) {
	msgs, err := w.d.Storage.Dequeue(ctx, store.CampaignsQueue, 1, w.cfg.Lease)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil
		}
		return 0, fmt.Errorf("campaigns worker: dequeue: %w", err)
	}
	if len(msgs) == 0 {
		return 0, nil
	}
	return 1, w.handle(ctx, msgs[0])
}

// handle runs the step of message m: when it is finished, the next step is
// queued, the campaign notes it, and m is deleted, in that order (a crash
// between two of them repeats the step, which finds every contact done).
// A step left unfinished (a retry, the quota, a claim of another worker)
// puts m back for when it can go on.
func (w *Campaigns) handle(ctx context.Context, m storage.Message) error {
	var cm store.CampaignMessage
	if err := json.Unmarshal(m.Data, &cm); err != nil {
		w.log.Error("campaigns worker: message dropped", "id", m.ID, "err", err)
		return w.delete(ctx, m)
	}
	c, _, err := w.d.Campaigns.Get(ctx, cm.Tenant, cm.Campaign)
	if errors.Is(err, store.ErrNoCampaign) {
		return w.delete(ctx, m) // deleted with its tenant
	}
	if err != nil {
		return err
	}
	switch {
	case cm.Step < c.Step, cm.Step == c.Step && c.Done, cm.Step > c.MaxReminders:
		return w.delete(ctx, m) // a step done, or rescheduled (RemindNow)
	case cm.Step > c.Step:
		// Queued before a crash kept the campaign from noting the step
		// before it done: that step's message comes back and notes it.
		return w.putBack(ctx, m, w.cfg.Lease)
	}
	if due := c.Due(cm.Step); due.After(w.now()) {
		return w.putBack(ctx, m, due.Sub(w.now()))
	}
	receipt := m.PopReceipt
	extend := func() error {
		r, err := w.d.Storage.UpdateVisibility(context.WithoutCancel(ctx), store.CampaignsQueue, m.ID, receipt, w.cfg.Lease)
		if err == nil {
			receipt = r
		}
		return err
	}
	wait, err := w.Step(ctx, cm.Tenant, c, cm.Step, extend)
	m.PopReceipt = receipt
	if err != nil {
		return err
	}
	if wait > 0 {
		return w.putBack(ctx, m, wait)
	}
	return w.finish(context.WithoutCancel(ctx), m, cm)
}

// finish notes step cm.Step done: the next step queued first, then the
// campaign updated, then the message deleted.
func (w *Campaigns) finish(ctx context.Context, m storage.Message, cm store.CampaignMessage) error {
	for range 10 {
		c, etag, err := w.d.Campaigns.Get(ctx, cm.Tenant, cm.Campaign)
		if err != nil {
			return err
		}
		if c.Step != cm.Step || c.Done {
			return w.delete(ctx, m)
		}
		if cm.Step < c.MaxReminders {
			if err := w.d.Campaigns.Queue(ctx, cm.Tenant, c, cm.Step+1); err != nil {
				return err
			}
		}
		c.Finished = append(c.Finished, w.now().UTC())
		if cm.Step < c.MaxReminders {
			c.Step++
		} else {
			c.Done = true
		}
		err = w.d.Campaigns.Update(ctx, cm.Tenant, c, etag)
		if errors.Is(err, storage.ErrPrecondition) {
			continue
		}
		if err != nil {
			return err
		}
		w.log.Info("campaigns worker: step sent", "tenant", cm.Tenant, "campaign", cm.Campaign, "step", cm.Step)
		return w.delete(ctx, m)
	}
	return errors.New("campaigns worker: the campaign keeps changing")
}

func (w *Campaigns) putBack(ctx context.Context, m storage.Message, wait time.Duration) error {
	wait = min(max(wait, time.Second), storage.MaxVisibility-time.Hour)
	if _, err := w.d.Storage.UpdateVisibility(context.WithoutCancel(ctx), store.CampaignsQueue, m.ID, m.PopReceipt, wait); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("campaigns worker: put back %s: %w", m.ID, err)
	}
	return nil
}

func (w *Campaigns) delete(ctx context.Context, m storage.Message) error {
	err := w.d.Storage.DeleteMessage(context.WithoutCancel(ctx), store.CampaignsQueue, m.ID, m.PopReceipt)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("campaigns worker: delete %s: %w", m.ID, err)
	}
	return nil
}

// stepContext is what a step's sends share.
type stepContext struct {
	tenant *survey.Tenant
	sv     *survey.Survey
	c      *store.Campaign
	step   int
	attrs  map[string]survey.Recipient // the contacts, by ID
	// surveyBase starts the survey's links: the tenant's verified
	// custom domain, else the public URL.
	surveyBase string
}

// Step sends step of the campaign to every contact due it and returns
// how long to wait before the step can go on (0: finished). extend, when
// set, renews the step's hold on its queue message before each batch.
//
// Each contact's mail goes through its row in the ledger: claimed with a
// conditional write (an insert, or an update under the ETag of a claim
// whose lease ran out), sent with a Message-ID of its own
// (<campaign>.<step>.<contact>@<host>), then marked under the claim's
// ETag. The tenant's mail quota is taken for a batch before it is
// claimed.
func (w *Campaigns) Step(ctx context.Context, tenant string, c *store.Campaign, step int, extend func() error) (time.Duration, error) {
	t, err := w.d.Tenants.Get(ctx, tenant)
	if err != nil {
		return 0, err
	}
	if t.Suspended {
		return time.Hour, nil // nothing is sent while it is suspended
	}
	sv, err := w.d.Surveys.Get(ctx, tenant, c.Survey)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return 0, nil // the survey is gone: nothing to send
	}
	if err != nil {
		return 0, err
	}
	contacts, err := w.d.Contacts.Contacts(ctx, tenant, c.List)
	if errors.Is(err, store.ErrNoContactList) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	due, wait, err := w.due(ctx, tenant, c, step, contacts)
	if err != nil {
		return 0, err
	}
	sc := &stepContext{tenant: t, sv: sv, c: c, step: step, attrs: map[string]survey.Recipient{}}
	sc.surveyBase, err = store.SurveyBase(ctx, w.d.Domains, tenant, w.d.PublicURL)
	if err != nil {
		// The step waits for storage rather than mail links that
		// change once it answers.
		return 0, err
	}
	for _, ct := range contacts {
		sc.attrs[ct.ID] = ct.Recipient
	}
	for start := 0; start < len(due); start += w.cfg.Batch {
		if ctx.Err() != nil {
			return w.cfg.Lease, nil
		}
		if extend != nil {
			if err := extend(); err != nil {
				return 0, fmt.Errorf("campaigns worker: keep the step's message: %w", err)
			}
		}
		batch := due[start:min(start+w.cfg.Batch, len(due))]
		later, stop, err := w.batch(ctx, sc, batch)
		if err != nil {
			return 0, err
		}
		wait = shorter(wait, later)
		if stop {
			return wait, nil
		}
	}
	return wait, nil
}

// shorter is the shorter of two waits, 0 meaning none.
func shorter(a, b time.Duration) time.Duration {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return min(a, b)
}

// due returns the sends of the step to make now (new claims, or claims
// to take over), and the wait before the others can be: a contact flagged
// (unsubscribed, bounced) gets none, nor one outside the campaign's
// segment (its attributes as they are now, for every step alike); a
// reminder goes only to a contact whose invitation was sent and whose
// link has no answer yet.
func (w *Campaigns) due(ctx context.Context, tenant string, c *store.Campaign, step int, contacts []store.Contact) ([]*store.Send, time.Duration, error) {
	ledger, err := w.d.Campaigns.Sends(ctx, tenant, c.ID, step)
	if err != nil {
		return nil, 0, err
	}
	byContact := map[string]*store.Send{}
	for i := range ledger {
		byContact[ledger[i].Contact] = &ledger[i]
	}
	var invited, answered map[string]bool
	if step > 0 {
		first, err := w.d.Campaigns.Sends(ctx, tenant, c.ID, 0)
		if err != nil {
			return nil, 0, err
		}
		invited = map[string]bool{}
		for _, s := range first {
			invited[s.Contact] = s.State == store.SendSent
		}
		links, err := w.d.Links.List(ctx, tenant, c.Survey)
		if err != nil {
			return nil, 0, err
		}
		answered = map[string]bool{}
		for _, l := range links {
			answered[l.ID] = l.Used()
		}
	}
	now := w.now().UTC()
	var out []*store.Send
	var wait time.Duration
	for _, ct := range contacts {
		if ct.Suppressed() || !survey.MatchSegment(ct.Attrs, c.Segment) {
			continue
		}
		if step > 0 && (!invited[ct.ID] || answered[store.LinkID(store.CampaignToken(w.d.Key, tenant, c.ID, ct.ID))]) {
			continue
		}
		s := byContact[ct.ID]
		switch {
		case s == nil:
			out = append(out, &store.Send{Step: step, Contact: ct.ID, Email: ct.Email})
		case s.Final():
		case s.Until.After(now):
			wait = shorter(wait, s.Until.Sub(now)+time.Second)
		default:
			out = append(out, s) // a claim whose lease ran out, or a retry due
		}
	}
	// In the order of their IDs: a batch's claims are one range of the
	// ledger's keys (store.CampaignStore.Claim reads them back at once).
	sort.Slice(out, func(i, j int) bool { return out[i].Contact < out[j].Contact })
	return out, wait, nil
}

// batch takes the quota for sends, claims them, makes their links and
// sends them; stop when the tenant's quota is spent (wait is then till
// the next hour).
func (w *Campaigns) batch(ctx context.Context, sc *stepContext, sends []*store.Send) (wait time.Duration, stop bool, err error) {
	tenant := sc.tenant.Key
	sends, wait, stop, err = w.take(ctx, sc, sends)
	if err != nil || len(sends) == 0 {
		return wait, stop, err
	}
	claimed, err := w.claim(ctx, tenant, sc.c.ID, sends)
	if err != nil {
		return 0, false, err
	}
	if len(claimed) < len(sends) {
		wait = shorter(wait, w.cfg.Lease) // another worker holds the others
	}
	if len(claimed) == 0 {
		return wait, stop, nil
	}
	if sc.step == 0 {
		seeds := make([]store.LinkSeed, len(claimed))
		for i, s := range claimed {
			seeds[i] = store.LinkSeed{Token: store.CampaignToken(w.d.Key, tenant, sc.c.ID, s.Contact), Email: s.Email}
		}
		if err := w.d.Links.Ensure(ctx, tenant, sc.sv.Slug, seeds); err != nil {
			return 0, false, err
		}
	}
	for _, s := range claimed {
		later, err := w.send(ctx, sc, s)
		if err != nil {
			return 0, false, err
		}
		wait = shorter(wait, later)
	}
	return wait, stop, nil
}

// take takes the mails of sends from the tenant's quota and returns those
// it may send: all of them; or, when an address had its mails today, the
// others (the step waits for the next day for those); or, when the
// tenant's hour (or day) has less left than the batch, the largest half,
// quarter … of it that fits, and stop (the step goes on at the next hour).
func (w *Campaigns) take(ctx context.Context, sc *stepContext, sends []*store.Send) (fit []*store.Send, wait time.Duration, stop bool, err error) {
	if w.d.Quota == nil {
		return sends, 0, false, nil
	}
	now := w.now().UTC()
	nextHour := now.Truncate(time.Hour).Add(time.Hour).Sub(now) + time.Minute
	for len(sends) > 0 {
		addrs := make([]string, len(sends))
		for i, s := range sends {
			addrs[i] = s.Email
		}
		err := w.d.Quota.Take(ctx, sc.tenant.Key, sc.tenant.Plan, addrs)
		var qe *store.QuotaError
		switch {
		case err == nil:
			if stop {
				wait = shorter(wait, nextHour)
			}
			return sends, wait, stop, nil
		case errors.As(err, &qe) && qe.Reason == store.QuotaRecipient:
			// These addresses had their mails today: tomorrow.
			over := map[string]bool{}
			for _, a := range qe.Over {
				over[a] = true
			}
			sends = slices.DeleteFunc(slices.Clone(sends), func(s *store.Send) bool { return over[survey.NormalizeEmail(s.Email)] })
			wait = shorter(wait, now.Truncate(24*time.Hour).Add(24*time.Hour).Sub(now)+time.Minute)
		case errors.As(err, &qe) && len(sends) > 1:
			sends, stop = sends[:len(sends)/2], true
		case errors.As(err, &qe):
			w.log.Info("campaigns worker: the tenant's mail quota is spent; the step goes on later", "tenant", sc.tenant.Key, "campaign", sc.c.ID, "reason", qe.Reason)
			return nil, shorter(wait, nextHour), true, nil
		default:
			return nil, 0, false, err
		}
	}
	return nil, wait, stop, nil
}

// claim writes the claims of sends: all at once, or, when another worker
// wrote one of them first, one by one (those it holds are left to it).
func (w *Campaigns) claim(ctx context.Context, tenant, campaign string, sends []*store.Send) ([]*store.Send, error) {
	until := w.now().UTC().Add(w.cfg.Lease)
	next := make([]*store.Send, len(sends))
	for i, s := range sends {
		n := *s
		n.State, n.Until = store.SendClaimed, until
		next[i] = &n
	}
	err := w.d.Campaigns.Claim(ctx, tenant, campaign, next)
	if err == nil {
		return next, nil
	}
	if !errors.Is(err, storage.ErrExists) && !errors.Is(err, storage.ErrPrecondition) {
		return nil, err
	}
	var out []*store.Send
	for _, s := range next {
		err := w.d.Campaigns.Claim(ctx, tenant, campaign, []*store.Send{s})
		switch {
		case err == nil:
			out = append(out, s)
		case errors.Is(err, storage.ErrExists), errors.Is(err, storage.ErrPrecondition):
		default:
			return out, err
		}
	}
	return out, nil
}

// send mails the claimed s and marks it: sent, bounced (5xx: the address
// is flagged for good), or, for a temporary failure, retried after a
// growing wait until MaxAttempts, then failed. A claim with less than a
// third of its lease left is not sent (another worker may take it over
// once it runs out): it waits for its lease.
func (w *Campaigns) send(ctx context.Context, sc *stepContext, s *store.Send) (time.Duration, error) {
	left := s.Until.Sub(w.now())
	if left < w.cfg.Lease/3 || ctx.Err() != nil {
		return max(left, 0) + time.Second, nil
	}
	msg, err := w.message(sc, s)
	if err != nil {
		return 0, err
	}
	sctx, cancel := context.WithTimeout(ctx, left-w.cfg.Lease/6)
	err = w.d.Send.Send(sctx, msg)
	cancel()
	mctx := context.WithoutCancel(ctx)
	var wait time.Duration
	switch {
	case err == nil:
		w.sent.Inc()
		s.State, s.SentOn, s.Until, s.Error = store.SendSent, w.now().UTC(), time.Time{}, ""
	case ctx.Err() != nil:
		return w.cfg.Lease, nil // stopping: the claim runs out and is taken over
	case mail.Permanent(err):
		w.bounced.Inc()
		s.State, s.Until, s.Error = store.SendBounced, time.Time{}, cut(err.Error())
		if err := w.d.Contacts.Suppress(mctx, sc.tenant.Key, s.Email, store.SuppressBounced); err != nil {
			return 0, err
		}
	default:
		w.failed.Inc()
		s.Attempts++
		s.Error = cut(err.Error())
		if s.Attempts >= w.cfg.MaxAttempts {
			s.State, s.Until = store.SendFailed, time.Time{}
		} else {
			wait = TransferConfig{RetryBase: w.cfg.RetryBase, RetryMax: w.cfg.RetryMax}.backoff(s.Attempts)
			s.State, s.Until = store.SendRetry, w.now().UTC().Add(wait)
		}
	}
	err = w.d.Campaigns.Mark(mctx, sc.tenant.Key, sc.c.ID, s)
	if errors.Is(err, storage.ErrPrecondition) {
		w.log.Warn("campaigns worker: a claim was taken over before its mail was marked", "tenant", sc.tenant.Key, "campaign", sc.c.ID, "contact", s.Contact)
		return wait, nil
	}
	return wait, err
}

func cut(s string) string {
	if len(s) > 500 {
		return s[:500]
	}
	return s
}

// campaignMail is the data of the campaign mail template: the sender's
// words as written, ours in the survey's language.
type campaignMail struct {
	Tenant, Subject, Text, Link, Unsubscribe string
	Paragraphs                               []string
	Lang, Dir                                string
	LinkIntro, AnswerLabel, CopyLabel        string
	SentBy, UnsubIntro, UnsubLabel           string
}

// message is the mail of s: the subscriber's subject and text, the
// contact's personal link (with the attributes the survey takes as hidden
// fields), the organisation's name, and an unsubscribe link (and its
// List-Unsubscribe headers), every link from the public URL but the
// survey's, which is on the tenant's custom domain once verified.
func (w *Campaigns) message(sc *stepContext, s *store.Send) (mail.Message, error) {
	tenant := sc.tenant.Key
	q := url.Values{}
	q.Set("k", store.CampaignToken(w.d.Key, tenant, sc.c.ID, s.Contact))
	r := sc.attrs[s.Contact]
	keys := make([]string, 0, len(r.Attrs))
	for k := range r.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if sc.sv.HasHidden(k) {
			q.Set(k, r.Attrs[k])
		}
	}
	base := strings.TrimRight(w.d.PublicURL, "/")
	link := sc.surveyBase + "/survey/" + tenant + "/" + sc.sv.Slug + "?" + q.Encode()
	unsub := base + "/unsubscribe/" + survey.Unsubscribe{What: survey.NotifyCampaign, Tenant: tenant, Email: s.Email}.Token(w.d.Key)
	site, host := base, "localhost"
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		site, host = u.Host, u.Hostname()
	}
	var paras []string
	for _, p := range strings.Split(sc.c.Text, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			paras = append(paras, p)
		}
	}
	to := s.Email
	if r.Name != "" {
		to = (&netmail.Address{Name: r.Name, Address: s.Email}).String()
	}
	l := i18n.For(sc.sv.Language)
	msg, err := w.d.Templates.Render("campaign", to, campaignMail{Tenant: sc.tenant.Name, Subject: sc.c.Subject, Text: sc.c.Text, Link: link, Unsubscribe: unsub, Paragraphs: paras,
		Lang: l.Tag(), Dir: l.Dir(),
		LinkIntro:   l.T("Your own link to the survey %s (it takes one answer):", sc.sv.Title),
		AnswerLabel: l.T("Answer the survey %s", sc.sv.Title),
		CopyLabel:   l.T("Or copy this address into your browser:"),
		SentBy:      l.T("Sent by %[1]s, an organisation using Surveys at %[2]s, to %[3]s.", sc.tenant.Name, site, s.Email),
		UnsubIntro:  l.T("To get no more invitations from %s, unsubscribe:", sc.tenant.Name),
		UnsubLabel:  l.T("Unsubscribe")})
	if err != nil {
		return msg, err
	}
	msg.ID = fmt.Sprintf("%s.%d.%s@%s", sc.c.ID, sc.step, s.Contact, host)
	msg.Headers = map[string]string{"List-Unsubscribe": "<" + unsub + ">", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}
	return msg, msg.Validate()
}
