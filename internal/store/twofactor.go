package store

import (
	"context"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/twofactor"
)

// Two-step sign-in: an account's second factor lives on its Users row.
//
//	TOTPSecret    the authenticator's secret, sealed with the store's
//	              secret.Box and bound to the tenant and the account
//	TOTPSince     when it was turned on
//	TOTPStep      the last time step a one-time code was accepted for
//	              (a code serves once; an older one never)
//	TOTPRecovery  the unused recovery codes' SHA-256 hashes, comma-separated
//	TOTPFailCount, TOTPFailedAt   wrong codes in a row, and the last one
//	TOTPResetBy, TOTPResetOn      the admin who last turned it off, and when
//
// Every change is a read, then a write If-Match (again on a conflict), so
// that two requests with the same code cannot both use it.

// FreeCodeFailures is how many wrong codes an account takes before each
// further attempt must wait survey.ThrottleDelay after the last one.
const FreeCodeFailures = 5

// TwoFactor is what an account's page shows of its second factor.
type TwoFactor struct {
	On    bool
	Since time.Time
	// RecoveryLeft counts the recovery codes not used yet.
	RecoveryLeft int
	// ResetBy and ResetOn: the admin who last turned it off for the
	// member, and when ("" if none did).
	ResetBy string
	ResetOn time.Time
	// Passkeys counts the account's passkeys (passkeys.go): each is a
	// second factor too.
	Passkeys int
}

// Any reports whether the account has a second factor: the
// authenticator app's codes or a passkey. A tenant's requirement of two
// steps is met by either.
func (t TwoFactor) Any() bool { return t.On || t.Passkeys > 0 }

// SecondFactor is the result of a good code.
type SecondFactor struct {
	// Recovery: a recovery code was used (and is spent); RecoveryLeft
	// are those left.
	Recovery     bool
	RecoveryLeft int
}

// WithSecrets sets the box that seals the accounts' authenticator
// secrets; without one, two-step sign-in cannot be turned on.
func (us *UserStore) WithSecrets(b *secret.Box) *UserStore {
	us.secrets = b
	return us
}

// KeepsSecrets reports whether accounts can turn two-step sign-in on.
func (us *UserStore) KeepsSecrets() bool { return us.secrets != nil }

// WithClock sets the store's clock (tests move it).
func (us *UserStore) WithClock(now func() time.Time) *UserStore {
	us.now = now
	return us
}

func totpAD(tenant, email string) string { return "totp:" + tenant + "/" + email }

var errNoSecretKey = survey.Errorf(survey.EINVALID, "This server keeps no secrets: its operator must set SURVEYS_SECRET_KEY before two-step sign-in can be turned on.")

// errBadCode answers a wrong code, a used one and a throttled attempt
// alike.
var errBadCode = &survey.Error{Code: survey.EFORBIDDEN, Message: "That code is not right, was used already, or there were too many attempts: wait a minute and try again.",
	Fields: map[string]string{"code": "That code is not right, was used already, or there were too many attempts: wait a minute and try again."}}

// IsBadCode reports whether err refused a second factor's code.
func IsBadCode(err error) bool { return err == errBadCode }

