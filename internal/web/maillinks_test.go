package web_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// resetURL is a reset link in a reset mail's text.
var resetURL = regexp.MustCompile(`(\S+)(/login/reset/lnk_[A-Za-z0-9_-]{43})`)

// TestMailNeedsPublicURL: a server that sends e-mail without a public URL
// is refused, since a mailed link would otherwise come from a request's
// Host, which whoever sends the request writes.
func TestMailNeedsPublicURL(t *testing.T) {
	for _, tc := range []struct {
		name      string
		publicURL string
		wantErr   bool
	}{
		{"no public URL", "", true},
		{"only a slash", "/", true},
		{"a public URL", testPublicURL, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := web.New(web.Deps{Mail: &outbox{}, PublicURL: tc.publicURL})
			if (err != nil) != tc.wantErr {
				t.Fatalf("New with e-mail and public URL %q: %v", tc.publicURL, err)
			}
		})
	}
}

// TestMailedLinksIgnoreHost: whatever Host a request names, the links
// mailed (password reset, invitation, personal link) start with the
// public URL.
func TestMailedLinksIgnoreHost(t *testing.T) {
	box := &outbox{}
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Mail, d.PublicURL = box, testPublicURL })
	ctx := context.Background()
	if _, err := store.NewUserStore(app.st).Add(ctx, "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	ana := map[string]string{"Cookie": sessionOf(t, app, "adatum", "ana@adatum.example", survey.Admin), "Host": "evil.example"}
	evil := map[string]string{"Host": "evil.example", "X-Forwarded-Host": "evil.example", "Forwarded": "host=evil.example"}
	linksPath := "/adatum/surveys/" + app.adatum.Slug + "/links"
	for i, tc := range []struct {
		name, path string
		form       url.Values
		header     map[string]string
		link       *regexp.Regexp
	}{
		{"reset", "/login/forgot", url.Values{"email": {"ana@adatum.example"}}, evil, resetURL},
		{"invitation", "/adatum/settings/members", url.Values{"email": {"eve@adatum.example"}, "role": {"editor"}}, ana, regexp.MustCompile(`(\S+)(/invite/lnk_\S+)`)},
		{"personal link", linksPath, url.Values{"emails": {"bo@example.com"}}, ana, regexp.MustCompile(`(\S+)(/survey/adatum/\S+\?k=\S+)`)},
	} {
		code, _, body := app.do(t, "POST", tc.path, tc.form, tc.header)
		if code != 200 {
			t.Fatalf("%s: %d\n%s", tc.name, code, body)
		}
		msg := box.wait(t, i+1)[i]
		m := tc.link.FindStringSubmatch(msg.Text)
		if m == nil || m[1] != testPublicURL {
			t.Errorf("%s: the mailed link %q does not start with the public URL %s:\n%s", tc.name, m, testPublicURL, msg.Text)
		}
		if strings.Contains(msg.Text+msg.HTML, "evil.example") {
			t.Errorf("%s: the mail names the request's Host:\n%s", tc.name, msg.Text)
		}
	}
}

// blockingUsers holds TenantsOf until release is closed.
type blockingUsers struct {
	*store.UserStore
	release chan struct{}
	asked   chan string
}

func (u *blockingUsers) TenantsOf(ctx context.Context, email string) ([]string, error) {
	u.asked <- email
	<-u.release
	return u.UserStore.TenantsOf(ctx, email)
}

