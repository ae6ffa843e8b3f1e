package main

import (
	"context"
	"io"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/mail/mailtest"
)

var inviteLinkRE = regexp.MustCompile(`http://\S+(/invite/lnk_[A-Za-z0-9_-]{43})`)

// TestTeamByInvitation runs over HTTP against surveys serve with a real
// SMTP server: an admin invites an editor and a viewer by e-mail; each
// opens the link from the message that arrived, sets a password, lands on
// the dashboard and can do what the role allows, no more; the link works
// once; removing the viewer ends their session.
func TestTeamByInvitation(t *testing.T) {
	srv := mailtest.Start(t, mailtest.Options{})
	m := bootMain(t, io.Discard, "--smtp-url", "smtp://"+srv.Addr+"?tls=none", "--mail-from", "Surveys <surveys@example.com>", "--public-url", testPublicURL)
	defer m.Close()
	if _, err := testUsers(m.Storage).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	base := "http://" + m.Addr()
	ana := newSubscriber(t, base)
	if code, h, _ := ana.post("/login", url.Values{"email": {"ana@adatum.example"}, "password": {"correct horse battery"}}); code != 303 || h.Get("Location") != "/adatum/surveys" {
		t.Fatalf("ana signs in = %d %q", code, h.Get("Location"))
	}
	if code, body := ana.get("/adatum/surveys"); code != 200 || !strings.Contains(body, "/adatum/settings/members") {
		t.Fatalf("the admin's dashboard = %d, without Members", code)
	}
	for _, inv := range []struct{ email, role string }{{"eve@adatum.example", "editor"}, {"vic@adatum.example", "viewer"}} {
		if code, _, body := ana.post("/adatum/settings/members", url.Values{"email": {inv.email}, "role": {inv.role}}); code != 200 || !strings.Contains(body, "on its way to "+inv.email) {
			t.Fatalf("invite %s = %d", inv.email, code)
		}
	}
	msgs := srv.Wait(t, 2)
	links := map[string]string{}
	for _, msg := range msgs {
		l := inviteLinkRE.FindStringSubmatch(msg.Text)
		if l == nil || !strings.Contains(msg.Subject, "Adatum") || !strings.Contains(msg.HTML, l[0]) {
			t.Fatalf("an invitation message without its link: %+v", msg)
		}
		links[msg.To[0]] = l[1]
	}
	people := map[string]*subscriber{}
	for _, email := range []string{"eve@adatum.example", "vic@adatum.example"} {
		p := newSubscriber(t, base)
		if code, body := p.get(links[email]); code != 200 || !strings.Contains(body, email) {
			t.Fatalf("%s's invitation page = %d", email, code)
		}
		if code, _, body := p.post(links[email], url.Values{"password": {"short"}, "confirm": {"short"}}); code != 422 || !strings.Contains(body, `class="field-error"`) {
			t.Fatalf("a short password = %d", code)
		}
		if code, h, _ := p.post(links[email], url.Values{"password": {"a long team password"}, "confirm": {"a long team password"}}); code != 303 || h.Get("Location") != "/adatum/surveys" {
			t.Fatalf("%s accepts = %d %q", email, code, h.Get("Location"))
		}
		if code, _, _ := newSubscriber(t, base).post(links[email], url.Values{"password": {"a long team password"}, "confirm": {"a long team password"}}); code != 410 {
			t.Fatalf("%s's link used twice = %d", email, code)
		}
		people[email] = p
	}
	eve, vic := people["eve@adatum.example"], people["vic@adatum.example"]
	for _, c := range []struct {
		who  *subscriber
		name string
		path string
		want int
	}{
		{eve, "editor", "/adatum/surveys/new", 200},
		{eve, "editor", "/adatum/settings/members", 403},
		{eve, "editor", "/adatum/settings/tokens", 403},
		{vic, "viewer", "/adatum/surveys", 200},
		{vic, "viewer", "/adatum/surveys/new", 403},
		{vic, "viewer", "/adatum/settings", 403},
	} {
		if code, _ := c.who.get(c.path); code != c.want {
			t.Errorf("the %s's %s = %d, want %d", c.name, c.path, code, c.want)
		}
	}
	// The viewer is removed: their session ends.
	if code, _, _ := ana.post("/adatum/settings/members/remove", url.Values{"email": {"vic@adatum.example"}}); code != 303 {
		t.Fatalf("remove vic = %d", code)
	}
	if code, h, _ := vic.send("GET", "/adatum/surveys", "", nil); code != 303 || !strings.HasPrefix(h.Get("Location"), "/login") {
		t.Errorf("the removed viewer's dashboard = %d %q", code, h.Get("Location"))
	}
	if code, h, _ := newSubscriber(t, base).post("/login", url.Values{"email": {"eve@adatum.example"}, "password": {"a long team password"}}); code != 303 || h.Get("Location") != "/adatum/surveys" {
		t.Errorf("eve signs in again = %d %q", code, h.Get("Location"))
	}
}
