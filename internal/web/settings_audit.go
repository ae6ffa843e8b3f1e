package web

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// AuditLog keeps the tenants' audit logs (store.AuditStore): appended
// to, read newest first; no route edits or deletes an event.
type AuditLog interface {
	Append(ctx context.Context, e survey.AuditEvent) error
	List(ctx context.Context, tenant string, f survey.AuditFilter, cursor string, limit int) ([]survey.AuditEvent, string, error)
}

// auditWriteTimeout bounds an audit write, so that a slow storage does
// not hold the action's answer long.
const auditWriteTimeout = 5 * time.Second

// audit notes that the signed-in member of r did action to target. An
// audit write that fails is logged and never fails the member's action:
// the action is done by then, and refusing to answer would not undo it.
// (No action is audited-or-fail: a storage that cannot take the row
// cannot take most actions either.) Respondents' answers are never
// audited.
func (s *Server) audit(r *http.Request, action, target, detail string) {
	sess := sessionFrom(r.Context())
	if sess == nil {
		return
	}
	s.auditAs(r, sess.Tenant, sess.Email, action, target, detail)
}

// auditAs notes an action of actor (a member's e-mail, a token, or
// survey.AuditSystem) in tenant, from r's client address, as audit does.
func (s *Server) auditAs(r *http.Request, tenant, actor, action, target, detail string) {
	if s.auditLog == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), auditWriteTimeout)
	defer cancel()
	e := survey.AuditEvent{Tenant: tenant, At: s.now(), Actor: actor, Action: action, Target: target,
		IP: clientIP(r, s.trustedProxies), Detail: detail}
	if err := s.auditLog.Append(ctx, e); err != nil {
		s.log.Error("audit: the event was not written", "tenant", tenant, "action", action, "target", target, "err", err)
	}
}

// now is the server's clock.
func (s *Server) now() time.Time {
	if s.clock != nil {
		return s.clock()
	}
	return time.Now()
}

// auditPageSize is the events on a page of the audit page.
const auditPageSize = 50

// auditCSVMax bounds the events of one CSV download.
const auditCSVMax = 100_000

// auditForm is the audit page's filter as typed.
type auditForm struct {
	Action, Actor, From, To string
}

// auditPage is the tenant's audit log page.
type auditPage struct {
	Tenant  *survey.Tenant
	Form    auditForm
	Actions []string
	Events  []survey.AuditEvent
	Errors  map[string]string
	// Older is the link to the next page ("" on the last); Paged says
	// the page is not the newest.
	Older string
	Paged bool
	// Newest and CSV are the links to the filter's first page and CSV.
	Newest, CSV string
}

// parseAuditFilter reads the audit filter of q (action, actor, from, to:
// days as 2006-01-02): the errors by field when it is wrong.
func parseAuditFilter(q url.Values) (survey.AuditFilter, auditForm, map[string]string) {
	form := auditForm{Action: q.Get("action"), Actor: strings.TrimSpace(q.Get("actor")), From: strings.TrimSpace(q.Get("from")), To: strings.TrimSpace(q.Get("to"))}
	f := survey.AuditFilter{Actor: form.Actor}
	errs := map[string]string{}
	if form.Action != "" {
		if survey.ValidAuditAction(form.Action) {
			f.Action = form.Action
		} else {
			errs["action"] = "Pick an action from the list."
		}
	}
	day := func(field, v string) time.Time {
		if v == "" {
			return time.Time{}
		}
		d, err := time.Parse(time.DateOnly, v)
		if err != nil {
			errs[field] = "Enter a day as 2026-03-31."
		}
		return d
	}
	f.From, f.To = day("from", form.From), day("to", form.To)
	if !f.From.IsZero() && !f.To.IsZero() && f.To.Before(f.From) {
		errs["to"] = "The last day comes before the first."
	}
	if len(errs) > 0 {
		return f, form, errs
	}
	return f, form, nil
}

