package survey

import (
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"
)

// MinPasswordLength is the shortest password accepted.
const MinPasswordLength = 10

// User is a subscriber's staff member, who signs in to one tenant.
type User struct {
	Tenant    string
	Email     string // lower case
	CreatedOn time.Time
	// Role is what the account may do in its tenant (StoredRole: none is
	// admin).
	Role Role
}

// NormalizeEmail lower-cases and trims an email address.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// ValidEmail reports whether email is a plain address, in the normalised
// form, fit to be an account's key.
func ValidEmail(email string) bool {
	a, err := mail.ParseAddress(email)
	return err == nil && a.Address == email && len(email) <= 254 && !strings.ContainsAny(email, `/\#?`)
}

// ValidateCredentials checks an email address and a new password.
func ValidateCredentials(email, password string) error {
	f := fieldErrors{}
	if !ValidEmail(email) {
		f.add("email", "Enter an email address such as ana@example.com.")
	}
	switch n := utf8.RuneCountInString(password); {
	case n < MinPasswordLength:
		f.add("password", "Use at least %d characters.", MinPasswordLength)
	case len(password) > 72:
		f.add("password", "Use at most 72 bytes.")
	case CommonPassword(password):
		f.add("password", "This password is one of the most common; choose one that is harder to guess.")
	}
	return f.err("The account")
}