// TestForgotAnswersBeforeLookup: "Forgot your password?" answers before
// it looks the address up, for a known address as for an unknown one, so
// that its time cannot tell who has an account: here the lookup is held
// until both pages have answered, and only then is the reset mail sent.
func TestForgotAnswersBeforeLookup(t *testing.T) {
	box := &outbox{}
	st := backends.Local(t)
	users := &blockingUsers{UserStore: store.NewUserStore(st), release: make(chan struct{}), asked: make(chan string, 8)}
	app := newTestAppOn(t, st, func(d *web.Deps) { d.Mail, d.PublicURL, d.Users = box, testPublicURL, users })
	if _, err := store.NewUserStore(st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	released := false
	release := func() {
		if !released {
			released = true
			close(users.release)
		}
	}
	defer release()
	pages := map[string]string{}
	for _, email := range []string{"ana@adatum.example", "nobody@adatum.example"} {
		type answer struct {
			code int
			body string
		}
		done := make(chan answer, 1)
		go func() {
			code, _, body := app.do(t, "POST", "/login/forgot", url.Values{"email": {email}}, nil)
			done <- answer{code, body}
		}()
		select {
		case a := <-done:
			if a.code != 200 {
				t.Fatalf("forgot %s = %d", email, a.code)
			}
			pages[email] = strings.NewReplacer(email, "X", url.QueryEscape(email), "X").Replace(a.body)
		case <-time.After(time.Minute):
			release()
			t.Fatalf("forgot %s waited for the account lookup before answering", email)
		}
	}
	if pages["ana@adatum.example"] != pages["nobody@adatum.example"] {
		t.Fatal("forgot answers differently for a known address")
	}
	if n := len(box.messages()); n != 0 {
		t.Fatalf("%d mails before the lookup", n)
	}
	release()
	msg := box.wait(t, 1)[0]
	if msg.To != "ana@adatum.example" {
		t.Fatalf("the reset mail went to %q", msg.To)
	}
	if err := app.web.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(box.messages()); n != 1 {
		t.Fatalf("%d mails, want 1 (none to the unknown address)", n)
	}
}

// TestResetMailsPerRecipient: however often "Forgot your password?" is
// asked for one address (from any client), at most
// store.ResetMailsPerAddress (3) reset mails go to it in an hour, and the
// page answers the same way each time.
func TestResetMailsPerRecipient(t *testing.T) {
	box := &outbox{}
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Mail, d.PublicURL = box, testPublicURL })
	if _, err := store.NewUserStore(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	var first string
	for i := range 6 {
		// Each from another client address (the test client is a trusted proxy).
		code, _, body := app.do(t, "POST", "/login/forgot", url.Values{"email": {"ana@adatum.example"}}, map[string]string{"X-Forwarded-For": "203.0.113." + string(rune('1'+i))})
		if code != 200 {
			t.Fatalf("forgot #%d = %d", i+1, code)
		}
		if i == 0 {
			first = body
			if !strings.Contains(body, "at most 3 such messages an hour") {
				t.Fatalf("the page does not say the limit:\n%s", body)
			}
		} else if body != first {
			t.Fatalf("forgot #%d answers differently from the first", i+1)
		}
		if err := app.web.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(box.messages()); n != 3 {
		t.Fatalf("%d reset mails to one address in an hour, want 3", n)
	}
}

// TestOlderResetLinksRevoked: using a reset link, or changing the
// password on the account page, revokes the account's other reset links;
// another organisation's link of the same person stays good.
func TestOlderResetLinksRevoked(t *testing.T) {
	box := &outbox{}
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Mail, d.PublicURL = box, testPublicURL })
	ctx := context.Background()
	users := store.NewUserStore(app.st)
	for _, tenant := range []string{"adatum", "fabrikam"} {
		if _, err := users.Add(ctx, tenant, "ana@example.com", "correct horse battery"); err != nil {
			t.Fatal(err)
		}
	}
	// adatumLinks asks for reset links n times and returns Adatum's and
	// Fabrikam's, oldest first.
	sent := 0
	ask := func(n int) (adatum, fabrikam []string) {
		t.Helper()
		for range n {
			if code, _, _ := app.do(t, "POST", "/login/forgot", url.Values{"email": {"ana@example.com"}}, nil); code != 200 {
				t.Fatalf("forgot = %d", code)
			}
			sent++
			msg := box.wait(t, sent)[sent-1]
			links := resetURL.FindAllStringSubmatch(msg.Text, -1)
			if len(links) != 2 {
				t.Fatalf("the reset mail's links: %q", links)
			}
			adatum, fabrikam = append(adatum, links[0][2]), append(fabrikam, links[1][2])
		}
		return adatum, fabrikam
	}
	set := func(path, password string) int {
		code, _, _ := app.do(t, "POST", path, url.Values{"new": {password}, "confirm": {password}}, nil)
		return code
	}

	older, fab := ask(2)
	if code := set(older[1], "a brand new passphrase"); code != 303 {
		t.Fatalf("reset with the newer link = %d", code)
	}
	if code := set(older[0], "the attacker's passphrase"); code != 410 {
		t.Fatalf("the older link after a reset with the newer = %d, want 410", code)
	}
	if code := set(fab[0], "fabrikam's new passphrase"); code != 303 {
		t.Fatalf("Fabrikam's link after Adatum's reset = %d, want 303", code)
	}

	// A password changed on the account page revokes the links mailed before.
	before, _ := ask(1)
	cookie := map[string]string{"Cookie": sessionOf(t, app, "adatum", "ana@example.com", survey.Admin)}
	code, _, body := app.do(t, "POST", "/adatum/account/password", url.Values{"current": {"a brand new passphrase"}, "new": {"yet another passphrase"}, "confirm": {"yet another passphrase"}}, cookie)
	if code != 303 && code != 200 {
		t.Fatalf("change password = %d\n%s", code, body)
	}
	if code := set(before[0], "the attacker's passphrase"); code != 410 {
		t.Fatalf("a link mailed before a password change = %d, want 410", code)
	}
}
