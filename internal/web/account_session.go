package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Users signs subscribers in and keeps their sessions.
type Users interface {
	Authenticate(ctx context.Context, tenant, email, password string) (*survey.User, error)
	AuthenticateKnownDevice(ctx context.Context, tenant, email, password string) (*survey.User, error)
	ChangePassword(ctx context.Context, tenant, email, current, next string) error
	NewSession(ctx context.Context, u *survey.User) (string, error)
	Session(ctx context.Context, token string) (*store.Session, error)
	EndSession(ctx context.Context, token string) error
	// EndSessions ends an account's sessions but the one of token except.
	EndSessions(ctx context.Context, tenant, email, except string) error
	// Sessions lists an account's live sessions; EndSessionID ends one
	// of them by its ID (account_sessions.go).
	Sessions(ctx context.Context, tenant, email string) ([]store.SessionRow, error)
	EndSessionID(ctx context.Context, tenant, email, id string) error
	// SignInExternal finds or makes the account of a user whom the
	// tenant's own identity provider signed in.
	SignInExternal(ctx context.Context, tenant, email, issuer, subject string) (*survey.User, error)
	// TenantsOf lists the organisations where email has an account.
	TenantsOf(ctx context.Context, email string) ([]string, error)
	// SetPassword sets a password without the current one (a reset
	// link's holder) and ends the account's sessions.
	SetPassword(ctx context.Context, tenant, email, password string) error
}

const sessionCookie = "surveys_session"

type sessionKey struct{}

// sessionFrom returns the request's session, set by requireTenantUser.
func sessionFrom(ctx context.Context) *store.Session {
	s, _ := ctx.Value(sessionKey{}).(*store.Session)
	return s
}

// requireTenantUser lets through a signed-in user of the URL's tenant
// only: no session sends the browser to the sign-in page; a session of
// another tenant gets 403, and learns nothing of this tenant.
func (s *Server) requireTenantUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var sess *store.Session
		if c, err := r.Cookie(sessionCookie); err == nil {
			got, err := s.users.Session(r.Context(), c.Value)
			if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
				s.serveError(w, r, err)
				return
			}
			sess = got
		}
		if sess == nil {
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
			return
		}
		if sess.Tenant != chi.URLParam(r, "tenant") {
			s.serveError(w, r, survey.Errorf(survey.EFORBIDDEN, "You are signed in to another tenant."))
			return
		}
		if err := s.tenantUsable(r.Context(), sess.Tenant); err != nil {
			s.serveError(w, r, err)
			return
		}
		if s.idleTooLong(r.Context(), sess) {
			// Unused longer than its tenant now allows: it ends.
			if err := s.users.EndSessionID(r.Context(), sess.Tenant, sess.Email, sess.ID); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
				s.serveError(w, r, err)
				return
			}
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		if sess.MustEnrol && !enrolPath(sess.Tenant, r.URL.Path) {
			// The tenant requires two-step sign-in: nothing else first.
			http.Redirect(w, r, "/"+sess.Tenant+"/account/two-factor", http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, sess)))
	})
}

// idleTooLong reports whether sess went unused longer than its tenant's
// idle time (as set now: a session started before a shorter one was set
// ends by it too). The tenant comes from the public cache.
func (s *Server) idleTooLong(ctx context.Context, sess *store.Session) bool {
	if sess.LastSeen.IsZero() {
		return false
	}
	t, err := s.public.Tenant(ctx, sess.Tenant)
	return err == nil && sess.Unused >= t.SessionIdle()
}

type loginPage struct {
	Tenant, Email, Next, Error string
	// TenantName names the organisation being signed in to, when the page
	// was reached from it (a link or a page of the tenant).
	TenantName string
	// OIDC: the tenant signs in through its own identity provider; Known:
	// the tenant is known (and so, without OIDC, signs in with passwords).
	OIDC, Known bool
}

func (s *Server) showLogin(w http.ResponseWriter, r *http.Request) error {
	page := loginPage{Tenant: r.URL.Query().Get("tenant")}
	if next := safeNext(r.URL.Query().Get("next")); next != defaultNext {
		page.Next = next
	}
	if page.Tenant == "" {
		// Sent here from a tenant's page: that is the tenant.
		if t, _, ok := strings.Cut(strings.TrimPrefix(page.Next, "/"), "/"); ok {
			page.Tenant = t
		}
	}
	if page.Tenant != "" {
		if t, err := s.tenants.Get(r.Context(), page.Tenant); err == nil {
			page.OIDC, page.Known, page.TenantName = t.UsesOIDC(), true, t.Name
		} else {
			page.Tenant = "" // unknown: signed in by email alone
		}
	}
	s.render(w, r, http.StatusOK, "login", page)
	return nil
}

