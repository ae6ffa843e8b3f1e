// Package webhook is the wire format of the webhooks a tenant receives: the
// events and their payloads, and their signatures as the Standard Webhooks
// specification says (https://www.standardwebhooks.com): each request
// carries webhook-id, webhook-timestamp and webhook-signature, the last an
// HMAC-SHA256, with the endpoint's secret, of id.timestamp.body. It does
// no I/O.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The events an endpoint may subscribe to. Test is sent by "Send a test
// event" only, to the one endpoint.
const (
	ResponseCreated = "response.created"
	SurveyPublished = "survey.published"
	SurveyClosed    = "survey.closed"
	Test            = "webhook.test"
)

// Events are the events an endpoint may subscribe to, in the order a page
// lists them.
var Events = []string{ResponseCreated, SurveyPublished, SurveyClosed}

// The request headers of the specification.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// SecretPrefix starts every secret, as the specification's libraries write
// them: "whsec_" and the key in base64.
const SecretPrefix = "whsec_"

// secretBytes is the length of the keys NewSecret makes (the
// specification asks for 24 to 64 bytes).
const secretBytes = 32

// Tolerance is how far a request's timestamp may be from the receiver's
// clock (either way) for Verify to accept it, as the specification's
// libraries have it.
const Tolerance = 5 * time.Minute

// Errors of Verify and ParseSecret.
var (
	ErrBadSecret      = errors.New("webhook: not a whsec_ secret")
	ErrMissingHeaders = errors.New("webhook: missing webhook-id, webhook-timestamp or webhook-signature")
	ErrBadTimestamp   = errors.New("webhook: timestamp not in seconds")
	ErrTooOld         = errors.New("webhook: timestamp too old")
	ErrTooNew         = errors.New("webhook: timestamp too new")
	ErrNoMatch        = errors.New("webhook: no matching signature")
)

// NewSecret returns a new secret: "whsec_" and 32 random bytes in base64.
func NewSecret() string {
	b := make([]byte, secretBytes)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// ParseSecret returns the key of a secret: the base64 after "whsec_" (the
// prefix may be left out, as the reference libraries allow).
func ParseSecret(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(key) < 16 || len(key) > 64 {
		return nil, ErrBadSecret
	}
	return key, nil
}

// Sign returns the value of the webhook-signature header of a request with
// this id, timestamp and body: "v1," and the HMAC-SHA256 of
// id + "." + timestamp (Unix seconds) + "." + body, in base64.
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := ParseSecret(secret)
	if err != nil {
		return "", err
	}
	return "v1," + base64.StdEncoding.EncodeToString(mac(key, id, ts.Unix(), body)), nil
}

func mac(key []byte, id string, ts int64, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(id))
	h.Write([]byte{'.'})
	h.Write([]byte(strconv.FormatInt(ts, 10)))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Headers sets the three headers of a signed request on h: one signature
// per secret (during a rotation, the new secret's and the old one's, so
// that a receiver that has either verifies it), space-separated as the
// specification says.
func Headers(h http.Header, id string, ts time.Time, body []byte, secrets ...string) error {
	if len(secrets) == 0 {
		return errors.New("webhook: no secret to sign with")
	}
	sigs := make([]string, 0, len(secrets))
	for _, secret := range secrets {
		sig, err := Sign(secret, id, ts, body)
		if err != nil {
			return err
		}
		sigs = append(sigs, sig)
	}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, strings.Join(sigs, " "))
	return nil
}

// Verify checks a request as a receiver should: the three headers are
// there, the timestamp is within Tolerance of now, and one of the
// signatures of webhook-signature (space-separated, "v1,<base64>") is the
// HMAC of the body with the secret. The comparison takes constant time.
func Verify(secret string, h http.Header, body []byte, now time.Time) error {
	key, err := ParseSecret(secret)
	if err != nil {
		return err
	}
	id, tsText, sigs := h.Get(HeaderID), h.Get(HeaderTimestamp), h.Get(HeaderSignature)
	if id == "" || tsText == "" || sigs == "" {
		return ErrMissingHeaders
	}
	ts, err := strconv.ParseInt(tsText, 10, 64)
	if err != nil {
		return ErrBadTimestamp
	}
	switch at := time.Unix(ts, 0); {
	case now.Sub(at) > Tolerance:
		return ErrTooOld
	case at.Sub(now) > Tolerance:
		return ErrTooNew
	}
	want := mac(key, id, ts, body)
	for _, s := range strings.Fields(sigs) {
		version, sig, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrNoMatch
}

// MessageID is the webhook-id of an event to an endpoint: "msg_" and a
// hash of the endpoint, the event and its subject (an answer's ID, a
// survey's slug and state change), so that every retry, and every
// re-delivery of the event after a crash, carries the same id and a
// receiver can drop the repeats.
func MessageID(endpoint, event, subject string) string {
	sum := sha256.Sum256([]byte(endpoint + "\x00" + event + "\x00" + subject))
	return "msg_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:20]))
}

// Event is the body of every webhook: its type, when it happened, and its
// data (an Answer for response.created, a Survey for survey.*).
type Event struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      any       `json:"data"`
}

// Survey is the data of survey.published and survey.closed.
type Survey struct {
	Slug      string `json:"slug"`
	Title     string `json:"title"`
	State     string `json:"state"`
	PublicURL string `json:"publicUrl"`
}

// TestData is the data of webhook.test.
type TestData struct {
	Message string `json:"message"`
}

// Body encodes an event as the request body.
func Body(e Event) ([]byte, error) {
	e.Timestamp = e.Timestamp.UTC()
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("webhook: encode %s: %w", e.Type, err)
	}
	return b, nil
}
