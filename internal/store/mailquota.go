package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// MailQuotasTable counts, per tenant (PartitionKey), the e-mails its
// members' actions sent to other people (invitations, personal links): one
// row per hour (RowKey h_<YYYYMMDDHH>), per day (d_<YYYYMMDD>), and per
// recipient and day (r_<YYYYMMDD>_<SHA-256 of the address>, so that no
// address is stored). Rows of earlier days are pruned as a new day starts.
const MailQuotasTable = "MailQuotas"

// MailLimits are how many e-mails to others a tenant may send.
type MailLimits struct {
	PerHour, PerDay int
	// PerRecipient is how many one address may get from one tenant a day.
	PerRecipient int
}

// MailQuota are the operator's limits: Paid for tenants on a paid plan,
// Trial for those on the Trial plan.
type MailQuota struct {
	Paid, Trial MailLimits
}

// DefaultMailQuota is surveys serve's, unless the operator sets others.
var DefaultMailQuota = MailQuota{
	Paid:  MailLimits{PerHour: 500, PerDay: 2000, PerRecipient: 3},
	Trial: MailLimits{PerHour: 50, PerDay: 200, PerRecipient: 3},
}

// Validate refuses limits below one.
func (q MailQuota) Validate() error {
	for _, l := range []MailLimits{q.Paid, q.Trial} {
		if l.PerHour < 1 || l.PerDay < 1 || l.PerRecipient < 1 {
			return errors.New("mail quotas must be at least 1")
		}
	}
	return nil
}

// Of is the limits of a tenant on plan.
func (q MailQuota) Of(plan survey.Plan) MailLimits {
	if plan == survey.Trial {
		return q.Trial
	}
	return q.Paid
}

// Reasons a mail is refused, as /metrics labels them.
const (
	QuotaTenant    = "quota_tenant"
	QuotaRecipient = "quota_recipient"
	// Unverified: the member's own address is not proven yet.
	Unverified = "unverified"
)

// QuotaError is a refusal: what limit, and the addresses over their own.
type QuotaError struct {
	Reason  string // QuotaTenant or QuotaRecipient
	Message string
	// Over are the addresses that had their mails for the day.
	Over []string
}

func (e *QuotaError) Error() string { return e.Message }

// MailQuotaStore takes mails from a tenant's quotas (MailQuotasTable).
type MailQuotaStore struct {
	st    storage.Storage
	quota MailQuota
	now   func() time.Time
}

// NewMailQuotaStore returns the quotas of q over st.
func NewMailQuotaStore(st storage.Storage, q MailQuota) *MailQuotaStore {
	return &MailQuotaStore{st: st, quota: q, now: time.Now}
}

// WithClock makes the store tell the time with now; it returns q.
func (q *MailQuotaStore) WithClock(now func() time.Time) *MailQuotaStore {
	q.now = now
	return q
}

// Limits are the limits of a tenant on plan.
func (q *MailQuotaStore) Limits(plan survey.Plan) MailLimits { return q.quota.Of(plan) }

// maxRecipientsPerWrite keeps a write, with the hour and day rows, within
// a table transaction's 100 entities.
const maxRecipientsPerWrite = 90

