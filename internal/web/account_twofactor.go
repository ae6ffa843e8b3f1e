package web

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"rsc.io/qr"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/twofactor"
)

// Two-step sign-in for password accounts. After a right password, an
// account with two-step sign-in on gets a second page that asks for the
// code of its authenticator app (or one of its recovery codes): between
// the two, the browser holds only a sealed, five-minute token naming the
// account (stepTokens), never a session. The code step is throttled as
// the password is: per client address here, per account in the store.
//
// A member turns it on from the account page: a new secret, shown as a
// QR code and as text, travels sealed in the form (nothing is stored)
// until a code from the app proves it was taken; then ten recovery codes
// are shown, once. Turning it off takes the password and a code. A
// tenant's admin can require it of every member who signs in with a
// password (a member without it is sent to turn it on before anything
// else), and can turn a member's off (a lost phone): the member is told
// by e-mail, and their account page says who did it and when.

// TwoFactors keeps the members' second factor (store.UserStore).
type TwoFactors interface {
	KeepsSecrets() bool
	TwoFactor(ctx context.Context, tenant, email string) (store.TwoFactor, error)
	EnableTwoFactor(ctx context.Context, tenant, email, totpSecret string, step int64, recovery []string) error
	DisableTwoFactor(ctx context.Context, tenant, email, by string) error
	CheckSecondFactor(ctx context.Context, tenant, email, code string) (store.SecondFactor, error)
	NewEnrolSession(ctx context.Context, u *survey.User) (string, error)
	EnrolDone(ctx context.Context, token string) error
}

// Lifetimes of the sealed values of two-step sign-in.
const (
	// halfSignInTTL is how long after a right password the code is
	// taken.
	halfSignInTTL = 5 * time.Minute
	// setupTTL is how long an enrolment's secret, shown but not yet
	// confirmed, is good for.
	setupTTL = 30 * time.Minute
	// maxSealedStep bounds a sealed value read from a form.
	maxSealedStep = 2048
)

// stepTokens seals what a browser carries between the steps: the account
// whose password was right (halfSignIn), and an enrolment's secret
// (setup). The key is derived from the form key (SURVEYS_SECRET_KEY's
// when there is one), so any instance opens them.
type stepTokens struct {
	box *secret.Box
	now func() time.Time
}

func newStepTokens(formKey []byte, now func() time.Time) *stepTokens {
	m := hmac.New(sha256.New, formKey)
	m.Write([]byte("surveys/two-step sign-in"))
	box, err := secret.New(m.Sum(nil))
	if err != nil {
		panic(err) // a SHA-256 is always secret.KeySize bytes
	}
	if now == nil {
		now = time.Now
	}
	return &stepTokens{box: box, now: now}
}

// halfSignIn is an account whose password was right, waiting for its
// second factor.
type halfSignIn struct {
	Tenant  string `json:"t"`
	Email   string `json:"e"`
	Next    string `json:"x,omitempty"`
	Expires int64  `json:"exp"`
}

// enrolSetup is a secret shown to a member, not confirmed yet.
type enrolSetup struct {
	Secret  string `json:"s"`
	Expires int64  `json:"exp"`
}

const halfSignInAD = "two-step sign-in"

func setupAD(tenant, email string) string { return "two-step setup\x00" + tenant + "\x00" + email }

func (st *stepTokens) seal(v any, ad string) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return st.box.Seal(string(raw), ad)
}

var errStepGone = errors.New("web: sealed step unknown or expired")

// open opens a sealed value into v, whose expiry (Unix seconds) exp
// returns; errStepGone for anything altered, too large or expired.
func (st *stepTokens) open(sealed, ad string, v any, exp func() int64) error {
	if sealed == "" || len(sealed) > maxSealedStep {
		return errStepGone
	}
	raw, err := st.box.Open(sealed, ad)
	if err != nil || json.Unmarshal([]byte(raw), v) != nil || st.now().Unix() > exp() {
		return errStepGone
	}
	return nil
}

