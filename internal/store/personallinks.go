package store

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// PersonalLinksTable holds the personal links of surveys that take one
// answer per link: one row per link, partitioned per survey (PartitionKey
// tenant_slug, so that a survey's links are one partition query), keyed by
// the SHA-256 of the token (RowKey): the token travels in the link and is
// never stored.
const PersonalLinksTable = "PersonalLinks"

// PersonalLink is one personal link to a survey.
type PersonalLink struct {
	// ID names the link in lists (the start of its hash), never the token.
	ID string
	// Email is the address the link was made for ("" for a link made by
	// count).
	Email     string
	CreatedOn time.Time
	// UsedOn is when an answer was last sent with it (zero: never);
	// Answer, that answer's ID.
	UsedOn time.Time
	Answer string
	// OpenedOn is when its survey was first opened with it, StartedOn when
	// its holder first moved past the first page (zero: not yet).
	OpenedOn, StartedOn time.Time
	// Replaced are the earlier answers of the link, that changes
	// replaced (they may not come back); Pending, those of them not yet
	// deleted from the summary.
	Replaced, Pending []string
	// Token is set on a link just made, and only then.
	Token string
}

// Used reports whether an answer was sent with the link.
func (l *PersonalLink) Used() bool { return l.Answer != "" }

// Errors of a respondent's personal link: they tell nothing of whether the
// link exists for another survey.
var (
	ErrNotInvited = survey.Errorf(survey.EFORBIDDEN, "This survey is by invitation: use the link you received.")
	ErrAnswered   = survey.Errorf(survey.ECONFLICT, "You have already answered this survey.")
)

// PersonalLinkStore makes, lists and uses personal links.
type PersonalLinkStore struct {
	st  storage.Storage
	now func() time.Time
}

// NewPersonalLinkStore returns a PersonalLinkStore over st.
func NewPersonalLinkStore(st storage.Storage) *PersonalLinkStore {
	return &PersonalLinkStore{st: st, now: time.Now}
}

// Create makes n links to the survey tenant/slug, or one per address of
// emails when there are any (n is then their count), in transactions of
// the most rows one may hold, and returns them with their tokens (shown
// once: only their hashes are kept).
func (ps *PersonalLinkStore) Create(ctx context.Context, tenant, slug string, n int, emails []string) ([]PersonalLink, error) {
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) {
		return nil, survey.Errorf(survey.ENOTFOUND, "Survey not found.")
	}
	if len(emails) > 0 {
		n = len(emails)
	}
	if n < 1 || n > survey.MaxPersonalLinks {
		return nil, survey.Errorf(survey.EINVALID, "Make from 1 to %d links at a time.", survey.MaxPersonalLinks)
	}
	for _, e := range emails {
		if !survey.ValidEmail(e) {
			return nil, survey.Errorf(survey.EINVALID, "%q is not an email address.", e)
		}
	}
	pk := questionsPartition(tenant, slug)
	now := ps.now().UTC()
	out := make([]PersonalLink, 0, n)
	for start := 0; start < n; start += storage.MaxTransactionOps {
		end := min(start+storage.MaxTransactionOps, n)
		ops := make([]storage.TableOp, 0, end-start)
		batch := make([]PersonalLink, 0, end-start)
		for i := start; i < end; i++ {
			var b [32]byte
			if _, err := rand.Read(b[:]); err != nil {
				return nil, fmt.Errorf("store: personal link: %w", err)
			}
			token := survey.PersonalTokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
			_, rk := tokenKey(token)
			l := PersonalLink{ID: rk[:TokenIDLength], CreatedOn: now, Token: token}
			props := map[string]any{"CreatedOn": now}
			if len(emails) > 0 {
				l.Email = emails[i]
				props["Email"] = l.Email
			}
			ops = append(ops, storage.TableOp{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: pk, RowKey: rk, Properties: props}})
			batch = append(batch, l)
		}
		if err := ps.st.Transact(ctx, PersonalLinksTable, pk, ops); err != nil {
			return nil, mapErr(err, "Personal links")
		}
		out = append(out, batch...)
	}
	return out, nil
}

// List returns the survey's links, oldest first: one partition query.
func (ps *PersonalLinkStore) List(ctx context.Context, tenant, slug string) ([]PersonalLink, error) {
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) {
		return nil, survey.Errorf(survey.ENOTFOUND, "Survey not found.")
	}
	var out []PersonalLink
	q := storage.Query{}
	for {
		page, err := ps.st.QueryPartition(ctx, PersonalLinksTable, questionsPartition(tenant, slug), q)
		if err != nil {
			return nil, mapErr(err, "Personal links")
		}
		for i := range page.Entities {
			out = append(out, personalLinkFrom(&page.Entities[i]))
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedOn.Before(out[j].CreatedOn) })
	return out, nil
}

