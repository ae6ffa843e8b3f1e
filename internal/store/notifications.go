package store

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/lrucache"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Notifications: a member's e-mail choices are rows of NotificationsTable,
// partitioned by tenant. "s_<slug>_<email>" is a subscription to a
// survey's answers (each one, a daily digest, or both) with its
// bookkeeping (the hourly cap of per-answer mails, the last digest);
// "a_<email>" is a member who turned the admins' failure alerts off.
// The answers worker reads a tenant's rows once per subscribersTTL
// (Subscribers, cached), never once per answer; the digest worker scans
// the table once per tick.
const NotificationsTable = "Notifications"

// subscribersTTL is how long a NotificationStore trusts its copy of a
// tenant's subscriptions (a change on this instance drops it at once).
const subscribersTTL = 30 * time.Second

// Subscription is one member's notifications of one survey's answers.
type Subscription struct {
	Tenant, Slug, Email string
	EachAnswer, Digest  bool
	CreatedOn           time.Time
	// The cap of per-answer mails: WindowSent were sent in the hour from
	// WindowStart; Folded answers came beyond the cap, since FoldedSince,
	// and are told in one "N more answers" mail.
	WindowStart time.Time
	WindowSent  int64
	Folded      int64
	FoldedSince time.Time
	// The digest: the last was made at DigestAt (or the subscription
	// was), when the survey had DigestTotal answers.
	DigestAt    time.Time
	DigestTotal int64

	etag string
}

// NotificationStore keeps the members' e-mail choices.
type NotificationStore struct {
	st    storage.Storage
	cache *lrucache.Cache[string, []*Subscription]
}

// NewNotificationStore returns a NotificationStore over st.
func NewNotificationStore(st storage.Storage) *NotificationStore {
	return &NotificationStore{st: st, cache: lrucache.New(10_000, 8<<20, subscribersTTL, func(_ string, subs []*Subscription) int64 {
		return int64(64 + 256*len(subs))
	})}
}

func subscriptionKey(slug, email string) string { return "s_" + slug + "_" + email }
func alertsKey(email string) string             { return "a_" + email }

// validMember reports whether tenant, slug and email can be keys.
func validMember(tenant, slug, email string) bool {
	return survey.ValidateTenantKey(tenant) == nil && survey.ValidSlug(slug) && survey.ValidEmail(email)
}

// Subscription returns the member's subscription to the survey; a zero
// one (no notifications) when there is none.
func (ns *NotificationStore) Subscription(ctx context.Context, tenant, slug, email string) (*Subscription, error) {
	email = survey.NormalizeEmail(email)
	if !validMember(tenant, slug, email) {
		return nil, survey.Errorf(survey.ENOTFOUND, "No such member or survey.")
	}
	e, err := ns.st.GetEntity(ctx, NotificationsTable, tenant, subscriptionKey(slug, email))
	if isNotFound(err) {
		return &Subscription{Tenant: tenant, Slug: slug, Email: email}, nil
	}
	if err != nil {
		return nil, mapErr(err, "Subscription")
	}
	return subscriptionOf(e), nil
}

// Subscribe saves the member's choices for the survey; total is the
// survey's answers now, from which the first digest counts. Turning both
// off deletes the row; the bookkeeping of a row kept is kept.
func (ns *NotificationStore) Subscribe(ctx context.Context, tenant, slug, email string, c survey.NotifyChoices, total int64, now time.Time) error {
	email = survey.NormalizeEmail(email)
	for range 10 {
		sub, err := ns.Subscription(ctx, tenant, slug, email)
		if err != nil {
			return err
		}
		defer ns.cache.Remove(tenant)
		if !c.EachAnswer && !c.Digest {
			if sub.etag == "" {
				return nil
			}
			err := ns.st.DeleteEntity(ctx, NotificationsTable, tenant, subscriptionKey(slug, email), sub.etag)
			if isNotFound(err) {
				return nil
			}
			if errors.Is(err, storage.ErrPrecondition) {
				continue
			}
			return mapErr(err, "Subscription")
		}
		if sub.etag == "" {
			sub.CreatedOn = now.UTC()
		}
		if c.Digest && !sub.Digest {
			sub.DigestAt, sub.DigestTotal = now.UTC(), total
		}
		sub.EachAnswer, sub.Digest = c.EachAnswer, c.Digest
		if err := ns.Update(ctx, sub); errors.Is(err, errChanged) {
			continue
		} else if err != nil {
			return err
		}
		return nil
	}
	return survey.Errorf(survey.ECONFLICT, "Your notifications were changed at the same time; try again.")
}

// errChanged is Update's answer when the row changed since it was read.
var errChanged = errors.New("store: the subscription changed")