// codePage asks for the second factor: the authenticator app's code
// (TOTP), a passkey (Passkey), or both.
type codePage struct {
	Token, Error  string
	TOTP, Passkey bool
}

// renderCode shows the second page for the account of h, with the
// factors it has.
func (s *Server) renderCode(w http.ResponseWriter, r *http.Request, status int, page codePage, tf store.TwoFactor) {
	page.TOTP, page.Passkey = tf.On, tf.Passkeys > 0 && s.passkeysOn()
	if !page.TOTP && !page.Passkey {
		// Passkeys only, and the server takes none now (no public URL):
		// say so, rather than offer a code that cannot be right.
		page.Error = "This server cannot take passkeys now (its operator must set its public URL). An admin of your organisation can reset your two-step sign-in."
	}
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, status, "signin_code", page)
}

// askSecondFactor answers a right password of an account with two-step
// sign-in: the page that asks for its code, with the sealed token.
func (s *Server) askSecondFactor(w http.ResponseWriter, r *http.Request, u *survey.User, next string, tf store.TwoFactor) error {
	if len(next) > maxStateNext {
		next = ""
	}
	token, err := s.steps.seal(halfSignIn{Tenant: u.Tenant, Email: u.Email, Next: next, Expires: s.steps.now().Add(halfSignInTTL).Unix()}, halfSignInAD)
	if err != nil {
		return err
	}
	s.renderCode(w, r, http.StatusOK, codePage{Token: token}, tf)
	return nil
}

const badCodeMessage = "That code is not right, was used already, or there were too many attempts: wait a minute and try again."

// secondFactor takes the code of the second page and, when it is right,
// starts the session.
func (s *Server) secondFactor(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	page := codePage{Token: r.PostForm.Get("token")}
	var h halfSignIn
	if s.twoFactor == nil || s.steps.open(page.Token, halfSignInAD, &h, func() int64 { return h.Expires }) != nil {
		w.Header().Set("Cache-Control", "no-store")
		s.render(w, r, http.StatusBadRequest, "login", loginPage{Error: "Your sign-in took more than five minutes, or was not started in this browser: sign in again."})
		return nil
	}
	w.Header().Set("Cache-Control", "no-store")
	tf, err := s.twoFactor.TwoFactor(r.Context(), h.Tenant, h.Email)
	if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		return err
	}
	addr := clientAddr(r, s.trustedProxies)
	passkey := passkeyField(r)
	refuse := func(msg, why string) error {
		if why != "" {
			s.auditAs(r, h.Tenant, h.Email, survey.AuditSignInFailed, h.Email, why)
		}
		page.Error = msg
		s.renderCode(w, r, http.StatusUnauthorized, page, tf)
		return nil
	}
	if !s.signInThrottle.begin(addr) {
		if passkey != "" {
			return refuse(badPasskeyMessage, "")
		}
		return refuse(badCodeMessage, "")
	}
	var res store.SecondFactor
	if passkey != "" {
		// A passkey's assertion, posted by the page's script.
		ok, err := false, error(nil)
		if s.passkeysOn() {
			ok, err = s.passkeySecondFactor(r.Context(), h, passkey)
		}
		if err != nil {
			return err
		}
		if !ok {
			return refuse(badPasskeyMessage, "passkey refused")
		}
	} else {
		code := strings.TrimSpace(r.PostForm.Get("code"))
		if code == "" {
			code = strings.TrimSpace(r.PostForm.Get("recovery"))
		}
		res, err = s.twoFactor.CheckSecondFactor(r.Context(), h.Tenant, h.Email, code)
		if store.IsBadCode(err) {
			return refuse(badCodeMessage, "wrong second-step code")
		}
		if err != nil {
			return err
		}
	}
	s.signInThrottle.succeeded(addr)
	if err := s.tenantUsable(r.Context(), h.Tenant); err != nil {
		s.render(w, r, http.StatusForbidden, "login", loginPage{Error: survey.ErrorMessage(err)})
		return nil
	}
	next := h.Next
	if res.Recovery {
		next = "/" + h.Tenant + "/account/two-factor?recovery=used"
	}
	how := "password and authenticator code"
	switch {
	case passkey != "":
		how = "password and passkey"
	case res.Recovery:
		how = "password and recovery code"
	}
	return s.signInHow(w, r, &survey.User{Tenant: h.Tenant, Email: h.Email}, next, how)
}

