package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Tables of accounts and sessions.
const (
	UsersTable    = "Users"
	SessionsTable = "Sessions"
	// UserSessionsTable lists each account's sessions (PartitionKey
	// tenant, RowKey email + "|" + the session's key), so that a password
	// change or a removal ends them.
	UserSessionsTable = "UserSessions"
)

// FreeSignInFailures is how many failed sign-ins an account takes before
// each further attempt must wait survey.ThrottleDelay after the last one.
const FreeSignInFailures = 5

// Lifetimes of a session: at most SessionTTL from its start, and
// SessionIdle from its last use (noted at most every sessionTouch, not on
// every request).
const (
	SessionTTL   = 7 * 24 * time.Hour
	SessionIdle  = 12 * time.Hour
	sessionTouch = 5 * time.Minute
)

// UserStore keeps accounts (PartitionKey tenant, RowKey email) with bcrypt
// password hashes, and sessions (PartitionKey a hash prefix, RowKey the
// SHA-256 of the session token: the token itself is never stored).
type UserStore struct {
	st   storage.Storage
	now  func() time.Time
	cost int
	// check compares a password with an account's hash (a hook for the
	// tests, which count the passwords checked).
	check func(hash, password []byte) error
	// secrets seals the accounts' authenticator secrets (twofactor.go);
	// nil: two-step sign-in cannot be turned on.
	secrets *secret.Box
}

// NewUserStore returns a UserStore over st.
func NewUserStore(st storage.Storage) *UserStore {
	return &UserStore{st: st, now: time.Now, cost: bcrypt.DefaultCost, check: bcrypt.CompareHashAndPassword}
}

// WithCost sets the bcrypt cost of the hashes it makes (bcrypt.DefaultCost
// unless set) and returns us: tests of other packages that add many
// accounts take bcrypt.MinCost, as cheap under -race as a hash can be.
func (us *UserStore) WithCost(cost int) *UserStore {
	us.cost = cost
	return us
}

// Add creates an account; ECONFLICT when the email is taken in the tenant.
func (us *UserStore) Add(ctx context.Context, tenant, email, password string) (*survey.User, error) {
	return us.add(ctx, tenant, email, password, "")
}

// add creates an account with a role ("" for none: an admin, as accounts
// made before roles).
func (us *UserStore) add(ctx context.Context, tenant, email, password string, role survey.Role) (*survey.User, error) {
	email = survey.NormalizeEmail(email)
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return nil, err
	}
	if err := survey.ValidateCredentials(email, password); err != nil {
		return nil, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), us.cost)
	if err != nil {
		return nil, fmt.Errorf("store: hash password: %w", err)
	}
	u := &survey.User{Tenant: tenant, Email: email, CreatedOn: us.now().UTC(), Role: role}
	if err := us.indexEmail(ctx, tenant, email); err != nil {
		return nil, err
	}
	props := map[string]any{"PasswordHash": string(hash), "CreatedOn": u.CreatedOn, "FailCount": int64(0)}
	if role != "" {
		props["Role"] = string(role)
	}
	_, err = us.st.InsertEntity(ctx, UsersTable, storage.Entity{PartitionKey: tenant, RowKey: email, Properties: props})
	if errors.Is(err, storage.ErrExists) {
		return nil, survey.Errorf(survey.ECONFLICT, "%s already has an account.", email)
	}
	return u, mapErr(err, "Account")
}

var errSignIn = survey.Errorf(survey.EFORBIDDEN, survey.SignInFailureMessage)

// errDisabled refuses every sign-in of an account its organisation's
// identity provider deactivated (SetDisabled).
var errDisabled = survey.Errorf(survey.EFORBIDDEN, "This account was deactivated by your organisation; ask its admin.")

