package store

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// CampaignsTable holds a tenant's campaigns (PartitionKey tenant, RowKey
// the campaign's ID, which sorts by creation).
const CampaignsTable = "Campaigns"

// CampaignSendsTable is the ledger of a campaign's mails: one row per
// (step, contact) (PartitionKey <tenant>_<campaign>, RowKey
// <step, two digits>_<contact ID>), written with a conditional insert
// before the mail is sent (the claim) and updated under its ETag once it
// is (worker/campaigns.go; docs/architecture.md says why no contact is
// mailed twice or skipped).
const CampaignSendsTable = "CampaignSends"

// CampaignsQueue carries one message per campaign step due: the campaigns
// worker sends it, then queues the next step.
const CampaignsQueue = "campaigns"

// Limits of a campaign.
const (
	MaxCampaignText  = 10000
	MaxReminders     = 5
	MinRemindEvery   = time.Hour
	MaxCampaignAhead = 90 * 24 * time.Hour
)

// Campaign sends a survey's personal links to a contact list, then
// reminds those who have not answered.
type Campaign struct {
	ID, Survey, List string
	Subject, Text    string
	// SendAt is when the invitation goes; reminder k (from 1) is due at
	// SendAt + k×RemindEvery, up to MaxReminders of them.
	SendAt       time.Time
	RemindEvery  time.Duration
	MaxReminders int
	CreatedOn    time.Time
	CreatedBy    string
	// Step is the step under way or next (0: the invitation, k: reminder
	// k); Done, whether it is finished. RemindNow asks for reminder Step
	// at once.
	Step int
	Done bool
	// Finished steps' times, by step.
	Finished []time.Time
	// Segment, when set, limits the campaign to the list's contacts
	// whose attributes meet every condition (survey.MatchSegment),
	// decided each time a step picks its contacts.
	Segment []survey.SegmentCondition
}

// Due is when step n is due.
func (c *Campaign) Due(n int) time.Time {
	return c.SendAt.Add(time.Duration(n) * c.RemindEvery)
}

// Over reports whether every step is finished.
func (c *Campaign) Over() bool { return c.Done && c.Step >= c.MaxReminders }

// Steps is how many steps the campaign has (the invitation and its
// reminders).
func (c *Campaign) Steps() int { return 1 + c.MaxReminders }

// NewCampaign is what an editor asks for.
type NewCampaign struct {
	Survey, List, Subject, Text string
	SendAt                      time.Time
	RemindEvery                 time.Duration
	MaxReminders                int
	CreatedBy                   string
	// Segment: the conditions the contacts mailed meet (none: all of
	// the list). That the list has the attributes is the caller's check.
	Segment []survey.SegmentCondition
}

