package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// signIn posts the sign-in form and returns the status and session cookie.
func (a *testApp) signIn(t testing.TB, tenant, email, password string) (int, *http.Cookie) {
	t.Helper()
	req, _ := http.NewRequest("POST", a.srv.URL+"/login", strings.NewReader(url.Values{"tenant": {tenant}, "email": {email}, "password": {password}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := a.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "surveys_session" {
			return resp.StatusCode, c
		}
	}
	return resp.StatusCode, nil
}

func (a *testApp) get(t *testing.T, path string, c *http.Cookie) (int, http.Header, string) {
	t.Helper()
	h := map[string]string{}
	if c != nil {
		h["Cookie"] = c.Name + "=" + c.Value
	}
	return a.do(t, "GET", path, nil, h)
}

func TestSignInAndTenantIsolation(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	users := testUsers(app.st)
	if _, err := users.Add(ctx, "adatum", "Ana@Adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Add(ctx, "fabrikam", "fred@fabrikam.example", "another long password"); err != nil {
		t.Fatal(err)
	}
	// One answer, so that the dashboard has a count to show.
	tok := app.token(t, app.path())
	if code, _, _ := app.do(t, "POST", app.path(), app.complete(tok), nil); code != 303 {
		t.Fatal("answer not accepted")
	}
	app.stored(t)

	for _, tc := range []struct{ name, tenant, email, password string }{
		{"wrong password", "adatum", "ana@adatum.example", "wrong password!"},
		{"unknown user", "adatum", "nobody@adatum.example", "correct horse battery"},
		{"right user, other tenant", "fabrikam", "ana@adatum.example", "correct horse battery"},
		{"bad tenant", "../x", "ana@adatum.example", "correct horse battery"},
	} {
		if code, c := app.signIn(t, tc.tenant, tc.email, tc.password); code != http.StatusUnauthorized || c != nil {
			t.Errorf("%s: sign-in = %d, cookie %v; want 401 and none", tc.name, code, c)
		}
	}

	code, ana := app.signIn(t, "adatum", "ANA@adatum.example ", "correct horse battery")
	if code != http.StatusSeeOther || ana == nil || !ana.HttpOnly || ana.SameSite != http.SameSiteLaxMode {
		t.Fatalf("sign-in = %d, cookie %+v", code, ana)
	}
	_, fredCookie := app.signIn(t, "fabrikam", "fred@fabrikam.example", "another long password")

	code, _, body := app.get(t, "/adatum/surveys", ana)
	if code != 200 || !strings.Contains(body, "Adatum customer satisfaction") || !strings.Contains(body, "published") || !strings.Contains(body, `<td class="num">1</td>`) {
		t.Fatalf("dashboard = %d\n%s", code, body)
	}
	// Every subscriber route, as Adatum against Fabrikam: 403, nothing of Fabrikam's.
	for _, path := range []string{"/fabrikam/surveys", "/fabrikam/account/password"} {
		code, _, body := app.get(t, path, ana)
		if code != http.StatusForbidden || strings.Contains(body, "Fabrikam product feedback") || strings.Contains(body, "fred@") {
			t.Errorf("GET %s as Adatum = %d\n%s", path, code, body)
		}
	}
	code, _, _ = app.do(t, "POST", "/fabrikam/account/password", url.Values{"current": {"x"}, "new": {"y"}, "confirm": {"y"}}, map[string]string{"Cookie": "surveys_session=" + ana.Value})
	if code != http.StatusForbidden {
		t.Errorf("POST to Fabrikam's password page as Adatum = %d", code)
	}
	if code, _, body := app.get(t, "/fabrikam/surveys", fredCookie); code != 200 || !strings.Contains(body, "Fabrikam product feedback") || strings.Contains(body, "Adatum customer") {
		t.Errorf("Fabrikam's own dashboard = %d", code)
	}
	// No session, or a forged one: to the sign-in page.
	for _, c := range []*http.Cookie{nil, {Name: "surveys_session", Value: strings.Repeat("A", 43)}} {
		code, h, _ := app.get(t, "/adatum/surveys", c)
		if code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login?next=") {
			t.Errorf("dashboard without a session = %d %q", code, h.Get("Location"))
		}
	}
	// A cross-site sign-out is refused; a same-site one ends the session.
	if code, _, _ := app.do(t, "POST", "/logout", url.Values{}, map[string]string{"Cookie": "surveys_session=" + ana.Value, "Sec-Fetch-Site": "cross-site"}); code != http.StatusForbidden {
		t.Errorf("cross-site logout = %d", code)
	}
	if code, _, _ := app.do(t, "POST", "/logout", url.Values{}, map[string]string{"Cookie": "surveys_session=" + ana.Value}); code != http.StatusSeeOther {
		t.Errorf("logout = %d", code)
	}
	if code, _, _ := app.get(t, "/adatum/surveys", ana); code != http.StatusSeeOther {
		t.Errorf("dashboard after logout = %d, want a redirect to sign in", code)
	}
}

func TestPasswordChangeAndThrottle(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	users := testUsers(app.st)
	if _, err := users.Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	for _, tc := range []struct {
		name                 string
		current, next, again string
		code                 int
		says                 string
	}{
		{"mismatch", "correct horse battery", "a brand new secret", "a different one", 422, "The two new passwords differ."},
		{"wrong current", "nope nope nope", "a brand new secret", "a brand new secret", 422, "The current password is not right."},
		{"too short", "correct horse battery", "short", "short", 422, "Use at least 10 characters."},
		{"changed", "correct horse battery", "a brand new secret", "a brand new secret", 200, "Your password is changed."},
	} {
		code, _, body := app.do(t, "POST", "/adatum/account/password", url.Values{"current": {tc.current}, "new": {tc.next}, "confirm": {tc.again}}, cookie)
		if code != tc.code || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d, want %d with %q", tc.name, code, tc.code, tc.says)
		}
	}
	if code, _ := app.signIn(t, "adatum", "ana@adatum.example", "a brand new secret"); code != 303 {
		t.Fatalf("sign-in with the new password = %d", code)
	}
	// A throttled account refuses even the right password.
	throttleAccount(t, app.st, "adatum", "ana@adatum.example")
	if code, c := app.signIn(t, "adatum", "ana@adatum.example", "a brand new secret"); code != http.StatusUnauthorized || c != nil {
		t.Fatalf("sign-in of a throttled account = %d", code)
	}
}