// query is the filter's query string, with cursor when set.
func (f auditForm) query(cursor string) string {
	v := url.Values{}
	for k, s := range map[string]string{"action": f.Action, "actor": f.Actor, "from": f.From, "to": f.To, "cursor": cursor} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v.Encode()
}

// showAudit is the tenant's audit log, newest first, a page at a time,
// through the filter of the query.
func (s *Server) showAudit(w http.ResponseWriter, r *http.Request) error {
	if s.auditLog == nil {
		return notFound("Page not found.")
	}
	t, err := s.tenants.Get(r.Context(), chi.URLParam(r, "tenant"))
	if err != nil {
		return err
	}
	f, form, errs := parseAuditFilter(r.URL.Query())
	page := auditPage{Tenant: t, Form: form, Actions: survey.AuditActions, Errors: errs,
		Newest: "/" + t.Key + "/settings/audit", CSV: "/" + t.Key + "/settings/audit.csv"}
	if q := form.query(""); q != "" {
		page.Newest, page.CSV = page.Newest+"?"+q, page.CSV+"?"+q
	}
	if errs != nil {
		s.render(w, r, http.StatusUnprocessableEntity, "audit", page)
		return nil
	}
	cursor := r.URL.Query().Get("cursor")
	events, next, err := s.auditLog.List(r.Context(), t.Key, f, cursor, auditPageSize)
	if err != nil {
		return err
	}
	page.Events, page.Paged = events, cursor != ""
	if next != "" {
		page.Older = "/" + t.Key + "/settings/audit?" + form.query(next)
	}
	s.render(w, r, http.StatusOK, "audit", page)
	return nil
}

// auditCSV downloads the events the filter picks (all pages, newest
// first) as CSV; every text cell is safe from spreadsheet formulas
// (csvCell).
func (s *Server) auditCSV(w http.ResponseWriter, r *http.Request) error {
	if s.auditLog == nil {
		return notFound("Page not found.")
	}
	tenant := chi.URLParam(r, "tenant")
	f, _, errs := parseAuditFilter(r.URL.Query())
	if errs != nil {
		return &survey.Error{Code: survey.EINVALID, Message: "The filter is not right: see the audit page.", Fields: errs}
	}
	// The first page before the header: an error is still a page.
	events, next, err := s.auditLog.List(r.Context(), tenant, f, "", 1000)
	if err != nil {
		return err
	}
	s.audit(r, survey.AuditExport, "audit log", "CSV")
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-audit.csv"`, tenant))
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"Time (UTC)", "Actor", "Action", "Target", "IP", "Detail"})
	n := 0
	for {
		for _, e := range events {
			_ = cw.Write([]string{e.At.UTC().Format(time.RFC3339), csvCell(e.Actor), csvCell(e.Action), csvCell(e.Target), csvCell(e.IP), csvCell(e.Detail)})
		}
		n += len(events)
		if next == "" || n >= auditCSVMax {
			break
		}
		if events, next, err = s.auditLog.List(r.Context(), tenant, f, next, 1000); err != nil {
			// The header is sent: the file ends short, and the log says why.
			s.log.Error("audit: CSV cut short", "tenant", tenant, "err", err)
			break
		}
	}
	cw.Flush()
	return cw.Error()
}

// AuditList is a page of a tenant's audit log for the API: the filter
// of the query (action, actor, from, to), newest first, from cursor.
func (s *Server) auditList(ctx context.Context, tenant string, q url.Values, cursor string, limit int) ([]survey.AuditEvent, string, error) {
	if s.auditLog == nil {
		return nil, "", notFound("No such API endpoint.")
	}
	f, _, errs := parseAuditFilter(q)
	if errs != nil {
		return nil, "", &survey.Error{Code: survey.EINVALID, Message: "The filter is not right.", Fields: errs}
	}
	return s.auditLog.List(ctx, tenant, f, cursor, limit)
}