// Validate checks the campaign (now: the time it is made), a *survey.Error
// whose Fields say what to fix.
func (n *NewCampaign) Validate(now time.Time) error {
	f := map[string]string{}
	n.Subject = strings.Join(strings.Fields(n.Subject), " ")
	n.Text = strings.TrimSpace(strings.ReplaceAll(n.Text, "\r\n", "\n"))
	switch {
	case n.Subject == "":
		f["subject"] = "Write the subject of the e-mail."
	case utf8.RuneCountInString(n.Subject) > 200:
		f["subject"] = "Keep the subject to 200 characters."
	case strings.ContainsFunc(n.Subject, func(r rune) bool { return r < ' ' }):
		f["subject"] = "The subject must be one line."
	}
	switch {
	case n.Text == "":
		f["text"] = "Write the text of the e-mail: the link to the survey and an unsubscribe link are added below it."
	case utf8.RuneCountInString(n.Text) > MaxCampaignText:
		f["text"] = fmt.Sprintf("Keep the text to %d characters.", MaxCampaignText)
	case !utf8.ValidString(n.Text):
		f["text"] = "The text is not UTF-8."
	}
	if !validListID(n.List) {
		f["list"] = "Choose a contact list."
	}
	if n.SendAt.Before(now.Add(-time.Minute)) {
		f["sendAt"] = "Choose a time to come, or send now."
	} else if n.SendAt.After(now.Add(MaxCampaignAhead)) {
		f["sendAt"] = "Choose a time within 90 days."
	}
	if n.MaxReminders < 0 || n.MaxReminders > MaxReminders {
		f["reminders"] = fmt.Sprintf("Send from 0 to %d reminders.", MaxReminders)
	} else if n.MaxReminders > 0 && (n.RemindEvery < MinRemindEvery || n.RemindEvery > 30*24*time.Hour) {
		f["remindEvery"] = "Remind every 1 hour to 30 days."
	}
	if len(n.Segment) > survey.MaxSegmentConditions {
		f["segment"] = fmt.Sprintf("Give at most %d conditions.", survey.MaxSegmentConditions)
	}
	for i := range n.Segment {
		c := &n.Segment[i]
		c.Attr, c.Value = strings.ToLower(strings.TrimSpace(c.Attr)), strings.TrimSpace(survey.CleanLine(c.Value))
		switch {
		case !survey.ValidContactAttrName(c.Attr):
			f["segment"] = fmt.Sprintf("%q is not an attribute name: choose one of the list's attributes.", survey.CleanLine(c.Attr))
		case c.Value == "":
			f["segment"] = fmt.Sprintf("Give the value of %s the contacts must have.", c.Attr)
		case utf8.RuneCountInString(c.Value) > survey.MaxContactAttr:
			f["segment"] = fmt.Sprintf("Keep the value of %s to %d characters.", c.Attr, survey.MaxContactAttr)
		}
	}
	if len(f) > 0 {
		return &survey.Error{Code: survey.EINVALID, Message: "The campaign has errors.", Fields: f}
	}
	return nil
}

// CampaignStore keeps campaigns and their ledger.
type CampaignStore struct {
	st  storage.Storage
	now func() time.Time
	// Queued, when set, is called after a step is queued: it wakes this
	// instance's campaigns worker. It never blocks.
	Queued func()
}

// NewCampaignStore returns a CampaignStore over st.
func NewCampaignStore(st storage.Storage) *CampaignStore {
	return &CampaignStore{st: st, now: time.Now}
}

// CampaignMessage is the campaigns queue's message: a step of a campaign.
type CampaignMessage struct {
	Tenant   string `json:"tenant"`
	Campaign string `json:"campaign"`
	Step     int    `json:"step"`
}

func validCampaignID(id string) bool { return len(id) == 24 && isLowerHex(id) }

