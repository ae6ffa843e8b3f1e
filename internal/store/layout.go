// Package store keeps the domain in storage, with the Tailspin Surveys
// layout: survey definitions in the Surveys and Questions tables, tenants,
// answers and summaries in blobs, work in queues. It is written once, over
// the storage primitives, and so runs on either backend.
package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// SignInsTable held the sign-ins through a tenant's identity provider that
// were under way (their state now travels in a sealed cookie, web); it
// holds the SAML assertions accepted and not yet expired
// (SAMLStore.Consume), and deleting a tenant removes its rows.
const SignInsTable = "SignIns"

// Names of the tables, containers and queues.
const (
	SurveysTable        = "Surveys"
	QuestionsTable      = "Questions"
	TenantsContainer    = "tenants"
	LogosContainer      = "logos"
	SummariesContainer  = "surveyanswerssummaries"
	AnswerListContainer = "surveyanswerlists"
	// SpillContainer holds answers too large for a queue message, from
	// their enqueue until the worker deletes their message.
	SpillContainer  = "surveyanswerspills"
	SystemContainer = "system"
	// ResumeContainer holds the saved progress of respondents of
	// multi-page surveys (resume.go).
	ResumeContainer = "surveyresume"
	// PartialsContainer holds the progress of respondents of surveys
	// that keep partial answers (partials.go).
	PartialsContainer   = "surveypartials"
	AnswersQueue        = "surveyanswers"
	PremiumAnswersQueue = "surveyanswers-premium"
	TransfersQueue      = "surveytransfers"
	answersPrefix       = "surveyanswers-"
)

// Tables are every table the store keeps.
var Tables = []string{
	SurveysTable,
	QuestionsTable,
	UsersTable,
	SessionsTable,
	UserSessionsTable,
	TokensTable,
	SignInsTable,
	RanksTable,
	PublicRanksTable,
	LinksTable,
	UserEmailsTable,
	PersonalLinksTable,
	WebhooksTable,
	NotificationsTable,
	MailQuotasTable,
	SavedSegmentsTable,
	AuditTable,
	DomainsTable,
	SCIMTokensTable,
	SCIMTable,
	ContactsTable,
	CampaignsTable,
	CampaignSendsTable,
	PasskeysTable,
}

// SharedContainers are the containers of every tenant's blobs (but the
// public LogosContainer); a survey's answers and uploads have containers
// of their own (AnswersContainer, uploads.go).
var SharedContainers = []string{TenantsContainer, SummariesContainer, AnswerListContainer, SegmentContainer, SystemContainer, TransferStatusContainer, SpillContainer, WebhookPayloadsContainer, ResumeContainer, PartialsContainer, SAMLContainer}

// Queues are every queue the store keeps.
var Queues = []string{AnswersQueue, PremiumAnswersQueue, TransfersQueue, TransfersPoisonQueue, ViewsQueue, MailQueue, MailPoisonQueue, WebhooksQueue, WebhooksPoisonQueue, CampaignsQueue}

// Init creates the tables, shared containers and queues. It is called once
// at start-up; per-survey containers are created on their first 404.
func Init(ctx context.Context, st storage.Storage) error {
	for _, t := range Tables {
		if err := st.CreateTable(ctx, t); err != nil {
			return fmt.Errorf("store: create table %s: %w", t, err)
		}
	}
	for _, c := range SharedContainers {
		if err := st.CreateContainer(ctx, c, false); err != nil {
			return fmt.Errorf("store: create container %s: %w", c, err)
		}
	}
	if err := st.CreateContainer(ctx, LogosContainer, true); err != nil {
		return fmt.Errorf("store: create container %s: %w", LogosContainer, err)
	}
	for _, q := range Queues {
		if err := st.CreateQueue(ctx, q); err != nil {
			return fmt.Errorf("store: create queue %s: %w", q, err)
		}
	}
	return nil
}