// Authenticate checks an email and password. Every attempt on an account
// is counted before its password is checked (atomically: a read, then a
// write If-Match, again on a conflict), so that parallel guesses are
// counted too; a success resets the count. After FreeSignInFailures
// failures, an attempt sooner than survey.ThrottleDelay after the last
// one is refused without checking the password. Unknown account, wrong
// password and throttled attempt give the same error, in about the same
// time.
func (us *UserStore) Authenticate(ctx context.Context, tenant, email, password string) (*survey.User, error) {
	return us.authenticate(ctx, tenant, email, password, true)
}

// AuthenticateKnownDevice is Authenticate for a browser that signed in to
// the account before (it holds the account's device cookie, OWASP's
// "device cookies"): its attempt is counted, but never made to wait for
// the account's delay, so someone who keeps guessing an account's password
// from elsewhere cannot keep its owner out. The caller's per-address
// throttle still bounds the guesses of a stolen cookie.
func (us *UserStore) AuthenticateKnownDevice(ctx context.Context, tenant, email, password string) (*survey.User, error) {
	return us.authenticate(ctx, tenant, email, password, false)
}

func (us *UserStore) authenticate(ctx context.Context, tenant, email, password string, wait bool) (*survey.User, error) {
	email = survey.NormalizeEmail(email)
	if survey.ValidateTenantKey(tenant) != nil || storage.ValidateKey("email", email) != nil {
		_ = bcrypt.CompareHashAndPassword(dummyHash(us.cost), []byte(password))
		return nil, errSignIn
	}
	e, err := us.countAttempt(ctx, tenant, email, wait)
	if isNotFound(err) || err == errSignIn {
		// Spend the time a hash check would, so that timing does not tell
		// which accounts exist or are throttled.
		_ = bcrypt.CompareHashAndPassword(dummyHash(us.cost), []byte(password))
		return nil, errSignIn
	}
	if err != nil {
		return nil, err
	}
	if us.check([]byte(e.String("PasswordHash")), []byte(password)) != nil {
		return nil, errSignIn
	}
	if e.Bool("Disabled") {
		return nil, errDisabled
	}
	if err := us.resetFailures(ctx, tenant, email); err != nil {
		return nil, err
	}
	return &survey.User{Tenant: tenant, Email: email, CreatedOn: e.Time("CreatedOn"), Role: survey.StoredRole(e.String("Role"))}, nil
}

// countAttempt counts a sign-in attempt on an account, and returns the
// account; errSignIn when the attempt must wait (only if wait), ENOTFOUND
// when there is no such account.
func (us *UserStore) countAttempt(ctx context.Context, tenant, email string, wait bool) (storage.Entity, error) {
	for range 100 {
		e, err := us.st.GetEntity(ctx, UsersTable, tenant, email)
		if isNotFound(err) {
			return e, err
		}
		if err != nil {
			return e, mapErr(err, "Account")
		}
		now := us.now()
		n := e.Int("FailCount")
		if wait && now.Before(e.Time("FailedAt").Add(survey.ThrottleDelay(n, FreeSignInFailures))) {
			return e, errSignIn
		}
		e.Properties["FailCount"], e.Properties["FailedAt"] = n+1, now.UTC()
		etag, err := us.st.UpdateEntity(ctx, UsersTable, e, e.ETag)
		if isPrecondition(err) || isNotFound(err) {
			continue
		}
		if err != nil {
			return e, mapErr(err, "Account")
		}
		e.ETag = etag
		return e, nil
	}
	return storage.Entity{}, errSignIn // too busy: refuse rather than let it through uncounted
}

// resetFailures sets an account's count of failed attempts back to zero,
// after a good password.
func (us *UserStore) resetFailures(ctx context.Context, tenant, email string) error {
	for range 100 {
		e, err := us.st.GetEntity(ctx, UsersTable, tenant, email)
		if err != nil {
			return mapErr(err, "Account")
		}
		if e.Int("FailCount") == 0 {
			return nil
		}
		e.Properties["FailCount"] = int64(0)
		_, err = us.st.UpdateEntity(ctx, UsersTable, e, e.ETag)
		if isPrecondition(err) {
			continue
		}
		return mapErr(err, "Account")
	}
	return survey.Errorf(survey.ECONFLICT, "The account is busy; try again.")
}