// Create stores the campaign, then queues its first step for SendAt. A
// crash between the two leaves a campaign no worker sends: Resume (the
// campaign's page) queues it again.
func (cs *CampaignStore) Create(ctx context.Context, tenant string, n NewCampaign) (*Campaign, error) {
	now := cs.now().UTC()
	if err := n.Validate(now); err != nil {
		return nil, err
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	c := &Campaign{ID: fmt.Sprintf("%012x", now.UnixMilli()) + hex.EncodeToString(b[:]), Survey: n.Survey, List: n.List, Subject: n.Subject, Text: n.Text,
		SendAt: n.SendAt.UTC(), RemindEvery: n.RemindEvery, MaxReminders: n.MaxReminders, CreatedOn: now, CreatedBy: n.CreatedBy,
		Segment: n.Segment}
	if _, err := cs.st.InsertEntity(ctx, CampaignsTable, campaignEntity(tenant, c)); err != nil {
		return nil, mapErr(err, "Campaign")
	}
	if err := cs.Queue(ctx, tenant, c, 0); err != nil {
		return nil, err
	}
	return c, nil
}

// Queue puts step n of the campaign on the campaigns queue, hidden until
// it is due (at most the queue's longest visibility: the worker puts an
// early message back).
func (cs *CampaignStore) Queue(ctx context.Context, tenant string, c *Campaign, n int) error {
	data, _ := json.Marshal(CampaignMessage{Tenant: tenant, Campaign: c.ID, Step: n})
	wait := max(0, min(c.Due(n).Sub(cs.now()), storage.MaxVisibility-time.Hour))
	_, err := cs.st.Enqueue(ctx, CampaignsQueue, data, storage.EnqueueOptions{Delay: wait, TTL: -1})
	if err != nil {
		return fmt.Errorf("store: queue campaign %s step %d: %w", c.ID, n, err)
	}
	if cs.Queued != nil && wait == 0 {
		cs.Queued()
	}
	return nil
}

func campaignEntity(tenant string, c *Campaign) storage.Entity {
	fin := make([]string, len(c.Finished))
	for i, t := range c.Finished {
		fin[i] = t.UTC().Format(time.RFC3339)
	}
	e := storage.Entity{PartitionKey: tenant, RowKey: c.ID, Properties: map[string]any{
		"Survey": c.Survey, "List": c.List, "Subject": c.Subject, "Text": c.Text, "SendAt": c.SendAt,
		"RemindEvery": int64(c.RemindEvery / time.Minute), "MaxReminders": int64(c.MaxReminders), "CreatedOn": c.CreatedOn, "CreatedBy": c.CreatedBy,
		"Step": int64(c.Step), "Done": c.Done, "Finished": strings.Join(fin, ","),
	}}
	if len(c.Segment) > 0 {
		b, _ := json.Marshal(c.Segment)
		e.Properties["Segment"] = string(b)
	}
	return e
}

func campaignFrom(e *storage.Entity) *Campaign {
	c := &Campaign{ID: e.RowKey, Survey: e.String("Survey"), List: e.String("List"), Subject: e.String("Subject"), Text: e.String("Text"),
		SendAt: e.Time("SendAt"), RemindEvery: time.Duration(e.Int("RemindEvery")) * time.Minute, MaxReminders: int(e.Int("MaxReminders")),
		CreatedOn: e.Time("CreatedOn"), CreatedBy: e.String("CreatedBy"), Step: int(e.Int("Step")), Done: e.Bool("Done")}
	if s := e.String("Segment"); s != "" {
		_ = json.Unmarshal([]byte(s), &c.Segment)
	}
	for _, s := range strings.Split(e.String("Finished"), ",") {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			c.Finished = append(c.Finished, t)
		}
	}
	return c
}

// ErrNoCampaign is the error of a campaign that does not exist.
var ErrNoCampaign = survey.Errorf(survey.ENOTFOUND, "Campaign not found.")

// Get returns one campaign with its ETag.
func (cs *CampaignStore) Get(ctx context.Context, tenant, id string) (*Campaign, string, error) {
	if !validCampaignID(id) || survey.ValidateTenantKey(tenant) != nil {
		return nil, "", ErrNoCampaign
	}
	e, err := cs.st.GetEntity(ctx, CampaignsTable, tenant, id)
	if isNotFound(err) {
		return nil, "", ErrNoCampaign
	}
	if err != nil {
		return nil, "", mapErr(err, "Campaign")
	}
	return campaignFrom(&e), e.ETag, nil
}

