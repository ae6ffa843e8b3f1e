package store

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// LinksTable holds single-use links (a password reset, an invitation) by
// the SHA-256 of their token, like API tokens: the token travels only in
// the e-mail and is never stored.
const LinksTable = "OneTimeLinks"

// What a single-use link is for: a link made for one purpose is refused
// for another.
const (
	LinkReset  = "reset"
	LinkInvite = "invite"
	// LinkVerify proves a new sign-up's e-mail address (VerifyLinkTTL).
	LinkVerify = "verify"
	// LinkPick is the choice of one organisation, after a password that
	// signs in to several: a link per organisation, for a few minutes.
	LinkPick = "pick"
)

// Lifetimes of the links.
const (
	ResetLinkTTL  = time.Hour
	InviteLinkTTL = 7 * 24 * time.Hour
	PickLinkTTL   = 10 * time.Minute
)

// Link is a single-use link's content: what it lets its holder do, for
// which tenant and person, until when.
type Link struct {
	ID      string // names the link in lists (the start of its hash), never the token
	Purpose string
	Tenant  string
	Email   string
	// Role is the role an invitation grants; By, who sent it.
	Role      string
	By        string
	CreatedOn time.Time
	Expires   time.Time
}

// errLinkGone is the one answer to an unknown, used, expired or
// mismatched link: it tells nothing of which.
var errLinkGone = survey.Errorf(survey.ENOTFOUND, "This link is not valid: it has been used, has expired or was replaced. Ask for a new one.")

// LinkStore makes and redeems single-use links.
type LinkStore struct {
	st  storage.Storage
	now func() time.Time
}

// NewLinkStore returns a LinkStore over st.
func NewLinkStore(st storage.Storage) *LinkStore { return &LinkStore{st: st, now: time.Now} }

// WithClock makes the store read the time from now (tests make a link
// that has expired).
func (ls *LinkStore) WithClock(now func() time.Time) *LinkStore {
	ls.now = now
	return ls
}

// Create stores l (its ID, CreatedOn and Expires are set here) for ttl and
// returns the token to put in the link.
func (ls *LinkStore) Create(ctx context.Context, l Link, ttl time.Duration) (string, error) {
	switch {
	case l.Purpose != LinkReset && l.Purpose != LinkInvite && l.Purpose != LinkPick && l.Purpose != LinkVerify:
		return "", fmt.Errorf("store: link purpose %q", l.Purpose)
	case ttl <= 0:
		return "", fmt.Errorf("store: link lifetime %v", ttl)
	}
	if err := survey.ValidateTenantKey(l.Tenant); err != nil {
		return "", err
	}
	if !survey.ValidEmail(l.Email) {
		return "", survey.Errorf(survey.EINVALID, "Enter an email address such as ana@example.com.")
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("store: link: %w", err)
	}
	token := survey.LinkTokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	pk, rk := tokenKey(token)
	now := ls.now().UTC()
	_, err := ls.st.InsertEntity(ctx, LinksTable, storage.Entity{PartitionKey: pk, RowKey: rk, Properties: map[string]any{
		"Purpose": l.Purpose, "Tenant": l.Tenant, "Email": l.Email, "Role": l.Role, "By": l.By,
		"CreatedOn": now, "Expires": now.Add(ttl),
	}})
	if err != nil {
		return "", mapErr(err, "Link")
	}
	return token, nil
}

// Peek returns the link of token without using it (the page that asks for
// a new password shows whose it is); ENOTFOUND when the token is unknown,
// used, expired or made for another purpose.
func (ls *LinkStore) Peek(ctx context.Context, purpose, token string) (*Link, error) {
	l, _, err := ls.get(ctx, purpose, token)
	return l, err
}

// Use redeems the link of token: of two requests with the same token, one
// gets the link and the other ENOTFOUND (the row is deleted under its
// ETag). The caller acts on the link after Use returns it.
func (ls *LinkStore) Use(ctx context.Context, purpose, token string) (*Link, error) {
	l, etag, err := ls.get(ctx, purpose, token)
	if err != nil {
		return nil, err
	}
	pk, rk := tokenKey(token)
	err = ls.st.DeleteEntity(ctx, LinksTable, pk, rk, etag)
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrPrecondition) {
		return nil, errLinkGone
	}
	if err != nil {
		return nil, mapErr(err, "Link")
	}
	return l, nil
}

func (ls *LinkStore) get(ctx context.Context, purpose, token string) (*Link, string, error) {
	if !survey.ValidLinkToken(token) {
		return nil, "", errLinkGone
	}
	pk, rk := tokenKey(token)
	e, err := ls.st.GetEntity(ctx, LinksTable, pk, rk)
	if isNotFound(err) {
		return nil, "", errLinkGone
	}
	if err != nil {
		return nil, "", mapErr(err, "Link")
	}
	l := linkFromEntity(&e)
	if !ls.now().Before(l.Expires) {
		// Expired: gone for good (best effort; List prunes the rest).
		_ = ls.st.DeleteEntity(ctx, LinksTable, pk, rk, e.ETag)
		return nil, "", errLinkGone
	}
	if l.Purpose != purpose {
		return nil, "", errLinkGone
	}
	return l, e.ETag, nil
}

func linkFromEntity(e *storage.Entity) *Link {
	id := e.RowKey
	if len(id) > TokenIDLength {
		id = id[:TokenIDLength]
	}
	return &Link{ID: id, Purpose: e.String("Purpose"), Tenant: e.String("Tenant"), Email: e.String("Email"),
		Role: e.String("Role"), By: e.String("By"), CreatedOn: e.Time("CreatedOn"), Expires: e.Time("Expires")}
}

