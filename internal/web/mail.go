package web

import (
	"context"
	"time"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/store"
)

// Mailer queues an e-mail for the mail worker (mail.Outbox).
type Mailer interface {
	Enqueue(ctx context.Context, m mail.Message) error
}

// Links makes and redeems single-use links (store.LinkStore).
type Links interface {
	Create(ctx context.Context, l store.Link, ttl time.Duration) (string, error)
	Peek(ctx context.Context, purpose, token string) (*store.Link, error)
	Use(ctx context.Context, purpose, token string) (*store.Link, error)
	List(ctx context.Context, tenant, purpose string) ([]store.Link, error)
	Revoke(ctx context.Context, tenant, purpose, id string) error
	RevokeFor(ctx context.Context, tenant, purpose, email string) error
	// TakeResetMail counts a reset mail to email: false when the address
	// had its reset mails for the window.
	TakeResetMail(ctx context.Context, email string) (bool, error)
}

// mailOn reports whether this server sends e-mail.
func (s *Server) mailOn() bool { return s.mail != nil }

// sendMail renders the mail template name to the address to and queues
// it; mail.ErrNotConfigured when e-mail is off.
func (s *Server) sendMail(ctx context.Context, name, to string, data any) error {
	if s.mail == nil {
		return mail.ErrNotConfigured
	}
	m, err := s.mailTemplates.Render(name, to, data)
	if err != nil {
		return err
	}
	return s.mail.Enqueue(ctx, m)
}