// List returns the campaigns of the survey slug (all of them for ""),
// newest first.
func (cs *CampaignStore) List(ctx context.Context, tenant, slug string) ([]Campaign, error) {
	var out []Campaign
	if survey.ValidateTenantKey(tenant) != nil {
		return nil, nil
	}
	q := storage.Query{}
	for {
		page, err := cs.st.QueryPartition(ctx, CampaignsTable, tenant, q)
		if err != nil {
			return nil, mapErr(err, "Campaigns")
		}
		for i := range page.Entities {
			if c := campaignFrom(&page.Entities[i]); slug == "" || c.Survey == slug {
				out = append(out, *c)
			}
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, nil
}

// Update writes c under etag (ErrPrecondition when it changed).
func (cs *CampaignStore) Update(ctx context.Context, tenant string, c *Campaign, etag string) error {
	_, err := cs.st.UpdateEntity(ctx, CampaignsTable, campaignEntity(tenant, c), etag)
	return err
}

// RemindNow makes the campaign's next reminder due now (the invitation is
// sent, and a reminder is left): its step is queued at once.
func (cs *CampaignStore) RemindNow(ctx context.Context, tenant, id string) (*Campaign, error) {
	for range 10 {
		c, etag, err := cs.Get(ctx, tenant, id)
		if err != nil {
			return nil, err
		}
		if !c.Done && c.Step == 0 {
			return nil, survey.Errorf(survey.ECONFLICT, "The invitation is not sent yet: a reminder follows it.")
		}
		next := c.Step
		if c.Done {
			next = c.Step + 1
		}
		if next > c.MaxReminders {
			return nil, survey.Errorf(survey.ECONFLICT, "Every reminder of this campaign is sent (it has %d).", c.MaxReminders)
		}
		if !c.Done && next == c.Step {
			// Reminder Step is due later (or under way): it goes now.
			if c.Due(next).Before(cs.now()) {
				return c, nil
			}
		}
		// Reminder next is due now: the schedule moves so that it is.
		c.SendAt = cs.now().UTC().Add(-time.Duration(next) * c.RemindEvery)
		if c.Done {
			c.Step, c.Done = next, false
		}
		err = cs.Update(ctx, tenant, c, etag)
		if errors.Is(err, storage.ErrPrecondition) {
			continue
		}
		if err != nil {
			return nil, mapErr(err, "Campaign")
		}
		return c, cs.Queue(ctx, tenant, c, next)
	}
	return nil, survey.Errorf(survey.ECONFLICT, "The campaign is busy; try again.")
}

// Send states of a contact's mail of one step.
const (
	SendClaimed = "claimed" // a worker is sending it (until Until)
	SendRetry   = "retry"   // the SMTP server failed; tried again at Until
	SendSent    = "sent"
	SendFailed  = "failed"  // temporary failures, tried too often
	SendBounced = "bounced" // refused for good (5xx)
)

// Send is the ledger's row of one contact's mail of one step.
type Send struct {
	Step     int
	Contact  string // the contact's ID
	Email    string
	State    string
	Until    time.Time
	Attempts int
	SentOn   time.Time
	Error    string
	ETag     string
}

// Final reports whether the send is finished, for good or not.
func (s *Send) Final() bool {
	return s.State == SendSent || s.State == SendFailed || s.State == SendBounced
}

func sendsPartition(tenant, campaign string) string { return tenant + "_" + campaign }

func sendKey(step int, contact string) string { return fmt.Sprintf("%02d_%s", step, contact) }

// SendEntity is the row of s in the ledger of the tenant's campaign.
func SendEntity(tenant, campaign string, s *Send) storage.Entity {
	props := map[string]any{"Email": s.Email, "State": s.State, "Attempts": int64(s.Attempts)}
	if !s.Until.IsZero() {
		props["Until"] = s.Until
	}
	if !s.SentOn.IsZero() {
		props["SentOn"] = s.SentOn
	}
	if s.Error != "" {
		props["Error"] = s.Error
	}
	return storage.Entity{PartitionKey: sendsPartition(tenant, campaign), RowKey: sendKey(s.Step, s.Contact), Properties: props}
}

// Sends returns the ledger of the campaign's step (every step for -1),
// by step and contact: one partition query a 1,000 rows.
func (cs *CampaignStore) Sends(ctx context.Context, tenant, campaign string, step int) ([]Send, error) {
	q := storage.Query{}
	if step >= 0 {
		p := fmt.Sprintf("%02d_", step)
		q = storage.Query{RowKeyFrom: p, RowKeyTo: p + "~"}
	}
	var out []Send
	for {
		page, err := cs.st.QueryPartition(ctx, CampaignSendsTable, sendsPartition(tenant, campaign), q)
		if err != nil {
			return nil, mapErr(err, "Campaign")
		}
		for _, e := range page.Entities {
			var n int
			fmt.Sscanf(e.RowKey[:2], "%d", &n)
			out = append(out, Send{Step: n, Contact: e.RowKey[3:], Email: e.String("Email"), State: e.String("State"), Until: e.Time("Until"),
				Attempts: int(e.Int("Attempts")), SentOn: e.Time("SentOn"), Error: e.String("Error"), ETag: e.ETag})
		}
		if page.Continuation == "" {
			return out, nil
		}
		q.Continuation = page.Continuation
	}
}

// Claim writes the claims of sends (each new, State SendClaimed, or
// taking over one whose ETag is set) in one transaction per 100: all of
// them or none. ErrExists or ErrPrecondition when another worker wrote one
// of them first. It sets each send's ETag.
func (cs *CampaignStore) Claim(ctx context.Context, tenant, campaign string, sends []*Send) error {
	pk := sendsPartition(tenant, campaign)
	ops := make([]storage.TableOp, 0, len(sends))
	for _, s := range sends {
		op := storage.TableOp{Kind: storage.OpInsert, Entity: SendEntity(tenant, campaign, s)}
		if s.ETag != "" {
			op = storage.TableOp{Kind: storage.OpUpdate, Entity: op.Entity, IfMatch: s.ETag}
		}
		ops = append(ops, op)
	}
	if len(ops) == 1 {
		// One row: its own ETag comes back.
		var etag string
		var err error
		if ops[0].Kind == storage.OpInsert {
			etag, err = cs.st.InsertEntity(ctx, CampaignSendsTable, ops[0].Entity)
		} else {
			etag, err = cs.st.UpdateEntity(ctx, CampaignSendsTable, ops[0].Entity, ops[0].IfMatch)
		}
		if err != nil {
			return err
		}
		sends[0].ETag = etag
		return nil
	}
	if err := cs.st.Transact(ctx, CampaignSendsTable, pk, ops); err != nil {
		return err
	}
	// A transaction returns no ETags: the rows are read back with one
	// query of the range of their keys (the worker claims contacts in
	// the order of their IDs, so that the range holds little else).
	lo, hi := sends[0].Contact, sends[0].Contact
	for _, s := range sends {
		lo, hi = min(lo, s.Contact), max(hi, s.Contact)
	}
	etags := map[string]string{}
	q := storage.Query{RowKeyFrom: sendKey(sends[0].Step, lo), RowKeyTo: sendKey(sends[0].Step, hi) + "~"}
	for {
		page, err := cs.st.QueryPartition(ctx, CampaignSendsTable, pk, q)
		if err != nil {
			return err
		}
		for _, e := range page.Entities {
			etags[e.RowKey] = e.ETag
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	for _, s := range sends {
		s.ETag = etags[sendKey(s.Step, s.Contact)]
	}
	return nil
}

// Mark writes the send's new state under its ETag (ErrPrecondition when
// another worker took it over since) and sets its new ETag.
func (cs *CampaignStore) Mark(ctx context.Context, tenant, campaign string, s *Send) error {
	etag, err := cs.st.UpdateEntity(ctx, CampaignSendsTable, SendEntity(tenant, campaign, s), s.ETag)
	if err != nil {
		return err
	}
	s.ETag = etag
	return nil
}

// deleteCampaigns removes the tenant's campaigns and their ledgers.
func deleteCampaigns(ctx context.Context, st storage.Storage, tenant string) error {
	list, err := NewCampaignStore(st).List(ctx, tenant, "")
	if err != nil && !isNotFound(err) {
		return err
	}
	for _, c := range list {
		if _, err := deleteRows(ctx, st, CampaignSendsTable, []string{sendsPartition(tenant, c.ID)}, nil); err != nil && !isNotFound(err) {
			return err
		}
	}
	_, err = deleteRows(ctx, st, CampaignsTable, []string{tenant}, nil)
	if isNotFound(err) {
		return nil
	}
	return err
}

// campaignLinkPurpose keeps a campaign link's MAC apart from any other
// use of the key.
const campaignLinkPurpose = "surveys/campaign-link/v1\x00"

// CampaignToken is the personal link's token of the contact in the
// campaign: an HMAC of their names under key, so that every step and
// every worker (a retry after a crash, a reminder) mails the same link
// without the token being stored (only its hash is, as for every
// personal link).
func CampaignToken(key []byte, tenant, campaign, contact string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(campaignLinkPurpose + tenant + "\n" + campaign + "\n" + contact))
	return survey.PersonalTokenPrefix + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