// TestHeaderShowsAccount: a signed-in subscriber's pages name the account
// in the header, with a way back and a sign-out; pages without a session
// offer the sign-in.
func TestHeaderShowsAccount(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	cookie := map[string]string{"Cookie": "surveys_session=" + c.Value}
	header := regexp.MustCompile(`(?s)<nav aria-label="Account"[^>]*>(.*?)</nav>`)
	cases := []struct {
		name, path string
		header     map[string]string
		want, not  []string
	}{
		{"dashboard", "/adatum/surveys", cookie, []string{"ana@adatum.example", `href="/adatum/surveys"`, `action="/logout"`}, []string{"Subscriber sign-in"}},
		{"settings", "/adatum/settings", cookie, []string{"ana@adatum.example", "Sign out"}, []string{"Subscriber sign-in"}},
		{"sign-in page", "/login", nil, []string{"Subscriber sign-in", "Start free"}, []string{"Sign out"}},
	}
	for _, tc := range cases {
		code, _, body := app.do(t, "GET", tc.path, nil, tc.header)
		m := header.FindStringSubmatch(body)
		if code != 200 || m == nil {
			t.Errorf("%s: %d, header found: %v", tc.name, code, m != nil)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(m[1], w) {
				t.Errorf("%s: header %q lacks %q", tc.name, m[1], w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(m[1], n) {
				t.Errorf("%s: header %q has %q", tc.name, m[1], n)
			}
		}
	}
}
