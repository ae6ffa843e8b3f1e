package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// TestCommonPasswordsRefused: a password of the common list is refused,
// whatever its case, with 422 and a message beside the field, on sign-up
// and on a password change.
func TestCommonPasswordsRefused(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	const says = "one of the most common"
	code, _, body := app.do(t, "POST", "/onboarding", url.Values{"name": {"Contoso"}, "email": {"carol@contoso.example"}, "password": {"Password123"}, "plan": {"Trial"}}, nil)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `<p class="field-error">This password is `+says) {
		t.Errorf("sign-up with a common password = %d\n%s", code, body)
	}
	if _, err := store.NewTenantStore(app.st).Get(context.Background(), "contoso"); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("the refused sign-up made a tenant: %v", err)
	}
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	code, _, body = app.do(t, "POST", "/adatum/account/password", url.Values{"current": {"correct horse battery"}, "new": {"QWERTYUIOP"}, "confirm": {"QWERTYUIOP"}},
		map[string]string{"Cookie": "surveys_session=" + c.Value})
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, says) {
		t.Errorf("password change to a common password = %d\n%s", code, body)
	}
	if code, _ := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery"); code != http.StatusSeeOther {
		t.Errorf("the old password after a refused change = %d", code)
	}
}

// TestSessionCookieSecure: behind a TLS-terminating proxy (the public URL
// is https, the request itself plain), the session cookie is Secure.
func TestSessionCookieSecure(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	surveys, tenants := store.NewSurveyStore(app.st), store.NewTenantStore(app.st).WithSecrets(testBox)
	for _, tc := range []struct {
		publicURL string
		secure    bool
	}{{"https://surveys.example", true}, {"http://localhost:8080", false}, {"", false}} {
		s, err := web.New(web.Deps{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Surveys: surveys, Tenants: tenants, Storage: app.st,
			Public: store.NewCachedSurveys(surveys, tenants, time.Millisecond), Users: testUsers(app.st), PublicURL: tc.publicURL})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(s.Handler())
		t.Cleanup(srv.Close)
		for _, path := range []string{"/login", "/logout"} {
			req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(url.Values{"tenant": {"adatum"}, "email": {"ana@adatum.example"}, "password": {"correct horse battery"}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, err := app.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			// The session cookie (and, on sign-in, the device cookie).
			cs := resp.Cookies()
			ok := resp.StatusCode == http.StatusSeeOther && len(cs) > 0 && slices.ContainsFunc(cs, func(c *http.Cookie) bool { return c.Name == "surveys_session" })
			for _, c := range cs {
				ok = ok && c.Secure == tc.secure
			}
			if !ok {
				t.Errorf("public URL %q, POST %s: %d, cookies %+v; want Secure %v", tc.publicURL, path, resp.StatusCode, cs, tc.secure)
			}
		}
	}
}

// TestPasswordChangeEndsOtherSessions: changing the password ends the
// account's other sessions, and keeps the one it was changed in; another
// account's sessions stay.
func TestPasswordChangeEndsOtherSessions(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	users := testUsers(app.st)
	for _, email := range []string{"ana@adatum.example", "bob@adatum.example"} {
		if _, err := users.Add(context.Background(), "adatum", email, "correct horse battery"); err != nil {
			t.Fatal(err)
		}
	}
	_, here := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	_, phone := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	_, bob := app.signIn(t, "adatum", "bob@adatum.example", "correct horse battery")
	code, _, _ := app.do(t, "POST", "/adatum/account/password", url.Values{"current": {"correct horse battery"}, "new": {"a brand new secret"}, "confirm": {"a brand new secret"}},
		map[string]string{"Cookie": "surveys_session=" + here.Value})
	if code != http.StatusOK {
		t.Fatalf("password change = %d", code)
	}
	for _, tc := range []struct {
		name   string
		cookie *http.Cookie
		code   int
	}{{"the session it was changed in", here, 200}, {"another session of the account", phone, http.StatusSeeOther}, {"another account's session", bob, 200}} {
		if code, _, _ := app.get(t, "/adatum/surveys", tc.cookie); code != tc.code {
			t.Errorf("%s: %d, want %d", tc.name, code, tc.code)
		}
	}
}

// TestAPITokenExpiredOrRevoked: an expired or revoked token gets 401.
func TestAPITokenExpiredOrRevoked(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	tokens := store.NewTokenStore(app.st)
	ctx := context.Background()
	live, err := tokens.CreateFor(ctx, "adatum", "live", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	expired, err := tokens.CreateFor(ctx, "adatum", "expired", time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	revoked, err := tokens.Create(ctx, "adatum", "revoked")
	if err != nil {
		t.Fatal(err)
	}
	list, err := tokens.List(ctx, "adatum")
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range list {
		if info.Name == "revoked" {
			if err := tokens.Revoke(ctx, "adatum", info.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if code, _, _ := app.api(t, "GET", "/api/v1/surveys", live, ""); code != http.StatusOK {
		t.Fatalf("a live token = %d", code)
	}
	for name, tok := range map[string]string{"expired": expired, "revoked": revoked} {
		if code, v, _ := app.api(t, "GET", "/api/v1/surveys", tok, ""); code != http.StatusUnauthorized || v["error"] == "" {
			t.Errorf("%s token = %d %v", name, code, v)
		}
	}
}
