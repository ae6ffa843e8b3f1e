package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// ContactsTable holds a tenant's contact lists, in one partition per
// tenant (PartitionKey tenant):
//   - l_<list ID>: a list (Name, CreatedOn);
//   - c_<list ID>_<address hash>: a contact of the list (Email, Name,
//     Attrs as JSON, AddedOn), so that an address is in a list once;
//   - s_<address hash>: an address that unsubscribed or bounced (Email,
//     Unsubscribed, Bounced, On): the tenant's suppression list, which no
//     campaign mails and which outlives the lists (removing a contact, or
//     the list, keeps it).
const ContactsTable = "Contacts"

// ContactList is one list of contacts.
type ContactList struct {
	ID        string
	Name      string
	CreatedOn time.Time
}

// Contact is one person of a list, with the tenant's flags of the address.
type Contact struct {
	// ID names the contact in its list: a hash of its address.
	ID string
	survey.Recipient
	AddedOn time.Time
	// Unsubscribed and Bounced are the tenant's flags of the address:
	// set once, for good.
	Unsubscribed, Bounced bool
}

// Suppressed reports whether no campaign may mail the contact.
func (c *Contact) Suppressed() bool { return c.Unsubscribed || c.Bounced }

// Suppression is an address no campaign of the tenant mails.
type Suppression struct {
	Email                 string
	Unsubscribed, Bounced bool
	On                    time.Time
}

// Reasons an address is suppressed (ContactStore.Suppress).
const (
	SuppressUnsubscribed = "unsubscribed"
	SuppressBounced      = "bounced"
)

// ErrNoContactList is the error of a list that does not exist.
var ErrNoContactList = survey.Errorf(survey.ENOTFOUND, "Contact list not found.")

// ContactStore keeps contact lists (ContactsTable).
type ContactStore struct {
	st  storage.Storage
	now func() time.Time
}

// NewContactStore returns a ContactStore over st.
func NewContactStore(st storage.Storage) *ContactStore {
	return &ContactStore{st: st, now: time.Now}
}

// ContactID is the ID of the contact of address addr (normalized).
func ContactID(addr string) string { return addressHash(survey.NormalizeEmail(addr)) }

func validListID(id string) bool { return len(id) == 12 && isLowerHex(id) }

func contactKey(list, id string) string { return "c_" + list + "_" + id }