// Update writes sub as read (its ETag): errChanged when someone wrote it
// since. A sub never written is inserted (errChanged if one was).
func (ns *NotificationStore) Update(ctx context.Context, sub *Subscription) error {
	e := storage.Entity{PartitionKey: sub.Tenant, RowKey: subscriptionKey(sub.Slug, sub.Email), Properties: map[string]any{
		"EachAnswer": sub.EachAnswer, "Digest": sub.Digest, "CreatedOn": sub.CreatedOn,
		"WindowStart": sub.WindowStart, "WindowSent": sub.WindowSent, "Folded": sub.Folded, "FoldedSince": sub.FoldedSince,
		"DigestAt": sub.DigestAt, "DigestTotal": sub.DigestTotal,
	}}
	var etag string
	var err error
	if sub.etag == "" {
		etag, err = ns.st.InsertEntity(ctx, NotificationsTable, e)
	} else {
		etag, err = ns.st.UpdateEntity(ctx, NotificationsTable, e, sub.etag)
	}
	if errors.Is(err, storage.ErrExists) || errors.Is(err, storage.ErrPrecondition) || (sub.etag != "" && isNotFound(err)) {
		return errChanged
	}
	if err != nil {
		return mapErr(err, "Subscription")
	}
	sub.etag = etag
	return nil
}

// Changed reports whether err is Update's: the row changed since it was
// read (read it again, or leave it to the writer that won).
func Changed(err error) bool { return errors.Is(err, errChanged) }

// Forget drops this instance's copy of the tenant's subscriptions.
func (ns *NotificationStore) Forget(tenant string) { ns.cache.Remove(tenant) }

// Subscribers returns the subscriptions to the survey as this instance
// saw them at most subscribersTTL ago: a tenant without subscribers costs
// one query per subscribersTTL, not one per answer. The caller may change
// its copies (Update writes them).
func (ns *NotificationStore) Subscribers(ctx context.Context, tenant, slug string) ([]*Subscription, error) {
	all, ok := ns.cache.Get(tenant)
	if !ok {
		if survey.ValidateTenantKey(tenant) != nil {
			return nil, nil
		}
		var err error
		if all, err = ns.partition(ctx, tenant); err != nil {
			return nil, err
		}
		ns.cache.Add(tenant, all)
	}
	var out []*Subscription
	for _, s := range all {
		if s.Slug == slug {
			c := *s
			out = append(out, &c)
		}
	}
	return out, nil
}

// Keep puts sub, as written, in this instance's copy of its tenant's
// subscriptions.
func (ns *NotificationStore) Keep(sub *Subscription) {
	all, ok := ns.cache.Get(sub.Tenant)
	if !ok {
		return
	}
	next := make([]*Subscription, len(all))
	for i, s := range all {
		next[i] = s
		if s.Slug == sub.Slug && s.Email == sub.Email {
			c := *sub
			next[i] = &c
		}
	}
	ns.cache.Add(sub.Tenant, next)
}

// partition reads every subscription of tenant.
func (ns *NotificationStore) partition(ctx context.Context, tenant string) ([]*Subscription, error) {
	var out []*Subscription
	q := storage.Query{RowKeyFrom: "s_", RowKeyTo: "s`"}
	for {
		page, err := ns.st.QueryPartition(ctx, NotificationsTable, tenant, q)
		if err != nil {
			return nil, mapErr(err, "Subscriptions")
		}
		for _, e := range page.Entities {
			out = append(out, subscriptionOf(e))
		}
		if page.Continuation == "" {
			return out, nil
		}
		q.Continuation = page.Continuation
	}
}

// Each calls fn with every subscription of every tenant, a page (up to
// 1,000) per storage call: the digest worker's tick.
func (ns *NotificationStore) Each(ctx context.Context, fn func(*Subscription) error) error {
	q := storage.TableQuery{}
	for {
		page, err := ns.st.QueryTable(ctx, NotificationsTable, q)
		if err != nil {
			return mapErr(err, "Subscriptions")
		}
		for _, e := range page.Entities {
			if !strings.HasPrefix(e.RowKey, "s_") {
				continue
			}
			if err := fn(subscriptionOf(e)); err != nil {
				return err
			}
		}
		if page.Continuation == "" {
			return nil
		}
		q.Continuation = page.Continuation
	}
}

