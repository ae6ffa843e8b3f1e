package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// testPublicURL is the public URL of the test servers that send e-mail:
// every mailed link starts with it.
const testPublicURL = "https://surveys.example"

// outbox records the e-mails the server queues.
type outbox struct {
	mu   sync.Mutex
	sent []mail.Message
	// more is closed at the next Enqueue (wait).
	more chan struct{}
}

func (o *outbox) Enqueue(_ context.Context, m mail.Message) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sent = append(o.sent, m)
	if o.more != nil {
		close(o.more)
		o.more = nil
	}
	return nil
}

// wait returns the messages once there are at least n (a generous
// deadline: the machine may be busy).
func (o *outbox) wait(t testing.TB, n int) []mail.Message {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		o.mu.Lock()
		if len(o.sent) >= n {
			sent := append([]mail.Message(nil), o.sent...)
			o.mu.Unlock()
			return sent
		}
		if o.more == nil {
			o.more = make(chan struct{})
		}
		more := o.more
		o.mu.Unlock()
		select {
		case <-more:
		case <-deadline:
			t.Fatalf("%d e-mails queued, want %d", len(o.messages()), n)
		}
	}
}

func (o *outbox) messages() []mail.Message {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]mail.Message(nil), o.sent...)
}

// sessionOf signs a member in without the sign-in form, and returns the
// cookie header.
func sessionOf(t *testing.T, app *testApp, tenant, email string, role survey.Role) string {
	t.Helper()
	token, err := testUsers(app.st).NewSession(context.Background(), &survey.User{Tenant: tenant, Email: email, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	return "surveys_session=" + token
}

var inviteLink = regexp.MustCompile(`https?://[^/\s"]+(/invite/lnk_[A-Za-z0-9_-]{43})`)

// TestInvitationEndToEnd: an admin invites an editor by e-mail; 422s
// beside the field save nothing; the link shows the tenant and the
// address, refuses a bad password (422, the link still good), then makes
// the account with its role, signs in and lands on the dashboard, once:
// used, unknown, expired, withdrawn or another purpose's links are 410.
func TestInvitationEndToEnd(t *testing.T) {
	t.Parallel()
	box := &outbox{}
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Mail, d.PublicURL = box, testPublicURL })
	ctx := context.Background()
	users, links := testUsers(app.st), store.NewLinkStore(app.st)
	if _, err := users.Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	ana := map[string]string{"Cookie": sessionOf(t, app, "adatum", "ana@adatum.example", survey.Admin)}
	pending := func() []store.Link {
		l, err := links.List(ctx, "adatum", store.LinkInvite)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}

	code, _, body := app.do(t, "GET", "/adatum/settings/members", nil, ana)
	if code != 200 || !strings.Contains(body, "ana@adatum.example") || !strings.Contains(body, "the only admin") {
		t.Fatalf("members page = %d:\n%s", code, body)
	}
	for _, tc := range []struct {
		name  string
		form  url.Values
		field string
	}{
		{"no email", url.Values{"email": {""}, "role": {"editor"}}, "email-error"},
		{"bad email", url.Values{"email": {"eve at example"}, "role": {"editor"}}, "email-error"},
		{"bad role", url.Values{"email": {"eve@adatum.example"}, "role": {"owner"}}, "role-error"},
		{"a member", url.Values{"email": {"ANA@adatum.example"}, "role": {"viewer"}}, "email-error"},
	} {
		code, _, body := app.do(t, "POST", "/adatum/settings/members", tc.form, ana)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="`+tc.field+`"`) {
			t.Errorf("%s: %d, want 422 with #%s:\n%s", tc.name, code, tc.field, body)
		}
	}
	if n := len(pending()) + len(box.messages()); n != 0 {
		t.Fatalf("bad invitations made %d links or e-mails", n)
	}

	code, _, body = app.do(t, "POST", "/adatum/settings/members", url.Values{"email": {"Eve@Adatum.example"}, "role": {"editor"}}, ana)
	if code != 200 || !strings.Contains(body, "on its way to eve@adatum.example") || strings.Contains(body, "/invite/lnk_") {
		t.Fatalf("invite = %d:\n%s", code, body)
	}
	sent := box.messages()
	if len(sent) != 1 || sent[0].To != "eve@adatum.example" || !strings.Contains(sent[0].Subject, "Adatum") {
		t.Fatalf("sent %+v", sent)
	}
	m := inviteLink.FindStringSubmatch(sent[0].Text)
	if m == nil || !strings.Contains(sent[0].HTML, m[0]) {
		t.Fatalf("the e-mail has no invitation link:\n%s\n%s", sent[0].Text, sent[0].HTML)
	}
	path := m[1]
	if p := pending(); len(p) != 1 || p[0].Email != "eve@adatum.example" || p[0].Role != "editor" || p[0].By != "ana@adatum.example" {
		t.Fatalf("pending invitations %+v", p)
	}

	code, hdr, body := app.do(t, "GET", path, nil, nil)
	if code != 200 || !strings.Contains(body, "eve@adatum.example") || !strings.Contains(body, "Join Adatum") || hdr.Get("Cache-Control") != "no-store" {
		t.Fatalf("the invitation page = %d:\n%s", code, body)
	}
	for _, tc := range []struct {
		name, password, confirm, field string
	}{
		{"short", "short", "short", "password-error"},
		{"common", "password123", "password123", "password-error"},
		{"differ", "a long enough password", "a long enough passwort", "confirm-error"},
	} {
		code, _, body := app.do(t, "POST", path, url.Values{"password": {tc.password}, "confirm": {tc.confirm}}, nil)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="`+tc.field+`"`) {
			t.Errorf("%s password: %d, want 422 with #%s", tc.name, code, tc.field)
		}
	}
	if list, _ := users.Members(ctx, "adatum"); len(list) != 1 || len(pending()) != 1 {
		t.Fatalf("bad passwords made an account or used the link: %+v", list)
	}

	code, hdr, _ = app.do(t, "POST", path, url.Values{"password": {"a long enough password"}, "confirm": {"a long enough password"}}, nil)
	if code != http.StatusSeeOther || hdr.Get("Location") != "/adatum/surveys" {
		t.Fatalf("accept = %d to %q", code, hdr.Get("Location"))
	}
	cookie := ""
	for _, c := range (&http.Response{Header: hdr}).Cookies() {
		if c.Name == "surveys_session" {
			cookie = c.Name + "=" + c.Value
		}
	}
	eve := map[string]string{"Cookie": cookie}
	code, _, body = app.do(t, "GET", "/adatum/surveys", nil, eve)
	if code != 200 || !strings.Contains(body, "New survey") || strings.Contains(body, `/adatum/settings"`) || strings.Contains(body, "/adatum/settings/members") {
		t.Errorf("the editor's dashboard = %d: want New survey and no settings:\n%s", code, body)
	}
	if code, _, _ := app.do(t, "GET", "/adatum/settings/members", nil, eve); code != http.StatusForbidden {
		t.Errorf("the editor's members page = %d", code)
	}
	if u, err := users.Authenticate(ctx, "adatum", "eve@adatum.example", "a long enough password"); err != nil || u.Role != survey.Editor {
		t.Errorf("eve's account: %+v, %v", u, err)
	}

	// The link worked once; other links do not work at all.
	reset, err := links.Create(ctx, store.Link{Purpose: store.LinkReset, Tenant: "adatum", Email: "zoe@adatum.example"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	// A link made two hours ago for one hour.
	past := store.NewLinkStore(app.st).WithClock(func() time.Time { return time.Now().Add(-2 * time.Hour) })
	expired, err := past.Create(ctx, store.Link{Purpose: store.LinkInvite, Tenant: "adatum", Email: "old@adatum.example", Role: "viewer"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]string{
		"used":         path,
		"unknown":      "/invite/lnk_" + strings.Repeat("A", 43),
		"malformed":    "/invite/nonsense",
		"reset link":   "/invite/" + reset,
		"expired link": "/invite/" + expired,
	} {
		for _, method := range []string{"GET", "POST"} {
			code, _, body := app.do(t, method, p, url.Values{"password": {"a long enough password"}, "confirm": {"a long enough password"}}, nil)
			if code != http.StatusGone || !strings.Contains(body, "Ask an admin") {
				t.Errorf("%s %s link = %d:\n%s", method, name, code, body)
			}
		}
	}
	if list, _ := users.Members(ctx, "adatum"); len(list) != 2 {
		t.Errorf("members after the bad links: %+v", list)
	}

	// A withdrawn invitation's link no longer works.
	app.do(t, "POST", "/adatum/settings/members", url.Values{"email": {"vic@adatum.example"}, "role": {"viewer"}}, ana)
	vic := inviteLink.FindStringSubmatch(box.messages()[1].Text)[1]
	p := pending()
	if len(p) != 1 {
		t.Fatalf("pending %+v", p)
	}
	if code, hdr, _ := app.do(t, "POST", "/adatum/settings/invitations/"+p[0].ID+"/revoke", url.Values{}, ana); code != 303 || hdr.Get("Location") != "/adatum/settings/members?done=revoked" {
		t.Errorf("revoke = %d", code)
	}
	if code, _, _ := app.do(t, "GET", vic, nil, nil); code != http.StatusGone {
		t.Errorf("a withdrawn invitation = %d", code)
	}
}

// TestInvitationWithoutMail: with e-mail off, the page says so and shows
// the link to pass on.
func TestInvitationWithoutMail(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ana := map[string]string{"Cookie": sessionOf(t, app, "adatum", "ana@adatum.example", survey.Admin)}
	code, _, body := app.do(t, "GET", "/adatum/settings/members", nil, ana)
	if code != 200 || !strings.Contains(body, "E-mail is not set up") {
		t.Fatalf("members page = %d:\n%s", code, body)
	}
	code, _, body = app.do(t, "POST", "/adatum/settings/members", url.Values{"email": {"eve@adatum.example"}, "role": {"viewer"}}, ana)
	m := inviteLink.FindStringSubmatch(body)
	if code != 200 || m == nil || !strings.Contains(body, "pass this link on yourself") {
		t.Fatalf("invite without mail = %d:\n%s", code, body)
	}
	if code, _, body := app.do(t, "GET", m[1], nil, nil); code != 200 || !strings.Contains(body, "Viewer") {
		t.Errorf("the link = %d:\n%s", code, body)
	}
}

// TestInvitationThroughIdentityProvider: in a tenant with its own identity
// provider the invitation offers it; accepting makes the account (no
// password) with the invitation's role and sends the person to sign in
// there, whose sign-in keeps that role.
func TestInvitationThroughIdentityProvider(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	tenants := store.NewTenantStore(app.st).WithSecrets(testBox)
	tn, err := tenants.Get(ctx, "adatum")
	if err != nil {
		t.Fatal(err)
	}
	tn.IssuerURL, tn.ClientID = "https://login.adatum.example", "surveys"
	if err := tenants.Update(ctx, tn); err != nil {
		t.Fatal(err)
	}
	token, err := store.NewLinkStore(app.st).Create(ctx, store.Link{Purpose: store.LinkInvite, Tenant: "adatum", Email: "oli@adatum.example", Role: "viewer", By: "ana@adatum.example"}, store.InviteLinkTTL)
	if err != nil {
		t.Fatal(err)
	}
	code, _, body := app.do(t, "GET", "/invite/"+token, nil, nil)
	if code != 200 || !strings.Contains(body, "Sign in with your organisation") {
		t.Fatalf("invitation page = %d:\n%s", code, body)
	}
	code, hdr, _ := app.do(t, "POST", "/invite/"+token, url.Values{"via": {"oidc"}}, nil)
	if code != http.StatusSeeOther || hdr.Get("Location") != "/login/adatum/oidc" {
		t.Fatalf("accept = %d to %q", code, hdr.Get("Location"))
	}
	users := testUsers(app.st)
	if u, err := users.SignInExternal(ctx, "adatum", "oli@adatum.example", "https://login.adatum.example", "oli"); err != nil || u.Role != survey.Viewer {
		t.Errorf("the provider's sign-in = %+v, %v; want a viewer", u, err)
	}
	if code, _, _ := app.do(t, "POST", "/invite/"+token, url.Values{"via": {"oidc"}}, nil); code != http.StatusGone {
		t.Errorf("a second use = %d", code)
	}
}

// TestMembersRolesAndRemoval: an admin changes a member's role (their
// session follows at once) and removes them (their sessions end), behind a
// page that asks; the last admin can be neither demoted nor removed (422,
// said plainly).
func TestMembersRolesAndRemoval(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	users := testUsers(app.st)
	if _, err := users.Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if _, err := users.AddMember(ctx, "adatum", "eve@adatum.example", "another long password", survey.Editor); err != nil {
		t.Fatal(err)
	}
	ana := map[string]string{"Cookie": sessionOf(t, app, "adatum", "ana@adatum.example", survey.Admin)}
	u, err := users.Authenticate(ctx, "adatum", "eve@adatum.example", "another long password")
	if err != nil {
		t.Fatal(err)
	}
	token, err := users.NewSession(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	eve := map[string]string{"Cookie": "surveys_session=" + token}
	if code, _, _ := app.do(t, "GET", "/adatum/surveys/new", nil, eve); code != 200 {
		t.Fatalf("the editor's new survey = %d", code)
	}

	for _, tc := range []struct {
		name, path string
		form       url.Values
	}{
		{"demote", "/adatum/settings/members/role", url.Values{"email": {"ana@adatum.example"}, "role": {"viewer"}}},
		{"remove", "/adatum/settings/members/remove", url.Values{"email": {"ana@adatum.example"}}},
	} {
		code, _, body := app.do(t, "POST", tc.path, tc.form, ana)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, "at least one admin") {
			t.Errorf("%s the last admin = %d:\n%s", tc.name, code, body)
		}
	}
	if code, _, body := app.do(t, "POST", "/adatum/settings/members/role", url.Values{"email": {"eve@adatum.example"}, "role": {"boss"}}, ana); code != http.StatusUnprocessableEntity || !strings.Contains(body, "Choose a role") {
		t.Errorf("a made-up role = %d", code)
	}

	// Eve becomes a viewer: at once, without signing in again.
	if code, hdr, _ := app.do(t, "POST", "/adatum/settings/members/role", url.Values{"email": {"eve@adatum.example"}, "role": {"viewer"}}, ana); code != 303 || hdr.Get("Location") != "/adatum/settings/members?done=role" {
		t.Fatalf("change role = %d", code)
	}
	if code, _, _ := app.do(t, "GET", "/adatum/surveys/new", nil, eve); code != http.StatusForbidden {
		t.Errorf("the viewer's new survey = %d", code)
	}
	// What a viewer sees hides what a viewer cannot do.
	sp := "/adatum/surveys/" + app.adatum.Slug
	for path, hidden := range map[string][]string{
		"/adatum/surveys":     {"New survey", `href="/adatum/settings"`, "/adatum/settings/members", sp + "/edit"},
		sp + "/analyze":       {sp + "/edit", "/transfer"},
		sp + "/share":         {sp + "/edit"},
		sp + "/answers/table": {sp + "/edit"},
	} {
		code, _, body := app.do(t, "GET", path, nil, eve)
		if code != 200 {
			t.Errorf("the viewer's %s = %d", path, code)
		}
		for _, h := range hidden {
			if strings.Contains(body, h) {
				t.Errorf("the viewer's %s shows %q", path, h)
			}
		}
	}

	code, _, body := app.do(t, "GET", "/adatum/settings/members/remove?email=eve@adatum.example", nil, ana)
	if code != 200 || !strings.Contains(body, "Remove eve@adatum.example?") || !strings.Contains(body, "signed out everywhere") {
		t.Fatalf("the removal page = %d:\n%s", code, body)
	}
	if code, _, _ := app.do(t, "GET", "/adatum/settings/members/remove?email=nobody@adatum.example", nil, ana); code != 404 {
		t.Errorf("removing no one = %d", code)
	}
	if code, hdr, _ := app.do(t, "POST", "/adatum/settings/members/remove", url.Values{"email": {"eve@adatum.example"}}, ana); code != 303 || hdr.Get("Location") != "/adatum/settings/members?done=removed" {
		t.Fatalf("remove = %d", code)
	}
	if code, hdr, _ := app.do(t, "GET", "/adatum/surveys", nil, eve); code != 303 || !strings.HasPrefix(hdr.Get("Location"), "/login") {
		t.Errorf("the removed member's session = %d to %q", code, hdr.Get("Location"))
	}
	if list, _ := users.Members(ctx, "adatum"); len(list) != 1 {
		t.Errorf("members after the removal: %+v", list)
	}
}

// TestTokensPage: an admin makes a token (shown once), which does what its
// role allows; 422s beside the field make none; revoked, it stops working.
func TestTokensPage(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ana := map[string]string{"Cookie": sessionOf(t, app, "adatum", "ana@adatum.example", survey.Admin)}
	tokens := store.NewTokenStore(app.st)
	for _, tc := range []struct {
		name  string
		form  url.Values
		field string
	}{
		{"no name", url.Values{"name": {" "}, "role": {"viewer"}, "expires": {"30"}}, "name-error"},
		{"long name", url.Values{"name": {strings.Repeat("n", 101)}, "role": {"viewer"}, "expires": {"30"}}, "name-error"},
		{"bad role", url.Values{"name": {"Reports"}, "role": {"root"}, "expires": {"30"}}, "role-error"},
		{"bad expiry", url.Values{"name": {"Reports"}, "role": {"viewer"}, "expires": {"7"}}, "expires-error"},
	} {
		code, _, body := app.do(t, "POST", "/adatum/settings/tokens", tc.form, ana)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, `id="`+tc.field+`"`) {
			t.Errorf("%s: %d, want 422 with #%s", tc.name, code, tc.field)
		}
	}
	if list, _ := tokens.List(context.Background(), "adatum"); len(list) != 0 {
		t.Fatalf("bad forms made tokens: %+v", list)
	}
	code, _, body := app.do(t, "POST", "/adatum/settings/tokens", url.Values{"name": {"Reports job"}, "role": {"viewer"}, "expires": {"30"}}, ana)
	token := regexp.MustCompile(`svy_[A-Za-z0-9_-]{43}`).FindString(body)
	if code != 200 || token == "" || !strings.Contains(body, "shown this once") {
		t.Fatalf("make a token = %d:\n%s", code, body)
	}
	if code, _, _ := app.api(t, "GET", "/api/v1/surveys", token, ""); code != 200 {
		t.Errorf("the viewer token reads: %d", code)
	}
	if code, _, _ := app.api(t, "POST", "/api/v1/surveys", token, `{"title":"x","questions":[{"text":"y","type":"SimpleText"}]}`); code != http.StatusForbidden {
		t.Errorf("the viewer token writes: %d", code)
	}
	code, _, body = app.do(t, "GET", "/adatum/settings/tokens", nil, ana)
	if code != 200 || strings.Contains(body, token) || !strings.Contains(body, "Reports job") || !strings.Contains(body, "Viewer") {
		t.Fatalf("tokens page = %d (the token must not show again):\n%s", code, body)
	}
	list, err := tokens.List(context.Background(), "adatum")
	if err != nil || len(list) != 1 || list[0].LastUsed.IsZero() || list[0].Expires.Sub(list[0].CreatedOn) != 30*24*time.Hour {
		t.Fatalf("tokens %+v, %v", list, err)
	}
	if code, _, _ := app.do(t, "POST", "/adatum/settings/tokens/"+list[0].ID+"/revoke", url.Values{}, ana); code != 303 {
		t.Errorf("revoke = %d", code)
	}
	if code, _, _ := app.api(t, "GET", "/api/v1/surveys", token, ""); code != http.StatusUnauthorized {
		t.Errorf("a revoked token = %d", code)
	}
}

// TestInviteRateLimited: POST /invite is limited per address like
// sign-ins.
func TestInviteRateLimited(t *testing.T) {
	t.Parallel()
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Limits.SignIns = 2 })
	codes := []int{}
	for range 3 {
		code, _, _ := app.do(t, "POST", "/invite/lnk_"+strings.Repeat("B", 43), url.Values{"password": {"x"}}, nil)
		codes = append(codes, code)
	}
	if codes[0] != http.StatusGone || codes[2] != http.StatusTooManyRequests {
		t.Errorf("three invitation posts = %v; want 410 … 429", codes)
	}
}
