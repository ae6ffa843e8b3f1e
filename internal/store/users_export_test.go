package store

import (
	"time"

	"golang.org/x/crypto/bcrypt"
)

// SetUserClock sets the clock of a UserStore, for the tests.
func SetUserClock(us *UserStore, now func() time.Time) { us.now = now }

// SetPasswordCheck replaces the comparison of a password with an
// account's hash, for the tests that count the passwords checked.
func SetPasswordCheck(us *UserStore, check func(hash, password []byte) error) { us.check = check }

// SetTokenClock sets the clock of a TokenStore, for the tests.
func SetTokenClock(ts *TokenStore, now func() time.Time) { ts.now = now }

// SetUserCost makes password hashing cheap, for tests that hash many.
func SetUserCost(us *UserStore) { us.cost = bcrypt.MinCost }
