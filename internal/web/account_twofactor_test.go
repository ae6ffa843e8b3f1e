package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// twoFactorApp is a test app whose accounts and two-step tokens share a
// clock the test moves (a code serves once per 30 s step), and that
// mails through box.
func twoFactorApp(t *testing.T) (*testApp, *testClock, *outbox) {
	t.Helper()
	st := backends.Local(t)
	clock := &testClock{}
	box := &outbox{}
	users := testUsers(st).WithClock(clock.Now)
	app := newTestAppOn(t, st, func(d *web.Deps) {
		d.Users, d.Accounts, d.Clock = users, users, clock.Now
		d.Mail, d.PublicURL = box, testPublicURL
	})
	return app, clock, box
}

var (
	setupRE    = regexp.MustCompile(`name="setup" value="([^"]+)"`)
	secretRE   = regexp.MustCompile(`<code class="totp-secret">([A-Z2-7 ]+)</code>`)
	recoveryRE = regexp.MustCompile(`<li><code>([a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4})</code></li>`)
	stepRE     = regexp.MustCompile(`name="token" value="([^"]+)"`)
)

// cookieOf is the session cookie a response set, as a request header ("" if none).
func cookieOf(h http.Header) string {
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if c.Name == "surveys_session" && c.Value != "" {
			return c.Name + "=" + c.Value
		}
	}
	return ""
}

// passwordStep posts the sign-in form from addr and returns the status,
// the session cookie set ("" if none), the sealed token of the code page
// ("" if none) and the body.
func (a *testApp) passwordStep(t *testing.T, email, password, addr string) (int, string, string, string) {
	t.Helper()
	code, h, body := a.do(t, "POST", "/login", url.Values{"tenant": {"adatum"}, "email": {email}, "password": {password}}, map[string]string{"X-Forwarded-For": addr})
	token := ""
	if m := stepRE.FindStringSubmatch(body); m != nil {
		token = html.UnescapeString(m[1])
	}
	return code, cookieOf(h), token, body
}

// codeStep posts the code page's form.
func (a *testApp) codeStep(t *testing.T, token, field, value, addr string) (int, http.Header, string) {
	t.Helper()
	return a.do(t, "POST", "/login/code", url.Values{"token": {token}, field: {value}}, map[string]string{"X-Forwarded-For": addr})
}

// enrol turns two-step sign-in on for the signed-in member of cookie and
// returns the secret and the recovery codes shown.
func (a *testApp) enrol(t *testing.T, cookie string, clock *testClock) (string, []string) {
	t.Helper()
	h := map[string]string{"Cookie": cookie}
	code, _, body := a.do(t, "GET", "/adatum/account/two-factor", nil, h)
	setup, secret := setupRE.FindStringSubmatch(body), secretRE.FindStringSubmatch(body)
	if code != http.StatusOK || setup == nil || secret == nil {
		t.Fatalf("enrolment page = %d without its setup or key:\n%s", code, body)
	}
	for _, want := range []string{`src="data:image/png;base64,`, `alt="QR code that adds`, `autocomplete="one-time-code"`, `inputmode="numeric"`, `<label for="code">`} {
		if !strings.Contains(body, want) {
			t.Errorf("enrolment page lacks %q", want)
		}
	}
	key := strings.ReplaceAll(secret[1], " ", "")
	setup[1] = html.UnescapeString(setup[1])
	// A wrong code turns nothing on, and keeps the same key on the page.
	wrong := "000000"
	if right, _ := totp.GenerateCode(key, clock.Now()); right == wrong {
		wrong = "111111"
	}
	code, _, body = a.do(t, "POST", "/adatum/account/two-factor", url.Values{"setup": {setup[1]}, "code": {wrong}}, h)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "That code is not right") || !strings.Contains(body, secret[1]) {
		t.Fatalf("wrong enrolment code = %d:\n%s", code, body)
	}
	right, err := totp.GenerateCode(key, clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	code, _, body = a.do(t, "POST", "/adatum/account/two-factor", url.Values{"setup": {setup[1]}, "code": {right}}, h)
	var codes []string
	for _, m := range recoveryRE.FindAllStringSubmatch(body, -1) {
		codes = append(codes, m[1])
	}
	if code != http.StatusOK || len(codes) != 10 || !strings.Contains(body, "this is the only time we show them") {
		t.Fatalf("enrolment = %d with %d recovery codes:\n%s", code, len(codes), body)
	}
	return key, codes
}