// signIn starts u's session, sets its cookie and sends the browser on to
// next (a page of u's tenant) or the dashboard. A password sign-in
// without a second factor (twoStep false) to a tenant that requires one
// gets a session that must turn it on first, and goes there.
func (s *Server) signIn(w http.ResponseWriter, r *http.Request, u *survey.User, next string, twoStep bool) error {
	how := "password"
	if twoStep {
		how = "password and second step"
	}
	return s.signInHow(w, r, u, next, how)
}

// canEnrol reports whether a member can set up a second factor here:
// the server keeps authenticator secrets, or takes passkeys.
func (s *Server) canEnrol() bool {
	return s.twoFactor != nil && (s.twoFactor.KeepsSecrets() || s.passkeysOn())
}

// signInHow is signIn, with how the member signed in (for the audit
// log): two steps when how names more than the password.
func (s *Server) signInHow(w http.ResponseWriter, r *http.Request, u *survey.User, next, how string) error {
	ctx := r.Context()
	twoStep := how != "password"
	mustEnrol := false
	// (Only where a second factor can be set up: nobody is sent to a
	// setup that cannot finish.)
	if !twoStep && s.canEnrol() {
		if t, err := s.public.Tenant(ctx, u.Tenant); err == nil && t.RequireTwoFactor {
			mustEnrol = true
		}
	}
	newSession := s.users.NewSession
	if mustEnrol {
		newSession = s.twoFactor.NewEnrolSession
	}
	token, err := newSession(s.sessionContext(r, u.Tenant), u)
	if err != nil {
		return err
	}
	s.setSession(w, r, token)
	s.auditAs(r, u.Tenant, u.Email, survey.AuditSignIn, "", how)
	if mustEnrol {
		next = "/" + u.Tenant + "/account/two-factor"
	}
	http.Redirect(w, r, tenantNext(u.Tenant, next), http.StatusSeeOther)
	return nil
}

// enrolPath is where a session that must enrol may go.
func enrolPath(tenant, path string) bool {
	return path == "/"+tenant+"/account/two-factor" || path == "/"+tenant+"/account/passkeys" || path == "/"+tenant+"/account/passkeys/begin"
}

// twoFactorPage is the account's two-step sign-in page.
type twoFactorPage struct {
	User  *store.Session
	State store.TwoFactor
	// Required: the tenant requires it; MustEnrol: this session may do
	// nothing else first; NoKey: the server cannot keep the secret.
	Required, MustEnrol, NoKey bool
	// The enrolment: the sealed secret, the secret in groups of four for
	// typing, the QR code (a PNG data URL) and the account it names.
	Setup, Secret string
	QR            template.URL
	QRSize        int
	Issuer        string
	// RecoveryCodes are shown once, just after it was turned on.
	RecoveryCodes []string
	// Passkeys are the member's; PasskeysOn: this server takes them
	// (it has a public URL); PasskeyName is the name typed for a new one.
	Passkeys       []store.Passkey
	PasskeysOn     bool
	PasskeyName    string
	PasskeyAdded   bool
	PasskeyRemoved bool
	// Notices of what just happened.
	Off, RecoveryUsed bool
	Errors            map[string]string
	Message           string
}

