package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Sessions and devices. Sessions are kept server-side (store.UserStore):
// the cookie holds a random token, and the Sessions table a row under its
// SHA-256, listed per account in UserSessions. Each request reads that
// row (one point read; the tenant comes from the public cache) and
// writes it at most once every five minutes, to note its last use; so
// ending a session (deleting its row) takes effect at the next request,
// on every instance. A session ends after its tenant's idle time unused
// (checked on each request against the last use noted, so to within
// five minutes) and a week after it began, however used.
//
// A member's sessions page lists their sessions (browser and system in
// short, address, when started, when last used, coarsely) and ends any
// one, or all but this one; an admin ends all of a member's sessions from
// the members page.

// sessionContext is r's context with what a session started by r notes:
// the device in short, the client's address (as the audit log keeps
// it), and the tenant's idle time.
func (s *Server) sessionContext(r *http.Request, tenant string) context.Context {
	info := store.SessionInfo{Device: deviceName(r.UserAgent()), IP: clientIP(r, s.trustedProxies)}
	if t, err := s.public.Tenant(r.Context(), tenant); err == nil {
		info.Idle = t.SessionIdle()
	}
	return store.WithSessionInfo(r.Context(), info)
}

// deviceName is a User-Agent in short: "Firefox on Windows", "Safari on
// iPhone"; "Unknown browser" when it says nothing known.
func deviceName(ua string) string {
	if len(ua) > 512 {
		ua = ua[:512]
	}
	has := func(s string) bool { return strings.Contains(ua, s) }
	browser := ""
	switch {
	case has("Edg/") || has("EdgA/") || has("EdgiOS/"):
		browser = "Edge"
	case has("OPR/") || has("Opera"):
		browser = "Opera"
	case has("SamsungBrowser/"):
		browser = "Samsung Internet"
	case has("Firefox/") || has("FxiOS/"):
		browser = "Firefox"
	case has("HeadlessChrome/"):
		browser = "Headless Chrome"
	case has("Chrome/") || has("CriOS/") || has("Chromium/"):
		browser = "Chrome"
	case has("Safari/") && has("Version/"):
		browser = "Safari"
	case has("curl/"):
		browser = "curl"
	}
	system := ""
	switch {
	case has("iPhone"):
		system = "iPhone"
	case has("iPad"):
		system = "iPad"
	case has("Android"):
		system = "Android"
	case has("Windows"):
		system = "Windows"
	case has("CrOS"):
		system = "ChromeOS"
	case has("Macintosh") || has("Mac OS X"):
		system = "Mac"
	case has("Linux"):
		system = "Linux"
	}
	switch {
	case browser == "" && system == "":
		return "Unknown browser"
	case browser == "":
		return "A browser on " + system
	case system == "":
		return browser
	}
	return browser + " on " + system
}

// sessionsPage is the member's sessions page.
type sessionsPage struct {
	User     *store.Session
	Sessions []sessionLine
	// Idle is the tenant's idle time, in words.
	Idle string
	// Ended: a session was ended ("one" or "others"), for the notice.
	Ended string
}

// sessionLine is a session as the page shows it.
type sessionLine struct {
	store.SessionRow
	Current bool
	// Seen is its last use in coarse words ("in the last 5 minutes").
	Seen string
}

// seenAgo says when a session was last used, as coarsely as it is noted.
func seenAgo(now, seen time.Time) string {
	d := now.Sub(seen)
	switch {
	case d < 5*time.Minute:
		return "in the last 5 minutes"
	case d < time.Hour:
		return fmt.Sprintf("about %d minutes ago", int(d/(5*time.Minute))*5)
	case d < 24*time.Hour:
		return "about " + survey.Count(int64(d/time.Hour), "hour") + " ago"
	}
	return "on " + seen.UTC().Format("2 January 2006")
}