// TestTwoFactorSignIn walks the whole flow: enrol with a code the library
// computes, sign out, sign in with the password (no session yet: a code
// page), a replayed, a wrong and an expired step refused, the right code
// signs in; a recovery code works once; the code step is throttled per
// client address too; turning it off takes the password and a code.
func TestTwoFactorSignIn(t *testing.T) {
	app, clock, _ := twoFactorApp(t)
	ctx := context.Background()
	const ana, pw, here = "ana@adatum.example", "another long password", "198.51.100.7"
	if _, err := testUsers(app.st).AddMember(ctx, "adatum", ana, pw, survey.Editor); err != nil {
		t.Fatal(err)
	}
	code, cookie, token, _ := app.passwordStep(t, ana, pw, here)
	if code != http.StatusSeeOther || cookie == "" || token != "" {
		t.Fatalf("password sign-in without two-step = %d, cookie %q", code, cookie)
	}
	key, recovery := app.enrol(t, cookie, clock)
	if code, _, body := app.do(t, "GET", "/adatum/account/two-factor", nil, map[string]string{"Cookie": cookie}); code != http.StatusOK ||
		!strings.Contains(body, "is <strong>on</strong>") || !strings.Contains(body, "10 unused recovery codes") || recoveryRE.MatchString(body) {
		t.Fatalf("page after enrolment = %d (the codes are shown once):\n%s", code, body)
	}
	if code, _, _ := app.do(t, "POST", "/logout", url.Values{}, map[string]string{"Cookie": cookie}); code != http.StatusSeeOther {
		t.Fatalf("logout = %d", code)
	}

	// The password alone makes no session: the code page.
	code, cookie, token, body := app.passwordStep(t, ana, pw, here)
	if code != http.StatusOK || cookie != "" || token == "" {
		t.Fatalf("password of a two-step account = %d, cookie %q, token %q", code, cookie, token)
	}
	for _, want := range []string{`autocomplete="one-time-code"`, `inputmode="numeric"`, `<label for="code">`, `<label for="recovery">`, "Use a recovery code"} {
		if !strings.Contains(body, want) {
			t.Errorf("code page lacks %q", want)
		}
	}
	// An app's member without a passkey gets no script: the page is plain forms.
	if strings.Contains(body, "<script") || strings.Contains(body, "Use your passkey") {
		t.Errorf("the code page of an account without passkeys has a script or a passkey button")
	}
	enrolCode, _ := totp.GenerateCode(key, clock.Now())
	wrong := "000000"
	if enrolCode == wrong {
		wrong = "111111"
	}
	for _, tc := range []struct{ name, token, value string }{
		{"the enrolment's code again (same step)", token, enrolCode},
		{"a wrong code", token, wrong},
		{"no code", token, ""},
		{"a tampered token", token[:len(token)-4] + "AAAA", enrolCode},
		{"no token", "", enrolCode},
	} {
		code, h, body := app.codeStep(t, tc.token, "code", tc.value, here)
		want := http.StatusUnauthorized
		if tc.token != token {
			want = http.StatusBadRequest
		}
		if code != want || cookieOf(h) != "" || strings.Contains(body, "Sign out") {
			t.Errorf("%s = %d (want %d), cookie %q", tc.name, code, want, cookieOf(h))
		}
	}
	clock.Advance(30 * time.Second)
	right, _ := totp.GenerateCode(key, clock.Now())
	code, h, _ := app.codeStep(t, token, "code", right[:3]+" "+right[3:], here)
	if cookie = cookieOf(h); code != http.StatusSeeOther || cookie == "" || h.Get("Location") != "/adatum/surveys" {
		t.Fatalf("right code = %d to %q, cookie %q", code, h.Get("Location"), cookie)
	}
	if code, _, _ := app.do(t, "GET", "/adatum/surveys", nil, map[string]string{"Cookie": cookie}); code != http.StatusOK {
		t.Fatalf("dashboard after two steps = %d", code)
	}
	// The same code, on another sign-in: used.
	_, _, token, _ = app.passwordStep(t, ana, pw, here)
	if code, h, _ := app.codeStep(t, token, "code", right, here); code != http.StatusUnauthorized || cookieOf(h) != "" {
		t.Fatalf("replayed code = %d", code)
	}

	// A recovery code signs in once, and the page says how many are left.
	code, h, _ = app.codeStep(t, token, "recovery", strings.ToUpper(recovery[2]), here)
	if code != http.StatusSeeOther || cookieOf(h) == "" || h.Get("Location") != "/adatum/account/two-factor?recovery=used" {
		t.Fatalf("recovery code = %d to %q", code, h.Get("Location"))
	}
	if _, _, body := app.do(t, "GET", h.Get("Location"), nil, map[string]string{"Cookie": cookieOf(h)}); !strings.Contains(body, "You have 9 left") {
		t.Errorf("page after a recovery code:\n%s", body)
	}
	_, _, token, _ = app.passwordStep(t, ana, pw, here)
	if code, h, _ := app.codeStep(t, token, "recovery", recovery[2], here); code != http.StatusUnauthorized || cookieOf(h) != "" {
		t.Fatalf("recovery code again = %d", code)
	}

	// The token lives five minutes.
	clock.Advance(6 * time.Minute)
	right, _ = totp.GenerateCode(key, clock.Now())
	if code, h, body := app.codeStep(t, token, "code", right, here); code != http.StatusBadRequest || cookieOf(h) != "" || !strings.Contains(body, "took more than five minutes") {
		t.Fatalf("expired token = %d:\n%s", code, body)
	}

	// Per client address: an address that made many failed sign-ins (on
	// any account) is refused the code step unchecked, the code unspent.
	_, _, token, _ = app.passwordStep(t, ana, pw, here)
	const guesser = "203.0.113.9"
	for range 15 {
		app.passwordStep(t, "nobody@adatum.example", "wrong password!", guesser)
	}
	if code, h, _ := app.codeStep(t, token, "code", right, guesser); code != http.StatusUnauthorized || cookieOf(h) != "" {
		t.Fatalf("code from a throttled address = %d", code)
	}
	if code, h, _ := app.codeStep(t, token, "code", right, here); code != http.StatusSeeOther || cookieOf(h) == "" {
		t.Fatalf("the same code from another address = %d", code)
	}
	cookie = cookieOf(h)

	// Off: the password and a code, each checked.
	h2 := map[string]string{"Cookie": cookie}
	clock.Advance(30 * time.Second)
	right, _ = totp.GenerateCode(key, clock.Now())
	if code, _, body := app.do(t, "POST", "/adatum/account/two-factor/disable", url.Values{"password": {"not my password"}, "code": {right}}, h2); code != http.StatusUnprocessableEntity || !strings.Contains(body, "The password is not right") {
		t.Fatalf("off with a wrong password = %d", code)
	}
	if code, _, body := app.do(t, "POST", "/adatum/account/two-factor/disable", url.Values{"password": {pw}, "code": {wrong}}, h2); code != http.StatusUnprocessableEntity || !strings.Contains(body, "That code is not right") {
		t.Fatalf("off with a wrong code = %d", code)
	}
	code, h, _ = app.do(t, "POST", "/adatum/account/two-factor/disable", url.Values{"password": {pw}, "code": {right}}, h2)
	if code != http.StatusSeeOther {
		t.Fatalf("off = %d", code)
	}
	if _, _, body := app.do(t, "GET", h.Get("Location"), nil, h2); !strings.Contains(body, "The authenticator app is off: your password alone signs you in.") {
		t.Errorf("page after off:\n%s", body)
	}
	if code, cookie, _, _ := app.passwordStep(t, ana, pw, here); code != http.StatusSeeOther || cookie == "" {
		t.Fatalf("password sign-in after off = %d", code)
	}
}

