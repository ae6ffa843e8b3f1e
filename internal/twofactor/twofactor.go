// Package twofactor is the arithmetic of the second step of a password
// sign-in: time-based one-time codes (RFC 6238: SHA-1, 6 digits, a 30 s
// step, one step of clock skew either way, through
// github.com/pquerna/otp) and single-use recovery codes. It does no I/O:
// the store keeps the secret (sealed), the last step used (so that a code
// serves once) and the recovery codes' hashes.
package twofactor

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// The codes' shape, as authenticator apps expect by default.
const (
	Period = 30 // seconds a code lives
	Digits = 6
	// Skew is how many steps before or after the server's clock a code
	// may be from (a phone's clock a little off, a code typed slowly).
	Skew = 1
	// SecretSize is the secret's length in bytes (160 bits, RFC 4226's
	// recommendation for SHA-1).
	SecretSize = 20
	// RecoveryCodes is how many recovery codes an account gets.
	RecoveryCodes = 10
)

var opts = totp.ValidateOpts{Period: Period, Skew: Skew, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// NewSecret draws a new secret, base32 without padding (as apps take it
// typed in).
func NewSecret() (string, error) {
	b := make([]byte, SecretSize)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("twofactor: random: %w", err)
	}
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b), nil
}

// ValidSecret reports whether s is a secret NewSecret could have made.
func ValidSecret(s string) bool {
	b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(s)
	return err == nil && len(b) == SecretSize
}

// URI is the otpauth:// address a QR code carries to an authenticator
// app: the issuer (the site and organisation), the account, the secret.
func URI(issuer, account, secret string) (string, error) {
	raw, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secret)
	if err != nil {
		return "", fmt.Errorf("twofactor: secret: %w", err)
	}
	k, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: account, Period: Period, Secret: raw, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return "", fmt.Errorf("twofactor: %w", err)
	}
	return k.URL(), nil
}

// Step is the step of time t.
func Step(t time.Time) int64 { return t.Unix() / Period }

// CleanCode drops the spaces and hyphens people type or paste inside a
// code, and lower-cases it.
func CleanCode(code string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '-' || r == '\t' || r == '\u00a0':
			return -1
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return r
	}, code)
}

// IsTOTP reports whether a cleaned code has the shape of a one-time code
// (six digits) rather than a recovery code.
func IsTOTP(code string) bool {
	if len(code) != Digits {
		return false
	}
	for _, r := range code {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Match checks a six-digit code against secret at now, allowing Skew
// steps either way, and refuses a code of a step at or before last (the
// last step a code was accepted for: a code serves once, and one older
// than a code already used serves never). It returns the step the code
// was of, to record as the new last.
func Match(secret, code string, now time.Time, last int64) (int64, bool) {
	code = CleanCode(code)
	if !IsTOTP(code) {
		return 0, false
	}
	cur := Step(now)
	var step int64
	ok := 0
	for d := int64(-Skew); d <= Skew; d++ {
		s := cur + d
		want, err := totp.GenerateCodeCustom(secret, time.Unix(s*Period, 0), opts)
		if err != nil {
			return 0, false
		}
		// Every candidate is compared, in constant time, whatever matched.
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 && s > last && ok == 0 {
			step, ok = s, 1
		}
	}
	return step, ok == 1
}

// recoveryAlphabet is lower-case letters and digits without those read
// as one another (0/o, 1/l/i): 31 symbols.
const recoveryAlphabet = "abcdefghjkmnpqrstuvwxyz23456789"

// recoveryLen is a recovery code's length: 12 symbols of 31 (59 bits),
// written in three groups of four.
const recoveryLen = 12

// NewRecoveryCodes draws RecoveryCodes new recovery codes, written
// "xxxx-xxxx-xxxx".
func NewRecoveryCodes() ([]string, error) {
	out := make([]string, 0, RecoveryCodes)
	for range RecoveryCodes {
		var s strings.Builder
		var b [1]byte
		for n := 0; n < recoveryLen; {
			if _, err := rand.Read(b[:]); err != nil {
				return nil, fmt.Errorf("twofactor: random: %w", err)
			}
			// Bytes past the last whole multiple of 31 are drawn again,
			// so that every symbol is as likely.
			if int(b[0]) >= 256/len(recoveryAlphabet)*len(recoveryAlphabet) {
				continue
			}
			if n > 0 && n%4 == 0 {
				s.WriteByte('-')
			}
			s.WriteByte(recoveryAlphabet[int(b[0])%len(recoveryAlphabet)])
			n++
		}
		out = append(out, s.String())
	}
	return out, nil
}

// HashRecovery is what is stored of a recovery code: the SHA-256 of its
// cleaned form (60 random bits need no slow hash), in hex. It is ""
// for what cannot be a recovery code.
func HashRecovery(code string) string {
	code = CleanCode(code)
	if len(code) != recoveryLen {
		return ""
	}
	for _, r := range code {
		if !strings.ContainsRune(recoveryAlphabet, r) {
			return ""
		}
	}
	sum := sha256.Sum256([]byte("surveys recovery code:" + code))
	return hex.EncodeToString(sum[:])
}

// UseRecovery looks code up among the stored hashes and returns them
// without it; false when it is none of them (used, or never given).
func UseRecovery(hashes []string, code string) ([]string, bool) {
	h := HashRecovery(code)
	if h == "" {
		return hashes, false
	}
	found := -1
	for i, s := range hashes {
		if subtle.ConstantTimeCompare([]byte(s), []byte(h)) == 1 {
			found = i
		}
	}
	if found < 0 {
		return hashes, false
	}
	rest := make([]string, 0, len(hashes)-1)
	rest = append(rest, hashes[:found]...)
	return append(rest, hashes[found+1:]...), true
}