// dummyHashes holds, by bcrypt cost, a hash of no one's password: checked
// in place of an account's when there is none to check, at the cost of
// the store's own hashes, so that it takes as long.
var dummyHashes sync.Map

func dummyHash(cost int) []byte {
	if h, ok := dummyHashes.Load(cost); ok {
		return h.([]byte)
	}
	h, _ := bcrypt.GenerateFromPassword([]byte("not a password of anyone's"), cost)
	dummyHashes.Store(cost, h)
	return h
}

// ChangePassword replaces a password, given the current one, and revokes
// the account's outstanding reset links: a link mailed before the change
// must not undo it.
func (us *UserStore) ChangePassword(ctx context.Context, tenant, email, current, next string) error {
	if _, err := us.Authenticate(ctx, tenant, email, current); err != nil {
		return &survey.Error{Code: survey.EINVALID, Message: "The current password is not right.", Fields: map[string]string{"current": "The current password is not right."}}
	}
	if err := survey.ValidateCredentials(email, next); err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(next), us.cost)
	if err != nil {
		return fmt.Errorf("store: hash password: %w", err)
	}
	e, err := us.st.GetEntity(ctx, UsersTable, tenant, email)
	if err != nil {
		return mapErr(err, "Account")
	}
	e.Properties["PasswordHash"] = string(hash)
	if _, err = us.st.UpdateEntity(ctx, UsersTable, e, e.ETag); err != nil {
		return mapErr(err, "Account")
	}
	return NewLinkStore(us.st).RevokeFor(ctx, tenant, LinkReset, survey.NormalizeEmail(email))
}

// Session is a signed-in user's session.
type Session struct {
	Tenant  string
	Email   string
	Expires time.Time
	// Role is the account's role (members.go keeps it in step).
	Role survey.Role
	// MustEnrol: the member signed in with a password to a tenant that
	// requires two-step sign-in, without it; every page sends them to
	// turn it on (NewEnrolSession), until EnrolDone.
	MustEnrol bool
	// ID names the session on its member's sessions page (the hash of
	// its token, never the token). LastSeen is its last use as noted
	// (within sessionTouch), before this one, and Unused how long ago
	// that was (by the store's clock).
	ID       string
	LastSeen time.Time
	Unused   time.Duration
}

// SessionInfo is what a new session notes of where it was started, for
// its member's sessions page, and the idle time its tenant set.
type SessionInfo struct {
	// Device is the browser and system in short ("Firefox on Windows").
	Device string
	// IP is the client's address as the audit log keeps it.
	IP string
	// Idle is how long unused the session lives (0: SessionIdle).
	Idle time.Duration
}

type sessionInfoKey struct{}

// WithSessionInfo returns ctx carrying info, for the session that
// NewSession (or NewEnrolSession) starts with it.
func WithSessionInfo(ctx context.Context, info SessionInfo) context.Context {
	return context.WithValue(ctx, sessionInfoKey{}, info)
}

// Bounds of a SessionInfo's texts, in characters.
const (
	maxSessionDevice = 80
	maxSessionIP     = 64
)

// SessionRow is one of an account's live sessions as its sessions page
// lists it.
type SessionRow struct {
	ID               string
	Device, IP       string
	Started, Expires time.Time
	LastSeen         time.Time
}

func sessionKey(token string) (pk, rk string) {
	sum := sha256.Sum256([]byte(token))
	h := hex.EncodeToString(sum[:])
	return h[:2], h
}

// NewSession starts a session and returns its token, for the cookie.
func (us *UserStore) NewSession(ctx context.Context, u *survey.User) (string, error) {
	return us.newSession(ctx, u, false)
}

