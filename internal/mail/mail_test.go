package mail_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/mail/mailtest"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "smtp-password")
	if err := os.WriteFile(pwFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		s    mail.Settings
		want string // Config.String(), or the error's text
		err  bool
	}{
		{"off", mail.Settings{}, "off", false},
		{"implicit TLS", mail.Settings{URL: "smtps://ana@mail.example.com", Password: "pw", From: "Surveys <no-reply@example.com>"}, "ana@mail.example.com:465 (implicit), from no-reply@example.com", false},
		{"STARTTLS", mail.Settings{URL: "smtp://ana@mail.example.com", PasswordFile: pwFile, DefaultHost: "surveys.example.com"}, "ana@mail.example.com:587 (starttls), from surveys@surveys.example.com", false},
		{"port", mail.Settings{URL: "smtp://mail.example.com:2525/", DefaultHost: "h.example"}, "mail.example.com:2525 (starttls), from surveys@h.example", false},
		{"local relay", mail.Settings{URL: "smtp://localhost?tls=none", DefaultHost: "h.example"}, "localhost:25 (none), from surveys@h.example", false},
		{"local relay with a password", mail.Settings{URL: "smtp://ana@127.0.0.1:2525?tls=none", Password: "pw", DefaultHost: "h.example"}, "ana@127.0.0.1:2525 (none), from surveys@h.example", false},

		{"not a URL", mail.Settings{URL: "smtps://[::1"}, "is not a URL", true},
		{"scheme", mail.Settings{URL: "https://mail.example.com"}, `scheme "https"`, true},
		{"no host", mail.Settings{URL: "smtps://"}, "names no host", true},
		{"port out of range", mail.Settings{URL: "smtps://mail.example.com:99999"}, "is not a port", true},
		{"path", mail.Settings{URL: "smtps://mail.example.com/inbox"}, "give a scheme, user, host and port only", true},
		{"password in the URL", mail.Settings{URL: "smtps://ana:pw@mail.example.com"}, "holds a password: put it in SURVEYS_SMTP_PASSWORD", true},
		{"missing password file", mail.Settings{URL: "smtps://ana@mail.example.com", PasswordFile: filepath.Join(dir, "nope")}, "SURVEYS_SMTP_PASSWORD_FILE: open", true},
		{"empty password file", mail.Settings{URL: "smtps://ana@mail.example.com", PasswordFile: empty}, "is empty", true},
		{"both passwords", mail.Settings{URL: "smtps://ana@mail.example.com", Password: "pw", PasswordFile: pwFile}, "not both", true},
		{"user without password", mail.Settings{URL: "smtps://ana@mail.example.com"}, `names the user "ana" but no password`, true},
		{"password without user", mail.Settings{URL: "smtps://mail.example.com", Password: "pw"}, "names no user", true},
		{"password without URL", mail.Settings{Password: "pw"}, "no --smtp-url", true},
		{"clear password to a remote relay", mail.Settings{URL: "smtp://ana@mail.example.com?tls=none", Password: "pw"}, "in clear", true},
		{"tls=none with smtps", mail.Settings{URL: "smtps://mail.example.com?tls=none"}, "the only choice is tls=none, with smtp://", true},
		{"unknown parameter", mail.Settings{URL: "smtp://mail.example.com?auth=login"}, `unknown parameter "auth"`, true},
		{"bad sender", mail.Settings{URL: "smtps://mail.example.com", From: "not an address"}, "--mail-from (SURVEYS_MAIL_FROM)", true},
		{"sender with a line break", mail.Settings{URL: "smtps://mail.example.com", From: "Eve <eve@example.com>\r\nBcc: x@example.com"}, "single line", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := mail.Load(tc.s)
			if tc.err {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Load = %v, %v; want an error with %q", c, err, tc.want)
				}
				if strings.Contains(err.Error(), "pw") && !strings.Contains(tc.want, "pw") {
					t.Errorf("the error %q shows the password", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.String(); got != tc.want {
				t.Fatalf("Load = %q, want %q", got, tc.want)
			}
			if c != nil && c.Username != "" && c.Password == "" {
				t.Fatalf("no password loaded")
			}
		})
	}
	c, err := mail.Load(mail.Settings{URL: "smtp://ana@mail.example.com", PasswordFile: pwFile, DefaultHost: "h.example"})
	if err != nil || c.Password != "s3cret" {
		t.Fatalf("password from the file = %q, %v; want it without the line break", c.Password, err)
	}
	if strings.Contains(c.String(), "s3cret") {
		t.Fatalf("String shows the password: %s", c)
	}
}

