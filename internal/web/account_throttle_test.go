package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// throttleAccount makes an account's recorded failures such that its next
// sign-in must wait the longest delay.
func throttleAccount(t *testing.T, st storage.Storage, tenant, email string) {
	t.Helper()
	ctx := context.Background()
	e, err := st.GetEntity(ctx, store.UsersTable, tenant, email)
	if err != nil {
		t.Fatal(err)
	}
	e.Properties["FailCount"], e.Properties["FailedAt"] = int64(store.FreeSignInFailures+20), time.Now().UTC()
	if _, err := st.UpdateEntity(ctx, store.UsersTable, e, e.ETag); err != nil {
		t.Fatal(err)
	}
}

// loginFrom posts the sign-in form as a client at addr (behind the local
// proxy) and returns the status, headers and page.
func (a *testApp) loginFrom(t *testing.T, addr, email, password string) (int, http.Header, string) {
	t.Helper()
	return a.do(t, "POST", "/login", url.Values{"tenant": {"adatum"}, "email": {email}, "password": {password}},
		map[string]string{"X-Forwarded-For": "192.0.2.1, " + addr})
}

// TestSignInAnswersAlike: an unknown account, a wrong password and a
// throttled account (even with the right password) get the same status
// and the same page, apart from the email typed, and no cookie.
func TestSignInAnswersAlike(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	users := testUsers(app.st)
	for _, email := range []string{"ana@adatum.example", "bob@adatum.example"} {
		if _, err := users.Add(context.Background(), "adatum", email, "correct horse battery"); err != nil {
			t.Fatal(err)
		}
	}
	throttleAccount(t, app.st, "adatum", "bob@adatum.example")
	type answer struct {
		code        int
		contentType string
		body        string
	}
	answers := map[string]answer{}
	for i, tc := range []struct{ name, email, password string }{
		{"wrong", "ana@adatum.example", "a wrong password"},
		{"unknown", "nobody@adatum.example", "correct horse battery"},
		{"throttled", "bob@adatum.example", "correct horse battery"},
	} {
		code, h, body := app.loginFrom(t, "203.0.113."+string(rune('1'+i)), tc.email, tc.password)
		if h.Get("Set-Cookie") != "" {
			t.Errorf("%s: sets a cookie: %q", tc.name, h.Get("Set-Cookie"))
		}
		answers[tc.name] = answer{code, h.Get("Content-Type"), strings.ReplaceAll(body, tc.email, "EMAIL")}
	}
	want := answers["wrong"]
	if want.code != http.StatusUnauthorized || !strings.Contains(want.body, survey.SignInFailureMessage) {
		t.Fatalf("wrong password: %d\n%s", want.code, want.body)
	}
	for name, got := range answers {
		if got != want {
			t.Errorf("%s: %d %q differs from a wrong password's %d %q:\n%s", name, got.code, got.contentType, want.code, want.contentType, got.body)
		}
	}
}

// TestSignInThrottlePerAddress: after its free failures (on any
// accounts), an address must wait, and its attempts are refused without
// reaching the account (not counted there, not checked), even with the
// right password; another address signs the same user in.
func TestSignInThrottlePerAddress(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	// The throttle's clock stands still: no attempt waits out a delay.
	web.SetSignInThrottleClock(app.web, func() time.Time { return time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC) })
	const attacker, user = "203.0.113.7", "198.51.100.9"
	for i := range 10 {
		if code, _, _ := app.loginFrom(t, attacker, "guess"+string(rune('a'+i))+"@adatum.example", "correct horse battery"); code != http.StatusUnauthorized {
			t.Fatalf("guess %d = %d", i, code)
		}
	}
	code, h, body := app.loginFrom(t, attacker, "ana@adatum.example", "correct horse battery")
	if code != http.StatusUnauthorized || h.Get("Set-Cookie") != "" || !strings.Contains(body, survey.SignInFailureMessage) {
		t.Fatalf("11th attempt from one address = %d %q", code, h.Get("Set-Cookie"))
	}
	e, err := app.st.GetEntity(context.Background(), store.UsersTable, "adatum", "ana@adatum.example")
	if err != nil || e.Int("FailCount") != 0 {
		t.Fatalf("the refused attempt reached the account: FailCount %d, %v", e.Int("FailCount"), err)
	}
	if code, _, _ := app.loginFrom(t, user, "ana@adatum.example", "correct horse battery"); code != http.StatusSeeOther {
		t.Fatalf("the user from another address = %d", code)
	}
	// A peer that is not the local proxy cannot choose its address.
	if code, _, _ := app.do(t, "POST", "/login", url.Values{"tenant": {"adatum"}, "email": {"ana@adatum.example"}, "password": {"correct horse battery"}}, nil); code != http.StatusSeeOther {
		t.Fatalf("loopback client = %d", code)
	}
}

// TestKnownDeviceIsNotLockedOut: someone who keeps guessing an account's
// password keeps the account's delay running, but the owner's browser,
// which signed in before (its device cookie), still signs in; the cookie
// of another account, or a made-up one, does not help.
func TestKnownDeviceIsNotLockedOut(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	users := testUsers(app.st)
	for _, email := range []string{"ana@adatum.example", "bob@adatum.example"} {
		if _, err := users.Add(context.Background(), "adatum", email, "correct horse battery"); err != nil {
			t.Fatal(err)
		}
	}
	device := func(email string) string {
		t.Helper()
		code, h, _ := app.loginFrom(t, "198.51.100.9", email, "correct horse battery")
		if code != http.StatusSeeOther {
			t.Fatalf("first sign-in of %s = %d", email, code)
		}
		for _, c := range (&http.Response{Header: h}).Cookies() {
			if c.Name == "surveys_device" && c.Path == "/login" && c.HttpOnly {
				return c.Name + "=" + c.Value
			}
		}
		t.Fatalf("no device cookie: %q", h.Values("Set-Cookie"))
		return ""
	}
	ana, bob := device("ana@adatum.example"), device("bob@adatum.example")
	throttleAccount(t, app.st, "adatum", "ana@adatum.example") // the attacker's guesses
	login := func(cookie string) int {
		code, _, _ := app.do(t, "POST", "/login", url.Values{"tenant": {"adatum"}, "email": {"ana@adatum.example"}, "password": {"correct horse battery"}},
			map[string]string{"Cookie": cookie, "X-Forwarded-For": "198.51.100.9"})
		return code
	}
	if code := login(""); code != http.StatusUnauthorized {
		t.Fatalf("an unknown browser during the delay = %d, want 401", code)
	}
	if code := login(bob); code != http.StatusUnauthorized {
		t.Fatalf("another account's device cookie = %d, want 401", code)
	}
	if code := login("surveys_device=made-up"); code != http.StatusUnauthorized {
		t.Fatalf("a made-up device cookie = %d, want 401", code)
	}
	if code := login(ana); code != http.StatusSeeOther {
		t.Fatalf("the owner's browser during the delay = %d, want 303", code)
	}
}