// NewEnrolSession starts a session that must turn two-step sign-in on
// before anything else (Session.MustEnrol).
func (us *UserStore) NewEnrolSession(ctx context.Context, u *survey.User) (string, error) {
	return us.newSession(ctx, u, true)
}

// EnrolDone lifts a session's MustEnrol, once two-step sign-in is on.
func (us *UserStore) EnrolDone(ctx context.Context, token string) error {
	pk, rk := sessionKey(token)
	for range 10 {
		e, err := us.st.GetEntity(ctx, SessionsTable, pk, rk)
		if err != nil {
			return mapErr(err, "Session")
		}
		if !e.Bool("MustEnrol") {
			return nil
		}
		delete(e.Properties, "MustEnrol")
		_, err = us.st.UpdateEntity(ctx, SessionsTable, e, e.ETag)
		if isPrecondition(err) {
			continue
		}
		return mapErr(err, "Session")
	}
	return survey.Errorf(survey.ECONFLICT, "The session is busy; try again.")
}

func (us *UserStore) newSession(ctx context.Context, u *survey.User, mustEnrol bool) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("store: session token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(b[:])
	pk, rk := sessionKey(token)
	now := us.now().UTC()
	expires := now.Add(SessionTTL)
	info, _ := ctx.Value(sessionInfoKey{}).(SessionInfo)
	// The account's list first: a session is never live unlisted.
	us.pruneSessions(ctx, u.Tenant, u.Email)
	_, err := us.st.UpsertEntity(ctx, UserSessionsTable, storage.Entity{PartitionKey: u.Tenant, RowKey: u.Email + "|" + rk, Properties: map[string]any{
		"Expires": expires, "Started": now,
		"Device": cutText(survey.CleanLine(info.Device), maxSessionDevice), "IP": cutText(survey.CleanLine(info.IP), maxSessionIP),
	}})
	if err != nil {
		return "", mapErr(err, "Session")
	}
	role, disabled, err := us.accountState(ctx, u)
	if err != nil {
		return "", err
	}
	if disabled {
		_ = us.st.DeleteEntity(ctx, UserSessionsTable, u.Tenant, u.Email+"|"+rk, "")
		return "", errDisabled
	}
	props := map[string]any{"Tenant": u.Tenant, "Email": u.Email, "Expires": expires, "LastSeen": now, "Role": string(role)}
	if mustEnrol {
		props["MustEnrol"] = true
	}
	if info.Idle > 0 {
		props["IdleSeconds"] = int64(info.Idle / time.Second)
	}
	_, err = us.st.InsertEntity(ctx, SessionsTable, storage.Entity{PartitionKey: pk, RowKey: rk, Properties: props})
	if err != nil {
		return "", mapErr(err, "Session")
	}
	// Read again: an account deactivated while the session was made
	// (SetDisabled) either finds it listed above and ends it, or is seen
	// here.
	if _, disabled, err := us.accountState(ctx, u); err != nil || disabled {
		_ = us.EndSession(ctx, token)
		if err == nil {
			err = errDisabled
		}
		return "", err
	}
	return token, nil
}

// pruneSessions drops the account's list entries of sessions past their
// lifetime (best effort: they are dead anyway).
func (us *UserStore) pruneSessions(ctx context.Context, tenant, email string) {
	rows, err := us.userSessions(ctx, tenant, email)
	if err != nil {
		return
	}
	now := us.now()
	for _, e := range rows {
		if now.After(e.Time("Expires")) {
			_ = us.st.DeleteEntity(ctx, UserSessionsTable, tenant, e.RowKey, "")
		}
	}
}

