package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"strconv"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/surveys-dev/surveys/internal/store"
)

// A survey form's token is the answer's ID (store.NewAnswerID, which
// carries the time it was made) and a MAC over the tenant, the survey and
// that ID: "<id>.<mac>". A POST must bring a token this server made for
// that survey within formTokenLife; the answer's ID stays the ID, so the
// same form sent twice is still one answer.
const (
	formTokenLife = 24 * time.Hour
	formMACLen    = 16
)

// Proof of work (the ALTCHA scheme, without a third party): for a survey
// that asks for it, the page carries challenge = SHA-256(token + n) for a
// number n in [0, powMaxNumber] that only the server knows (a MAC of the
// token); the browser tries every number until the hash matches (on average
// powMaxNumber/2 hashes), and sends it as "pow". The server checks it with
// one hash, and accepts each token's solution once.
const powMaxNumber = 100_000

// powUsedMax bounds the solved tokens remembered, so that a solution is
// used once: past it the least recent are forgotten (a replay of one of
// those is still one answer, as its ID is the same). A token past its life
// is refused anyway, so entries need no expiry.
const powUsedMax = 100_000

// formMarks are the placeholders of a pre-rendered form (respond_forms.go).
const challengeMark = "form-challenge-00000000000000000000000000000"

// formSigner makes and checks form tokens and challenges.
type formSigner struct {
	key  []byte
	now  func() time.Time
	used *lru.Cache[string, struct{}]
	// macs are HMACs of key, reset for each use: one made for each
	// token issued and checked costs its key's hashing and allocations.
	macs sync.Pool
}

func newFormSigner(key []byte, now func() time.Time) *formSigner {
	if len(key) == 0 {
		// One instance: a key of this process's life. Several instances
		// need the same key (SURVEYS_SECRET_KEY), or a form served by one
		// is refused by another.
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	if now == nil {
		now = time.Now
	}
	used, _ := lru.New[string, struct{}](powUsedMax)
	f := &formSigner{key: key, now: now, used: used}
	f.macs.New = func() any { return hmac.New(sha256.New, f.key) }
	return f
}

// mac is the HMAC of parts, each followed by a zero byte.
func (f *formSigner) mac(parts ...string) []byte {
	var buf [160]byte
	msg := buf[:0]
	for _, p := range parts {
		msg = append(append(msg, p...), 0)
	}
	m := f.macs.Get().(hash.Hash)
	m.Reset()
	m.Write(msg)
	sum := m.Sum(nil)
	f.macs.Put(m)
	return sum
}

// issue returns a new token for the survey tenant/slug. Its ID is made on
// the real clock, as every answer ID is (they sort by time).
func (f *formSigner) issue(tenant, slug string) string {
	id := store.NewAnswerID(time.Now())
	return id + "." + base64.RawURLEncoding.EncodeToString(f.mac("form", tenant, slug, id)[:formMACLen])
}

// check returns the answer ID of a token this server made for tenant/slug
// within formTokenLife; false for any other.
func (f *formSigner) check(tenant, slug, token string) (string, bool) {
	id, sum, ok := strings.Cut(token, ".")
	if !ok || !store.ValidAnswerID(id) || len(sum) != base64.RawURLEncoding.EncodedLen(formMACLen) {
		return "", false
	}
	got, err := base64.RawURLEncoding.DecodeString(sum)
	if err != nil || !hmac.Equal(got, f.mac("form", tenant, slug, id)[:formMACLen]) {
		return "", false
	}
	// Only age matters: an ID ahead of the clock (IDs made under load, or
	// after the clock was set back, run ahead) was still made here.
	made, ok := store.AnswerIDTime(id)
	if !ok || f.now().Sub(made) > formTokenLife {
		return "", false
	}
	return id, true
}

// challenge is the proof-of-work challenge of a token: the hex SHA-256 of
// the token and the number the browser must find.
func (f *formSigner) challenge(token string) string {
	n := binary.BigEndian.Uint64(f.mac("pow", token)[:8]) % (powMaxNumber + 1)
	return powHash(token, strconv.FormatUint(n, 10))
}

func powHash(token, number string) string {
	sum := sha256.Sum256([]byte(token + number))
	return hex.EncodeToString(sum[:])
}

// solved reports whether number solves the challenge of a (checked) token.
func (f *formSigner) solved(token, number string) bool {
	n, err := strconv.ParseUint(number, 10, 64)
	if err != nil || n > powMaxNumber || strconv.FormatUint(n, 10) != number {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(powHash(token, number)), []byte(f.challenge(token))) == 1
}

// claim marks a token's solution used; false if it was already.
func (f *formSigner) claim(token string) bool {
	seen, _ := f.used.ContainsOrAdd(token, struct{}{})
	return !seen
}

// release forgets a claim whose answer was not accepted, so that the same
// form can be sent again.
func (f *formSigner) release(token string) { f.used.Remove(token) }
