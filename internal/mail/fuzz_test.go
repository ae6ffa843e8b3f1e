package mail_test

import (
	"bytes"
	netmail "net/mail"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/mail"
)

// FuzzMessage: whatever the recipient and subject, a message either is
// refused or is written with exactly the headers it should have, to one
// recipient, with the subject intact.
func FuzzMessage(f *testing.F) {
	for _, s := range [][2]string{
		{"Ana <ana@example.com>", "Hello"},
		{"ana@example.com", "Grüße – 你好"},
		{"Ana\r\nBcc: v@example.com <ana@example.com>", "Hi"},
		{"ana@example.com", "Hi\r\nBcc: v@example.com"},
		{"\"A\\\"na\" <ana@example.com>", "=?utf-8?q?x?="},
		{"ana@example.com, v@example.com", "Hi\nX: y"},
	} {
		f.Add(s[0], s[1])
	}
	from, _ := mail.ParseAddress("Surveys <surveys@example.com>")
	sender := mail.NewSender(mail.Config{From: from})
	want := []string{"Content-Transfer-Encoding", "Content-Type", "Date", "From", "Message-Id", "Mime-Version", "Subject", "To", "User-Agent", "X-Mailer"}
	f.Fuzz(func(t *testing.T, to, subject string) {
		m := mail.Message{To: to, Subject: subject, Text: "Body"}
		raw, err := sender.Render(m)
		if err != nil {
			if m.Validate() == nil {
				t.Fatalf("a valid message cannot be written: %v", err)
			}
			return
		}
		if strings.ContainsAny(to+subject, "\r\n") {
			t.Fatalf("a line break was accepted: %q %q", to, subject)
		}
		msg, err := netmail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("the message does not parse: %v\n%s", err, raw)
		}
		for k := range msg.Header {
			if !contains(want, k) {
				t.Fatalf("header %q was injected:\n%s", k, raw)
			}
		}
		rcpts, err := msg.Header.AddressList("To")
		if err != nil || len(rcpts) != 1 {
			t.Fatalf("To: %q: %d recipients, %v", msg.Header.Get("To"), len(rcpts), err)
		}
	})
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