// userSessions returns the account's list of sessions.
func (us *UserStore) userSessions(ctx context.Context, tenant, email string) ([]storage.Entity, error) {
	var rows []storage.Entity
	q := storage.Query{RowKeyFrom: email + "|", RowKeyTo: email + "}"} // '}' follows '|'
	for {
		page, err := us.st.QueryPartition(ctx, UserSessionsTable, tenant, q)
		if err != nil {
			return nil, mapErr(err, "Session")
		}
		rows = append(rows, page.Entities...)
		if page.Continuation == "" {
			return rows, nil
		}
		q.Continuation = page.Continuation
	}
}

// Session returns the live session of a token; ENOTFOUND when there is
// none, or it passed its lifetime or its idle time. A session made before
// sessions were listed per account (no LastSeen) is ended too.
func (us *UserStore) Session(ctx context.Context, token string) (*Session, error) {
	if len(token) != 43 {
		return nil, survey.Errorf(survey.ENOTFOUND, "Session not found.")
	}
	pk, rk := sessionKey(token)
	e, err := us.st.GetEntity(ctx, SessionsTable, pk, rk)
	if err != nil {
		return nil, mapErr(err, "Session")
	}
	s := &Session{Tenant: e.String("Tenant"), Email: e.String("Email"), Expires: e.Time("Expires"), Role: survey.StoredRole(e.String("Role")), MustEnrol: e.Bool("MustEnrol"),
		ID: rk, LastSeen: e.Time("LastSeen")}
	now := us.now()
	seen := e.Time("LastSeen")
	if now.After(s.Expires) || seen.IsZero() || now.Sub(seen) >= sessionIdleOf(e) {
		_ = us.st.DeleteEntity(ctx, SessionsTable, pk, rk, "")
		_ = us.st.DeleteEntity(ctx, UserSessionsTable, s.Tenant, s.Email+"|"+rk, "")
		return nil, survey.Errorf(survey.ENOTFOUND, "Session expired.")
	}
	s.Unused = now.Sub(seen)
	if now.Sub(seen) > sessionTouch {
		// Best effort: a failure only makes the idle time count from an
		// earlier use; an ended session (row gone) is not brought back.
		e.Properties["LastSeen"] = now.UTC()
		_, _ = us.st.UpdateEntity(ctx, SessionsTable, e, e.ETag)
	}
	return s, nil
}

// sessionIdleOf is how long unused the session of row e lives.
func sessionIdleOf(e storage.Entity) time.Duration {
	if n := e.Int("IdleSeconds"); n > 0 {
		return time.Duration(n) * time.Second
	}
	return SessionIdle
}

func cutText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// Sessions lists an account's live sessions, newest first: its list,
// and each session's row for its last use (one read each; an account
// has few). Entries of ended or expired sessions are dropped on the way.
func (us *UserStore) Sessions(ctx context.Context, tenant, email string) ([]SessionRow, error) {
	email = survey.NormalizeEmail(email)
	if survey.ValidateTenantKey(tenant) != nil || storage.ValidateKey("email", email) != nil {
		return nil, survey.Errorf(survey.ENOTFOUND, "Account not found.")
	}
	rows, err := us.userSessions(ctx, tenant, email)
	if err != nil {
		return nil, err
	}
	now := us.now()
	var out []SessionRow
	for _, l := range rows {
		rk := strings.TrimPrefix(l.RowKey, email+"|")
		if len(rk) < 2 {
			continue
		}
		e, err := us.st.GetEntity(ctx, SessionsTable, rk[:2], rk)
		if isNotFound(err) {
			_ = us.st.DeleteEntity(ctx, UserSessionsTable, tenant, l.RowKey, "")
			continue
		}
		if err != nil {
			return nil, mapErr(err, "Session")
		}
		seen := e.Time("LastSeen")
		if now.After(e.Time("Expires")) || seen.IsZero() || now.Sub(seen) >= sessionIdleOf(e) {
			continue // ends at its next use
		}
		out = append(out, SessionRow{ID: rk, Device: l.String("Device"), IP: l.String("IP"), Started: l.Time("Started"),
			Expires: e.Time("Expires"), LastSeen: seen})
	}
	slices.SortFunc(out, func(a, b SessionRow) int { return b.LastSeen.Compare(a.LastSeen) })
	return out, nil
}

