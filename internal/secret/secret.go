// Package secret seals small secrets (a tenant's OIDC client secret, its SQL
// password) with AES-256-GCM, so that they are never stored in the clear.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
)

// KeySize is the length of a key: AES-256.
const KeySize = 32

// prefix names the format of a sealed value, so that it can change.
const prefix = "v1:"

// ErrNoKey is returned when a secret must be sealed or opened and no key was
// configured.
var ErrNoKey = errors.New("secret: no key configured: set SURVEYS_SECRET_KEY (32 bytes, base64 or hex) or SURVEYS_SECRET_KEY_FILE")

// Box seals and opens secrets with one key. A nil *Box has no key: Seal and
// Open return ErrNoKey.
type Box struct {
	aead cipher.AEAD
	key  []byte // for Derive
}

// New returns a Box for a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secret: the key is %d bytes; it must be %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	return &Box{aead: aead, key: append([]byte(nil), key...)}, nil
}

// DeriveKey returns a 32-byte key for one purpose (e.g. signing form
// tokens), derived from the box's key (HMAC-SHA256): the same on every
// instance that has the same key, and telling nothing of it. A nil box
// returns nil.
func (b *Box) DeriveKey(purpose string) []byte {
	if b == nil {
		return nil
	}
	m := hmac.New(sha256.New, b.key)
	m.Write([]byte("surveys/derive/" + purpose))
	return m.Sum(nil)
}

// Derive returns a Box with a key of its own for purpose (DeriveKey), so
// that values sealed for one purpose (a cookie) never open as another (a
// tenant's secret at rest). A nil Box derives nil.
func (b *Box) Derive(purpose string) *Box {
	if b == nil {
		return nil
	}
	d, err := New(b.DeriveKey(purpose))
	if err != nil {
		panic(err) // a SHA-256 is always KeySize bytes
	}
	return d
}

// Random returns a Box with a new random key, kept in memory only: what it
// seals opens in this process alone.
func Random() (*Box, error) {
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("secret: random key: %w", err)
	}
	return New(k)
}

// ParseKey decodes a key written as base64 (standard or URL, padded or not)
// or as 64 hex digits.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) == 2*KeySize {
		if k, err := hex.DecodeString(s); err == nil {
			return k, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil {
			if len(k) != KeySize {
				return nil, fmt.Errorf("secret: the key decodes to %d bytes; it must be %d (make one with: openssl rand -base64 32)", len(k), KeySize)
			}
			return k, nil
		}
	}
	return nil, errors.New("secret: the key is neither base64 nor hex (make one with: openssl rand -base64 32)")
}

// Load returns the Box for a key given inline (SURVEYS_SECRET_KEY) or in a
// file (SURVEYS_SECRET_KEY_FILE); with neither it returns nil, no error.
func Load(inline, file string) (*Box, error) {
	switch {
	case inline != "" && file != "":
		return nil, errors.New("secret: set SURVEYS_SECRET_KEY or SURVEYS_SECRET_KEY_FILE, not both")
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("secret: read the key file: %w", err)
		}
		inline = string(b)
	case inline == "":
		return nil, nil
	}
	k, err := ParseKey(inline)
	if err != nil {
		return nil, err
	}
	return New(k)
}

// Seal encrypts plaintext; the result is printable and self-describing.
// The associated data binds the value to where it is kept (e.g. the tenant
// and field), so a sealed value copied elsewhere does not open.
func (b *Box) Seal(plaintext, associated string) (string, error) {
	if b == nil {
		return "", ErrNoKey
	}
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("secret: nonce: %w", err)
	}
	out := b.aead.Seal(nonce, nonce, []byte(plaintext), []byte(associated))
	return prefix + base64.RawStdEncoding.EncodeToString(out), nil
}

// Open decrypts a value made by Seal with the same associated data.
func (b *Box) Open(sealed, associated string) (string, error) {
	if b == nil {
		return "", ErrNoKey
	}
	rest, ok := strings.CutPrefix(sealed, prefix)
	if !ok {
		return "", errors.New("secret: not a sealed value")
	}
	raw, err := base64.RawStdEncoding.DecodeString(rest)
	if err != nil || len(raw) < b.aead.NonceSize() {
		return "", errors.New("secret: a sealed value is damaged")
	}
	n := b.aead.NonceSize()
	pt, err := b.aead.Open(nil, raw[:n], raw[n:], []byte(associated))
	if err != nil {
		return "", errors.New("secret: a sealed value does not open with this key (wrong SURVEYS_SECRET_KEY?)")
	}
	return string(pt), nil
}
