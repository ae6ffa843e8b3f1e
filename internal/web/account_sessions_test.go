package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

const (
	firefoxWindows = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"
	safariIPhone   = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
)

var sessionIDRE = regexp.MustCompile(`name="id" value="([0-9a-f]{64})"`)

// signInAs signs email in from a browser of user agent ua at addr and
// returns its session cookie.
func (a *testApp) signInAs(t *testing.T, email, password, ua, addr string) string {
	t.Helper()
	code, h, _ := a.do(t, "POST", "/login", url.Values{"tenant": {"adatum"}, "email": {email}, "password": {password}},
		map[string]string{"User-Agent": ua, "X-Forwarded-For": addr})
	if code != http.StatusSeeOther || cookieOf(h) == "" {
		t.Fatalf("sign-in of %s = %d", email, code)
	}
	return cookieOf(h)
}

// live reports whether the session of cookie still opens a page.
func (a *testApp) live(t *testing.T, cookie string) bool {
	t.Helper()
	code, h, _ := a.do(t, "GET", "/adatum/surveys", nil, map[string]string{"Cookie": cookie})
	if code == http.StatusSeeOther && strings.HasPrefix(h.Get("Location"), "/login") {
		return false
	}
	if code != http.StatusOK {
		t.Fatalf("dashboard = %d", code)
	}
	return true
}

// TestSessionsPage: a member signed in from two browsers sees both (the
// browser and system in short, the address, this browser marked), ends
// the other one (it is signed out at its next request), ends all others,
// and signs out here; a session of another member cannot be ended by its
// ID. Each end is in the audit log.
func TestSessionsPage(t *testing.T) {
	app, _, _ := twoFactorApp(t)
	ctx := context.Background()
	const ana, bob, pw = "ana@adatum.example", "bob@adatum.example", "another long password"
	for _, e := range []string{ana, bob} {
		if _, err := testUsers(app.st).AddMember(ctx, "adatum", e, pw, survey.Editor); err != nil {
			t.Fatal(err)
		}
	}
	laptop := app.signInAs(t, ana, pw, firefoxWindows, "198.51.100.20")
	phone := app.signInAs(t, ana, pw, safariIPhone, "198.51.100.21")
	bobs := app.signInAs(t, bob, pw, firefoxWindows, "198.51.100.22")
	h := map[string]string{"Cookie": laptop}
	code, _, body := app.do(t, "GET", "/adatum/account/sessions", nil, h)
	if code != http.StatusOK {
		t.Fatalf("sessions page = %d", code)
	}
	for _, want := range []string{"<strong>Firefox on Windows</strong> <span class=\"badge\">this browser</span>", "<strong>Safari on iPhone</strong>",
		"from 198.51.100.20", "from 198.51.100.21", "last used in the last 5 minutes", "A session ends after 12 hours unused", "End every other session"} {
		if !strings.Contains(body, want) {
			t.Errorf("sessions page lacks %q", want)
		}
	}
	if strings.Contains(body, "198.51.100.22") {
		t.Errorf("sessions page shows another member's session")
	}
	ids := sessionIDRE.FindAllStringSubmatch(body, -1)
	if len(ids) != 2 {
		t.Fatalf("session IDs on the page: %v", ids)
	}
	// Which ID is the phone's: the store says.
	rows, err := testUsers(app.st).Sessions(ctx, "adatum", ana)
	if err != nil {
		t.Fatal(err)
	}
	phoneID := ""
	for _, r := range rows {
		if r.Device == "Safari on iPhone" {
			phoneID = r.ID
		}
	}
	// Bob cannot end Ana's session.
	if code, _, _ := app.do(t, "POST", "/adatum/account/sessions/end", url.Values{"id": {phoneID}}, map[string]string{"Cookie": bobs}); code != http.StatusNotFound || !app.live(t, phone) {
		t.Fatalf("another member ends a session = %d", code)
	}
	code, hdr, _ := app.do(t, "POST", "/adatum/account/sessions/end", url.Values{"id": {phoneID}}, h)
	if code != http.StatusSeeOther || hdr.Get("Location") != "/adatum/account/sessions?ended=one" {
		t.Fatalf("end one = %d to %q", code, hdr.Get("Location"))
	}
	if app.live(t, phone) || !app.live(t, laptop) {
		t.Fatalf("after ending the phone's: phone %v, laptop %v", app.live(t, phone), app.live(t, laptop))
	}
	// All others.
	tablet := app.signInAs(t, ana, pw, safariIPhone, "198.51.100.23")
	other := app.signInAs(t, ana, pw, firefoxWindows, "198.51.100.24")
	if code, _, _ := app.do(t, "POST", "/adatum/account/sessions/end-others", url.Values{}, h); code != http.StatusSeeOther {
		t.Fatalf("end others = %d", code)
	}
	if app.live(t, tablet) || app.live(t, other) || !app.live(t, laptop) || !app.live(t, bobs) {
		t.Fatal("end others ended the wrong sessions")
	}
	if _, _, body := app.do(t, "GET", "/adatum/account/sessions?ended=others", nil, h); !strings.Contains(body, "Every other session is ended") || strings.Contains(body, "Safari on iPhone") {
		t.Fatalf("page after ending the others:\n%s", body)
	}
	// This one: signed out.
	_, _, body = app.do(t, "GET", "/adatum/account/sessions", nil, h)
	own := sessionIDRE.FindStringSubmatch(body)
	code, hdr, _ = app.do(t, "POST", "/adatum/account/sessions/end", url.Values{"id": {own[1]}}, h)
	if code != http.StatusSeeOther || hdr.Get("Location") != "/login" || app.live(t, laptop) {
		t.Fatalf("end this one = %d to %q", code, hdr.Get("Location"))
	}
	ended := 0
	events, _, _ := store.NewAuditStore(app.st).List(ctx, "adatum", survey.AuditFilter{Action: survey.AuditSessionEnded}, "", 10)
	for _, e := range events {
		if e.Actor == ana && e.Target == ana {
			ended++
		}
	}
	if ended != 3 {
		t.Errorf("%d session.ended events of ana, want 3: %+v", ended, events)
	}
}