// EndSessionID ends one of an account's sessions by its ID (Session.ID);
// ENOTFOUND when the account has no such session.
func (us *UserStore) EndSessionID(ctx context.Context, tenant, email, id string) error {
	email = survey.NormalizeEmail(email)
	if survey.ValidateTenantKey(tenant) != nil || storage.ValidateKey("email", email) != nil || len(id) != 64 {
		return survey.Errorf(survey.ENOTFOUND, "No such session.")
	}
	if _, err := hex.DecodeString(id); err != nil {
		return survey.Errorf(survey.ENOTFOUND, "No such session.")
	}
	if _, err := us.st.GetEntity(ctx, UserSessionsTable, tenant, email+"|"+id); err != nil {
		return mapErr(err, "Session")
	}
	if err := us.st.DeleteEntity(ctx, SessionsTable, id[:2], id, ""); err != nil && !isNotFound(err) {
		return mapErr(err, "Session")
	}
	if err := us.st.DeleteEntity(ctx, UserSessionsTable, tenant, email+"|"+id, ""); err != nil && !isNotFound(err) {
		return mapErr(err, "Session")
	}
	return nil
}

// EndSession signs a session out.
func (us *UserStore) EndSession(ctx context.Context, token string) error {
	pk, rk := sessionKey(token)
	if e, err := us.st.GetEntity(ctx, SessionsTable, pk, rk); err == nil {
		if err := us.st.DeleteEntity(ctx, UserSessionsTable, e.String("Tenant"), e.String("Email")+"|"+rk, ""); err != nil && !isNotFound(err) {
			return mapErr(err, "Session")
		}
	}
	if err := us.st.DeleteEntity(ctx, SessionsTable, pk, rk, ""); err != nil && !isNotFound(err) {
		return mapErr(err, "Session")
	}
	return nil
}

// EndSessions ends every session of an account but the one of token
// except ("" for none), e.g. after a password change.
func (us *UserStore) EndSessions(ctx context.Context, tenant, email, except string) error {
	email = survey.NormalizeEmail(email)
	_, keep := sessionKey(except)
	rows, err := us.userSessions(ctx, tenant, email)
	if err != nil {
		return err
	}
	for _, e := range rows {
		rk := strings.TrimPrefix(e.RowKey, email+"|")
		if len(rk) < 2 || except != "" && rk == keep {
			continue
		}
		if err := us.st.DeleteEntity(ctx, SessionsTable, rk[:2], rk, ""); err != nil && !isNotFound(err) {
			return mapErr(err, "Session")
		}
		if err := us.st.DeleteEntity(ctx, UserSessionsTable, tenant, e.RowKey, ""); err != nil && !isNotFound(err) {
			return mapErr(err, "Session")
		}
	}
	return nil
}

// Remove deletes an account and ends its sessions; ENOTFOUND when there
// is no such account.
func (us *UserStore) Remove(ctx context.Context, tenant, email string) error {
	email = survey.NormalizeEmail(email)
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return err
	}
	if storage.ValidateKey("email", email) != nil {
		return survey.Errorf(survey.ENOTFOUND, "No account %s.", email)
	}
	err := us.st.DeleteEntity(ctx, UsersTable, tenant, email, "")
	if isNotFound(err) {
		return survey.Errorf(survey.ENOTFOUND, "No account %s.", email)
	}
	if err != nil {
		return mapErr(err, "Account")
	}
	if err := us.unindexEmail(ctx, tenant, email); err != nil {
		return err
	}
	// No more e-mail of the tenant's answers.
	if err := forgetMember(ctx, us.st, tenant, email); err != nil {
		return err
	}
	if _, err := us.removePasskeys(ctx, tenant, email); err != nil {
		return err
	}
	return us.EndSessions(ctx, tenant, email, "")
}