// twoFactorPageFor fills the page for the signed-in member, with a new
// enrolment when two-step sign-in is off.
func (s *Server) twoFactorPageFor(r *http.Request) (twoFactorPage, error) {
	sess := sessionFrom(r.Context())
	page := twoFactorPage{User: sess, MustEnrol: sess.MustEnrol}
	if s.twoFactor == nil {
		page.NoKey = true
		return page, nil
	}
	var err error
	if page.State, err = s.twoFactor.TwoFactor(r.Context(), sess.Tenant, sess.Email); err != nil {
		return page, err
	}
	if t, err := s.public.Tenant(r.Context(), sess.Tenant); err == nil {
		page.Required = t.RequireTwoFactor
		// (No colon: it separates the issuer from the account in the
		// app's label.)
		page.Issuer = "Surveys (" + strings.ReplaceAll(t.Name, ":", " ") + ")"
	}
	page.NoKey = !s.twoFactor.KeepsSecrets()
	page.PasskeysOn = s.passkeysOn()
	if page.Passkeys, err = s.memberPasskeys(r); err != nil {
		return page, err
	}
	if sess.MustEnrol && (page.State.Any() || !s.canEnrol() || !page.Required) {
		// Set up meanwhile (another tab), no longer required, or no
		// longer possible: this session goes free.
		if err := s.enrolDone(r); err != nil {
			return page, err
		}
		free := *sess
		free.MustEnrol = false
		page.User, page.MustEnrol = &free, false
	}
	if !page.State.On && !page.NoKey {
		totpSecret, err := twofactor.NewSecret()
		if err != nil {
			return page, err
		}
		if err := s.setEnrolment(&page, totpSecret); err != nil {
			return page, err
		}
	}
	return page, nil
}

// setEnrolment puts an enrolment's secret on the page: sealed for the
// form, as text and as a QR code.
func (s *Server) setEnrolment(page *twoFactorPage, totpSecret string) error {
	sess := page.User
	if page.Issuer == "" {
		page.Issuer = "Surveys (" + sess.Tenant + ")"
	}
	setup, err := s.steps.seal(enrolSetup{Secret: totpSecret, Expires: s.steps.now().Add(setupTTL).Unix()}, setupAD(sess.Tenant, sess.Email))
	if err != nil {
		return err
	}
	uri, err := twofactor.URI(page.Issuer, sess.Email, totpSecret)
	if err != nil {
		return err
	}
	code, err := qr.Encode(uri, qr.M)
	if err != nil {
		return err
	}
	// Whole pixels per module (a blurred module reads badly), about
	// 240 px across with the quiet zone: it fits a 390 px screen.
	code.Scale = max(2, 240/(code.Size+8))
	page.QRSize = (code.Size + 8) * code.Scale
	page.Setup, page.QR = setup, template.URL("data:image/png;base64,"+base64.StdEncoding.EncodeToString(code.PNG()))
	var groups []string
	for i := 0; i < len(totpSecret); i += 4 {
		groups = append(groups, totpSecret[i:min(i+4, len(totpSecret))])
	}
	page.Secret = strings.Join(groups, " ")
	return nil
}

// enrolDone lifts the MustEnrol of the request's session.
func (s *Server) enrolDone(r *http.Request) error {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	return s.twoFactor.EnrolDone(r.Context(), c.Value)
}

func (s *Server) showTwoFactor(w http.ResponseWriter, r *http.Request) error {
	page, err := s.twoFactorPageFor(r)
	if err != nil {
		return err
	}
	page.Off = r.URL.Query().Get("done") == "off"
	page.RecoveryUsed = r.URL.Query().Get("recovery") == "used"
	page.PasskeyAdded = r.URL.Query().Get("passkey") == "added"
	page.PasskeyRemoved = r.URL.Query().Get("passkey") == "removed"
	s.render(w, r, http.StatusOK, "twofactor", page)
	return nil
}

