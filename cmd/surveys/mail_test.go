package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/mail/mailtest"
)

// TestServeMail: without SMTP the server runs, says once that e-mail is
// off, and Enqueue says so; with it, a message queued on the instance is
// sent by its mail worker, woken at once.
func TestServeMail(t *testing.T) {
	msg := mail.Message{To: "Zoë <zoe@example.com>", Subject: "Bienvenue, Zoë", Text: "Bonjour ✓\n"}

	var logs syncBuffer
	off := bootMain(t, &logs)
	defer off.Close()
	if err := off.Mail.Enqueue(context.Background(), msg); !errors.Is(err, mail.ErrNotConfigured) {
		t.Fatalf("Enqueue without SMTP = %v", err)
	}
	if n := strings.Count(logs.String(), "e-mail is off"); n != 1 {
		t.Fatalf("the log says %d times that e-mail is off:\n%s", n, logs.String())
	}

	const password = "Sesame-0451"
	srv := mailtest.Start(t, mailtest.Options{Username: "ana", Password: password})
	var onLogs syncBuffer
	on := bootMain(t, &onLogs, "--smtp-url", "smtp://ana@"+srv.Addr+"?tls=none", "--mail-from", "Surveys <surveys@example.com>", "--public-url", testPublicURL,
		"--smtp-password-file", writePassword(t, password))
	defer on.Close()
	if err := on.Mail.Enqueue(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	got := srv.Wait(t, 1)[0]
	if got.Subject != msg.Subject || got.Text != msg.Text || got.To[0] != "zoe@example.com" {
		t.Fatalf("arrived %+v", got)
	}
	if l := onLogs.String(); !strings.Contains(l, "e-mail on") || strings.Contains(l, password) {
		t.Fatalf("the log does not say e-mail is on, or shows the password:\n%s", l)
	}
}

func writePassword(t *testing.T, pw string) string {
	t.Helper()
	f := t.TempDir() + "/smtp-password"
	if err := os.WriteFile(f, []byte(pw+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}
