package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Signing in with only an email: the organisations are found from it (the
// UserEmails index). The password is checked against each (each attempt
// counted on its account, as a sign-in to that tenant is); one match signs
// in, several let the person pick.

// pickPage lists the organisations where the password just given is right.
type pickPage struct {
	Email, Next string
	Choices     []pickChoice
}

type pickChoice struct{ Name, Key, Token string }

func (s *Server) loginByEmail(w http.ResponseWriter, r *http.Request, page loginPage, addr string) error {
	ctx := r.Context()
	password := r.PostForm.Get("password")
	keys, err := s.users.TenantsOf(ctx, page.Email)
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		// The time a password check takes, so that timing does not tell
		// which emails have accounts.
		_, _ = s.users.Authenticate(ctx, "", page.Email, password)
	}
	var ok []*survey.User
	var unusable error
	var failed []string // the tenants whose account refused the password
	for _, key := range keys {
		authenticate := s.users.Authenticate
		if s.knownDevice(r, key, page.Email) {
			authenticate = s.users.AuthenticateKnownDevice
		}
		u, err := authenticate(ctx, key, page.Email, password)
		if survey.ErrorCode(err) == survey.EFORBIDDEN {
			failed = append(failed, key)
			continue
		}
		if err != nil {
			return err
		}
		s.setDevice(w, r, u.Tenant, u.Email)
		if err := s.tenantUsable(ctx, u.Tenant); err != nil {
			unusable = err
			continue
		}
		ok = append(ok, u)
	}
	switch {
	case len(ok) == 1:
		return s.startSession(w, r, ok[0], page.Next, addr)
	case len(ok) == 0 && unusable != nil:
		page.Error = survey.ErrorMessage(unusable)
		s.render(w, r, http.StatusForbidden, "login", page)
		return nil
	case len(ok) == 0:
		for _, key := range failed {
			s.auditFailedSignIn(r, key, page.Email)
		}
		page.Error = survey.SignInFailureMessage
		s.render(w, r, http.StatusUnauthorized, "login", page)
		return nil
	}
	s.signInThrottle.succeeded(addr)
	pick := pickPage{Email: page.Email, Next: page.Next}
	for _, u := range ok {
		token, err := s.links.Create(ctx, store.Link{Purpose: store.LinkPick, Tenant: u.Tenant, Email: u.Email}, store.PickLinkTTL)
		if err != nil {
			return err
		}
		name := u.Tenant
		if t, err := s.public.Tenant(ctx, u.Tenant); err == nil {
			name = t.Name
		}
		pick.Choices = append(pick.Choices, pickChoice{Name: name, Key: u.Tenant, Token: token})
	}
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, http.StatusOK, "pick", pick)
	return nil
}

// pickTenant signs in to the organisation picked, with the single-use
// link the pick page carried.
func (s *Server) pickTenant(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	l, err := s.useLink(r, store.LinkPick, r.PostForm.Get("token"))
	if err != nil {
		return err
	}
	if err := s.tenantUsable(r.Context(), l.Tenant); err != nil {
		return err
	}
	return s.startSession(w, r, &survey.User{Tenant: l.Tenant, Email: l.Email}, r.PostForm.Get("next"), clientAddr(r, s.trustedProxies))
}

// startSession signs u in after a right password (or a reset link, or a
// pick of the organisation after one): an account with two-step sign-in
// gets the page that asks for its code (account_twofactor.go); the others a
// session cookie, then 303 to next (when it is a page of u's tenant) or
// the dashboard.
func (s *Server) startSession(w http.ResponseWriter, r *http.Request, u *survey.User, next, addr string) error {
	s.signInThrottle.succeeded(addr)
	if s.twoFactor != nil {
		tf, err := s.twoFactor.TwoFactor(r.Context(), u.Tenant, u.Email)
		if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
			return err
		}
		if tf.Any() {
			return s.askSecondFactor(w, r, u, next, tf)
		}
	}
	return s.signIn(w, r, u, next, false)
}

var errLinkGone = survey.Errorf(survey.ENOTFOUND, "This link is not valid: it has been used, has expired or was replaced. Ask for a new one.")