// enableTwoFactor turns two-step sign-in on, once a code of the app
// proves it holds the secret shown; then the recovery codes are shown,
// once.
func (s *Server) enableTwoFactor(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	sess := sessionFrom(r.Context())
	page, err := s.twoFactorPageFor(r)
	if err != nil {
		return err
	}
	if page.State.On || page.NoKey {
		http.Redirect(w, r, "/"+sess.Tenant+"/account/two-factor", http.StatusSeeOther)
		return nil
	}
	var setup enrolSetup
	if s.steps.open(r.PostForm.Get("setup"), setupAD(sess.Tenant, sess.Email), &setup, func() int64 { return setup.Expires }) != nil || !twofactor.ValidSecret(setup.Secret) {
		// A new secret is on the page already.
		page.Errors = map[string]string{"code": "This setup expired (it lasts 30 minutes) or was damaged. Scan the new QR code, or type the new key, then enter a new code."}
		s.render(w, r, http.StatusUnprocessableEntity, "twofactor", page)
		return nil
	}
	step, ok := twofactor.Match(setup.Secret, r.PostForm.Get("code"), s.steps.now(), 0)
	if !ok {
		if err := s.setEnrolment(&page, setup.Secret); err != nil {
			return err
		}
		page.Errors = map[string]string{"code": "That code is not right. Enter the 6 digits your app shows now for this account; if it keeps failing, check that your phone's clock is set automatically."}
		s.render(w, r, http.StatusUnprocessableEntity, "twofactor", page)
		return nil
	}
	codes, err := twofactor.NewRecoveryCodes()
	if err != nil {
		return err
	}
	hashes := make([]string, len(codes))
	for i, c := range codes {
		hashes[i] = twofactor.HashRecovery(c)
	}
	err = s.twoFactor.EnableTwoFactor(r.Context(), sess.Tenant, sess.Email, setup.Secret, step, hashes)
	if survey.ErrorCode(err) == survey.ECONFLICT {
		http.Redirect(w, r, "/"+sess.Tenant+"/account/two-factor", http.StatusSeeOther)
		return nil
	}
	if err != nil {
		return err
	}
	if sess.MustEnrol {
		if err := s.enrolDone(r); err != nil {
			return err
		}
	}
	s.log.Info("two-step sign-in turned on", "tenant", sess.Tenant, "member", sess.Email)
	s.audit(r, survey.AuditTwoFactorOn, sess.Email, "")
	done := *sess
	done.MustEnrol = false
	page = twoFactorPage{User: &done, Required: page.Required, RecoveryCodes: codes, Passkeys: page.Passkeys, PasskeysOn: page.PasskeysOn}
	if page.State, err = s.twoFactor.TwoFactor(r.Context(), sess.Tenant, sess.Email); err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "twofactor", page)
	return nil
}