// Take counts one e-mail to each of to (addresses, normalized) against the
// tenant's hourly and daily quotas and each address's daily one, all of
// them or none: a *QuotaError says which limit a batch would pass, and
// nothing is counted. Counts hold across instances (conditional writes in
// one partition); a batch of more than 90 addresses is written in steps,
// so that two batches racing may leave the first step of the loser
// counted, never fewer mails than were sent.
func (q *MailQuotaStore) Take(ctx context.Context, tenant string, plan survey.Plan, to []string) error {
	if len(to) == 0 {
		return nil
	}
	lim := q.quota.Of(plan)
	want := map[string]int{}
	for _, a := range to {
		want[survey.NormalizeEmail(a)]++
	}
	addrs := make([]string, 0, len(want))
	for a := range want {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	for start := 0; start < len(addrs); start += maxRecipientsPerWrite {
		part := addrs[start:min(start+maxRecipientsPerWrite, len(addrs))]
		// The first step checks the whole batch against the tenant's
		// quotas; later ones their own part.
		n := 0
		for _, a := range part {
			n += want[a]
		}
		check := n
		if start == 0 {
			check = len(to)
		}
		if err := q.take(ctx, tenant, plan, lim, part, want, n, check, addrs); err != nil {
			return err
		}
	}
	return nil
}

// take writes one step: n mails to part, after checking the tenant's
// quotas for check mails and every address of all against its own.
func (q *MailQuotaStore) take(ctx context.Context, tenant string, plan survey.Plan, lim MailLimits, part []string, want map[string]int, n, check int, all []string) error {
	for range 20 {
		now := q.now().UTC()
		day, hour := now.Format("20060102"), now.Format("2006010215")
		rows, err := q.today(ctx, tenant, day)
		if err != nil {
			return err
		}
		h, d := rows["h_"+hour], rows["d_"+day]
		if err := q.within(rows, now, plan, lim, check, want, all); err != nil {
			return err
		}
		ops := []storage.TableOp{bump(tenant, "h_"+hour, h, n, now.Add(2*time.Hour)), bump(tenant, "d_"+day, d, n, now.Add(48*time.Hour))}
		for _, a := range part {
			k := recipientKey(day, a)
			ops = append(ops, bump(tenant, k, rows[k], want[a], now.Add(48*time.Hour)))
		}
		err = q.st.Transact(ctx, MailQuotasTable, tenant, ops)
		if errors.Is(err, storage.ErrExists) || errors.Is(err, storage.ErrPrecondition) || errors.Is(err, storage.ErrNotFound) {
			continue // another sender counted at the same time
		}
		if err != nil {
			return mapErr(err, "Mail quota")
		}
		if h == nil && d == nil {
			q.prune(ctx, tenant, day) // a new day: yesterday's rows go
		}
		return nil
	}
	return survey.Errorf(survey.ECONFLICT, "Too many e-mails are being sent at once; try again.")
}

// Reasons a copy of an answer is refused (TakeCopy), besides the
// tenant's and the recipient's quotas.
const (
	// CopySent: the address had this answer's copy already.
	CopySent = "copy_sent"
	// CopyAddresses: the answer's copies went to MaxCopyAddresses
	// addresses already.
	CopyAddresses = "copy_addresses"
)

// MaxCopyAddresses is how many addresses one answer's copies may go to.
const MaxCopyAddresses = 3

// TakeCopy counts the copy of the answer answerID that its respondent
// asked to be mailed to addr: one e-mail against the tenant's hourly and
// daily quotas and the address's daily one (as Take), and a row of its own
// (c_<answer ID>_<SHA-256 of the address>), so that an answer's copy goes
// to one address once, and to at most MaxCopyAddresses addresses. All of
// it or none, in one conditional write: a *QuotaError says what refused it.
func (q *MailQuotaStore) TakeCopy(ctx context.Context, tenant string, plan survey.Plan, answerID, addr string) error {
	if !ValidAnswerID(answerID) {
		return survey.Errorf(survey.EINVALID, "Not an answer.")
	}
	addr = survey.NormalizeEmail(addr)
	lim := q.quota.Of(plan)
	prefix := "c_" + answerID + "_"
	key := prefix + addressHash(addr)
	for range 20 {
		now := q.now().UTC()
		day, hour := now.Format("20060102"), now.Format("2006010215")
		page, err := q.st.QueryPartition(ctx, MailQuotasTable, tenant, storage.Query{RowKeyFrom: prefix, RowKeyTo: prefix + "~"})
		if err != nil {
			return mapErr(err, "Mail quota")
		}
		sent := 0
		for _, e := range page.Entities {
			if e.RowKey == key {
				return q.refuse(CopySent, []string{addr}, "A copy of these answers was sent to %s already.", addr)
			}
			sent++
		}
		if sent >= MaxCopyAddresses {
			return q.refuse(CopyAddresses, nil, "A copy of these answers was sent to %d addresses already, as many as one answer's copies may go to.", MaxCopyAddresses)
		}
		rows, err := q.today(ctx, tenant, day)
		if err != nil {
			return err
		}
		if err := q.within(rows, now, plan, lim, 1, map[string]int{addr: 1}, []string{addr}); err != nil {
			return err
		}
		h, d, rk := rows["h_"+hour], rows["d_"+day], recipientKey(day, addr)
		ops := []storage.TableOp{bump(tenant, "h_"+hour, h, 1, now.Add(2*time.Hour)), bump(tenant, "d_"+day, d, 1, now.Add(48*time.Hour)),
			bump(tenant, rk, rows[rk], 1, now.Add(48*time.Hour)), bump(tenant, key, nil, 1, now.Add(48*time.Hour))}
		err = q.st.Transact(ctx, MailQuotasTable, tenant, ops)
		if errors.Is(err, storage.ErrExists) || errors.Is(err, storage.ErrPrecondition) || errors.Is(err, storage.ErrNotFound) {
			continue // another sender counted at the same time
		}
		if err != nil {
			return mapErr(err, "Mail quota")
		}
		if h == nil && d == nil {
			q.prune(ctx, tenant, day)
		}
		return nil
	}
	return survey.Errorf(survey.ECONFLICT, "Too many e-mails are being sent at once; try again.")
}

// within checks that check more mails, want[a] of them to each address
// of all, keep within the tenant's limits lim and each address's, as the
// rows of today (by RowKey) count them.
func (q *MailQuotaStore) within(rows map[string]*storage.Entity, now time.Time, plan survey.Plan, lim MailLimits, check int, want map[string]int, all []string) error {
	day, hour := now.Format("20060102"), now.Format("2006010215")
	h, d := rows["h_"+hour], rows["d_"+day]
	if count(h)+check > lim.PerHour {
		return q.refuse(QuotaTenant, nil, "Your organisation may send %d e-mails an hour on the %s plan; %d are left this hour, and the count starts again at %s UTC. Send fewer, or later.",
			lim.PerHour, plan, max(0, lim.PerHour-count(h)), now.Truncate(time.Hour).Add(time.Hour).Format("15:04"))
	}
	if count(d)+check > lim.PerDay {
		return q.refuse(QuotaTenant, nil, "Your organisation may send %d e-mails a day on the %s plan; %d are left today, and the count starts again at midnight UTC. Send fewer, or tomorrow.",
			lim.PerDay, plan, max(0, lim.PerDay-count(d)))
	}
	var over []string
	for _, a := range all {
		if count(rows[recipientKey(day, a)])+want[a] > lim.PerRecipient {
			over = append(over, a)
		}
	}
	if len(over) > 0 {
		return q.refuse(QuotaRecipient, over, "One address gets at most %d e-mails a day from your organisation; these had theirs today (until midnight UTC): %s. Nothing was sent.", lim.PerRecipient, strings.Join(over, ", "))
	}
	return nil
}

// today reads the tenant's rows of day (the hours', the day's and the
// recipients'), by RowKey.
func (q *MailQuotaStore) today(ctx context.Context, tenant, day string) (map[string]*storage.Entity, error) {
	out := map[string]*storage.Entity{}
	for _, prefix := range []string{"d_" + day, "h_" + day, "r_" + day + "_"} {
		qry := storage.Query{RowKeyFrom: prefix, RowKeyTo: prefix + "~"}
		for {
			page, err := q.st.QueryPartition(ctx, MailQuotasTable, tenant, qry)
			if err != nil {
				return nil, mapErr(err, "Mail quota")
			}
			for i := range page.Entities {
				out[page.Entities[i].RowKey] = &page.Entities[i]
			}
			if page.Continuation == "" {
				break
			}
			qry.Continuation = page.Continuation
		}
	}
	return out, nil
}

// prune deletes the tenant's rows of days before day, every page of them
// (a busy day leaves a row per recipient).
func (q *MailQuotaStore) prune(ctx context.Context, tenant, day string) {
	// The copies' rows name their answers, whose IDs start with their
	// time: those of answers two days old go (a copy is asked for within
	// the hour after the answer).
	copies := fmt.Sprintf("c_%019d", q.now().Add(-48*time.Hour).UnixNano()/100+ticksEpoch)
	for _, r := range [][2]string{{"d_", "d_" + day}, {"h_", "h_" + day}, {"r_", "r_" + day}, {"c_", copies}} {
		qry := storage.Query{RowKeyFrom: r[0], RowKeyTo: r[1]}
		for {
			page, err := q.st.QueryPartition(ctx, MailQuotasTable, tenant, qry)
			if err != nil {
				return
			}
			for _, e := range page.Entities {
				_ = q.st.DeleteEntity(ctx, MailQuotasTable, tenant, e.RowKey, storage.ETagAny)
			}
			if page.Continuation == "" {
				break
			}
			qry.Continuation = page.Continuation
		}
	}
}

func (q *MailQuotaStore) refuse(reason string, over []string, format string, args ...any) error {
	return &QuotaError{Reason: reason, Message: fmt.Sprintf(format, args...), Over: over}
}

func recipientKey(day, addr string) string { return "r_" + day + "_" + addressHash(addr) }

// addressHash names an address in a RowKey without storing it.
func addressHash(addr string) string {
	sum := sha256.Sum256([]byte(addr))
	return hex.EncodeToString(sum[:16])
}

func count(e *storage.Entity) int {
	if e == nil {
		return 0
	}
	return int(e.Int("Count"))
}

// bump is the write that adds n to row rk, as read (nil: absent).
func bump(tenant, rk string, e *storage.Entity, n int, expires time.Time) storage.TableOp {
	next := storage.Entity{PartitionKey: tenant, RowKey: rk, Properties: map[string]any{"Count": int64(count(e) + n), "Expires": expires}}
	if e == nil {
		return storage.TableOp{Kind: storage.OpInsert, Entity: next}
	}
	return storage.TableOp{Kind: storage.OpUpdate, Entity: next, IfMatch: e.ETag}
}
