package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/twofactor"
)

// TestUserRemoveAndTokenCommands: "user add" refuses a common password;
// "user remove" deletes the account and ends its session; "token create
// --expires", "token list" (no secrets) and "token revoke" manage API
// tokens, and a revoked token gets 401.
func TestUserRemoveAndTokenCommands(t *testing.T) {
	dir := t.TempDir()
	newTestMain(t, dir).Close() // creates the demo tenants
	none := func(string) string { return "" }
	cmd := func(stdin string, args ...string) (string, error) {
		var out strings.Builder
		err := run(context.Background(), append(append(args[:2:2], "--data", dir), args[2:]...), none, strings.NewReader(stdin), &out, io.Discard)
		return out.String(), err
	}
	if _, err := cmd("Password123\n", "user", "add", "--tenant", "adatum", "--email", "a@adatum.example", "--password-stdin"); err == nil || !strings.Contains(err.Error(), "most common") {
		t.Fatalf("user add with a common password: %v", err)
	}
	if _, err := cmd("correct horse battery\n", "user", "add", "--tenant", "adatum", "--email", "a@adatum.example", "--password-stdin"); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	m := newTestMain(t, dir)
	resp, err := client.PostForm("http://"+m.Addr()+"/login", map[string][]string{"tenant": {"adatum"}, "email": {"a@adatum.example"}, "password": {"correct horse battery"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "surveys_session" {
			session = c
		}
	}
	if resp.StatusCode != http.StatusSeeOther || session == nil {
		t.Fatalf("sign-in = %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	_ = m.Close()

	out, err := cmd("", "user", "remove", "--tenant", "adatum", "--email", "A@adatum.example")
	if err != nil || !strings.Contains(out, "removed a@adatum.example") {
		t.Fatalf("user remove = %q, %v", out, err)
	}
	if _, err := cmd("", "user", "remove", "--tenant", "adatum", "--email", "a@adatum.example"); err == nil || !strings.Contains(err.Error(), "No account") {
		t.Fatalf("user remove again: %v", err)
	}

	ci, err := cmd("", "token", "create", "--tenant", "adatum", "--name", "ci", "--expires", "90d")
	if err != nil {
		t.Fatal(err)
	}
	reports, err := cmd("", "token", "create", "--tenant", "adatum", "--name", "reports")
	if err != nil {
		t.Fatal(err)
	}
	ci, reports = strings.TrimSpace(ci), strings.TrimSpace(reports)
	for _, bad := range []string{"0d", "soon", "-2h"} {
		if _, err := cmd("", "token", "create", "--tenant", "adatum", "--expires", bad); err == nil {
			t.Errorf("token create --expires %s succeeded", bad)
		}
	}
	if _, err := cmd("", "token", "create", "--tenant", "adatum", "--name", "ro", "--role", "viewer"); err != nil {
		t.Fatal(err)
	}
	if _, err := cmd("", "token", "create", "--tenant", "adatum", "--role", "owner"); err == nil {
		t.Error("token create --role owner succeeded")
	}
	list, err := cmd("", "token", "list", "--tenant", "adatum")
	row := func(list, name string) []string {
		for _, line := range strings.Split(list, "\n") {
			if f := strings.Fields(line); len(f) == 6 && f[1] == name {
				return f
			}
		}
		return nil
	}
	rc, rr := row(list, "ci"), row(list, "reports")
	if ro := row(list, "ro"); ro == nil || ro[2] != "viewer" {
		t.Errorf("the viewer token's row: %q", ro)
	}
	if err != nil || rc == nil || rr == nil || !strings.HasSuffix(rc[5], "Z") || rr[5] != "never" || rr[2] != "admin" || rr[4] != "never" || strings.Contains(list, ci) || strings.Contains(list, reports) || strings.Contains(list, "svy_") {
		t.Fatalf("token list = %q, %v", list, err)
	}
	id := rr[0]
	if out, err := cmd("", "token", "revoke", "--tenant", "fabrikam", id); err == nil {
		t.Fatalf("another tenant revoked the token: %q", out)
	}
	if _, err := cmd("", "token", "revoke", "--tenant", "adatum", id); err != nil {
		t.Fatal(err)
	}
	if list, _ := cmd("", "token", "list", "--tenant", "adatum"); strings.Contains(list, "reports") || !strings.Contains(list, "ci") {
		t.Fatalf("token list after revoke = %q", list)
	}

	m = newTestMain(t, dir)
	defer m.Close()
	req, _ := http.NewRequest("GET", "http://"+m.Addr()+"/adatum/surveys", nil)
	req.AddCookie(session)
	if resp, err := client.Do(req); err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("the removed user's session: %v %v", resp.StatusCode, err)
	}
	for tok, want := range map[string]int{ci: http.StatusOK, reports: http.StatusUnauthorized} {
		req, _ := http.NewRequest("GET", "http://"+m.Addr()+"/api/v1/surveys", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("API with a token = %d, want %d", resp.StatusCode, want)
		}
	}
}

// TestUserTwoFactorOff: "user two-factor-off" turns an account's two-step
// sign-in off (the way back for an only admin who lost the phone and the
// recovery codes), notes who did it, and says so for an account without
// it or without an account.
func TestUserTwoFactorOff(t *testing.T) {
	dir := t.TempDir()
	newTestMain(t, dir).Close() // creates the demo tenants
	none := func(string) string { return "" }
	cmd := func(stdin string, args ...string) (string, error) {
		var out strings.Builder
		err := run(context.Background(), append(append(args[:2:2], "--data", dir), args[2:]...), none, strings.NewReader(stdin), &out, io.Discard)
		return out.String(), err
	}
	if _, err := cmd("correct horse battery\n", "user", "add", "--tenant", "adatum", "--email", "b@adatum.example", "--password-stdin"); err != nil {
		t.Fatal(err)
	}
	if _, err := cmd("", "user", "two-factor-off", "--tenant", "adatum", "--email", "b@adatum.example"); err == nil || !strings.Contains(err.Error(), "does not use two-step sign-in") {
		t.Fatalf("off without it: %v", err)
	}
	if _, err := cmd("", "user", "two-factor-off", "--tenant", "adatum", "--email", "nobody@adatum.example"); err == nil {
		t.Fatal("off of no account: no error")
	}
	// On, as the account page turns it on.
	st, err := local.Open(filepath.Join(dir, "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	box, _ := secret.New([]byte("0123456789abcdef0123456789abcdef"))
	key, _ := twofactor.NewSecret()
	if err := store.NewUserStore(st).WithSecrets(box).EnableTwoFactor(context.Background(), "adatum", "b@adatum.example", key, 1, []string{twofactor.HashRecovery("abcd-efgh-jkmn")}); err != nil {
		t.Fatal(err)
	}
	// And a passkey: the operator's reset removes it too.
	if _, err := store.NewUserStore(st).AddPasskey(context.Background(), "adatum", "b@adatum.example", "Security key", []byte("cred-1"), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	out, err := cmd("", "user", "two-factor-off", "--tenant", "adatum", "--email", "B@adatum.example")
	if err != nil || !strings.Contains(out, "turned off the two-step sign-in of b@adatum.example") {
		t.Fatalf("two-factor-off = %q, %v", out, err)
	}
	st, err = local.Open(filepath.Join(dir, "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if tf, err := store.NewUserStore(st).TwoFactor(context.Background(), "adatum", "b@adatum.example"); err != nil || tf.Any() || tf.ResetBy != "the operator of this server" {
		t.Fatalf("after: %+v, %v", tf, err)
	}
	if list, _, err := store.NewAuditStore(st).List(context.Background(), "adatum", survey.AuditFilter{Action: survey.AuditTwoFactorReset}, "", 10); err != nil ||
		len(list) != 1 || list[0].Actor != survey.AuditOperator || list[0].Target != "b@adatum.example" {
		t.Fatalf("the reset's audit event: %+v, %v", list, err)
	}
}

// TestUserActivate: "user activate" lets an account that the tenant's
// identity provider deactivated (SCIM) sign in again; an unknown account
// is an error.
func TestUserActivate(t *testing.T) {
	dir := t.TempDir()
	newTestMain(t, dir).Close() // creates the demo tenants
	none := func(string) string { return "" }
	cmd := func(stdin string, args ...string) (string, error) {
		var out strings.Builder
		err := run(context.Background(), append(append(args[:2:2], "--data", dir), args[2:]...), none, strings.NewReader(stdin), &out, io.Discard)
		return out.String(), err
	}
	if _, err := cmd("correct horse battery\n", "user", "add", "--tenant", "adatum", "--email", "b@adatum.example", "--password-stdin"); err != nil {
		t.Fatal(err)
	}
	st, err := local.Open(filepath.Join(dir, "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	users := store.NewUserStore(st)
	if err := users.SetDisabled(context.Background(), "adatum", "b@adatum.example", true); err != nil {
		t.Fatal(err)
	}
	if _, err := users.Authenticate(context.Background(), "adatum", "b@adatum.example", "correct horse battery"); err == nil {
		t.Fatal("a deactivated account signs in")
	}
	_ = st.Close()
	if _, err := cmd("", "user", "activate", "--tenant", "adatum", "--email", "nobody@adatum.example"); err == nil {
		t.Fatal("activate of no account: no error")
	}
	out, err := cmd("", "user", "activate", "--tenant", "adatum", "--email", "B@adatum.example")
	if err != nil || !strings.Contains(out, "activated b@adatum.example") {
		t.Fatalf("activate = %q, %v", out, err)
	}
	st, err = local.Open(filepath.Join(dir, "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := store.NewUserStore(st).Authenticate(context.Background(), "adatum", "b@adatum.example", "correct horse battery"); err != nil {
		t.Fatalf("after activate: %v", err)
	}
}