// TestTwoFactorRequired: an admin requires two-step sign-in; a member
// without it who signs in is sent to set it up before any other page;
// an admin resets a member's (who is mailed, and whose page says who
// did it), and the member sets it up again at the next sign-in.
func TestTwoFactorRequired(t *testing.T) {
	app, clock, box := twoFactorApp(t)
	ctx := context.Background()
	const boss, bob, pw, here = "boss@adatum.example", "bob@adatum.example", "another long password", "198.51.100.8"
	for email, role := range map[string]survey.Role{boss: survey.Admin, bob: survey.Viewer} {
		if _, err := testUsers(app.st).AddMember(ctx, "adatum", email, pw, role); err != nil {
			t.Fatal(err)
		}
	}
	_, admin, _, _ := app.passwordStep(t, boss, pw, here)
	adminH := map[string]string{"Cookie": admin}
	if code, _, body := app.do(t, "GET", "/adatum/settings", nil, adminH); code != http.StatusOK || !strings.Contains(body, `name="requireTwoFactor"`) || strings.Contains(body, `value="on" checked`) {
		t.Fatalf("settings = %d:\n%s", code, body)
	}
	if code, _, _ := app.do(t, "POST", "/adatum/settings", url.Values{"name": {"Adatum"}, "requireTwoFactor": {"on"}}, adminH); code != http.StatusSeeOther {
		t.Fatalf("require = %d", code)
	}
	app.pastCacheTTL()
	if tn := app.tenant(t, "adatum"); !tn.RequireTwoFactor || tn.Name != "Adatum" {
		t.Fatalf("tenant after the setting: %+v", tn)
	}

	// Bob signs in with his password: sent to set it up, and every other
	// page sends him back.
	code, cookie, _, _ := app.passwordStep(t, bob, pw, here)
	bobH := map[string]string{"Cookie": cookie}
	if code != http.StatusSeeOther || cookie == "" {
		t.Fatalf("bob's sign-in = %d", code)
	}
	for _, p := range []string{"/adatum/surveys", "/adatum/account/password", "/adatum/surveys/" + app.adatum.Slug + "/analyze"} {
		if code, h, _ := app.do(t, "GET", p, nil, bobH); code != http.StatusSeeOther || h.Get("Location") != "/adatum/account/two-factor" {
			t.Errorf("GET %s before enrolling = %d to %q", p, code, h.Get("Location"))
		}
	}
	if _, _, body := app.do(t, "GET", "/adatum/account/two-factor", nil, bobH); !strings.Contains(body, "Your organisation requires two-step sign-in. Set it up now to go on") {
		t.Fatalf("enrolment page of a required member:\n%s", body)
	}
	key, _ := app.enrol(t, cookie, clock)
	if code, _, _ := app.do(t, "GET", "/adatum/surveys", nil, bobH); code != http.StatusOK {
		t.Fatalf("dashboard after enrolling = %d", code)
	}
	// Required: it stays on.
	clock.Advance(30 * time.Second)
	right, _ := totp.GenerateCode(key, clock.Now())
	if code, _, body := app.do(t, "POST", "/adatum/account/two-factor/disable", url.Values{"password": {pw}, "code": {right}}, bobH); code != http.StatusUnprocessableEntity || !strings.Contains(body, "requires two-step sign-in, so it stays on") {
		t.Fatalf("off while required = %d", code)
	}
	// The members page says who has it; the admin resets Bob's.
	if _, _, body := app.do(t, "GET", "/adatum/settings/members", nil, adminH); !strings.Contains(body, `href="/adatum/settings/members/two-factor?email=bob%40adatum.example">Reset two-step sign-in<span class="sr-only"> of bob@adatum.example`) {
		t.Fatalf("members page:\n%s", body)
	}
	// The confirmation names what is lost; only for a member who has it.
	if code, _, body := app.do(t, "GET", "/adatum/settings/members/two-factor?email=bob%40adatum.example", nil, adminH); code != http.StatusOK ||
		!strings.Contains(body, "recovery codes and their passkeys stop working at once") || !strings.Contains(body, "We e-mail them to say you did it.") {
		t.Fatalf("confirmation = %d:\n%s", code, body)
	}
	for _, who := range []string{boss, "nobody@adatum.example"} {
		if code, _, _ := app.do(t, "GET", "/adatum/settings/members/two-factor?email="+url.QueryEscape(who), nil, adminH); code != http.StatusNotFound {
			t.Errorf("confirmation for %s = %d", who, code)
		}
	}
	code, _, body := app.do(t, "POST", "/adatum/settings/members/two-factor", url.Values{"email": {bob}}, adminH)
	if code != http.StatusOK || !strings.Contains(body, "Two-step sign-in of bob@adatum.example is off (authenticator app and passkeys). We e-mailed them to say so.") {
		t.Fatalf("reset = %d:\n%s", code, body)
	}
	sent := box.wait(t, 1)
	if m := sent[0]; m.To != bob || !strings.Contains(m.Subject, "two-step sign-in to Adatum") || !strings.Contains(m.Text, boss) || !strings.Contains(m.Text, testPublicURL+"/login?tenant=adatum") {
		t.Fatalf("mail: %+v", m)
	}
	if code, _, _ := app.do(t, "POST", "/adatum/settings/members/two-factor", url.Values{"email": {bob}}, adminH); code != http.StatusUnprocessableEntity {
		t.Fatalf("reset of none = %d", code)
	}
	if code, _, _ := app.do(t, "POST", "/adatum/settings/members/two-factor", url.Values{"email": {boss}}, adminH); code != http.StatusUnprocessableEntity {
		t.Fatalf("reset of one's own = %d", code)
	}
	// Bob's next sign-in: the password, then set it up again; the page
	// says who turned it off.
	code, cookie, token, _ := app.passwordStep(t, bob, pw, here)
	if code != http.StatusSeeOther || cookie == "" || token != "" {
		t.Fatalf("bob after the reset = %d", code)
	}
	if code, h, _ := app.do(t, "GET", "/adatum/surveys", nil, map[string]string{"Cookie": cookie}); code != http.StatusSeeOther || h.Get("Location") != "/adatum/account/two-factor" {
		t.Fatalf("bob's dashboard after the reset = %d", code)
	}
	if _, _, body := app.do(t, "GET", "/adatum/account/two-factor", nil, map[string]string{"Cookie": cookie}); !strings.Contains(body, "Your two-step sign-in was turned off by "+boss+" on") {
		t.Fatalf("bob's page after the reset:\n%s", body)
	}
	// A teammate invited meanwhile sets it up on accepting.
	if code, _, _ := app.do(t, "POST", "/adatum/settings/members", url.Values{"email": {"carol@adatum.example"}, "role": {"editor"}}, adminH); code/100 != 2 && code != http.StatusSeeOther {
		t.Fatalf("invite = %d", code)
	}
	link := inviteLink.FindStringSubmatch(box.wait(t, 2)[1].Text)
	if link == nil {
		t.Fatal("no invitation link mailed")
	}
	code, h, _ := app.do(t, "POST", link[1], url.Values{"password": {pw}, "confirm": {pw}}, nil)
	if code != http.StatusSeeOther || cookieOf(h) == "" || h.Get("Location") != "/adatum/account/two-factor" {
		t.Fatalf("accepted invitation = %d to %q", code, h.Get("Location"))
	}
	carolH := map[string]string{"Cookie": cookieOf(h)}
	if code, h, _ := app.do(t, "GET", "/adatum/surveys", nil, carolH); code != http.StatusSeeOther || h.Get("Location") != "/adatum/account/two-factor" {
		t.Fatalf("new member's dashboard = %d", code)
	}
	// Lifting the requirement sends nobody to the setup any more.
	if code, _, _ := app.do(t, "POST", "/adatum/settings", url.Values{"name": {"Adatum"}}, adminH); code != http.StatusSeeOther {
		t.Fatalf("lift = %d", code)
	}
	app.pastCacheTTL()
	// Carol's session, sent to the setup before, goes free once the page
	// sees it is no longer required.
	if code, _, body := app.do(t, "GET", "/adatum/account/two-factor", nil, carolH); code != http.StatusOK || strings.Contains(body, "Your organisation requires") {
		t.Fatalf("carol's setup page after the lift = %d:\n%s", code, body)
	}
	if code, _, _ := app.do(t, "GET", "/adatum/surveys", nil, carolH); code != http.StatusOK {
		t.Fatalf("carol's dashboard after the lift = %d", code)
	}
	if code, cookie, _, _ := app.passwordStep(t, bob, pw, here); code != http.StatusSeeOther || cookie == "" {
		t.Fatalf("bob after the lift = %d", code)
	} else if code, _, _ := app.do(t, "GET", "/adatum/surveys", nil, map[string]string{"Cookie": cookie}); code != http.StatusOK {
		t.Fatalf("bob's dashboard after the lift = %d", code)
	}
}

