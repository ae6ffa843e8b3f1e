package mail

import (
	"context"
	"errors"
	"fmt"
	netmail "net/mail"

	gomail "github.com/wneessen/go-mail"
)

// Sender sends messages through the configured SMTP server, one
// connection per message.
type Sender struct {
	cfg Config
}

// NewSender returns a Sender for cfg.
func NewSender(cfg Config) *Sender { return &Sender{cfg: cfg} }

// Send delivers m. The error tells the server's reply (never the
// password); Permanent reports whether a later attempt cannot succeed.
func (s *Sender) Send(ctx context.Context, m Message) error {
	msg, to, err := s.build(m)
	if err != nil {
		return err
	}
	opts := []gomail.Option{gomail.WithPort(s.cfg.Port), gomail.WithTimeout(s.cfg.Timeout), gomail.WithTLSConfig(s.cfg.tlsConfig())}
	switch s.cfg.Security {
	case Implicit:
		opts = append(opts, gomail.WithSSL())
	case StartTLS:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	}
	if s.cfg.Username != "" {
		auth := gomail.SMTPAuthAutoDiscover
		if s.cfg.Security == None { // loopback only (Load)
			auth = gomail.SMTPAuthPlainNoEnc
		}
		opts = append(opts, gomail.WithSMTPAuth(auth), gomail.WithUsername(s.cfg.Username), gomail.WithPassword(s.cfg.Password))
	}
	c, err := gomail.NewClient(s.cfg.Host, opts...)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("mail: send to %s via %s:%d: %w", to.Address, s.cfg.Host, s.cfg.Port, err)
	}
	return nil
}

// build makes the go-mail message of a valid m.
func (s *Sender) build(m Message) (*gomail.Msg, *netmail.Address, error) {
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	to, _ := ParseAddress(m.To)
	msg := gomail.NewMsg()
	msg.FromMailAddress(s.cfg.From)
	msg.ToMailAddress(to)
	msg.Subject(m.Subject)
	msg.SetDate()
	if m.ID != "" {
		msg.SetMessageIDWithValue(m.ID)
	} else {
		msg.SetMessageID()
	}
	for _, k := range ExtraHeaders {
		if v, ok := m.Headers[k]; ok {
			msg.SetGenHeaderPreformatted(gomail.Header(k), v)
		}
	}
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, to, nil
}

// Permanent reports whether err is the server's permanent refusal (5xx) of
// the message or its recipient, which no later attempt changes.
func Permanent(err error) bool {
	var se *gomail.SendError
	if errors.As(err, &se) {
		return !se.IsTemp() && se.ErrorCode() >= 500
	}
	return errors.Is(err, ErrInvalid)
}