// surveyRowKey is the Surveys RowKey: tenant + "_" + slug.
func surveyRowKey(tenant, slug string) string { return tenant + "_" + slug }

// questionsPartition is the Questions PartitionKey: tenant + "_" + slug.
func questionsPartition(tenant, slug string) string { return tenant + "_" + slug }

// AnswersContainer names the container of a survey's answers:
// "surveyanswers-<tenant>-<slug>", shortened with a hash of the whole when
// it would pass Azure's 63 characters. Tenant keys have no hyphen, so two
// surveys never share a container.
func AnswersContainer(tenant, slug string) string {
	return dnsName(answersPrefix+tenant+"-"+slug, tenant+"/"+slug)
}

// summaryBlob names a survey's summary in SummariesContainer.
func summaryBlob(tenant, slug string) string { return tenant + "-" + slug }

// answerListPrefix is the prefix of a survey's answer-list chunks.
func answerListPrefix(tenant, slug string) string { return tenant + "-" + slug + "/" }

// dnsName returns name if it is a valid container name, or else its first
// characters and a short hash of identity.
func dnsName(name, identity string) string {
	if len(name) <= 63 {
		return name
	}
	sum := sha256.Sum256([]byte(identity))
	h := hex.EncodeToString(sum[:])[:10]
	return strings.TrimRight(name[:63-len(h)-1], "-") + "-" + h
}

// ticksEpoch is 0001-01-01 in Unix nanoseconds / 100 (a .NET tick count).
const ticksEpoch = 621_355_968_000_000_000

// ticks is the .NET tick count of t, as Tailspin named its blobs and keys.
func ticks(t time.Time) int64 { return t.UnixNano()/100 + ticksEpoch }

// idClock hands out strictly increasing tick counts in this process.
type idClock struct {
	mu   sync.Mutex
	last int64
}

var answerIDs idClock

func (c *idClock) next(now time.Time) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := ticks(now)
	if t <= c.last {
		t = c.last + 1
	}
	c.last = t
	return t
}

// NewAnswerID returns a new answer ID: a 19-digit tick count, increasing in
// this process, and a random suffix that keeps IDs unique across
// processes. IDs sort by time.
func NewAnswerID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%019d-%s", answerIDs.next(now), hex.EncodeToString(b[:]))
}

// ValidAnswerID reports whether id has the form NewAnswerID gives.
func ValidAnswerID(id string) bool {
	if len(id) != 26 || id[19] != '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if i == 19 {
			continue
		}
		if !(c >= '0' && c <= '9') && !(i > 19 && c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// AnswerIDTime is when NewAnswerID made id (to the tick; an ID made under
// load may run a little ahead of the clock); false when id is not one.
func AnswerIDTime(id string) (time.Time, bool) {
	if !ValidAnswerID(id) {
		return time.Time{}, false
	}
	t, err := strconv.ParseInt(id[:19], 10, 64)
	if err != nil || t < ticksEpoch {
		return time.Time{}, false
	}
	return time.Unix(0, (t-ticksEpoch)*100).UTC(), true
}

// mapErr turns storage errors into the domain's error type, keeping the
// others wrapped with context.
func mapErr(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, storage.ErrNotFound):
		return &survey.Error{Code: survey.ENOTFOUND, Message: what + " not found."}
	case errors.Is(err, storage.ErrExists), errors.Is(err, storage.ErrPrecondition):
		return &survey.Error{Code: survey.ECONFLICT, Message: what + " was changed by someone else; try again."}
	case errors.Is(err, storage.ErrInvalid), errors.Is(err, storage.ErrTooLarge):
		return &survey.Error{Code: survey.EINVALID, Message: what + " is not valid: " + err.Error()}
	default:
		return fmt.Errorf("store: %s: %w", what, err)
	}
}

// The mail queue holds the e-mail to send (mail.Message as JSON); the mail
// worker moves a message that keeps failing to the poison queue with the
// reason.
const (
	MailQueue       = "surveymail"
	MailPoisonQueue = "surveymail-poison"
)