// TestTwoFactorByEmailAlone: signed in by e-mail alone (no organisation
// named), an account with two-step sign-in gets the code page too, and
// a reset link sets the password but does not skip the code.
func TestTwoFactorByEmailAlone(t *testing.T) {
	app, clock, box := twoFactorApp(t)
	ctx := context.Background()
	const ana, pw, here = "ana@adatum.example", "another long password", "198.51.100.9"
	if _, err := testUsers(app.st).AddMember(ctx, "adatum", ana, pw, survey.Editor); err != nil {
		t.Fatal(err)
	}
	_, cookie, _, _ := app.passwordStep(t, ana, pw, here)
	key, _ := app.enrol(t, cookie, clock)
	clock.Advance(30 * time.Second)

	code, h, body := app.do(t, "POST", "/login", url.Values{"email": {ana}, "password": {pw}}, map[string]string{"X-Forwarded-For": here})
	m := stepRE.FindStringSubmatch(body)
	if code != http.StatusOK || cookieOf(h) != "" || m == nil {
		t.Fatalf("sign-in by e-mail alone = %d, cookie %q", code, cookieOf(h))
	}
	right, _ := totp.GenerateCode(key, clock.Now())
	if code, h, _ := app.codeStep(t, html.UnescapeString(m[1]), "code", right, here); code != http.StatusSeeOther || cookieOf(h) == "" {
		t.Fatalf("its code = %d", code)
	}

	// A reset link: the new password, then still the code page.
	if code, _, _ := app.do(t, "POST", "/login/forgot", url.Values{"email": {ana}}, nil); code != http.StatusOK {
		t.Fatalf("forgot = %d", code)
	}
	reset := regexp.MustCompile(`/login/reset/lnk_[A-Za-z0-9_-]{43}`).FindString(box.wait(t, 1)[0].Text)
	if reset == "" {
		t.Fatal("no reset link")
	}
	const newPW = "a brand new long password"
	code, h, body = app.do(t, "POST", reset, url.Values{"new": {newPW}, "confirm": {newPW}}, nil)
	if code != http.StatusOK || cookieOf(h) != "" || !stepRE.MatchString(body) {
		t.Fatalf("reset link of a two-step account = %d, cookie %q", code, cookieOf(h))
	}
}
