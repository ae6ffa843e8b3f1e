package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/mail/mailtest"
)

var (
	pickTokenRE = regexp.MustCompile(`name="token" value="(lnk_[^"]+)">\s*<input type="hidden" name="next" value="[^"]*">\s*<button class="button wide" type="submit">([^<]+) <span`)
	resetLinkRE = regexp.MustCompile(`(?m)^(\S[^:\n]*): (http://\S+/login/reset/(lnk_\S+))$`)
)

// TestSignInByEmailAndReset runs over HTTP against surveys serve with a
// real SMTP server: a person signs in with only their email (the
// organisation found from it, or picked when the email belongs to
// several); "Forgot your password?" mails a link per organisation, which
// sets a new password once, for that organisation and person only.
func TestSignInByEmailAndReset(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{})
	m := bootMain(t, io.Discard, "--smtp-url", "smtp://"+srv.Addr+"?tls=none", "--mail-from", "Surveys <surveys@example.com>", "--public-url", testPublicURL)
	defer m.Close()
	ctx := context.Background()
	users := testUsers(m.Storage)
	for _, a := range []struct{ tenant, email string }{{"adatum", "ana@example.com"}, {"fabrikam", "ana@example.com"}, {"adatum", "bob@example.com"}} {
		if _, err := users.Add(ctx, a.tenant, a.email, "correct horse battery"); err != nil {
			t.Fatal(err)
		}
	}
	base := "http://" + m.Addr()

	// One organisation: signed in at once, no organisation asked for.
	bob := newSubscriber(t, base)
	if code, _, body := bob.send("GET", "/login", "", nil); code != 200 || strings.Contains(body, `name="tenant"`) && !strings.Contains(body, `id="oidc-tenant"`) {
		t.Fatalf("the sign-in page asks for an organisation: %d", code)
	}
	if code, h, _ := bob.post("/login", url.Values{"email": {"Bob@Example.com"}, "password": {"correct horse battery"}}); code != 303 || h.Get("Location") != "/adatum/surveys" {
		t.Fatalf("sign-in by email = %d %q", code, h.Get("Location"))
	}
	if code, _ := bob.get("/adatum/surveys"); code != 200 {
		t.Fatalf("bob's dashboard = %d", code)
	}

	// Two organisations: a wrong password shows no choice; the right one lists both.
	ana := newSubscriber(t, base)
	if code, _, body := ana.post("/login", url.Values{"email": {"ana@example.com"}, "password": {"not the password"}}); code != 401 || strings.Contains(body, "Fabrikam") {
		t.Fatalf("a wrong password = %d", code)
	}
	code, _, body := ana.post("/login", url.Values{"email": {"ana@example.com"}, "password": {"correct horse battery"}, "next": {"/fabrikam/settings"}})
	picks := pickTokenRE.FindAllStringSubmatch(body, -1)
	if code != 200 || len(picks) != 2 || picks[0][2] != "Adatum" || picks[1][2] != "Fabrikam" {
		t.Fatalf("the pick page = %d, %q\n%s", code, picks, body)
	}
	if code, _, _ := ana.post("/login/reset/"+picks[0][1], url.Values{"new": {"a brand new passphrase"}, "confirm": {"a brand new passphrase"}}); code != 410 {
		t.Fatalf("a pick link used as a reset link = %d", code)
	}
	if code, h, _ := ana.post("/login/pick", url.Values{"token": {picks[1][1]}, "next": {"/fabrikam/settings"}}); code != 303 || h.Get("Location") != "/fabrikam/settings" {
		t.Fatalf("pick Fabrikam = %d %q", code, h.Get("Location"))
	}
	if code, _ := ana.get("/fabrikam/surveys"); code != 200 {
		t.Fatalf("ana's Fabrikam dashboard = %d", code)
	}
	if code, _ := ana.get("/adatum/surveys"); code != 403 {
		t.Fatalf("ana's session reaches Adatum = %d", code)
	}
	if code, _, _ := newSubscriber(t, base).post("/login/pick", url.Values{"token": {picks[1][1]}}); code != 404 {
		t.Fatalf("a pick link used twice = %d", code)
	}

	// Forgot password: bad input says what to fix and sends nothing.
	eve := newSubscriber(t, base)
	if code, _, body := eve.post("/login/forgot", url.Values{"email": {"not an address"}}); code != 422 || !strings.Contains(body, `class="field-error"`) {
		t.Fatalf("forgot with a bad email = %d", code)
	}
	// Unknown email: the same page, no mail.
	_, _, unknownPage := eve.post("/login/forgot", url.Values{"email": {"nobody@example.com"}})
	code, _, knownPage := eve.post("/login/forgot", url.Values{"email": {"ana@example.com"}})
	hide := func(page, email string) string {
		return strings.NewReplacer(email, "X", url.QueryEscape(email), "X").Replace(page)
	}
	if code != 200 || hide(unknownPage, "nobody@example.com") != hide(knownPage, "ana@example.com") {
		t.Fatalf("forgot tells who has an account: %d", code)
	}
	msg := srv.Wait(t, 1)[0]
	if msg.To[0] != "ana@example.com" {
		t.Fatalf("the reset mail went to %v", msg.To)
	}
	links := resetLinkRE.FindAllStringSubmatch(msg.Text, -1)
	if len(links) != 2 || links[0][1] != "Adatum" || links[1][1] != "Fabrikam" || !strings.Contains(msg.HTML, links[0][2]) {
		t.Fatalf("the reset mail's links: %q\n%s", links, msg.Text)
	}
	if !strings.HasPrefix(links[0][2], testPublicURL+"/") {
		t.Fatalf("the reset link %s is not on the public URL %s", links[0][2], testPublicURL)
	}
	resetPath := strings.TrimPrefix(links[0][2], testPublicURL)
	if code, _, body := eve.send("GET", resetPath, "", nil); code != 200 || !strings.Contains(body, "ana@example.com") || !strings.Contains(body, "Adatum") {
		t.Fatalf("the reset page = %d", code)
	}
	// A mistake does not spend the link.
	for _, bad := range []url.Values{
		{"new": {"a brand new passphrase"}, "confirm": {"another passphrase"}},
		{"new": {"short"}, "confirm": {"short"}},
	} {
		if code, _, body := eve.post(resetPath, bad); code != 422 || !strings.Contains(body, `class="field-error"`) {
			t.Fatalf("reset with %v = %d", bad, code)
		}
	}
	if code, h, _ := eve.post(resetPath, url.Values{"new": {"a brand new passphrase"}, "confirm": {"a brand new passphrase"}}); code != 303 || h.Get("Location") != "/adatum/surveys" {
		t.Fatalf("reset = %d %q", code, h.Get("Location"))
	}
	if code, _ := eve.get("/adatum/surveys"); code != 200 {
		t.Fatalf("signed in after the reset: %d", code)
	}
	if code, _, _ := newSubscriber(t, base).post(resetPath, url.Values{"new": {"yet another passphrase"}, "confirm": {"yet another passphrase"}}); code != 410 {
		t.Fatalf("a reset link used twice = %d", code)
	}
	// The new password is Adatum's only; Fabrikam's is unchanged, so the
	// email and new password sign in to Adatum at once.
	if code, h, _ := newSubscriber(t, base).post("/login", url.Values{"email": {"ana@example.com"}, "password": {"a brand new passphrase"}}); code != 303 || h.Get("Location") != "/adatum/surveys" {
		t.Fatalf("sign-in with the new password = %d %q", code, h.Get("Location"))
	}
	if code, h, _ := newSubscriber(t, base).post("/login", url.Values{"email": {"ana@example.com"}, "password": {"correct horse battery"}}); code != 303 || h.Get("Location") != "/fabrikam/surveys" {
		t.Fatalf("sign-in with the old password = %d %q", code, h.Get("Location"))
	}
	// The session ana had at Fabrikam survives (only Adatum's reset ended sessions).
	if code, _ := ana.get("/fabrikam/surveys"); code != 200 {
		t.Fatalf("ana's Fabrikam session after Adatum's reset = %d", code)
	}
}

// TestForgotWithoutMail: without SMTP the page says plainly, before any
// form is sent, that no link can be sent, and what to do instead: for an
// organisation's only admin, the operator's command that sets a password.
func TestForgotWithoutMail(t *testing.T) {
	m := bootMain(t, io.Discard)
	defer m.Close()
	c := newSubscriber(t, "http://"+m.Addr())
	for _, method := range []string{"GET", "POST"} {
		var code int
		var body string
		if method == "GET" {
			code, body = c.get("/login/forgot")
		} else {
			code, _, body = c.post("/login/forgot", url.Values{"email": {"ana@example.com"}})
		}
		// Said before the form is sent, with the operator's command that
		// gives an organisation's only admin a way back.
		if (method == "GET") != (code == http.StatusOK) || !strings.Contains(body, "does not send e-mail") ||
			!strings.Contains(body, "surveys user password --tenant ORGANISATION --email") || strings.Contains(body, `action="/login/forgot"`) {
			t.Fatalf("%s /login/forgot without mail = %d", method, code)
		}
	}
}
