package web_test

import (
	"context"
	"encoding/csv"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// auditEvents is the tenant's whole audit log, newest first.
func auditEvents(t *testing.T, app *testApp, tenant string) []survey.AuditEvent {
	t.Helper()
	list, _, err := store.NewAuditStore(app.st).List(context.Background(), tenant, survey.AuditFilter{}, "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// findAudit is the newest event of action on target, or fails.
func findAudit(t *testing.T, app *testApp, tenant, action, target string) survey.AuditEvent {
	t.Helper()
	for _, e := range auditEvents(t, app, tenant) {
		if e.Action == action && e.Target == target {
			return e
		}
	}
	t.Fatalf("no %s event on %q in %+v", action, target, auditEvents(t, app, tenant))
	return survey.AuditEvent{}
}

// TestAuditActions: what an admin does on the pages, and a failed
// sign-in, are in the tenant's audit log with the actor, the client's
// address (X-Forwarded-For, from the trusted proxy) and the target.
func TestAuditActions(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	from := map[string]string{"X-Forwarded-For": "203.0.113.9"}

	// A failed sign-in, then a good one.
	code, _, _ := app.do(t, "POST", "/login", url.Values{"tenant": {"adatum"}, "email": {"ana@adatum.example"}, "password": {"wrong horse"}}, from)
	if code != http.StatusUnauthorized {
		t.Fatalf("a wrong password = %d", code)
	}
	e := findAudit(t, app, "adatum", survey.AuditSignInFailed, "ana@adatum.example")
	if e.IP != "203.0.113.9" || e.Actor != "ana@adatum.example" {
		t.Fatalf("failed sign-in = %+v", e)
	}
	// A tenant that does not exist gets no log.
	app.do(t, "POST", "/login", url.Values{"tenant": {"nosuchtenant"}, "email": {"x@example.com"}, "password": {"wrong horse"}}, from)
	if list, _, err := store.NewAuditStore(app.st).List(ctx, "nosuchtenant", survey.AuditFilter{}, "", 10); err != nil || len(list) != 0 {
		t.Fatalf("an unknown tenant's log: %v %v", list, err)
	}
	_, cookie := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	findAudit(t, app, "adatum", survey.AuditSignIn, "")
	as := map[string]string{"Cookie": "surveys_session=" + cookie.Value, "X-Forwarded-For": "198.51.100.4"}

	// Close the survey, then publish it again.
	slug := app.adatum.Slug
	for _, step := range []struct{ action, audit string }{{"close", survey.AuditSurveyClosed}, {"publish", survey.AuditSurveyPublished}} {
		if code, _, body := app.do(t, "POST", "/adatum/surveys/"+slug+"/"+step.action, url.Values{}, as); code != http.StatusSeeOther {
			t.Fatalf("%s = %d: %s", step.action, code, body)
		}
		e := findAudit(t, app, "adatum", step.audit, slug)
		if e.Actor != "ana@adatum.example" || e.IP != "198.51.100.4" || e.At.IsZero() {
			t.Fatalf("%s = %+v", step.action, e)
		}
	}

	// Make a token, revoke it.
	if code, _, body := app.do(t, "POST", "/adatum/settings/tokens", url.Values{"name": {"=cmd|' /C calc'!A0"}, "role": {"viewer"}, "expires": {"30"}}, as); code != http.StatusOK {
		t.Fatalf("make a token = %d: %s", code, body)
	}
	findAudit(t, app, "adatum", survey.AuditTokenCreated, "=cmd|' /C calc'!A0")
	list, err := store.NewTokenStore(app.st).List(ctx, "adatum")
	if err != nil || len(list) != 1 {
		t.Fatalf("tokens: %v %v", list, err)
	}
	if code, _, _ := app.do(t, "POST", "/adatum/settings/tokens/"+list[0].ID+"/revoke", url.Values{}, as); code != http.StatusSeeOther {
		t.Fatalf("revoke = %d", code)
	}
	if e := findAudit(t, app, "adatum", survey.AuditTokenRevoked, list[0].ID); e.Actor != "ana@adatum.example" || e.IP != "198.51.100.4" {
		t.Fatalf("revoke = %+v", e)
	}

	// A member's role changed, then the member removed.
	if _, err := testUsers(app.st).Add(ctx, "adatum", "bob@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if code, _, body := app.do(t, "POST", "/adatum/settings/members/role", url.Values{"email": {"bob@adatum.example"}, "role": {"viewer"}}, as); code != http.StatusSeeOther {
		t.Fatalf("role = %d: %s", code, body)
	}
	if e := findAudit(t, app, "adatum", survey.AuditMemberRole, "bob@adatum.example"); e.Actor != "ana@adatum.example" || !strings.Contains(strings.ToLower(e.Detail), "viewer") {
		t.Fatalf("role = %+v", e)
	}
	if code, _, body := app.do(t, "POST", "/adatum/settings/members/remove", url.Values{"email": {"bob@adatum.example"}}, as); code != http.StatusSeeOther {
		t.Fatalf("remove = %d: %s", code, body)
	}
	findAudit(t, app, "adatum", survey.AuditMemberRemoved, "bob@adatum.example")

	// An export.
	if code, _, _ := app.do(t, "GET", "/adatum/surveys/"+slug+"/export.csv", nil, as); code != http.StatusOK {
		t.Fatalf("export = %d", code)
	}
	if e := findAudit(t, app, "adatum", survey.AuditExport, slug); e.Detail != "CSV" {
		t.Fatalf("export = %+v", e)
	}
	// An export refused (no such format) is not one.
	app.do(t, "GET", "/adatum/surveys/"+slug+"/export.doc", nil, as)
	for _, e := range auditEvents(t, app, "adatum") {
		if e.Action == survey.AuditExport && e.Detail != "CSV" {
			t.Fatalf("a refused export was audited: %+v", e)
		}
	}
	// Another tenant's log has none of it.
	if list, _, err := store.NewAuditStore(app.st).List(ctx, "fabrikam", survey.AuditFilter{}, "", 10); err != nil || len(list) != 0 {
		t.Fatalf("fabrikam's log: %v %v", list, err)
	}

	// The page: newest first, through its filter.
	code, _, body := app.do(t, "GET", "/adatum/settings/audit", nil, as)
	if code != http.StatusOK || !strings.Contains(body, "Survey published") || !strings.Contains(body, "198.51.100.4") || !strings.Contains(body, "Sign-in failed") {
		t.Fatalf("audit page = %d: %s", code, body)
	}
	_, tbody, _ := strings.Cut(body, "<tbody>")
	if strings.Index(tbody, "API token revoked") > strings.Index(tbody, "API token made") || strings.Index(tbody, "Sign-in failed") < strings.Index(tbody, "Signed in") {
		t.Fatal("the page is not newest first")
	}
	code, _, body = app.do(t, "GET", "/adatum/settings/audit?action=token.revoked", nil, as)
	if _, tbody, _ := strings.Cut(body, "<tbody>"); code != http.StatusOK || !strings.Contains(tbody, list[0].ID) || strings.Contains(tbody, "Survey published") ||
		!strings.Contains(body, `href="/adatum/settings/audit.csv?action=token.revoked"`) {
		t.Fatalf("filtered by action = %d: %s", code, body)
	}
	code, _, body = app.do(t, "GET", "/adatum/settings/audit?actor=nobody%40example.com", nil, as)
	if code != http.StatusOK || strings.Contains(body, "198.51.100.4") || !strings.Contains(body, "No events match the filter") {
		t.Fatalf("filtered by actor = %d: %s", code, body)
	}
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	code, _, body = app.do(t, "GET", "/adatum/settings/audit?from="+tomorrow, nil, as)
	if code != http.StatusOK || strings.Contains(body, "198.51.100.4") {
		t.Fatalf("from tomorrow = %d: %s", code, body)
	}
	code, _, body = app.do(t, "GET", "/adatum/settings/audit?from=31%2F12%2F2026", nil, as)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="from-error"`) {
		t.Fatalf("a bad day = %d: %s", code, body)
	}

	// The CSV: the filter's events, formulas defused.
	code, header, body := app.do(t, "GET", "/adatum/settings/audit.csv?action=token.created", nil, as)
	if code != http.StatusOK || !strings.HasPrefix(header.Get("Content-Type"), "text/csv") {
		t.Fatalf("CSV = %d %v", code, header)
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) != 2 || rows[0][1] != "Actor" || rows[1][2] != "token.created" || rows[1][3] != "'=cmd|' /C calc'!A0" {
		t.Fatalf("CSV rows = %q, %v", rows, err)
	}

	// No route changes or deletes an event: every other method on the
	// page and the CSV is refused, and the log is as it was.
	before := len(auditEvents(t, app, "adatum"))
	for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		for _, path := range []string{"/adatum/settings/audit", "/adatum/settings/audit.csv", "/adatum/settings/audit/delete"} {
			if code, _, _ := app.do(t, method, path, url.Values{"action": {"delete"}}, as); code/100 == 2 || code == http.StatusSeeOther {
				t.Errorf("%s %s = %d", method, path, code)
			}
		}
	}
	// (The page views and CSV downloads add their own export events.)
	after := auditEvents(t, app, "adatum")
	if len(after) < before {
		t.Fatalf("%d events, %d before", len(after), before)
	}
}

// TestAuditAPI: GET /api/v1/audit gives an admin token its tenant's
// events with a cursor, through the filter; a viewer's token gets 403.
func TestAuditAPI(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	as := store.NewAuditStore(app.st)
	for i := range 3 {
		if err := as.Append(ctx, survey.AuditEvent{Tenant: "adatum", At: time.Now().Add(time.Duration(i) * time.Second), Actor: "ana@adatum.example", Action: survey.AuditSurveyPublished, Target: "s" + string(rune('0'+i)), IP: "203.0.113.1"}); err != nil {
			t.Fatal(err)
		}
	}
	tokens := store.NewTokenStore(app.st)
	admin, err := tokens.CreateWithRole(ctx, "adatum", "admin", survey.Admin, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	viewer, err := tokens.CreateWithRole(ctx, "adatum", "viewer", survey.Viewer, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	code, v, raw := app.api(t, "GET", "/api/v1/audit?limit=2", admin, "")
	events, _ := v["events"].([]any)
	if code != http.StatusOK || len(events) != 2 || v["next"] == "" || !strings.Contains(raw, `"target":"s2"`) {
		t.Fatalf("first page = %d %s", code, raw)
	}
	code, v, raw = app.api(t, "GET", "/api/v1/audit?limit=2&cursor="+url.QueryEscape(v["next"].(string)), admin, "")
	if events, _ := v["events"].([]any); code != http.StatusOK || len(events) != 1 || v["next"] != "" || !strings.Contains(raw, `"ip":"203.0.113.1"`) {
		t.Fatalf("second page = %d %s", code, raw)
	}
	if code, _, raw := app.api(t, "GET", "/api/v1/audit?action=export", admin, ""); code != http.StatusOK || strings.Contains(raw, "s1") {
		t.Fatalf("filtered = %d %s", code, raw)
	}
	if code, _, raw := app.api(t, "GET", "/api/v1/audit?action=nonsense", admin, ""); code != http.StatusUnprocessableEntity {
		t.Fatalf("a bad action = %d %s", code, raw)
	}
	if code, _, _ := app.api(t, "GET", "/api/v1/audit", viewer, ""); code != http.StatusForbidden {
		t.Fatalf("a viewer's token = %d", code)
	}

	// What a token does is audited with the token as the actor.
	slug := app.adatum.Slug
	if code, _, raw := app.api(t, "POST", "/api/v1/surveys/"+slug+"/close", admin, ""); code != http.StatusOK {
		t.Fatalf("close = %d %s", code, raw)
	}
	if code, _, _ := app.api(t, "GET", "/api/v1/surveys/"+slug+"/export?format=csv", viewer, ""); code != http.StatusOK {
		t.Fatalf("export = %d", code)
	}
	if e := findAudit(t, app, "adatum", survey.AuditSurveyClosed, slug); e.Actor != "token:admin" || e.IP == "" {
		t.Fatalf("close = %+v", e)
	}
	if e := findAudit(t, app, "adatum", survey.AuditExport, slug); e.Actor != "token:viewer" || e.Detail != "CSV (API)" {
		t.Fatalf("export = %+v", e)
	}
	// Reading the answers page by page is an export too: one event per
	// pass, at its first page.
	for _, q := range []string{"?limit=1", "?offset=1&limit=1", "?offset=2&limit=1"} {
		if code, _, raw := app.api(t, "GET", "/api/v1/surveys/"+slug+"/answers"+q, viewer, ""); code != http.StatusOK {
			t.Fatalf("answers%s = %d %s", q, code, raw)
		}
	}
	reads := 0
	for _, e := range auditEvents(t, app, "adatum") {
		if e.Action == survey.AuditExport && e.Target == slug && e.Detail == "answers read page by page (API)" && e.Actor == "token:viewer" {
			reads++
		}
	}
	if reads != 1 {
		t.Fatalf("reading three pages of answers made %d audit events, want 1", reads)
	}
}

// TestAuditPages: the page shows 50 events and links to the older ones,
// whose page links back to the newest (the roles that may see it are
// the isolation test's).
func TestAuditPages(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	users := testUsers(app.st)
	if _, err := users.Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	as := store.NewAuditStore(app.st)
	start := time.Now().Add(-time.Hour)
	for i := range 60 {
		if err := as.Append(ctx, survey.AuditEvent{Tenant: "adatum", At: start.Add(time.Duration(i) * time.Second), Actor: "ana@adatum.example", Action: survey.AuditExport, Target: "target-" + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	_, cookie := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	code, _, body := app.get(t, "/adatum/settings/audit?action=export", cookie)
	if code != http.StatusOK || !strings.Contains(body, "target-59<") || !strings.Contains(body, "target-10<") || strings.Contains(body, "target-9<") {
		t.Fatalf("first page = %d", code)
	}
	m := regexp.MustCompile(`href="(/adatum/settings/audit\?[^"]*cursor=[^"]+)" rel="next"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no link to the older events: %s", body)
	}
	code, _, body = app.get(t, html.UnescapeString(m[1]), cookie)
	if code != http.StatusOK || !strings.Contains(body, "target-9<") || !strings.Contains(body, "target-0<") || strings.Contains(body, "target-10<") ||
		!strings.Contains(body, `href="/adatum/settings/audit?action=export" rel="first"`) {
		t.Fatalf("second page = %d: %s", code, body)
	}
}

// TestAuditMemberActions: a member's password changed and reset, a
// sign-out, a segment saved and deleted, personal links made,
// translations saved, and a webhook endpoint tested, rotated and enabled
// (on the page and through the API) are in the tenant's audit log, with
// the member (or the token) as the actor.
func TestAuditMemberActions(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	if _, err := testUsers(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, cookie := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	as := map[string]string{"Cookie": "surveys_session=" + cookie.Value, "X-Forwarded-For": "198.51.100.7"}
	mine := func(action, target string) survey.AuditEvent {
		t.Helper()
		e := findAudit(t, app, "adatum", action, target)
		if e.Actor != "ana@adatum.example" || e.IP != "198.51.100.7" {
			t.Fatalf("%s = %+v", action, e)
		}
		return e
	}
	slug := app.adatum.Slug
	base := "/adatum/surveys/" + slug

	// Password changed on the account page.
	if code, _, body := app.do(t, "POST", "/adatum/account/password", url.Values{"current": {"correct horse battery"}, "new": {"a brand new secret"}, "confirm": {"a brand new secret"}}, as); code != http.StatusOK {
		t.Fatalf("change the password = %d: %s", code, body)
	}
	mine(survey.AuditPasswordChanged, "ana@adatum.example")

	// A segment saved, then deleted.
	if code, _, body := app.do(t, "POST", base+"/segments", url.Values{"name": {"Since March"}, "query": {"from=2026-03-01"}, "page": {"analyze"}}, as); code != http.StatusSeeOther {
		t.Fatalf("save a segment = %d: %s", code, body)
	}
	if e := mine(survey.AuditSegmentCreated, slug); !strings.Contains(e.Detail, "Since March") {
		t.Fatalf("segment saved = %+v", e)
	}
	segs, err := store.NewSavedSegmentStore(app.st).List(ctx, "adatum", slug)
	if err != nil || len(segs) != 1 {
		t.Fatalf("segments %v, %v", segs, err)
	}
	if code, _, _ := app.do(t, "POST", base+"/segments/"+segs[0].ID+"/delete", url.Values{"page": {"analyze"}}, as); code != http.StatusSeeOther {
		t.Fatalf("delete the segment = %d", code)
	}
	if e := mine(survey.AuditSegmentDeleted, slug); !strings.Contains(e.Detail, segs[0].ID) {
		t.Fatalf("segment deleted = %+v", e)
	}

	// Personal links made.
	if code, _, body := app.do(t, "POST", base+"/links", url.Values{"count": {"3"}}, as); code != http.StatusOK {
		t.Fatalf("make links = %d: %s", code, body)
	}
	if e := mine(survey.AuditLinksCreated, slug); e.Detail != "3 links" {
		t.Fatalf("links made = %+v", e)
	}

	// Translations saved (a refused form is not).
	if code, _, _ := app.do(t, "POST", base+"/translations", url.Values{"lang": {"xx"}, "language": {"en"}, "title": {"X"}}, as); code != http.StatusUnprocessableEntity {
		t.Fatalf("a bad translation = %d", code)
	}
	for _, e := range auditEvents(t, app, "adatum") {
		if e.Action == survey.AuditTranslations {
			t.Fatalf("a refused translation was audited: %+v", e)
		}
	}
	if code, _, body := app.do(t, "POST", base+"/translations", url.Values{"lang": {"fr"}, "language": {"en"}, "title": {"Le titre"}}, as); code != http.StatusSeeOther {
		t.Fatalf("save a translation = %d: %s", code, body)
	}
	if e := mine(survey.AuditTranslations, slug); e.Detail != "fr" {
		t.Fatalf("translations saved = %+v", e)
	}

	// A webhook endpoint, added through the API, tested, given a new
	// secret and enabled on the page; tested through the API.
	admin, err := store.NewTokenStore(app.st).CreateWithRole(ctx, "adatum", "hooks", survey.Admin, 0)
	if err != nil {
		t.Fatal(err)
	}
	code, v, raw := app.api(t, "POST", "/api/v1/webhooks", admin, `{"url":"https://hooks.example.com/in","events":["response.created"]}`)
	id, _ := v["id"].(string)
	if code != http.StatusCreated || id == "" {
		t.Fatalf("add a webhook = %d: %s", code, raw)
	}
	for _, step := range []struct{ action, audit string }{
		{"test", survey.AuditWebhookTested}, {"rotate", survey.AuditWebhookRotated}, {"enable", survey.AuditWebhookEnabled},
	} {
		if code, _, body := app.do(t, "POST", "/adatum/settings/webhooks/"+id+"/"+step.action, url.Values{}, as); code != http.StatusSeeOther && code != http.StatusOK {
			t.Fatalf("%s = %d: %s", step.action, code, body)
		}
		mine(step.audit, id)
	}
	if code, _, raw := app.api(t, "POST", "/api/v1/webhooks/"+id+"/rotate", admin, ""); code != http.StatusOK {
		t.Fatalf("API rotate = %d: %s", code, raw)
	}
	if e := findAudit(t, app, "adatum", survey.AuditWebhookRotated, id); e.Actor != "token:hooks" {
		t.Fatalf("API rotate = %+v", e)
	}

	// Signed out: the session's member, from the client's address.
	if code, _, _ := app.do(t, "POST", "/logout", url.Values{}, as); code != http.StatusSeeOther {
		t.Fatalf("sign out = %d", code)
	}
	mine(survey.AuditSignOut, "ana@adatum.example")
	// A cookie that is no session's signs nobody out.
	before := len(auditEvents(t, app, "adatum"))
	app.do(t, "POST", "/logout", url.Values{}, as)
	if after := len(auditEvents(t, app, "adatum")); after != before {
		t.Fatalf("an ended session's sign-out was audited: %d events, %d before", after, before)
	}

	// The password set through a reset link.
	token, err := store.NewLinkStore(app.st).Create(ctx, store.Link{Purpose: store.LinkReset, Tenant: "adatum", Email: "ana@adatum.example"}, store.ResetLinkTTL)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, body := app.do(t, "POST", "/login/reset/"+token, url.Values{"new": {"another new secret"}, "confirm": {"another new secret"}}, map[string]string{"X-Forwarded-For": "198.51.100.7"}); code != http.StatusSeeOther {
		t.Fatalf("reset = %d: %s", code, body)
	}
	mine(survey.AuditPasswordReset, "ana@adatum.example")

	// The page names them.
	_, fresh := app.signIn(t, "adatum", "ana@adatum.example", "another new secret")
	code, _, body := app.get(t, "/adatum/settings/audit", fresh)
	for _, label := range []string{"Password changed", "Password reset", "Signed out", "Segment saved", "Segment deleted", "Personal links made", "Translations saved",
		"Webhook test sent", "Webhook secret rotated", "Webhook enabled"} {
		if !strings.Contains(body, label) {
			t.Errorf("the audit page (%d) does not name %q", code, label)
		}
	}
}

// TestAuditAutosave: the designer's autosave makes a survey (audited as
// made) and then saves it as it is typed: one survey.edited per member
// and survey in ten minutes, however many autosaves.
func TestAuditAutosave(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	for _, who := range []string{"ana@adatum.example", "bo@adatum.example"} {
		if _, err := testUsers(app.st).Add(ctx, "adatum", who, "correct horse battery"); err != nil {
			t.Fatal(err)
		}
	}
	_, ana := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	_, bo := app.signIn(t, "adatum", "bo@adatum.example", "correct horse battery")
	version := ""
	autosave := func(path, text, cookie string) {
		t.Helper()
		form := url.Values{"title": {"Typed lunch"}, "n": {"1"}, "q.0.text": {text}, "q.0.type": {"SimpleText"}, "action": {"autosave"}, "version": {version}}
		code, _, body := app.do(t, "POST", path, form, map[string]string{"Cookie": "surveys_session=" + cookie})
		if code != http.StatusOK || !strings.Contains(body, `"saved"`) {
			t.Fatalf("autosave %q = %d: %s", text, code, body)
		}
		version = regexp.MustCompile(`"version":"([^"]+)"`).FindStringSubmatch(body)[1]
	}
	autosave("/adatum/surveys/new", "W", ana.Value)
	for _, text := range []string{"Wh", "Wha", "What", "What did", "What did you eat?"} {
		autosave("/adatum/surveys/typed-lunch/edit", text, ana.Value)
	}
	autosave("/adatum/surveys/typed-lunch/edit", "What did you drink?", bo.Value)
	autosave("/adatum/surveys/typed-lunch/edit", "What did you drink, Bo?", bo.Value)
	edits := map[string]int{}
	created := 0
	for _, e := range auditEvents(t, app, "adatum") {
		switch {
		case e.Action == survey.AuditSurveyEdited && e.Target == "typed-lunch":
			edits[e.Actor]++
		case e.Action == survey.AuditSurveyCreated && e.Target == "typed-lunch":
			created++
		}
	}
	if created != 1 || edits["ana@adatum.example"] != 1 || edits["bo@adatum.example"] != 1 || len(edits) != 2 {
		t.Fatalf("%d made, edits by actor %v; want 1 made and 1 edit each", created, edits)
	}
}