// TestAdminEndsSessions: an admin sees a member's sessions and ends them
// all at once; the member is signed out everywhere, the admin is not.
func TestAdminEndsSessions(t *testing.T) {
	app, _, _ := twoFactorApp(t)
	ctx := context.Background()
	const boss, bob, pw = "boss@adatum.example", "bob@adatum.example", "another long password"
	for email, role := range map[string]survey.Role{boss: survey.Admin, bob: survey.Viewer} {
		if _, err := testUsers(app.st).AddMember(ctx, "adatum", email, pw, role); err != nil {
			t.Fatal(err)
		}
	}
	admin := app.signInAs(t, boss, pw, firefoxWindows, "198.51.100.30")
	adminH := map[string]string{"Cookie": admin}
	b1 := app.signInAs(t, bob, pw, safariIPhone, "198.51.100.31")
	b2 := app.signInAs(t, bob, pw, firefoxWindows, "198.51.100.32")
	if _, _, body := app.do(t, "GET", "/adatum/settings/members", nil, adminH); !strings.Contains(body, `href="/adatum/settings/members/sessions?email=bob%40adatum.example">Sessions<span class="sr-only"> of bob@adatum.example`) {
		t.Fatalf("members page offers no sessions link:\n%s", body)
	}
	code, _, body := app.do(t, "GET", "/adatum/settings/members/sessions?email=bob%40adatum.example", nil, adminH)
	if code != http.StatusOK || !strings.Contains(body, "Safari on iPhone") || !strings.Contains(body, "from 198.51.100.32") || !strings.Contains(body, "End every session of bob@adatum.example") {
		t.Fatalf("member's sessions = %d:\n%s", code, body)
	}
	if code, _, _ := app.do(t, "GET", "/adatum/settings/members/sessions?email=nobody%40adatum.example", nil, adminH); code != http.StatusNotFound {
		t.Fatalf("sessions of no member = %d", code)
	}
	// A viewer may not.
	if code, _, _ := app.do(t, "POST", "/adatum/settings/members/sessions", url.Values{"email": {boss}}, map[string]string{"Cookie": b1}); code != http.StatusForbidden || !app.live(t, admin) {
		t.Fatalf("a viewer ends an admin's sessions = %d", code)
	}
	code, _, body = app.do(t, "POST", "/adatum/settings/members/sessions", url.Values{"email": {bob}}, adminH)
	if code != http.StatusOK || !strings.Contains(body, "Every session of bob@adatum.example is ended") {
		t.Fatalf("end = %d:\n%s", code, body)
	}
	if app.live(t, b1) || app.live(t, b2) || !app.live(t, admin) {
		t.Fatal("the admin's end ended the wrong sessions")
	}
	events, _, _ := store.NewAuditStore(app.st).List(ctx, "adatum", survey.AuditFilter{Action: survey.AuditSessionEnded}, "", 10)
	if len(events) != 1 || events[0].Actor != boss || events[0].Target != bob || events[0].Detail != "all sessions, by an admin" {
		t.Fatalf("audit: %+v", events)
	}
}