// auditLabels are the actions as the audit page names them.
var auditLabels = map[string]string{
	survey.AuditSignIn: "Signed in", survey.AuditSignInFailed: "Sign-in failed",
	survey.AuditMemberInvited: "Member invited", survey.AuditMemberRole: "Member's role changed", survey.AuditMemberRemoved: "Member removed",
	survey.AuditInviteRevoked: "Invitation revoked",
	survey.AuditTokenCreated:  "API token made", survey.AuditTokenRevoked: "API token revoked",
	survey.AuditSurveyCreated: "Survey made", survey.AuditSurveyPublished: "Survey published", survey.AuditSurveyClosed: "Survey closed",
	survey.AuditSurveyEdited: "Survey edited", survey.AuditSurveyTrashed: "Survey moved to the trash", survey.AuditSurveyRestored: "Survey restored",
	survey.AuditSurveyDeleted: "Survey deleted for good", survey.AuditAnswerDeleted: "Answer deleted", survey.AuditExport: "Export",
	survey.AuditAnswersExpired: "Old answers deleted (retention rule)", survey.AuditAnswerErased: "Answer deleted by its respondent",
	survey.AuditSettings: "Settings changed", survey.AuditDatabase: "Database settings changed",
	survey.AuditWebhookAdded: "Webhook added", survey.AuditWebhookDeleted: "Webhook deleted",
	survey.AuditIdentity: "Identity provider changed", survey.AuditTwoFactorReset: "Two-step sign-in reset",
	survey.AuditDomain:          "Custom domain changed",
	survey.AuditSCIMUserCreated: "SCIM: member provisioned", survey.AuditSCIMUserUpdated: "SCIM: member updated",
	survey.AuditSCIMUserDeactivated: "SCIM: member deactivated", survey.AuditSCIMUserReactivated: "SCIM: member reactivated",
	survey.AuditSCIMUserDeleted: "SCIM: member deleted", survey.AuditSCIMGroupCreated: "SCIM: group made",
	survey.AuditSCIMGroupUpdated: "SCIM: group changed", survey.AuditSCIMGroupDeleted: "SCIM: group deleted",
	survey.AuditSCIMTokenCreated: "SCIM token made", survey.AuditSCIMTokenRevoked: "SCIM token revoked",
	survey.AuditSCIMRoleGroups: "SCIM groups of the roles changed",
	survey.AuditTwoFactorOn:    "Authenticator app turned on", survey.AuditTwoFactorOff: "Authenticator app turned off",
	survey.AuditPasskeyAdded: "Passkey added", survey.AuditPasskeyRemoved: "Passkey removed", survey.AuditSessionEnded: "Session ended",
	survey.AuditPasswordChanged: "Password changed", survey.AuditPasswordReset: "Password reset", survey.AuditSignOut: "Signed out",
	survey.AuditSegmentCreated: "Segment saved", survey.AuditSegmentDeleted: "Segment deleted",
	survey.AuditLinksCreated: "Personal links made", survey.AuditTranslations: "Translations saved",
	survey.AuditWebhookTested: "Webhook test sent", survey.AuditWebhookRotated: "Webhook secret rotated",
	survey.AuditWebhookEnabled: "Webhook enabled", survey.AuditWebhookDisabled: "Webhook disabled",
	survey.AuditTenantSuspended: "Organisation suspended", survey.AuditTenantResumed: "Organisation resumed",
	survey.AuditTenantPlan: "Plan changed", survey.AuditMemberAdded: "Member added", survey.AuditMemberActivated: "Member activated",
}

// ActionLabel names action for people (its code when it has no name).
func (auditPage) ActionLabel(action string) string {
	if l, ok := auditLabels[action]; ok {
		return l
	}
	return action
}

// auditExport notes an export of survey slug as format, unless it was
// refused before anything was read (no such survey or format, a bad
// filter, a role that may not): an export cut short by an error may
// have sent some answers, and is noted.
func (s *Server) auditExport(r *http.Request, slug, format string, err error) {
	switch survey.ErrorCode(err) {
	case survey.ENOTFOUND, survey.EINVALID, survey.EFORBIDDEN:
		return
	}
	detail := strings.ToUpper(format)
	if r.URL.RawQuery != "" {
		detail += ", filtered: " + r.URL.RawQuery
	}
	s.audit(r, survey.AuditExport, slug, detail)
}