func subscriptionOf(e storage.Entity) *Subscription {
	slug, email, _ := strings.Cut(strings.TrimPrefix(e.RowKey, "s_"), "_")
	return &Subscription{Tenant: e.PartitionKey, Slug: slug, Email: email,
		EachAnswer: e.Bool("EachAnswer"), Digest: e.Bool("Digest"), CreatedOn: e.Time("CreatedOn"),
		WindowStart: e.Time("WindowStart"), WindowSent: e.Int("WindowSent"), Folded: e.Int("Folded"), FoldedSince: e.Time("FoldedSince"),
		DigestAt: e.Time("DigestAt"), DigestTotal: e.Int("DigestTotal"), etag: e.ETag}
}

// Delete removes a subscription (its survey or its member is gone).
func (ns *NotificationStore) Delete(ctx context.Context, sub *Subscription) error {
	defer ns.cache.Remove(sub.Tenant)
	err := ns.st.DeleteEntity(ctx, NotificationsTable, sub.Tenant, subscriptionKey(sub.Slug, sub.Email), "")
	if err != nil && !isNotFound(err) {
		return mapErr(err, "Subscription")
	}
	return nil
}

// Unsubscribe stops what u names; a link used twice is no error.
func (ns *NotificationStore) Unsubscribe(ctx context.Context, u survey.Unsubscribe, now time.Time) error {
	if u.What == survey.NotifyAlerts {
		return ns.SetAlerts(ctx, u.Tenant, u.Email, false)
	}
	sub, err := ns.Subscription(ctx, u.Tenant, u.Slug, u.Email)
	if err != nil {
		return err
	}
	c := survey.NotifyChoices{EachAnswer: sub.EachAnswer && u.What != survey.NotifyEachAnswer, Digest: sub.Digest && u.What != survey.NotifyDigest}
	return ns.Subscribe(ctx, u.Tenant, u.Slug, u.Email, c, sub.DigestTotal, now)
}

// Alerts reports whether the member gets the admins' failure alerts (on
// unless turned off).
func (ns *NotificationStore) Alerts(ctx context.Context, tenant, email string) (bool, error) {
	email = survey.NormalizeEmail(email)
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidEmail(email) {
		return false, survey.Errorf(survey.ENOTFOUND, "No such member.")
	}
	_, err := ns.st.GetEntity(ctx, NotificationsTable, tenant, alertsKey(email))
	if isNotFound(err) {
		return true, nil
	}
	return false, mapErr(err, "Alerts")
}

// SetAlerts turns the member's failure alerts on or off.
func (ns *NotificationStore) SetAlerts(ctx context.Context, tenant, email string, on bool) error {
	email = survey.NormalizeEmail(email)
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidEmail(email) {
		return survey.Errorf(survey.ENOTFOUND, "No such member.")
	}
	if on {
		err := ns.st.DeleteEntity(ctx, NotificationsTable, tenant, alertsKey(email), "")
		if isNotFound(err) {
			return nil
		}
		return mapErr(err, "Alerts")
	}
	_, err := ns.st.UpsertEntity(ctx, NotificationsTable, storage.Entity{PartitionKey: tenant, RowKey: alertsKey(email), Properties: map[string]any{"Off": true}})
	return mapErr(err, "Alerts")
}

// AlertsOff returns the members of tenant who turned the failure alerts
// off (one query: an alert is rare).
func (ns *NotificationStore) AlertsOff(ctx context.Context, tenant string) (map[string]bool, error) {
	off := map[string]bool{}
	q := storage.Query{RowKeyFrom: "a_", RowKeyTo: "a`"}
	for {
		page, err := ns.st.QueryPartition(ctx, NotificationsTable, tenant, q)
		if err != nil {
			return nil, mapErr(err, "Alerts")
		}
		for _, e := range page.Entities {
			off[strings.TrimPrefix(e.RowKey, "a_")] = true
		}
		if page.Continuation == "" {
			return off, nil
		}
		q.Continuation = page.Continuation
	}
}

// forgetMember deletes every notification row of the member (the account
// is removed): no more mail of the tenant's answers.
func forgetMember(ctx context.Context, st storage.Storage, tenant, email string) error {
	q := storage.Query{}
	for {
		page, err := st.QueryPartition(ctx, NotificationsTable, tenant, q)
		if isNotFound(err) {
			return nil
		}
		if err != nil {
			return mapErr(err, "Notifications")
		}
		for _, e := range page.Entities {
			if e.RowKey == alertsKey(email) || (strings.HasPrefix(e.RowKey, "s_") && strings.HasSuffix(e.RowKey, "_"+email) && subscriptionOf(e).Email == email) {
				if err := st.DeleteEntity(ctx, NotificationsTable, tenant, e.RowKey, ""); err != nil && !isNotFound(err) {
					return mapErr(err, "Notifications")
				}
			}
		}
		if page.Continuation == "" {
			return nil
		}
		q.Continuation = page.Continuation
	}
}