// List returns the tenant's unexpired links of purpose (pending
// invitations), oldest first, and deletes the expired links it meets. It
// reads the whole table: links are few and short-lived.
func (ls *LinkStore) List(ctx context.Context, tenant, purpose string) ([]Link, error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return nil, err
	}
	now := ls.now()
	var out []Link
	q := storage.TableQuery{}
	for {
		page, err := ls.st.QueryTable(ctx, LinksTable, q)
		if err != nil {
			return nil, mapErr(err, "Link")
		}
		for i := range page.Entities {
			e := &page.Entities[i]
			l := linkFromEntity(e)
			if !now.Before(l.Expires) {
				_ = ls.st.DeleteEntity(ctx, LinksTable, e.PartitionKey, e.RowKey, e.ETag)
				continue
			}
			if l.Tenant == tenant && l.Purpose == purpose {
				out = append(out, *l)
			}
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedOn.Before(out[j].CreatedOn) })
	return out, nil
}

// Revoke deletes the tenant's link of that ID and purpose (an invitation
// withdrawn); ENOTFOUND when the tenant has none.
func (ls *LinkStore) Revoke(ctx context.Context, tenant, purpose, id string) error {
	notFound := survey.Errorf(survey.ENOTFOUND, "No such invitation.")
	if len(id) != TokenIDLength || !isLowerHex(id) {
		return notFound
	}
	page, err := ls.st.QueryPartition(ctx, LinksTable, id[:2], storage.Query{RowKeyFrom: id, RowKeyTo: id + "~"})
	if err != nil {
		return mapErr(err, "Link")
	}
	n := 0
	for i := range page.Entities {
		e := &page.Entities[i]
		if e.String("Tenant") != tenant || e.String("Purpose") != purpose {
			continue
		}
		if err := ls.st.DeleteEntity(ctx, LinksTable, e.PartitionKey, e.RowKey, ""); err != nil && !isNotFound(err) {
			return mapErr(err, "Link")
		}
		n++
	}
	if n == 0 {
		return notFound
	}
	return nil
}

// RevokeFor deletes the tenant's links of purpose for email (the reset
// links of an account whose password was just set, or a member removed).
func (ls *LinkStore) RevokeFor(ctx context.Context, tenant, purpose, email string) error {
	q := storage.TableQuery{}
	for {
		page, err := ls.st.QueryTable(ctx, LinksTable, q)
		if err != nil {
			return mapErr(err, "Link")
		}
		for i := range page.Entities {
			e := &page.Entities[i]
			if e.String("Tenant") == tenant && e.String("Purpose") == purpose && e.String("Email") == email {
				if err := ls.st.DeleteEntity(ctx, LinksTable, e.PartitionKey, e.RowKey, ""); err != nil && !isNotFound(err) {
					return mapErr(err, "Link")
				}
			}
		}
		if page.Continuation == "" {
			return nil
		}
		q.Continuation = page.Continuation
	}
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Reset mails per recipient: at most ResetMailsPerAddress in each
// ResetMailWindow to one address, whoever asks and from wherever, so that
// "Forgot your password?" cannot flood a mailbox. The count is a row of
// LinksTable (partition resetMailsPartition, row the SHA-256 of the
// address: the address itself is not stored), taken with a conditional
// write, so it holds across instances; List prunes it once expired.
const (
	ResetMailsPerAddress = 3
	ResetMailWindow      = time.Hour
	resetMailsPartition  = "resetmails"
	resetMailsPurpose    = "resetmails" // never a link's purpose: never redeemed nor listed
)

// TakeResetMail counts one reset mail to email and reports whether it may
// be sent: false once ResetMailsPerAddress were counted in the current
// window (which starts with the first of them).
func (ls *LinkStore) TakeResetMail(ctx context.Context, email string) (bool, error) {
	_, rk := tokenKey(survey.NormalizeEmail(email))
	for range 20 {
		now := ls.now().UTC()
		e, err := ls.st.GetEntity(ctx, LinksTable, resetMailsPartition, rk)
		if isNotFound(err) {
			_, err = ls.st.InsertEntity(ctx, LinksTable, storage.Entity{PartitionKey: resetMailsPartition, RowKey: rk, Properties: map[string]any{
				"Purpose": resetMailsPurpose, "Count": int64(1), "CreatedOn": now, "Expires": now.Add(ResetMailWindow)}})
			if errors.Is(err, storage.ErrExists) {
				continue
			}
			return err == nil, mapErr(err, "Reset mail count")
		}
		if err != nil {
			return false, mapErr(err, "Reset mail count")
		}
		count := e.Int("Count")
		if !now.Before(e.Time("Expires")) {
			// A new window.
			e.Properties["CreatedOn"], e.Properties["Expires"], count = now, now.Add(ResetMailWindow), 0
		}
		if count >= ResetMailsPerAddress {
			return false, nil
		}
		e.Properties["Count"] = count + 1
		_, err = ls.st.UpdateEntity(ctx, LinksTable, e, e.ETag)
		if isPrecondition(err) || isNotFound(err) {
			continue
		}
		return err == nil, mapErr(err, "Reset mail count")
	}
	return false, survey.Errorf(survey.ECONFLICT, "Too many requests for this address at once; try again.")
}