// login signs a user in: a session cookie (HTTP-only, SameSite=Lax,
// Secure over TLS or when the public URL is https), then 303 to the
// dashboard or the page asked for.
func (s *Server) login(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	page := loginPage{Tenant: strings.TrimSpace(r.PostForm.Get("tenant")), Email: r.PostForm.Get("email"), Next: r.PostForm.Get("next")}
	// Throttled per client address here, per account in Authenticate; a
	// throttled attempt, an unknown account and a wrong password get the
	// same page.
	addr := clientAddr(r, s.trustedProxies)
	if !s.signInThrottle.begin(addr) {
		page.Error = survey.SignInFailureMessage
		s.render(w, r, http.StatusUnauthorized, "login", page)
		return nil
	}
	if page.Tenant == "" {
		return s.loginByEmail(w, r, page, addr)
	}
	page.TenantName = s.tenantName(r, page.Tenant)
	// A suspended tenant says so before any password is checked, so its
	// answer tells nothing of the password.
	if t, err := s.public.Tenant(r.Context(), page.Tenant); err == nil && t.Suspended {
		page.Error = survey.ErrorMessage(s.tenantUsable(r.Context(), t.Key))
		s.render(w, r, http.StatusForbidden, "login", page)
		return nil
	}
	authenticate := s.users.Authenticate
	if s.knownDevice(r, page.Tenant, page.Email) {
		authenticate = s.users.AuthenticateKnownDevice
	}
	u, err := authenticate(r.Context(), page.Tenant, page.Email, r.PostForm.Get("password"))
	if survey.ErrorCode(err) == survey.EFORBIDDEN {
		s.auditFailedSignIn(r, page.Tenant, page.Email)
		page.Error = survey.SignInFailureMessage
		s.render(w, r, http.StatusUnauthorized, "login", page)
		return nil
	}
	if err != nil {
		return err
	}
	s.signInThrottle.succeeded(addr)
	s.setDevice(w, r, u.Tenant, u.Email)
	if err := s.tenantUsable(r.Context(), u.Tenant); err != nil {
		page.Error = survey.ErrorMessage(err)
		s.render(w, r, http.StatusForbidden, "login", page)
		return nil
	}
	return s.startSession(w, r, u, page.Next, addr)
}

// logout ends the session and clears the cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(sessionCookie); err == nil {
		// Whose session it was, for the audit log (a cookie that is no
		// session's, or already ended, signs nobody out).
		sess, _ := s.users.Session(r.Context(), c.Value)
		if err := s.users.EndSession(r.Context(), c.Value); err != nil {
			return err
		}
		if sess != nil {
			s.auditAs(r, sess.Tenant, sess.Email, survey.AuditSignOut, sess.Email, "")
		}
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, Secure: s.secureCookies(r), MaxAge: -1, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

type passwordPage struct {
	User    *store.Session
	Errors  map[string]string
	Changed bool
	// Admin shows the failure alerts' choice (admins get them): Alerts
	// on, AlertsSaved after a change.
	Admin, Alerts, AlertsSaved bool
	// Unverified shows the form that mails the link confirming the
	// member's address again; VerifySent after it went.
	Unverified, VerifySent bool
}

func (s *Server) showPassword(w http.ResponseWriter, r *http.Request) error {
	page, err := s.accountPage(r)
	if err != nil {
		return err
	}
	page.AlertsSaved = r.URL.Query().Get("alerts") == "saved"
	page.VerifySent = r.URL.Query().Get("verify") == "sent"
	s.render(w, r, http.StatusOK, "password", page)
	return nil
}

// accountPage is the account page of the signed-in member, with the
// failure alerts' choice for an admin.
func (s *Server) accountPage(r *http.Request) (passwordPage, error) {
	sess := sessionFrom(r.Context())
	page := passwordPage{User: sess}
	if s.notifications != nil && sess.Role == survey.Admin {
		on, err := s.notifications.Alerts(r.Context(), sess.Tenant, sess.Email)
		if err != nil {
			return page, err
		}
		page.Admin, page.Alerts = true, on
	}
	if s.mail != nil && s.verifier != nil {
		unproven, err := s.verifier.Unverified(r.Context(), sess.Tenant, sess.Email)
		if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
			return page, err
		}
		page.Unverified = unproven
	}
	return page, nil
}

func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r.Context())
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	page, err := s.accountPage(r)
	if err != nil {
		return err
	}
	next := r.PostForm.Get("new")
	if next != r.PostForm.Get("confirm") {
		page.Errors = map[string]string{"confirm": "The two new passwords differ."}
		s.render(w, r, http.StatusUnprocessableEntity, "password", page)
		return nil
	}
	err = s.users.ChangePassword(r.Context(), sess.Tenant, sess.Email, r.PostForm.Get("current"), next)
	var e *survey.Error
	if errors.As(err, &e) && e.Code == survey.EINVALID {
		page.Errors = e.Fields
		if page.Errors["password"] != "" {
			page.Errors["new"] = page.Errors["password"]
		}
		s.render(w, r, http.StatusUnprocessableEntity, "password", page)
		return nil
	}
	if err != nil {
		return err
	}
	// The password changed: every other session of the account ends.
	current := ""
	if c, err := r.Cookie(sessionCookie); err == nil {
		current = c.Value
	}
	if err := s.users.EndSessions(r.Context(), sess.Tenant, sess.Email, current); err != nil {
		return err
	}
	s.audit(r, survey.AuditPasswordChanged, sess.Email, "other sessions ended")
	page.Changed = true
	s.render(w, r, http.StatusOK, "password", page)
	return nil
}

// secureCookies reports whether cookies must be Secure: the request came
// over TLS, or the site's public URL is https (behind a TLS-terminating
// proxy the request itself is plain).
func (s *Server) secureCookies(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(s.publicURL, "https://")
}

// setSession sets the session cookie.
func (s *Server) setSession(w http.ResponseWriter, r *http.Request, token string) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: true, Secure: s.secureCookies(r),
		SameSite: http.SameSiteLaxMode, MaxAge: int(store.SessionTTL.Seconds())})
}

// tenantUsable says why a signed-in user or token may not use its tenant
// now: the tenant is suspended or deleted. (An ended trial still signs in,
// to read answers and ask for a paid plan.)
func (s *Server) tenantUsable(ctx context.Context, key string) error {
	t, err := s.public.Tenant(ctx, key)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		return survey.Errorf(survey.EFORBIDDEN, "This subscription no longer exists.")
	}
	if err != nil {
		return err
	}
	if t.Suspended {
		return survey.Errorf(survey.EFORBIDDEN, "This subscription is suspended; contact the operator of this site.")
	}
	return nil
}