// peekLink reads a single-use link without using it; a token of the wrong
// form is not looked up.
func (s *Server) peekLink(r *http.Request, purpose, token string) (*store.Link, error) {
	if !survey.ValidLinkToken(token) {
		return nil, errLinkGone
	}
	return s.links.Peek(r.Context(), purpose, token)
}

// useLink uses a single-use link up.
func (s *Server) useLink(r *http.Request, purpose, token string) (*store.Link, error) {
	if !survey.ValidLinkToken(token) {
		return nil, errLinkGone
	}
	return s.links.Use(r.Context(), purpose, token)
}

// forgotPage asks for the email to send reset links to.
type forgotPage struct {
	Email   string
	Errors  map[string]string
	Sent    bool
	MailOff bool
	// PerHour is how many reset messages one address gets in an hour at most.
	PerHour int
}

func (s *Server) showForgot(w http.ResponseWriter, r *http.Request) error {
	s.render(w, r, http.StatusOK, "forgot", forgotPage{Email: r.URL.Query().Get("email"), MailOff: !s.mailOn()})
	return nil
}

// resetMail is the reset message's data: a link per organisation.
type resetMail struct {
	Email string
	Links []resetLink
}

type resetLink struct{ Organisation, URL string }

// forgot answers at once, the same page whether the address has accounts
// or not, and leaves the lookup and the mail to the background
// (sendResetLinksLater): the page does no storage call on either path, so
// neither its content nor its time tells who has an account.
func (s *Server) forgot(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	page := forgotPage{Email: survey.NormalizeEmail(r.PostForm.Get("email")), MailOff: !s.mailOn(), PerHour: store.ResetMailsPerAddress}
	if page.MailOff {
		s.render(w, r, http.StatusServiceUnavailable, "forgot", page)
		return nil
	}
	if !survey.ValidEmail(page.Email) {
		page.Errors = map[string]string{"email": "Enter an email address such as ana@example.com."}
		s.render(w, r, http.StatusUnprocessableEntity, "forgot", page)
		return nil
	}
	s.sendResetLinksLater(page.Email)
	page.Sent = true
	s.render(w, r, http.StatusOK, "forgot", page)
	return nil
}

// maxResetsInFlight bounds the reset requests looked up in the background
// at once (each is a goroutine); beyond it a request is dropped, logged.
// The sign-in rate limit per client address comes first.
const maxResetsInFlight = 256

// resetLookupTimeout bounds one background lookup and mail.
const resetLookupTimeout = time.Minute

// sendResetLinksLater runs sendResetLinks after the page has answered.
// Wait waits for those running.
func (s *Server) sendResetLinksLater(email string) {
	if s.resetsInFlight.Add(1) > maxResetsInFlight {
		s.resetsInFlight.Add(-1)
		s.log.Warn("password reset request dropped: too many at once")
		return
	}
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		defer s.resetsInFlight.Add(-1)
		ctx, cancel := context.WithTimeout(context.Background(), resetLookupTimeout)
		defer cancel()
		if err := s.sendResetLinks(ctx, email); err != nil {
			s.log.Warn("password reset mail not sent", "err", err)
		}
	}()
}