// settingsChanged says which of the settings page's settings changed
// from old to next.
func settingsChanged(old, next *survey.Tenant) string {
	var what []string
	if old.Name != next.Name {
		what = append(what, "name")
	}
	if old.Logo != next.Logo {
		what = append(what, "logo")
	}
	if !reflect.DeepEqual(old.Theme, next.Theme) {
		what = append(what, "theme")
	}
	if old.RequireTwoFactor != next.RequireTwoFactor {
		if next.RequireTwoFactor {
			what = append(what, "two-step sign-in required")
		} else {
			what = append(what, "two-step sign-in not required")
		}
	}
	if old.RetainDays != next.RetainDays {
		if next.RetainDays > 0 {
			what = append(what, fmt.Sprintf("answers deleted after %d days", next.RetainDays))
		} else {
			what = append(what, "answers kept")
		}
	}
	if old.SessionIdle() != next.SessionIdle() {
		what = append(what, "sessions end after "+idleLabel(int(next.SessionIdle()/time.Minute))+" unused")
	}
	if len(what) == 0 {
		return "nothing changed"
	}
	return strings.Join(what, ", ")
}

// auditFailedSignIn notes a refused password for email in tenant, when
// the tenant exists (an anonymous client names any tenant: a name that
// is none gets no log). Sign-ins are limited per client address, so
// these writes are too.
func (s *Server) auditFailedSignIn(r *http.Request, tenant, email string) {
	if survey.ValidateTenantKey(tenant) != nil {
		return
	}
	if _, err := s.public.Tenant(r.Context(), tenant); err != nil {
		return
	}
	email = survey.NormalizeEmail(email)
	s.auditAs(r, tenant, email, survey.AuditSignInFailed, email, "wrong password or no such account")
}

// autosaveAuditEvery is the least time between two survey.edited events
// of the designer's autosave for one member and survey.
const autosaveAuditEvery = 10 * time.Minute

// autosaveNotesMax bounds the (tenant, survey, member) triples
// autosaveNotes remembers.
const autosaveNotesMax = 4096

// autosaveNotes remembers, in memory, when each member's autosave of a
// survey was last audited: an autosave comes with the member's typing,
// and one event per keystroke would bury the log. Kept per instance
// (no storage read per autosave): behind several instances a member may
// get one event per instance per period. Bounded: when full, the triples
// past the period go, and if none has, all do (which can only add an
// event, never lose an edit's first one).
type autosaveNotes struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// due reports whether key's autosave is to be audited at now, and notes
// it when it is.
func (n *autosaveNotes) due(key string, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if at, ok := n.last[key]; ok && now.Sub(at) < autosaveAuditEvery && !now.Before(at) {
		return false
	}
	if n.last == nil {
		n.last = map[string]time.Time{}
	}
	if _, ok := n.last[key]; !ok && len(n.last) >= autosaveNotesMax {
		for k, at := range n.last {
			if now.Sub(at) >= autosaveAuditEvery {
				delete(n.last, k)
			}
		}
		if len(n.last) >= autosaveNotesMax {
			clear(n.last)
		}
	}
	n.last[key] = now
	return true
}

// auditAutosave notes an autosave of survey slug by the signed-in member:
// at most one survey.edited per member and survey per
// autosaveAuditEvery.
func (s *Server) auditAutosave(r *http.Request, slug string) {
	sess := sessionFrom(r.Context())
	if sess == nil || s.auditLog == nil {
		return
	}
	if s.autosaved.due(sess.Tenant+"\x00"+slug+"\x00"+sess.Email, s.now()) {
		s.audit(r, survey.AuditSurveyEdited, slug, "autosaved (one event per 10 minutes of typing)")
	}
}