// TestValidate: header injection through the subject or the recipient's
// name is refused, as are messages that cannot be sent.
func TestValidate(t *testing.T) {
	ok := mail.Message{To: "Ana Lima <ana@example.com>", Subject: "Hello", Text: "Body"}
	if err := ok.Validate(); err != nil {
		t.Fatalf("a good message: %v", err)
	}
	for _, tc := range []struct {
		name string
		edit func(*mail.Message)
		want string
	}{
		{"line break in the subject", func(m *mail.Message) { m.Subject = "Hi\r\nBcc: victim@example.com" }, "single line"},
		{"bare LF in the subject", func(m *mail.Message) { m.Subject = "Hi\nX-Evil: 1" }, "single line"},
		{"line break in the name", func(m *mail.Message) { m.To = "Ana\r\nBcc: victim@example.com <ana@example.com>" }, "single line"},
		{"quoted name with a line break", func(m *mail.Message) { m.To = "\"Ana\r\nBcc: v@example.com\" <ana@example.com>" }, "single line"},
		{"two recipients", func(m *mail.Message) { m.To = "ana@example.com, victim@example.com" }, "not an e-mail address"},
		{"no recipient", func(m *mail.Message) { m.To = "" }, "not an e-mail address"},
		{"no subject", func(m *mail.Message) { m.Subject = "  " }, "no subject"},
		{"long subject", func(m *mail.Message) { m.Subject = strings.Repeat("é", mail.MaxSubject+1) }, "longer than"},
		{"no text", func(m *mail.Message) { m.Text = "" }, "no text body"},
		{"too large", func(m *mail.Message) { m.HTML = strings.Repeat("x", mail.MaxBody) }, "larger than"},
		{"not UTF-8", func(m *mail.Message) { m.Text = "\xff" }, "not UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := ok
			tc.edit(&m)
			err := m.Validate()
			if !errors.Is(err, mail.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate = %v, want ErrInvalid with %q", err, tc.want)
			}
		})
	}
}