// disableTwoFactor turns two-step sign-in off, given the password and a
// code (or a recovery code). A tenant that requires it keeps it on.
func (s *Server) disableTwoFactor(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	sess := sessionFrom(r.Context())
	page, err := s.twoFactorPageFor(r)
	if err != nil {
		return err
	}
	if !page.State.On {
		http.Redirect(w, r, "/"+sess.Tenant+"/account/two-factor", http.StatusSeeOther)
		return nil
	}
	if page.Required && len(page.Passkeys) == 0 {
		page.Message = "Your organisation requires two-step sign-in, so it stays on. For a new phone, ask an admin to reset it: you then set it up again when you next sign in."
		s.render(w, r, http.StatusUnprocessableEntity, "twofactor", page)
		return nil
	}
	_, err = s.users.Authenticate(r.Context(), sess.Tenant, sess.Email, r.PostForm.Get("password"))
	if survey.ErrorCode(err) == survey.EFORBIDDEN {
		page.Errors = map[string]string{"password": "The password is not right (or there were too many attempts: wait a minute)."}
		s.render(w, r, http.StatusUnprocessableEntity, "twofactor", page)
		return nil
	}
	if err != nil {
		return err
	}
	_, err = s.twoFactor.CheckSecondFactor(r.Context(), sess.Tenant, sess.Email, strings.TrimSpace(r.PostForm.Get("code")))
	if store.IsBadCode(err) {
		page.Errors = map[string]string{"code": badCodeMessage}
		s.render(w, r, http.StatusUnprocessableEntity, "twofactor", page)
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.twoFactor.DisableTwoFactor(r.Context(), sess.Tenant, sess.Email, ""); err != nil {
		return err
	}
	s.log.Info("two-step sign-in turned off", "tenant", sess.Tenant, "member", sess.Email)
	s.audit(r, survey.AuditTwoFactorOff, sess.Email, "")
	http.Redirect(w, r, "/"+sess.Tenant+"/account/two-factor?done=off", http.StatusSeeOther)
	return nil
}

// resetTwoFactorPage asks before an admin turns a member's two-step
// sign-in off, saying what it changes.
type resetTwoFactorPage struct {
	Tenant  *survey.Tenant
	Member  store.Member
	MailOff bool
}

// confirmResetTwoFactor asks before resetTwoFactor: only for another
// member who has two-step sign-in on.
func (s *Server) confirmResetTwoFactor(w http.ResponseWriter, r *http.Request) error {
	page, err := s.memberToRemove(r, r.URL.Query().Get("email"))
	if err != nil {
		return err
	}
	if page.Self || !page.Member.TwoFactor {
		return notFound("No such member with two-step sign-in.")
	}
	s.render(w, r, http.StatusOK, "member_twofactor", resetTwoFactorPage{Tenant: page.Tenant, Member: page.Member, MailOff: s.mail == nil})
	return nil
}

// twoFactorResetMail tells a member an admin turned their two-step
// sign-in off.
type twoFactorResetMail struct {
	Tenant, By, SignIn string
}

// resetTwoFactor turns a member's two-step sign-in off (a lost phone),
// never silently: the member is mailed (within the tenant's mail quota),
// and their account page says who did it and when.
func (s *Server) resetTwoFactor(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	tenant := chi.URLParam(r, "tenant")
	sess := sessionFrom(r.Context())
	email := survey.NormalizeEmail(r.PostForm.Get("email"))
	if s.twoFactor == nil {
		return notFound("Page not found.")
	}
	if email == sess.Email {
		return s.membersProblem(w, r, survey.Errorf(survey.EINVALID, "Your own two-step sign-in is on your account page."))
	}
	err := s.twoFactor.DisableTwoFactor(r.Context(), tenant, email, sess.Email)
	if survey.ErrorCode(err) == survey.EINVALID {
		return s.membersProblem(w, r, err)
	}
	if err != nil {
		return err
	}
	s.log.Info("two-step sign-in reset by an admin", "tenant", tenant, "member", email, "by", sess.Email)
	s.audit(r, survey.AuditTwoFactorReset, email, "")
	notice := "Two-step sign-in of " + email + " is off (authenticator app and passkeys). "
	switch told, err := s.tellTwoFactorReset(r.Context(), tenant, email, sess.Email); {
	case err != nil:
		s.log.Warn("two-step sign-in reset: the member was not mailed", "tenant", tenant, "member", email, "err", err)
		why := "the message could not be queued"
		var qe *store.QuotaError
		if errors.As(err, &qe) {
			why = qe.Message
		}
		notice += "We could not e-mail them (" + why + "): tell them yourself. Their account page says it was you."
	case told:
		notice += "We e-mailed them to say so."
	default:
		notice += "E-mail is not set up on this server: tell them yourself. Their account page says it was you."
	}
	if t, err := s.public.Tenant(r.Context(), tenant); err == nil && t.RequireTwoFactor {
		notice += " They set it up again when they next sign in."
	}
	page, err := s.membersPage(r)
	if err != nil {
		return err
	}
	page.Notice = notice
	s.render(w, r, http.StatusOK, "members", page)
	return nil
}

// tellTwoFactorReset mails a member that by turned their two-step
// sign-in off; false when e-mail is off.
func (s *Server) tellTwoFactorReset(ctx context.Context, tenant, email, by string) (bool, error) {
	if s.mail == nil {
		return false, nil
	}
	t, err := s.public.Tenant(ctx, tenant)
	if err != nil {
		return false, err
	}
	if err := s.takeMailQuota(ctx, tenant, t.Plan, []string{email}); err != nil {
		return false, err
	}
	base, err := s.mailBase()
	if err != nil {
		return false, err
	}
	if err := s.sendMail(ctx, "twofactorreset", email, twoFactorResetMail{Tenant: t.Name, By: by, SignIn: base + "/login?tenant=" + tenant}); err != nil {
		return false, err
	}
	return true, nil
}