// TestSessionIdleTime: an admin sets the tenant's idle time (a time not
// offered is refused, changing nothing); a session unused longer than it
// ends at its next request, one in use lives on, and last use is noted
// at most every five minutes (so a request in between writes nothing).
func TestSessionIdleTime(t *testing.T) {
	app, clock, _ := twoFactorApp(t)
	ctx := context.Background()
	const boss, bob, pw = "boss@adatum.example", "bob@adatum.example", "another long password"
	for email, role := range map[string]survey.Role{boss: survey.Admin, bob: survey.Viewer} {
		if _, err := testUsers(app.st).AddMember(ctx, "adatum", email, pw, role); err != nil {
			t.Fatal(err)
		}
	}
	admin := app.signInAs(t, boss, pw, firefoxWindows, "198.51.100.40")
	adminH := map[string]string{"Cookie": admin}
	if _, _, body := app.do(t, "GET", "/adatum/settings", nil, adminH); !strings.Contains(body, `<option value="720" selected>12 hours unused</option>`) || !strings.Contains(body, `<option value="15">15 minutes unused</option>`) {
		t.Fatalf("settings page:\n%s", body)
	}
	if code, _, body := app.do(t, "POST", "/adatum/settings", url.Values{"name": {"Adatum"}, "sessionIdle": {"7"}}, adminH); code != http.StatusUnprocessableEntity || !strings.Contains(body, "Choose one of the idle times offered.") {
		t.Fatalf("an idle time not offered = %d", code)
	}
	app.pastCacheTTL()
	if tn := app.tenant(t, "adatum"); tn.SessionIdleMinutes != 0 {
		t.Fatalf("a refused idle time was saved: %+v", tn)
	}
	idle := app.signInAs(t, bob, pw, safariIPhone, "198.51.100.41")
	if code, _, _ := app.do(t, "POST", "/adatum/settings", url.Values{"name": {"Adatum"}, "sessionIdle": {"30"}}, adminH); code != http.StatusSeeOther {
		t.Fatalf("idle time = %d", code)
	}
	app.pastCacheTTL()
	if tn := app.tenant(t, "adatum"); tn.SessionIdle() != 30*time.Minute {
		t.Fatalf("tenant idle time %v", tn.SessionIdle())
	}
	// The admin keeps using theirs every 20 minutes; Bob's lies unused.
	for range 2 {
		clock.Advance(20 * time.Minute)
		if !app.live(t, admin) {
			t.Fatal("a session in use ended")
		}
	}
	if app.live(t, idle) {
		t.Fatal("a session unused for 40 minutes lives with a 30-minute idle time")
	}
	// A request within five minutes of the last noted use writes nothing.
	rows, _ := testUsers(app.st).Sessions(ctx, "adatum", boss)
	before := rows[0].LastSeen
	clock.Advance(2 * time.Minute)
	app.live(t, admin)
	rows, _ = testUsers(app.st).Sessions(ctx, "adatum", boss)
	if !rows[0].LastSeen.Equal(before) {
		t.Errorf("last use noted again within five minutes: %v then %v", before, rows[0].LastSeen)
	}
}