func recoveryHashes(e storage.Entity) []string {
	s := e.String("TOTPRecovery")
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// TwoFactor says whether the account has two-step sign-in on.
func (us *UserStore) TwoFactor(ctx context.Context, tenant, email string) (TwoFactor, error) {
	email = survey.NormalizeEmail(email)
	if survey.ValidateTenantKey(tenant) != nil || storage.ValidateKey("email", email) != nil {
		return TwoFactor{}, survey.Errorf(survey.ENOTFOUND, "Account not found.")
	}
	e, err := us.st.GetEntity(ctx, UsersTable, tenant, email)
	if err != nil {
		return TwoFactor{}, mapErr(err, "Account")
	}
	tf := twoFactorOf(e)
	keys, err := us.Passkeys(ctx, tenant, email)
	if err != nil {
		return TwoFactor{}, err
	}
	tf.Passkeys = len(keys)
	return tf, nil
}

func twoFactorOf(e storage.Entity) TwoFactor {
	return TwoFactor{On: e.String("TOTPSecret") != "", Since: e.Time("TOTPSince"), RecoveryLeft: len(recoveryHashes(e)),
		ResetBy: e.String("TOTPResetBy"), ResetOn: e.Time("TOTPResetOn")}
}

// updateUser reads the account's row, lets change edit it (an error
// stops), and writes it If-Match, again on a conflict.
func (us *UserStore) updateUser(ctx context.Context, tenant, email string, change func(e *storage.Entity) error) error {
	email = survey.NormalizeEmail(email)
	if survey.ValidateTenantKey(tenant) != nil || storage.ValidateKey("email", email) != nil {
		return survey.Errorf(survey.ENOTFOUND, "Account not found.")
	}
	for range 100 {
		e, err := us.st.GetEntity(ctx, UsersTable, tenant, email)
		if err != nil {
			return mapErr(err, "Account")
		}
		if err := change(&e); err != nil {
			return err
		}
		_, err = us.st.UpdateEntity(ctx, UsersTable, e, e.ETag)
		if isPrecondition(err) {
			continue
		}
		return mapErr(err, "Account")
	}
	return survey.Errorf(survey.ECONFLICT, "The account is busy; try again.")
}

// EnableTwoFactor turns two-step sign-in on with an authenticator's
// secret, whose code for step was just checked (so that code is spent),
// and the hashes of new recovery codes (twofactor.HashRecovery).
// ECONFLICT when it is on already; EINVALID when the server has no
// secret key.
func (us *UserStore) EnableTwoFactor(ctx context.Context, tenant, email, totpSecret string, step int64, recovery []string) error {
	if us.secrets == nil {
		return errNoSecretKey
	}
	if !twofactor.ValidSecret(totpSecret) || len(recovery) == 0 {
		return survey.Errorf(survey.EINVALID, "Start again: the setup was damaged.")
	}
	email = survey.NormalizeEmail(email)
	sealed, err := us.secrets.Seal(totpSecret, totpAD(tenant, email))
	if err != nil {
		return err
	}
	return us.updateUser(ctx, tenant, email, func(e *storage.Entity) error {
		if e.String("TOTPSecret") != "" {
			return survey.Errorf(survey.ECONFLICT, "Two-step sign-in is on already.")
		}
		p := e.Properties
		p["TOTPSecret"], p["TOTPSince"], p["TOTPStep"] = sealed, us.now().UTC(), step
		p["TOTPRecovery"], p["TOTPFailCount"] = strings.Join(recovery, ","), int64(0)
		delete(p, "TOTPFailedAt")
		return nil
	})
}

// DisableTwoFactor turns two-step sign-in off (its secret and recovery
// codes are dropped). by is the admin (or the operator) who did it for
// the member, noted for the member's page ("" when the member did it):
// such a reset removes the member's passkeys too, so that the password
// alone signs in; EINVALID when the member has no second factor.
func (us *UserStore) DisableTwoFactor(ctx context.Context, tenant, email, by string) error {
	removed := 0
	if by != "" {
		var err error
		if removed, err = us.removePasskeys(ctx, tenant, email); err != nil {
			return err
		}
	}
	return us.updateUser(ctx, tenant, email, func(e *storage.Entity) error {
		if e.String("TOTPSecret") == "" && removed == 0 {
			if by != "" {
				return survey.Errorf(survey.EINVALID, "%s does not use two-step sign-in.", e.RowKey)
			}
			return nil
		}
		for _, k := range []string{"TOTPSecret", "TOTPSince", "TOTPStep", "TOTPRecovery", "TOTPFailCount", "TOTPFailedAt"} {
			delete(e.Properties, k)
		}
		if by != "" {
			e.Properties["TOTPResetBy"], e.Properties["TOTPResetOn"] = by, us.now().UTC()
		}
		return nil
	})
}

// CheckSecondFactor checks a one-time code, or a recovery code, of an
// account with two-step sign-in on, and spends it. After
// FreeCodeFailures wrong codes in a row, an attempt sooner than
// survey.ThrottleDelay after the last one is refused unchecked. A wrong,
// used or throttled code, and an account without two-step sign-in, get
// the same EFORBIDDEN error (IsBadCode).
func (us *UserStore) CheckSecondFactor(ctx context.Context, tenant, email, code string) (SecondFactor, error) {
	var out SecondFactor
	email = survey.NormalizeEmail(email)
	if len(code) > 64 {
		code = ""
	}
	refused := false
	err := us.updateUser(ctx, tenant, email, func(e *storage.Entity) error {
		out, refused = SecondFactor{}, false
		sealed := e.String("TOTPSecret")
		if sealed == "" {
			return errBadCode
		}
		now := us.now()
		n := e.Int("TOTPFailCount")
		if now.Before(e.Time("TOTPFailedAt").Add(survey.ThrottleDelay(n, FreeCodeFailures))) {
			return errBadCode // unchecked, uncounted: it waits
		}
		p := e.Properties
		clean := twofactor.CleanCode(code)
		ok := false
		if twofactor.IsTOTP(clean) {
			totpSecret, err := us.secrets.Open(sealed, totpAD(tenant, email))
			if err != nil {
				return err
			}
			var step int64
			if step, ok = twofactor.Match(totpSecret, clean, now, e.Int("TOTPStep")); ok {
				p["TOTPStep"] = step
			}
		} else {
			var rest []string
			if rest, ok = twofactor.UseRecovery(recoveryHashes(*e), clean); ok {
				p["TOTPRecovery"] = strings.Join(rest, ",")
				out = SecondFactor{Recovery: true, RecoveryLeft: len(rest)}
			}
		}
		if ok {
			p["TOTPFailCount"] = int64(0)
			return nil
		}
		p["TOTPFailCount"], p["TOTPFailedAt"] = n+1, now.UTC()
		refused = true
		return nil
	})
	if err != nil {
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			return SecondFactor{}, errBadCode
		}
		return SecondFactor{}, err
	}
	if refused {
		return SecondFactor{}, errBadCode
	}
	return out, nil
}

// NewRecoveryCodes replaces an account's recovery codes with new ones'
// hashes; ENOTFOUND unless two-step sign-in is on.
func (us *UserStore) NewRecoveryCodes(ctx context.Context, tenant, email string, recovery []string) error {
	return us.updateUser(ctx, tenant, email, func(e *storage.Entity) error {
		if e.String("TOTPSecret") == "" {
			return survey.Errorf(survey.ENOTFOUND, "Two-step sign-in is off.")
		}
		e.Properties["TOTPRecovery"] = strings.Join(recovery, ",")
		return nil
	})
}
