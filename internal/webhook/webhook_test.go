package webhook_test

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/webhook"
)

// The test vector of the Standard Webhooks reference libraries
// (standard-webhooks/standard-webhooks, libraries/go/webhook_test.go,
// TestWebhookSign; the same in its other languages' tests).
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTimestamp = 1614265330
	vectorBody      = `{"test": 2432232314}`
	vectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignVector(t *testing.T) {
	got, err := webhook.Sign(vectorSecret, vectorID, time.Unix(vectorTimestamp, 0), []byte(vectorBody))
	if err != nil || got != vectorSignature {
		t.Fatalf("Sign = %q, %v; want %q", got, err, vectorSignature)
	}
	// The key without its prefix signs the same (as the libraries allow).
	got, _ = webhook.Sign(strings.TrimPrefix(vectorSecret, "whsec_"), vectorID, time.Unix(vectorTimestamp, 0), []byte(vectorBody))
	if got != vectorSignature {
		t.Fatalf("without prefix: %q", got)
	}
}

func TestVerify(t *testing.T) {
	at := time.Unix(vectorTimestamp, 0)
	headers := func(edit func(http.Header)) http.Header {
		h := http.Header{}
		h.Set("webhook-id", vectorID)
		h.Set("webhook-timestamp", strconv.Itoa(vectorTimestamp))
		h.Set("webhook-signature", vectorSignature)
		if edit != nil {
			edit(h)
		}
		return h
	}
	other := "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
	for _, tc := range []struct {
		name   string
		secret string
		h      http.Header
		body   string
		now    time.Time
		want   error
	}{
		{"the vector", vectorSecret, headers(nil), vectorBody, at, nil},
		{"within the tolerance", vectorSecret, headers(nil), vectorBody, at.Add(webhook.Tolerance), nil},
		{"too old", vectorSecret, headers(nil), vectorBody, at.Add(webhook.Tolerance + time.Second), webhook.ErrTooOld},
		{"too new", vectorSecret, headers(nil), vectorBody, at.Add(-webhook.Tolerance - time.Second), webhook.ErrTooNew},
		{"body changed", vectorSecret, headers(nil), `{"test": 2432232315}`, at, webhook.ErrNoMatch},
		{"id changed", vectorSecret, headers(func(h http.Header) { h.Set("webhook-id", "msg_other") }), vectorBody, at, webhook.ErrNoMatch},
		{"another signature", vectorSecret, headers(func(h http.Header) { h.Set("webhook-signature", other) }), vectorBody, at, webhook.ErrNoMatch},
		{"one of several", vectorSecret, headers(func(h http.Header) { h.Set("webhook-signature", other+" v2,"+vectorSignature[3:]+" "+vectorSignature) }), vectorBody, at, nil},
		{"v2 only", vectorSecret, headers(func(h http.Header) { h.Set("webhook-signature", "v2,"+vectorSignature[3:]) }), vectorBody, at, webhook.ErrNoMatch},
		{"no id", vectorSecret, headers(func(h http.Header) { h.Del("webhook-id") }), vectorBody, at, webhook.ErrMissingHeaders},
		{"no timestamp", vectorSecret, headers(func(h http.Header) { h.Del("webhook-timestamp") }), vectorBody, at, webhook.ErrMissingHeaders},
		{"no signature", vectorSecret, headers(func(h http.Header) { h.Del("webhook-signature") }), vectorBody, at, webhook.ErrMissingHeaders},
		{"timestamp in ms", vectorSecret, headers(func(h http.Header) { h.Set("webhook-timestamp", "1614265330.5") }), vectorBody, at, webhook.ErrBadTimestamp},
		{"another secret", webhook.NewSecret(), headers(nil), vectorBody, at, webhook.ErrNoMatch},
		{"not a secret", "whsec_!!", headers(nil), vectorBody, at, webhook.ErrBadSecret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := webhook.Verify(tc.secret, tc.h, []byte(tc.body), tc.now); !errors.Is(err, tc.want) {
				t.Fatalf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestHeadersRoundTrip(t *testing.T) {
	secret := webhook.NewSecret()
	if !strings.HasPrefix(secret, "whsec_") || secret == webhook.NewSecret() {
		t.Fatalf("NewSecret = %q", secret)
	}
	key, err := webhook.ParseSecret(secret)
	if err != nil || len(key) != 32 {
		t.Fatalf("ParseSecret: %d bytes, %v", len(key), err)
	}
	body := []byte(`{"type":"webhook.test"}`)
	now := time.Now()
	h := http.Header{}
	if err := webhook.Headers(h, "msg_1", now, body, secret); err != nil {
		t.Fatal(err)
	}
	if err := webhook.Verify(secret, h, body, now); err != nil {
		t.Fatalf("Verify: %v", err)
	}
}

func TestMessageID(t *testing.T) {
	a := webhook.MessageID("ep1", webhook.ResponseCreated, "answer1")
	if a != webhook.MessageID("ep1", webhook.ResponseCreated, "answer1") {
		t.Fatal("not stable")
	}
	for _, other := range []string{
		webhook.MessageID("ep2", webhook.ResponseCreated, "answer1"),
		webhook.MessageID("ep1", webhook.SurveyClosed, "answer1"),
		webhook.MessageID("ep1", webhook.ResponseCreated, "answer2"),
	} {
		if other == a {
			t.Fatalf("%s repeats", a)
		}
	}
	if !strings.HasPrefix(a, "msg_") || len(a) != 4+32 {
		t.Fatalf("MessageID = %q", a)
	}
}

func FuzzVerify(f *testing.F) {
	f.Add(vectorID, "1614265330", vectorSignature, vectorBody)
	f.Add("", "x", "v1,", "")
	f.Add("a", "-1", "v1,AAAA v1 ,, v2,", "{}")
	f.Fuzz(func(t *testing.T, id, ts, sig, body string) {
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", ts)
		h.Set("webhook-signature", sig)
		err := webhook.Verify(vectorSecret, h, []byte(body), time.Unix(vectorTimestamp, 0))
		if err == nil {
			// Only the real signature passes.
			want, _ := webhook.Sign(vectorSecret, id, time.Unix(mustInt(t, ts), 0), []byte(body))
			if !strings.Contains(sig, want) {
				t.Fatalf("accepted %q for %q", sig, want)
			}
		}
	})
}

func mustInt(t *testing.T, s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("accepted timestamp %q", s)
	}
	return n
}