func TestRender(t *testing.T) {
	tpl, err := mail.LoadTemplates()
	if err != nil {
		t.Fatal(err)
	}
	m, err := tpl.Render("check", "ana@example.com", map[string]string{"Site": "Ex <b>\r\nBcc: v@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Subject != "Test message from Surveys at Ex <b> Bcc: v@example.com" {
		t.Errorf("subject = %q: data's line break must become a space", m.Subject)
	}
	if !strings.Contains(m.Text, "from Surveys at Ex <b>\r\nBcc") || !strings.HasSuffix(m.Text, "You need do nothing.\n") {
		t.Errorf("text = %q", m.Text)
	}
	if !strings.Contains(m.HTML, "<strong>Ex &lt;b&gt;") {
		t.Errorf("html is not escaped: %q", m.HTML)
	}
	if _, err := tpl.Render("nope", "ana@example.com", nil); err == nil {
		t.Error("Render of an unknown template succeeded")
	}
	if _, err := tpl.Render("check", "ana@example.com\nBcc: v@example.com", map[string]string{"Site": ""}); !errors.Is(err, mail.ErrInvalid) {
		t.Errorf("Render to an injected address = %v", err)
	}
}

// TestSend sends through a real SMTP server in each security mode, with
// AUTH, and reads what arrived: headers, a UTF-8 subject and body, the
// HTML alternative.
func TestSend(t *testing.T) {
	msg := mail.Message{To: "Zoë Ñandú <zoe@example.com>", Subject: "Grüße – 你好, survey “Q3”", Text: "Bonjour Zoë,\nvoilà: ✓ 你好\n", HTML: "<p>Bonjour Zoë ✓</p>"}
	for _, sec := range []mailtest.Security{mailtest.Plain, mailtest.StartTLS, mailtest.Implicit} {
		t.Run(string(sec), func(t *testing.T) {
			srv := mailtest.Start(t, mailtest.Options{Security: sec, Username: "ana", Password: "pässword"})
			cfg := testConfig(t, srv, "ana", "pässword")
			if err := mail.NewSender(*cfg).Send(context.Background(), msg); err != nil {
				t.Fatal(err)
			}
			got := srv.Wait(t, 1)[0]
			if got.From != "surveys@example.com" || len(got.To) != 1 || got.To[0] != "zoe@example.com" {
				t.Errorf("envelope from %q to %q", got.From, got.To)
			}
			if got.Subject != msg.Subject || got.Text != msg.Text || got.HTML != msg.HTML {
				t.Errorf("arrived subject %q text %q html %q", got.Subject, got.Text, got.HTML)
			}
			if h := got.Header.Get("From"); !strings.Contains(h, "<surveys@example.com>") {
				t.Errorf("From: %q", h)
			}
			if h := got.Header.Get("To"); !strings.Contains(h, "<zoe@example.com>") {
				t.Errorf("To: %q", h)
			}
			if got.Header.Get("Message-Id") == "" || got.Header.Get("Date") == "" {
				t.Errorf("no Message-ID or Date: %v", got.Header)
			}
			if bad := testConfig(t, srv, "ana", "wrong"); mail.NewSender(*bad).Send(context.Background(), msg) == nil {
				t.Error("a wrong password was accepted")
			}
		})
	}
	t.Run("STARTTLS required", func(t *testing.T) {
		srv := mailtest.Start(t, mailtest.Options{Security: mailtest.Plain})
		cfg := testConfig(t, srv, "", "")
		cfg.Security = mail.StartTLS
		err := mail.NewSender(*cfg).Send(context.Background(), msg)
		if err == nil || len(srv.Messages()) != 0 {
			t.Fatalf("sent without STARTTLS: %v", err)
		}
	})
}

// testConfig configures mail for srv.
func testConfig(t *testing.T, srv *mailtest.Server, user, password string) *mail.Config {
	t.Helper()
	scheme, query := "smtp", "?tls=none"
	switch srv.Security() {
	case mailtest.StartTLS:
		query = ""
	case mailtest.Implicit:
		scheme, query = "smtps", ""
	}
	if user != "" {
		user += "@"
	}
	cfg, err := mail.Load(mail.Settings{URL: scheme + "://" + user + srv.Addr + query, Password: password, From: "Surveys <surveys@example.com>"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.RootCAs = srv.RootCAs
	return cfg
}

// TestOutbox: without SMTP, Enqueue says mail is off; with it, a bad
// message is refused and nothing is queued, and a good one is queued and
// wakes the worker.
func TestOutbox(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	msg := mail.Message{To: "ana@example.com", Subject: "Hi", Text: "Body"}
	if err := mail.NewOutbox(st, nil).Enqueue(ctx, msg); !errors.Is(err, mail.ErrNotConfigured) {
		t.Fatalf("Enqueue without SMTP = %v", err)
	}
	woken := 0
	o := mail.NewOutbox(st, &mail.Config{})
	o.Queued = func() { woken++ }
	bad := msg
	bad.Subject = "Hi\r\nBcc: v@example.com"
	if err := o.Enqueue(ctx, bad); !errors.Is(err, mail.ErrInvalid) {
		t.Fatalf("Enqueue of an injected subject = %v", err)
	}
	if err := o.Enqueue(ctx, msg); err != nil {
		t.Fatal(err)
	}
	if n, err := st.ApproximateCount(ctx, store.MailQueue); err != nil || n != 1 || woken != 1 {
		t.Fatalf("queued %d (%v), woken %d; want 1 and 1", n, err, woken)
	}
}