func personalLinkFrom(e *storage.Entity) PersonalLink {
	l := PersonalLink{ID: e.RowKey, Email: e.String("Email"), CreatedOn: e.Time("CreatedOn"), UsedOn: e.Time("UsedOn"), Answer: e.String("Answer"),
		OpenedOn: e.Time("OpenedOn"), StartedOn: e.Time("StartedOn")}
	if len(l.ID) > TokenIDLength {
		l.ID = l.ID[:TokenIDLength]
	}
	if r := e.String("Replaced"); r != "" {
		l.Replaced = strings.Split(r, ",")
	}
	if p := e.String("Pending"); p != "" {
		l.Pending = strings.Split(p, ",")
	}
	return l
}

// get reads the link of token to the survey; ErrNotInvited when the token
// is malformed or not one of this survey's.
func (ps *PersonalLinkStore) get(ctx context.Context, tenant, slug, token string) (storage.Entity, error) {
	if !survey.ValidPersonalToken(token) || survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) {
		return storage.Entity{}, ErrNotInvited
	}
	_, rk := tokenKey(token)
	e, err := ps.st.GetEntity(ctx, PersonalLinksTable, questionsPartition(tenant, slug), rk)
	if isNotFound(err) {
		return storage.Entity{}, ErrNotInvited
	}
	if err != nil {
		return storage.Entity{}, mapErr(err, "Personal link")
	}
	return e, nil
}

// Get returns the link of token to the survey; ErrNotInvited when the
// token is malformed or not one of this survey's.
func (ps *PersonalLinkStore) Get(ctx context.Context, tenant, slug, token string) (*PersonalLink, error) {
	e, err := ps.get(ctx, tenant, slug, token)
	if err != nil {
		return nil, err
	}
	l := personalLinkFrom(&e)
	return &l, nil
}

// maxReplaced bounds the changes of one link's answer not yet settled
// (their IDs are kept in its row).
const maxReplaced = 100

// Use marks the link of token used by the answer answerID, under the
// row's ETag: of two answers sent at once with one link, on any number of
// instances, one marks it and the other gets ErrAnswered (or, when
// mayChange, replaces it after). The caller acknowledges the answer only
// after Use returns. The same answer again (its form sent twice) is not a
// second use. When the link had another answer and mayChange, that answer
// is added to the link's Replaced and Pending (to delete), and the link is
// returned as it is now.
func (ps *PersonalLinkStore) Use(ctx context.Context, tenant, slug, token, answerID string, mayChange bool) (*PersonalLink, error) {
	for attempt := 0; attempt < 10; attempt++ {
		e, err := ps.get(ctx, tenant, slug, token)
		if err != nil {
			return nil, err
		}
		l := personalLinkFrom(&e)
		if l.Answer == answerID {
			return &l, nil
		}
		if l.Answer != "" && !mayChange {
			return nil, ErrAnswered
		}
		if slices.Contains(l.Replaced, answerID) {
			// This answer was replaced by a later one: it comes too late.
			return nil, ErrAnswered
		}
		if len(l.Replaced) >= maxReplaced {
			return nil, survey.Errorf(survey.ECONFLICT, "This answer has been changed too many times.")
		}
		if l.Answer != "" {
			l.Replaced, l.Pending = append(l.Replaced, l.Answer), append(l.Pending, l.Answer)
		}
		l.Answer, l.UsedOn = answerID, ps.now().UTC()
		_, err = ps.st.UpdateEntity(ctx, PersonalLinksTable, personalLinkEntity(e, &l), e.ETag)
		if errors.Is(err, storage.ErrPrecondition) {
			continue // another answer came first: read it
		}
		if isNotFound(err) {
			return nil, ErrNotInvited
		}
		if err != nil {
			return nil, mapErr(err, "Personal link")
		}
		return &l, nil
	}
	return nil, survey.Errorf(survey.ECONFLICT, "Too many answers are being sent with this link at once; try again.")
}

// Release undoes a Use of answerID whose answer was not acknowledged (its
// queueing failed): the link is as it was, unless another answer used it
// since.
func (ps *PersonalLinkStore) Release(ctx context.Context, tenant, slug, token, answerID string) error {
	for attempt := 0; attempt < 10; attempt++ {
		e, err := ps.get(ctx, tenant, slug, token)
		if err != nil {
			return err
		}
		l := personalLinkFrom(&e)
		if l.Answer != answerID {
			return nil
		}
		l.Answer, l.UsedOn = "", time.Time{}
		if n := len(l.Replaced); n > 0 {
			prev := l.Replaced[n-1]
			l.Answer, l.Replaced = prev, l.Replaced[:n-1]
			l.Pending = slices.DeleteFunc(l.Pending, func(a string) bool { return a == prev })
			l.UsedOn = e.Time("UsedOn")
		}
		_, err = ps.st.UpdateEntity(ctx, PersonalLinksTable, personalLinkEntity(e, &l), e.ETag)
		if errors.Is(err, storage.ErrPrecondition) {
			continue
		}
		return mapErr(err, "Personal link")
	}
	return survey.Errorf(survey.ECONFLICT, "The personal link is busy; try again.")
}