// SignInExternal records a user whom the tenant's own identity provider
// (issuer) vouched for, and returns the account to start a session with.
// The account is the row of the email, as for a password sign-in: a new one
// is created without a password (it cannot sign in with one); an existing
// one keeps its password, and notes the issuer and subject that last
// signed it in.
func (us *UserStore) SignInExternal(ctx context.Context, tenant, email, issuer, subject string) (*survey.User, error) {
	email = survey.NormalizeEmail(email)
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return nil, err
	}
	if !survey.ValidEmail(email) {
		return nil, survey.Errorf(survey.EFORBIDDEN, "Your organisation's account has no usable email address (%q).", email)
	}
	now := us.now().UTC()
	for range 3 {
		e, err := us.st.GetEntity(ctx, UsersTable, tenant, email)
		if isNotFound(err) {
			u := &survey.User{Tenant: tenant, Email: email, CreatedOn: now, Role: survey.ExternalRole}
			if err := us.indexEmail(ctx, tenant, email); err != nil {
				return nil, err
			}
			_, err = us.st.InsertEntity(ctx, UsersTable, storage.Entity{PartitionKey: tenant, RowKey: email, Properties: map[string]any{
				"CreatedOn": now, "FailCount": int64(0), "Issuer": issuer, "Subject": subject, "ExternalSignIn": now, "Role": string(survey.ExternalRole),
			}})
			if errors.Is(err, storage.ErrExists) {
				continue // created meanwhile: update it
			}
			return u, mapErr(err, "Account")
		}
		if err != nil {
			return nil, mapErr(err, "Account")
		}
		if e.Bool("Disabled") {
			return nil, errDisabled
		}
		e.Properties["Issuer"], e.Properties["Subject"], e.Properties["ExternalSignIn"] = issuer, subject, now
		if _, err := us.st.UpdateEntity(ctx, UsersTable, e, e.ETag); isPrecondition(err) {
			continue
		} else if err != nil {
			return nil, mapErr(err, "Account")
		}
		return &survey.User{Tenant: tenant, Email: email, CreatedOn: e.Time("CreatedOn"), Role: survey.StoredRole(e.String("Role"))}, nil
	}
	return nil, survey.Errorf(survey.ECONFLICT, "The account was changed by someone else; try again.")
}

// VerifyLinkTTL is how long the link that verifies a sign-up's address
// works.
const VerifyLinkTTL = 7 * 24 * time.Hour

// SetUnverified marks the account's e-mail address as not proven yet (a
// new sign-up's, until it opens the link mailed to it), or as proven.
// Accounts never marked (made by an operator, by an invitation, through
// an identity provider, or before addresses were verified) are verified.
func (us *UserStore) SetUnverified(ctx context.Context, tenant, email string, unverified bool) error {
	email = survey.NormalizeEmail(email)
	for range 10 {
		e, err := us.st.GetEntity(ctx, UsersTable, tenant, email)
		if err != nil {
			return mapErr(err, "Account")
		}
		if unverified {
			e.Properties["Unverified"] = true
		} else {
			delete(e.Properties, "Unverified")
		}
		_, err = us.st.UpdateEntity(ctx, UsersTable, e, e.ETag)
		if isPrecondition(err) {
			continue
		}
		return mapErr(err, "Account")
	}
	return survey.Errorf(survey.ECONFLICT, "The account is being changed; try again.")
}

// Unverified reports whether the account's address is not proven yet.
func (us *UserStore) Unverified(ctx context.Context, tenant, email string) (bool, error) {
	e, err := us.st.GetEntity(ctx, UsersTable, tenant, survey.NormalizeEmail(email))
	if err != nil {
		return false, mapErr(err, "Account")
	}
	v, _ := e.Properties["Unverified"].(bool)
	return v, nil
}