func (s *Server) showSessions(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r.Context())
	rows, err := s.users.Sessions(r.Context(), sess.Tenant, sess.Email)
	if err != nil {
		return err
	}
	page := sessionsPage{User: sess, Ended: r.URL.Query().Get("ended")}
	if page.Ended != "one" && page.Ended != "others" {
		page.Ended = ""
	}
	now := s.now()
	for _, row := range rows {
		page.Sessions = append(page.Sessions, sessionLine{SessionRow: row, Current: row.ID == sess.ID, Seen: seenAgo(now, row.LastSeen)})
	}
	if t, err := s.public.Tenant(r.Context(), sess.Tenant); err == nil {
		page.Idle = idleLabel(int(t.SessionIdle() / time.Minute))
	}
	s.render(w, r, http.StatusOK, "sessions", page)
	return nil
}

// endSession ends one of the member's sessions; this one signs out.
func (s *Server) endSession(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	sess := sessionFrom(r.Context())
	id := r.PostForm.Get("id")
	if err := s.users.EndSessionID(r.Context(), sess.Tenant, sess.Email, id); err != nil {
		if survey.ErrorCode(err) == survey.ENOTFOUND {
			return notFound("No such session: it may have ended already.")
		}
		return err
	}
	s.audit(r, survey.AuditSessionEnded, sess.Email, "one session, by its member")
	if id == sess.ID {
		http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", HttpOnly: true, Secure: s.secureCookies(r), MaxAge: -1, SameSite: http.SameSiteLaxMode})
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return nil
	}
	http.Redirect(w, r, "/"+sess.Tenant+"/account/sessions?ended=one", http.StatusSeeOther)
	return nil
}

// endOtherSessions ends every session of the member but this one.
func (s *Server) endOtherSessions(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r.Context())
	current := ""
	if c, err := r.Cookie(sessionCookie); err == nil {
		current = c.Value
	}
	if err := s.users.EndSessions(r.Context(), sess.Tenant, sess.Email, current); err != nil {
		return err
	}
	s.audit(r, survey.AuditSessionEnded, sess.Email, "all other sessions, by their member")
	http.Redirect(w, r, "/"+sess.Tenant+"/account/sessions?ended=others", http.StatusSeeOther)
	return nil
}

// memberSessionsPage asks before an admin ends a member's sessions.
type memberSessionsPage struct {
	Tenant   *survey.Tenant
	Member   store.Member
	Sessions []sessionLine
}

// confirmEndMemberSessions shows a member's sessions to an admin, with
// the button that ends them all.
func (s *Server) confirmEndMemberSessions(w http.ResponseWriter, r *http.Request) error {
	page, err := s.memberToRemove(r, r.URL.Query().Get("email"))
	if err != nil {
		return err
	}
	if page.Self {
		http.Redirect(w, r, "/"+page.Tenant.Key+"/account/sessions", http.StatusSeeOther)
		return nil
	}
	rows, err := s.users.Sessions(r.Context(), page.Tenant.Key, page.Member.Email)
	if err != nil {
		return err
	}
	out := memberSessionsPage{Tenant: page.Tenant, Member: page.Member}
	now := s.now()
	for _, row := range rows {
		out.Sessions = append(out.Sessions, sessionLine{SessionRow: row, Seen: seenAgo(now, row.LastSeen)})
	}
	s.render(w, r, http.StatusOK, "member_sessions", out)
	return nil
}

// endMemberSessions ends all of a member's sessions (an admin's action:
// a lost laptop, someone who leaves): they sign in again.
func (s *Server) endMemberSessions(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	tenant := chi.URLParam(r, "tenant")
	sess := sessionFrom(r.Context())
	page, err := s.memberToRemove(r, r.PostForm.Get("email"))
	if err != nil {
		return err
	}
	if page.Self {
		return s.membersProblem(w, r, survey.Errorf(survey.EINVALID, "Your own sessions are on your sessions page."))
	}
	if err := s.users.EndSessions(r.Context(), tenant, page.Member.Email, ""); err != nil {
		return err
	}
	s.audit(r, survey.AuditSessionEnded, page.Member.Email, "all sessions, by an admin")
	s.log.Info("a member's sessions ended by an admin", "tenant", tenant, "member", page.Member.Email, "by", sess.Email)
	members, err := s.membersPage(r)
	if err != nil {
		return err
	}
	members.Notice = "Every session of " + page.Member.Email + " is ended: they sign in again to go on."
	s.render(w, r, http.StatusOK, "members", members)
	return nil
}