// Settled drops from the link's Pending (by its ID) the replaced answers
// done: those deleted from the survey's summary.
func (ps *PersonalLinkStore) Settled(ctx context.Context, tenant, slug, id string, done []string) error {
	if len(id) != TokenIDLength || !isLowerHex(id) || len(done) == 0 {
		return nil
	}
	pk := questionsPartition(tenant, slug)
	for attempt := 0; attempt < 10; attempt++ {
		page, err := ps.st.QueryPartition(ctx, PersonalLinksTable, pk, storage.Query{RowKeyFrom: id, RowKeyTo: id + "~"})
		if err != nil {
			return mapErr(err, "Personal link")
		}
		if len(page.Entities) != 1 {
			return nil
		}
		e := page.Entities[0]
		l := personalLinkFrom(&e)
		l.Pending = slices.DeleteFunc(l.Pending, func(a string) bool { return slices.Contains(done, a) })
		_, err = ps.st.UpdateEntity(ctx, PersonalLinksTable, personalLinkEntity(e, &l), e.ETag)
		if errors.Is(err, storage.ErrPrecondition) {
			continue
		}
		if isNotFound(err) {
			return nil
		}
		return mapErr(err, "Personal link")
	}
	return nil
}

func personalLinkEntity(e storage.Entity, l *PersonalLink) storage.Entity {
	props := map[string]any{"CreatedOn": l.CreatedOn}
	if l.Email != "" {
		props["Email"] = l.Email
	}
	if l.Answer != "" {
		props["Answer"], props["UsedOn"] = l.Answer, l.UsedOn
	}
	if !l.OpenedOn.IsZero() {
		props["OpenedOn"] = l.OpenedOn
	}
	if !l.StartedOn.IsZero() {
		props["StartedOn"] = l.StartedOn
	}
	if len(l.Replaced) > 0 {
		props["Replaced"] = strings.Join(l.Replaced, ",")
	}
	if len(l.Pending) > 0 {
		props["Pending"] = strings.Join(l.Pending, ",")
	}
	return storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Properties: props}
}

// LinkSeed is a personal link to make with a token of the caller's (a
// campaign's, derived from its key: CampaignToken).
type LinkSeed struct{ Token, Email string }

// LinkID is the ID (in lists) of the link of token.
func LinkID(token string) string {
	_, rk := tokenKey(token)
	return rk[:TokenIDLength]
}

// Ensure makes the links of seeds that do not exist yet, in one
// transaction per 100 when none does (a link made earlier, perhaps used
// since, is left as it is).
func (ps *PersonalLinkStore) Ensure(ctx context.Context, tenant, slug string, seeds []LinkSeed) error {
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) {
		return survey.Errorf(survey.ENOTFOUND, "Survey not found.")
	}
	pk := questionsPartition(tenant, slug)
	now := ps.now().UTC()
	for start := 0; start < len(seeds); start += storage.MaxTransactionOps {
		part := seeds[start:min(start+storage.MaxTransactionOps, len(seeds))]
		ops := make([]storage.TableOp, 0, len(part))
		for _, sd := range part {
			if !survey.ValidPersonalToken(sd.Token) {
				return survey.Errorf(survey.EINVALID, "Not a personal link.")
			}
			_, rk := tokenKey(sd.Token)
			ops = append(ops, storage.TableOp{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: pk, RowKey: rk, Properties: map[string]any{"CreatedOn": now, "Email": sd.Email}}})
		}
		err := ps.st.Transact(ctx, PersonalLinksTable, pk, ops)
		if errors.Is(err, storage.ErrExists) {
			for _, op := range ops {
				if _, err := ps.st.InsertEntity(ctx, PersonalLinksTable, op.Entity); err != nil && !errors.Is(err, storage.ErrExists) {
					return mapErr(err, "Personal links")
				}
			}
			continue
		}
		if err != nil {
			return mapErr(err, "Personal links")
		}
	}
	return nil
}

// Touch notes that the link l (as Get read it) opened its survey, or,
// when started, that its holder moved past the first page: one write the
// first time of each, none after.
func (ps *PersonalLinkStore) Touch(ctx context.Context, tenant, slug, token string, l *PersonalLink, started bool) error {
	if l == nil || (!started && !l.OpenedOn.IsZero()) || (started && !l.StartedOn.IsZero()) {
		return nil
	}
	e, err := ps.get(ctx, tenant, slug, token)
	if err != nil {
		return err
	}
	cur := personalLinkFrom(&e)
	now := ps.now().UTC()
	if cur.OpenedOn.IsZero() {
		cur.OpenedOn = now
	}
	if started && cur.StartedOn.IsZero() {
		cur.StartedOn = now
	}
	_, err = ps.st.UpdateEntity(ctx, PersonalLinksTable, personalLinkEntity(e, &cur), e.ETag)
	if errors.Is(err, storage.ErrPrecondition) {
		return nil // another request wrote it: the first time is noted
	}
	return mapErr(err, "Personal link")
}

// deleteAll removes the survey's links (the survey is deleted).
func (ps *PersonalLinkStore) deleteAll(ctx context.Context, tenant, slug string) error {
	_, err := deleteRows(ctx, ps.st, PersonalLinksTable, []string{questionsPartition(tenant, slug)}, nil)
	if isNotFound(err) {
		return nil
	}
	return err
}