// Wait waits until the work the server left to the background after
// answering (reset mails) is done, or ctx ends. Call it after the HTTP
// server's Shutdown, before storage closes.
func (s *Server) Wait(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.background.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sendResetLinks mails a reset link for each organisation where email has
// an account (none: nothing), at most store.ResetMailsPerAddress times in
// store.ResetMailWindow to one address, whoever asks. The links are built
// from the public URL alone (mailBase), never from the request.
func (s *Server) sendResetLinks(ctx context.Context, email string) error {
	base, err := s.mailBase()
	if err != nil {
		return err
	}
	keys, err := s.users.TenantsOf(ctx, email)
	if err != nil || len(keys) == 0 {
		return err
	}
	if ok, err := s.links.TakeResetMail(ctx, email); err != nil || !ok {
		if err == nil {
			s.log.Info("password reset mail not sent: the address had its reset mails for the hour", "limit", store.ResetMailsPerAddress)
		}
		return err
	}
	m := resetMail{Email: email}
	for _, key := range keys {
		t, err := s.public.Tenant(ctx, key)
		if err != nil || t.Suspended {
			continue
		}
		token, err := s.links.Create(ctx, store.Link{Purpose: store.LinkReset, Tenant: key, Email: email}, store.ResetLinkTTL)
		if err != nil {
			return err
		}
		m.Links = append(m.Links, resetLink{Organisation: t.Name, URL: base + "/login/reset/" + token})
	}
	if len(m.Links) == 0 {
		return nil
	}
	return s.sendMail(ctx, "reset", email, m)
}

// resetPage sets a new password with a reset link.
type resetPage struct {
	Token, Email, Organisation string
	Errors                     map[string]string
}

// resetGone renders the page of a reset link that is unknown, used or
// expired: 410, saying what to do.
func (s *Server) resetGone(w http.ResponseWriter, r *http.Request, err error) error {
	if survey.ErrorCode(err) != survey.ENOTFOUND {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, http.StatusGone, "error", errorPage{Title: "This link does not work",
		Message: "This link to set a password has been used or has expired (it works once, within an hour). Ask for a new one: Forgot your password? on the sign-in page."})
	return nil
}

func (s *Server) showReset(w http.ResponseWriter, r *http.Request) error {
	token := chi.URLParam(r, "token")
	l, err := s.peekLink(r, store.LinkReset, token)
	if err != nil {
		return s.resetGone(w, r, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	s.render(w, r, http.StatusOK, "reset", resetPage{Token: token, Email: l.Email, Organisation: s.tenantName(r, l.Tenant)})
	return nil
}

// reset sets the password: the form is checked before the link is used,
// so a mistake does not spend it; then every session of the account ends
// and this browser is signed in.
func (s *Server) reset(w http.ResponseWriter, r *http.Request) error {
	token := chi.URLParam(r, "token")
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	l, err := s.peekLink(r, store.LinkReset, token)
	if err != nil {
		return s.resetGone(w, r, err)
	}
	page := resetPage{Token: token, Email: l.Email, Organisation: s.tenantName(r, l.Tenant)}
	password := r.PostForm.Get("new")
	if password != r.PostForm.Get("confirm") {
		page.Errors = map[string]string{"confirm": "The two passwords differ."}
	} else if err := survey.ValidateCredentials(l.Email, password); err != nil {
		var e *survey.Error
		errors.As(err, &e)
		page.Errors = map[string]string{"new": e.Fields["password"]}
		if page.Errors["new"] == "" {
			page.Errors["new"] = e.Message
		}
	}
	if page.Errors != nil {
		w.Header().Set("Cache-Control", "no-store")
		s.render(w, r, http.StatusUnprocessableEntity, "reset", page)
		return nil
	}
	if l, err = s.useLink(r, store.LinkReset, token); err != nil {
		return s.resetGone(w, r, err)
	}
	if err := s.users.SetPassword(r.Context(), l.Tenant, l.Email, password); err != nil {
		return err
	}
	s.auditAs(r, l.Tenant, l.Email, survey.AuditPasswordReset, l.Email, "by a mailed reset link")
	if err := s.tenantUsable(r.Context(), l.Tenant); err != nil {
		return err
	}
	s.setDevice(w, r, l.Tenant, l.Email)
	return s.startSession(w, r, &survey.User{Tenant: l.Tenant, Email: l.Email}, "", clientAddr(r, s.trustedProxies))
}

// tenantName is a tenant's display name, or its key.
func (s *Server) tenantName(r *http.Request, key string) string {
	if t, err := s.public.Tenant(r.Context(), key); err == nil {
		return t.Name
	}
	return key
}

// welcomePage greets a new subscriber with what they need to know.
type welcomePage struct {
	User                *store.Session
	Tenant              *survey.Tenant
	SignInURL, SiteBase string
	MailOn              bool
}

func (s *Server) welcome(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r.Context())
	t, err := s.public.Tenant(r.Context(), sess.Tenant)
	if err != nil {
		return err
	}
	base, err := s.baseURL(r)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "welcome", welcomePage{User: sess, Tenant: t, MailOn: s.mailOn(),
		SignInURL: base + "/login?tenant=" + url.QueryEscape(t.Key), SiteBase: base + "/survey/" + t.Key + "/"})
	return nil
}
