package mail

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	htmltemplate "html/template"
	netmail "net/mail"
	"slices"
	"strings"
	texttemplate "text/template"
	"unicode"
	"unicode/utf8"
)

// Message is one e-mail to one person: a plain-text body always, an HTML
// alternative when HTML is set. It travels on the mail queue as JSON.
type Message struct {
	To      string `json:"to"` // one address, optionally with a name: "Ana <ana@example.com>"
	Subject string `json:"subject"`
	Text    string `json:"text"`
	HTML    string `json:"html,omitempty"`
	// ID, when set, is the Message-ID (without angle brackets): the same
	// for every attempt at one mail, so that a receiver that sees it twice
	// knows it for one (campaigns).
	ID string `json:"id,omitempty"`
	// Headers are extra headers, of the names in ExtraHeaders only.
	Headers map[string]string `json:"headers,omitempty"`
}

// ExtraHeaders are the headers a Message may add: those of a list's
// unsubscribe (RFC 2369, RFC 8058).
var ExtraHeaders = []string{"List-Unsubscribe", "List-Unsubscribe-Post"}

// Limits of a message: a subject fits one header line's worth, and the
// whole message fits a queue message (48 KiB) with room for its JSON.
const (
	MaxSubject = 250
	MaxBody    = 40 << 10
)

// ErrInvalid is the error of a message that cannot be sent as it is.
var ErrInvalid = errors.New("mail: invalid message")

// Validate refuses a message that could inject headers (a line break or
// other control character in the address or subject), an address net/mail
// cannot parse, or one too large to queue.
func (m Message) Validate() error {
	if _, err := ParseAddress(m.To); err != nil {
		return fmt.Errorf("%w: recipient: %v", ErrInvalid, err)
	}
	switch {
	case strings.TrimSpace(m.Subject) == "":
		return fmt.Errorf("%w: no subject", ErrInvalid)
	case hasControl(m.Subject):
		return fmt.Errorf("%w: the subject must be a single line", ErrInvalid)
	case utf8.RuneCountInString(m.Subject) > MaxSubject:
		return fmt.Errorf("%w: the subject is longer than %d characters", ErrInvalid, MaxSubject)
	case strings.TrimSpace(m.Text) == "":
		return fmt.Errorf("%w: no text body", ErrInvalid)
	case !utf8.ValidString(m.Subject) || !utf8.ValidString(m.Text) || !utf8.ValidString(m.HTML):
		return fmt.Errorf("%w: not UTF-8", ErrInvalid)
	case len(m.Text)+len(m.HTML) > MaxBody:
		return fmt.Errorf("%w: the body is larger than %d bytes", ErrInvalid, MaxBody)
	case hasControl(m.ID) || strings.ContainsAny(m.ID, "<> ") || len(m.ID) > 250:
		return fmt.Errorf("%w: a Message-ID is one word", ErrInvalid)
	}
	for k, v := range m.Headers {
		if !slices.Contains(ExtraHeaders, k) {
			return fmt.Errorf("%w: the header %q may not be set", ErrInvalid, k)
		}
		if hasControl(v) || len(v) > 1000 {
			return fmt.Errorf("%w: the header %s must be a single line", ErrInvalid, k)
		}
	}
	return nil
}

// ParseAddress parses one address (with an optional display name) and
// refuses line breaks and other control characters anywhere in it.
func ParseAddress(s string) (*netmail.Address, error) {
	if hasControl(s) {
		return nil, errors.New("an address must be a single line")
	}
	a, err := netmail.ParseAddress(s)
	if err != nil {
		return nil, fmt.Errorf("not an e-mail address: %v", err)
	}
	if hasControl(a.Name) || hasControl(a.Address) {
		return nil, errors.New("an address must be a single line")
	}
	return a, nil
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, unicode.IsControl)
}

//go:embed templates
var templateFS embed.FS

// Templates are the messages' templates, from templates/<name>.txt (a
// text/template defining "subject" and "text") and, optionally,
// templates/<name>.html (an html/template defining "html"). They are
// parsed once, at start-up.
type Templates struct {
	text map[string]*texttemplate.Template
	html map[string]*htmltemplate.Template
}

// LoadTemplates parses the embedded templates; an error is a bug.
func LoadTemplates() (*Templates, error) {
	t := &Templates{text: map[string]*texttemplate.Template{}, html: map[string]*htmltemplate.Template{}}
	entries, err := templateFS.ReadDir("templates")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, ".txt"):
			tt, err := texttemplate.New(name).Option("missingkey=error").ParseFS(templateFS, "templates/"+name)
			if err != nil {
				return nil, fmt.Errorf("mail: template %s: %w", name, err)
			}
			if tt.Lookup("subject") == nil || tt.Lookup("text") == nil {
				return nil, fmt.Errorf("mail: template %s defines no subject or no text", name)
			}
			t.text[strings.TrimSuffix(name, ".txt")] = tt
		case strings.HasSuffix(name, ".html"):
			ht, err := htmltemplate.New(name).Option("missingkey=error").ParseFS(templateFS, "templates/"+name)
			if err != nil {
				return nil, fmt.Errorf("mail: template %s: %w", name, err)
			}
			if ht.Lookup("html") == nil {
				return nil, fmt.Errorf("mail: template %s defines no html", name)
			}
			t.html[strings.TrimSuffix(name, ".html")] = ht
		}
	}
	for name := range t.html {
		if t.text[name] == nil {
			return nil, fmt.Errorf("mail: template %s.html has no %s.txt: a message always has plain text", name, name)
		}
	}
	return t, nil
}

// Render makes the message name to the address to from data. The subject's
// runs of white space (line breaks included) become single spaces, so
// data with a line break never makes a second header line; the message is
// validated.
func (t *Templates) Render(name, to string, data any) (Message, error) {
	tt := t.text[name]
	if tt == nil {
		return Message{}, fmt.Errorf("mail: no template %q", name)
	}
	var subject, text bytes.Buffer
	if err := tt.ExecuteTemplate(&subject, "subject", data); err != nil {
		return Message{}, fmt.Errorf("mail: template %s: %w", name, err)
	}
	if err := tt.ExecuteTemplate(&text, "text", data); err != nil {
		return Message{}, fmt.Errorf("mail: template %s: %w", name, err)
	}
	m := Message{To: to, Subject: strings.Join(strings.Fields(subject.String()), " "), Text: strings.TrimSpace(text.String()) + "\n"}
	if ht := t.html[name]; ht != nil {
		var html bytes.Buffer
		if err := ht.ExecuteTemplate(&html, "html", data); err != nil {
			return Message{}, fmt.Errorf("mail: template %s: %w", name, err)
		}
		m.HTML = html.String()
	}
	return m, m.Validate()
}
