package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/mail/mailtest"
	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestResetLinkFromPublicURLOnly runs the attack of a poisoned reset
// link against surveys serve with a real SMTP server: e-mail without
// --public-url does not start; with it, "Forgot your password?" asked with
// "Host: evil.example" (and forwarded-host headers) mails a link on the
// public URL, which then works, once, and revokes the older link.
func TestResetLinkFromPublicURLOnly(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{})
	smtp := []string{"--smtp-url", "smtp://" + srv.Addr + "?tls=none", "--mail-from", "Surveys <surveys@example.com>"}
	if _, err := parseServe(append([]string{"--data", t.TempDir()}, smtp...), func(string) string { return "" }, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "--public-url (SURVEYS_PUBLIC_URL) is not set") {
		t.Fatalf("serve with e-mail and no public URL: %v", err)
	}

	m := bootMain(t, io.Discard, append(smtp, "--public-url", testPublicURL)...)
	defer m.Close()
	if _, err := testUsers(m.Storage).Add(context.Background(), "adatum", "victim@example.com", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	forgot := func() {
		t.Helper()
		req, err := http.NewRequest("POST", "http://"+m.Addr()+"/login/forgot", strings.NewReader(url.Values{"email": {"victim@example.com"}}.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "evil.example"
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-Host", "evil.example")
		req.Header.Set("Forwarded", "host=evil.example;proto=https")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("forgot = %d", resp.StatusCode)
		}
	}
	var paths []string
	for i := range 2 {
		forgot()
		msg := srv.Wait(t, i+1)[i]
		links := resetLinkRE.FindAllStringSubmatch(msg.Text, -1)
		if len(links) != 1 || !strings.HasPrefix(links[0][2], testPublicURL+"/login/reset/") || strings.Contains(msg.Text+msg.HTML, "evil.example") {
			t.Fatalf("the reset mail's link is not on the public URL %s: %q\n%s", testPublicURL, links, msg.Text)
		}
		paths = append(paths, strings.TrimPrefix(links[0][2], testPublicURL))
	}
	c := newSubscriber(t, "http://"+m.Addr())
	if code, h, _ := c.post(paths[1], url.Values{"new": {"a brand new passphrase"}, "confirm": {"a brand new passphrase"}}); code != 303 || h.Get("Location") != "/adatum/surveys" {
		t.Fatalf("reset with the newer link = %d %q", code, h.Get("Location"))
	}
	if code, _, _ := newSubscriber(t, "http://"+m.Addr()).post(paths[0], url.Values{"new": {"the attacker's passphrase"}, "confirm": {"the attacker's passphrase"}}); code != 410 {
		t.Fatalf("the older reset link after a reset = %d, want 410", code)
	}
}

// TestUserPassword: the operator sets an account's password from the
// command line (the way back for an organisation's only admin when the
// server sends no e-mail): its sessions end, its reset links are revoked,
// the new password signs in; bad input says what is wrong and changes
// nothing.
func TestUserPassword(t *testing.T) {
	dir := t.TempDir()
	newTestMain(t, dir).Close() // creates the store and the demo tenants
	none := func(string) string { return "" }
	cli := func(stdin string, args ...string) (string, error) {
		var out strings.Builder
		err := run(context.Background(), append(append([]string{"user"}, args[0], "--data", dir), args[1:]...), none, strings.NewReader(stdin), &out, io.Discard)
		return out.String(), err
	}
	if _, err := cli("correct horse battery\n", "add", "--tenant", "adatum", "--email", "ana@adatum.example", "--password-stdin"); err != nil {
		t.Fatal(err)
	}
	// A session and a reset link, as the server would have made them.
	st, err := local.Open(filepath.Join(dir, "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	session, err := store.NewUserStore(st).NewSession(ctx, &survey.User{Tenant: "adatum", Email: "ana@adatum.example"})
	if err != nil {
		t.Fatal(err)
	}
	reset, err := store.NewLinkStore(st).Create(ctx, store.Link{Purpose: store.LinkReset, Tenant: "adatum", Email: "ana@adatum.example"}, store.ResetLinkTTL)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"a brand new passphrase\n", []string{"--tenant", "adatum", "--email", "ana@adatum.example"}, "--password-stdin"},
		{"short\n", []string{"--tenant", "adatum", "--email", "ana@adatum.example", "--password-stdin"}, "at least 10 characters"},
		{"a brand new passphrase\n", []string{"--tenant", "adatum", "--email", "nobody@adatum.example", "--password-stdin"}, "user password"},
	} {
		if _, err := cli(tc.stdin, append([]string{"password"}, tc.args...)...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("user password %v: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
	out, err := cli("a brand new passphrase\n", "password", "--tenant", "adatum", "--email", "Ana@Adatum.example", "--password-stdin")
	if err != nil || !strings.Contains(out, "set the password of ana@adatum.example in tenant adatum") {
		t.Fatalf("user password = %q, %v", out, err)
	}

	m := newTestMain(t, dir)
	defer m.Close()
	if _, err := testUsers(m.Storage).Session(ctx, session); err == nil {
		t.Error("the account's session survives the new password")
	}
	if _, err := store.NewLinkStore(m.Storage).Peek(ctx, store.LinkReset, reset); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("the account's reset link survives the new password: %v", err)
	}
	c := newSubscriber(t, "http://"+m.Addr())
	if code, h, _ := c.post("/login", url.Values{"email": {"ana@adatum.example"}, "password": {"a brand new passphrase"}}); code != 303 || h.Get("Location") != "/adatum/surveys" {
		t.Fatalf("sign-in with the password the operator set = %d %q", code, h.Get("Location"))
	}
}