// CreateList makes an empty list named name.
func (cs *ContactStore) CreateList(ctx context.Context, tenant, name string) (*ContactList, error) {
	name, err := survey.ValidateContactListName(name)
	if err != nil {
		return nil, err
	}
	if survey.ValidateTenantKey(tenant) != nil {
		return nil, ErrNoContactList
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	l := &ContactList{ID: hex.EncodeToString(b[:]), Name: name, CreatedOn: cs.now().UTC()}
	_, err = cs.st.InsertEntity(ctx, ContactsTable, storage.Entity{PartitionKey: tenant, RowKey: "l_" + l.ID, Properties: map[string]any{"Name": l.Name, "CreatedOn": l.CreatedOn}})
	if err != nil {
		return nil, mapErr(err, "Contact list")
	}
	return l, nil
}

// Lists returns the tenant's lists, by name.
func (cs *ContactStore) Lists(ctx context.Context, tenant string) ([]ContactList, error) {
	var out []ContactList
	err := cs.scan(ctx, tenant, "l_", func(e *storage.Entity) {
		out = append(out, ContactList{ID: strings.TrimPrefix(e.RowKey, "l_"), Name: e.String("Name"), CreatedOn: e.Time("CreatedOn")})
	})
	sort.SliceStable(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out, err
}

// List returns one list; ErrNoContactList when the tenant has none of id.
func (cs *ContactStore) List(ctx context.Context, tenant, id string) (*ContactList, error) {
	if !validListID(id) || survey.ValidateTenantKey(tenant) != nil {
		return nil, ErrNoContactList
	}
	e, err := cs.st.GetEntity(ctx, ContactsTable, tenant, "l_"+id)
	if isNotFound(err) {
		return nil, ErrNoContactList
	}
	if err != nil {
		return nil, mapErr(err, "Contact list")
	}
	return &ContactList{ID: id, Name: e.String("Name"), CreatedOn: e.Time("CreatedOn")}, nil
}

// Contacts returns the list's contacts by address, with the tenant's
// flags of each: a partition query of the list's rows (1,000 a page) and
// one of the suppressions.
func (cs *ContactStore) Contacts(ctx context.Context, tenant, list string) ([]Contact, error) {
	if _, err := cs.List(ctx, tenant, list); err != nil {
		return nil, err
	}
	sup, err := cs.Suppressions(ctx, tenant)
	if err != nil {
		return nil, err
	}
	var out []Contact
	err = cs.scan(ctx, tenant, "c_"+list+"_", func(e *storage.Entity) {
		c := contactFrom(e)
		if s, ok := sup[c.ID]; ok {
			c.Unsubscribed, c.Bounced = s.Unsubscribed, s.Bounced
		}
		out = append(out, c)
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Email < out[j].Email })
	return out, err
}

// Attributes returns the names of the attributes the contacts of each of
// the tenant's lists have, by list ID, sorted: one partition query of
// every contact row (1,000 a page).
func (cs *ContactStore) Attributes(ctx context.Context, tenant string) (map[string][]string, error) {
	out := map[string][]string{}
	err := cs.scan(ctx, tenant, "c_", func(e *storage.Entity) {
		list := strings.TrimPrefix(e.RowKey, "c_")
		list = list[:max(0, strings.IndexByte(list, '_'))]
		for k := range contactFrom(e).Attrs {
			if !slices.Contains(out[list], k) {
				out[list] = append(out[list], k)
			}
		}
	})
	for _, names := range out {
		sort.Strings(names)
	}
	return out, err
}

func contactFrom(e *storage.Entity) Contact {
	c := Contact{ID: e.RowKey[strings.LastIndexByte(e.RowKey, '_')+1:], AddedOn: e.Time("AddedOn")}
	c.Email, c.Name = e.String("Email"), e.String("Name")
	if a := e.String("Attrs"); a != "" {
		_ = json.Unmarshal([]byte(a), &c.Attrs)
	}
	return c
}

func (cs *ContactStore) contactEntity(tenant, list string, r survey.Recipient, added time.Time) storage.Entity {
	props := map[string]any{"Email": r.Email, "AddedOn": added}
	if r.Name != "" {
		props["Name"] = r.Name
	}
	if len(r.Attrs) > 0 {
		b, _ := json.Marshal(r.Attrs)
		props["Attrs"] = string(b)
	}
	return storage.Entity{PartitionKey: tenant, RowKey: contactKey(list, ContactID(r.Email)), Properties: props}
}

// Add adds one contact to the list: a conflict when its address is in the
// list already; a *survey.Error for a bad address, name or attribute.
func (cs *ContactStore) Add(ctx context.Context, tenant, list string, r survey.Recipient) (*Contact, error) {
	r, err := survey.NormalizeContact(r)
	if err != nil {
		return nil, err
	}
	if _, err := cs.List(ctx, tenant, list); err != nil {
		return nil, err
	}
	now := cs.now().UTC()
	_, err = cs.st.InsertEntity(ctx, ContactsTable, cs.contactEntity(tenant, list, r, now))
	if errors.Is(err, storage.ErrExists) {
		return nil, &survey.Error{Code: survey.EINVALID, Message: "The address is in the list already.", Fields: map[string]string{"email": r.Email + " is in the list already: edit that contact instead."}}
	}
	if err != nil {
		return nil, mapErr(err, "Contact")
	}
	return &Contact{ID: ContactID(r.Email), Recipient: r, AddedOn: now}, nil
}

// Import adds contacts (normalized, each address once, none in the list
// yet, as survey.ParseContactsCSV gives them) in transactions of up to
// 100: one write per 100 contacts. An address added meanwhile by someone
// else is skipped, not doubled. It returns how many were added.
func (cs *ContactStore) Import(ctx context.Context, tenant, list string, rs []survey.Recipient) (int, error) {
	if _, err := cs.List(ctx, tenant, list); err != nil {
		return 0, err
	}
	now := cs.now().UTC()
	added := 0
	for start := 0; start < len(rs); start += storage.MaxTransactionOps {
		part := rs[start:min(start+storage.MaxTransactionOps, len(rs))]
		ops := make([]storage.TableOp, 0, len(part))
		for _, r := range part {
			ops = append(ops, storage.TableOp{Kind: storage.OpInsert, Entity: cs.contactEntity(tenant, list, r, now)})
		}
		err := cs.st.Transact(ctx, ContactsTable, tenant, ops)
		if errors.Is(err, storage.ErrExists) {
			// One of them came meanwhile: the others one by one.
			for _, op := range ops {
				_, err := cs.st.InsertEntity(ctx, ContactsTable, op.Entity)
				if errors.Is(err, storage.ErrExists) {
					continue
				}
				if err != nil {
					return added, mapErr(err, "Contacts")
				}
				added++
			}
			continue
		}
		if err != nil {
			return added, mapErr(err, "Contacts")
		}
		added += len(part)
	}
	return added, nil
}

// Contact returns one contact of the list, with its flags.
func (cs *ContactStore) Contact(ctx context.Context, tenant, list, id string) (*Contact, error) {
	if !validListID(list) || len(id) != 32 || !isLowerHex(id) || survey.ValidateTenantKey(tenant) != nil {
		return nil, survey.Errorf(survey.ENOTFOUND, "Contact not found.")
	}
	e, err := cs.st.GetEntity(ctx, ContactsTable, tenant, contactKey(list, id))
	if isNotFound(err) {
		return nil, survey.Errorf(survey.ENOTFOUND, "Contact not found.")
	}
	if err != nil {
		return nil, mapErr(err, "Contact")
	}
	c := contactFrom(&e)
	s, err := cs.st.GetEntity(ctx, ContactsTable, tenant, "s_"+id)
	switch {
	case err == nil:
		c.Unsubscribed, c.Bounced = s.Bool("Unsubscribed"), s.Bool("Bounced")
	case !isNotFound(err):
		return nil, mapErr(err, "Contact")
	}
	return &c, nil
}

// Update changes the name and attributes of the contact id (its address
// stays: a new address is a new contact).
func (cs *ContactStore) Update(ctx context.Context, tenant, list, id string, name string, attrs map[string]string) (*Contact, error) {
	c, err := cs.Contact(ctx, tenant, list, id)
	if err != nil {
		return nil, err
	}
	r, err := survey.NormalizeContact(survey.Recipient{Email: c.Email, Name: name, Attrs: attrs})
	if err != nil {
		return nil, err
	}
	if _, err := cs.st.UpdateEntity(ctx, ContactsTable, cs.contactEntity(tenant, list, r, c.AddedOn), storage.ETagAny); err != nil {
		return nil, mapErr(err, "Contact")
	}
	c.Recipient = r
	return c, nil
}

// Remove deletes the contact from the list; its address's flags stay.
func (cs *ContactStore) Remove(ctx context.Context, tenant, list, id string) error {
	if _, err := cs.Contact(ctx, tenant, list, id); err != nil {
		return err
	}
	err := cs.st.DeleteEntity(ctx, ContactsTable, tenant, contactKey(list, id), storage.ETagAny)
	if isNotFound(err) {
		return nil
	}
	return mapErr(err, "Contact")
}

// DeleteList removes the list and its contacts (the flags of their
// addresses stay).
func (cs *ContactStore) DeleteList(ctx context.Context, tenant, list string) error {
	if _, err := cs.List(ctx, tenant, list); err != nil {
		return err
	}
	var keys []string
	if err := cs.scan(ctx, tenant, "c_"+list+"_", func(e *storage.Entity) { keys = append(keys, e.RowKey) }); err != nil {
		return err
	}
	for start := 0; start < len(keys); start += storage.MaxTransactionOps {
		var ops []storage.TableOp
		for _, k := range keys[start:min(start+storage.MaxTransactionOps, len(keys))] {
			ops = append(ops, storage.TableOp{Kind: storage.OpDelete, Entity: storage.Entity{PartitionKey: tenant, RowKey: k}})
		}
		if err := cs.st.Transact(ctx, ContactsTable, tenant, ops); err != nil && !isNotFound(err) {
			return mapErr(err, "Contacts")
		}
	}
	err := cs.st.DeleteEntity(ctx, ContactsTable, tenant, "l_"+list, storage.ETagAny)
	if isNotFound(err) {
		return nil
	}
	return mapErr(err, "Contact list")
}

// Suppress flags the address for good (reason SuppressUnsubscribed or
// SuppressBounced): no campaign of the tenant mails it again. Flagging it
// twice is no error; a flag is never cleared.
func (cs *ContactStore) Suppress(ctx context.Context, tenant, addr, reason string) error {
	addr = survey.NormalizeEmail(addr)
	if !survey.ValidEmail(addr) || survey.ValidateTenantKey(tenant) != nil {
		return survey.Errorf(survey.EINVALID, "Not an e-mail address.")
	}
	rk := "s_" + addressHash(addr)
	for range 10 {
		e, err := cs.st.GetEntity(ctx, ContactsTable, tenant, rk)
		if err != nil && !isNotFound(err) {
			return mapErr(err, "Contact")
		}
		found := err == nil
		if !found {
			e = storage.Entity{PartitionKey: tenant, RowKey: rk, Properties: map[string]any{"Email": addr, "On": cs.now().UTC()}}
		}
		key := map[string]string{SuppressUnsubscribed: "Unsubscribed", SuppressBounced: "Bounced"}[reason]
		if key == "" {
			return survey.Errorf(survey.EINVALID, "Unknown reason.")
		}
		if e.Bool(key) {
			return nil
		}
		e.Properties[key] = true
		if found {
			_, err = cs.st.UpdateEntity(ctx, ContactsTable, e, e.ETag)
		} else {
			_, err = cs.st.InsertEntity(ctx, ContactsTable, e)
		}
		if errors.Is(err, storage.ErrPrecondition) || errors.Is(err, storage.ErrExists) {
			continue
		}
		return mapErr(err, "Contact")
	}
	return survey.Errorf(survey.ECONFLICT, "The address is busy; try again.")
}

// Suppressions returns the tenant's flagged addresses by contact ID: one
// partition query (1,000 a page).
func (cs *ContactStore) Suppressions(ctx context.Context, tenant string) (map[string]Suppression, error) {
	out := map[string]Suppression{}
	err := cs.scan(ctx, tenant, "s_", func(e *storage.Entity) {
		out[strings.TrimPrefix(e.RowKey, "s_")] = Suppression{Email: e.String("Email"), Unsubscribed: e.Bool("Unsubscribed"), Bounced: e.Bool("Bounced"), On: e.Time("On")}
	})
	return out, err
}

// scan calls f with each of the tenant's rows whose key starts with
// prefix, in key order.
func (cs *ContactStore) scan(ctx context.Context, tenant, prefix string, f func(*storage.Entity)) error {
	if survey.ValidateTenantKey(tenant) != nil {
		return nil
	}
	q := storage.Query{RowKeyFrom: prefix, RowKeyTo: prefix + "~"}
	for {
		page, err := cs.st.QueryPartition(ctx, ContactsTable, tenant, q)
		if err != nil {
			return mapErr(err, "Contacts")
		}
		for i := range page.Entities {
			f(&page.Entities[i])
		}
		if page.Continuation == "" {
			return nil
		}
		q.Continuation = page.Continuation
	}
}
