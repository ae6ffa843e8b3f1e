package survey

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
)

// What a member may be e-mailed about, and so what an unsubscribe link
// stops: each new answer of a survey, a survey's daily digest, or the
// failure alerts of the tenant (a copy to its database that gave up, a
// webhook endpoint disabled), which go to its admins.
const (
	NotifyEachAnswer = "each"
	NotifyDigest     = "digest"
	NotifyAlerts     = "alerts"
	// NotifyCampaign is a contact's unsubscribe from every campaign of a
	// tenant (Slug empty).
	NotifyCampaign = "campaign"
)

// NotifyLabel is what a notification is, for people.
func NotifyLabel(what string) string {
	switch what {
	case NotifyCampaign:
		return "invitations to surveys"
	case NotifyEachAnswer:
		return "an e-mail for each new answer"
	case NotifyDigest:
		return "the daily digest of new answers"
	case NotifyAlerts:
		return "e-mails when a copy to your database fails or a webhook endpoint is disabled"
	}
	return ""
}

// NotifyChoices are a member's choices for one survey.
type NotifyChoices struct {
	EachAnswer bool
	Digest     bool
}

// ParseNotifyChoices reads the notifications form: each field, when sent,
// is a checkbox's "on" (or "1", "true"); anything else is refused beside
// the field, so that a mangled form changes nothing.
func ParseNotifyChoices(form map[string][]string) (NotifyChoices, error) {
	f := fieldErrors{}
	c := NotifyChoices{EachAnswer: f.check(form, "each"), Digest: f.check(form, "digest")}
	return c, f.err("The form")
}

// ParseAlertsChoice reads the account page's failure alerts checkbox, as
// ParseNotifyChoices.
func ParseAlertsChoice(form map[string][]string) (bool, error) {
	f := fieldErrors{}
	on := f.check(form, "alerts")
	return on, f.err("The form")
}

// check reads the checkbox name of form.
func (f fieldErrors) check(form map[string][]string, name string) bool {
	vs := form[name]
	if len(vs) == 0 {
		return false
	}
	if len(vs) > 1 {
		f.add(name, "Send this choice once.")
		return false
	}
	switch vs[0] {
	case "on", "1", "true":
		return true
	case "", "0", "off", "false":
		return false
	}
	f.add(name, "Tick the box, or leave it clear.")
	return false
}

// Unsubscribe is what an unsubscribe link stops: What (NotifyEachAnswer,
// NotifyDigest or NotifyAlerts) for the member Email of Tenant, of the
// survey Slug ("" for alerts).
type Unsubscribe struct {
	Tenant, Slug, Email, What string
}

// ErrBadUnsubscribe is the error of a link that was altered, or made with
// another key.
var ErrBadUnsubscribe = Errorf(ENOTFOUND, "This unsubscribe link is not valid: it may have been cut or altered. Sign in to change your notifications.")

// unsubscribePurpose keeps the link's MAC apart from any other use of the
// key.
const unsubscribePurpose = "surveys/unsubscribe/v1\x00"

// maxUnsubscribeToken bounds a token before it is decoded.
const maxUnsubscribeToken = 1024

// Token is the link's token: its fields, then an HMAC-SHA256 of them
// under key, each in URL-safe base64, joined by a dot.
func (u Unsubscribe) Token(key []byte) string {
	payload := strings.Join([]string{u.What, u.Tenant, u.Slug, u.Email}, "\n")
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(unsubscribeMAC(key, payload))
}

func unsubscribeMAC(key []byte, payload string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(unsubscribePurpose))
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// ParseUnsubscribe checks tok's MAC under key (in constant time) and
// returns what it stops; ErrBadUnsubscribe for anything else.
func ParseUnsubscribe(key []byte, tok string) (Unsubscribe, error) {
	if len(key) == 0 || len(tok) > maxUnsubscribeToken {
		return Unsubscribe{}, ErrBadUnsubscribe
	}
	p, m, ok := strings.Cut(tok, ".")
	if !ok {
		return Unsubscribe{}, ErrBadUnsubscribe
	}
	payload, err1 := base64.RawURLEncoding.Strict().DecodeString(p)
	mac, err2 := base64.RawURLEncoding.Strict().DecodeString(m)
	if err := errors.Join(err1, err2); err != nil || !hmac.Equal(mac, unsubscribeMAC(key, string(payload))) {
		return Unsubscribe{}, ErrBadUnsubscribe
	}
	parts := strings.Split(string(payload), "\n")
	if len(parts) != 4 {
		return Unsubscribe{}, ErrBadUnsubscribe
	}
	u := Unsubscribe{What: parts[0], Tenant: parts[1], Slug: parts[2], Email: parts[3]}
	switch {
	case ValidateTenantKey(u.Tenant) != nil, !ValidEmail(u.Email):
		return Unsubscribe{}, ErrBadUnsubscribe
	case (u.What == NotifyAlerts || u.What == NotifyCampaign) && u.Slug == "":
	case (u.What == NotifyEachAnswer || u.What == NotifyDigest) && ValidSlug(u.Slug):
	default:
		return Unsubscribe{}, ErrBadUnsubscribe
	}
	return u, nil
}
