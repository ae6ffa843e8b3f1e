package web

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
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

// MailQuota counts a tenant's e-mails to others (store.MailQuotaStore):
// a *store.QuotaError when a batch would pass a limit, nothing counted.
type MailQuota interface {
	Take(ctx context.Context, tenant string, plan survey.Plan, to []string) error
	// TakeCopy counts a respondent's copy of answer id to addr: once per
	// address, to at most store.MaxCopyAddresses addresses.
	TakeCopy(ctx context.Context, tenant string, plan survey.Plan, id, addr string) error
}

// takeMailQuota counts mails from tenant to each of to, when e-mail is on.
// A refusal is counted in /metrics and returned as the *store.QuotaError
// whose message the page shows beside its field.
func (s *Server) takeMailQuota(ctx context.Context, tenant string, plan survey.Plan, to []string) error {
	if s.mail == nil || len(to) == 0 {
		return nil
	}
	if u := sessionFrom(ctx); s.verifier != nil && u != nil {
		unproven, err := s.verifier.Unverified(ctx, tenant, u.Email)
		if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
			return err
		}
		if unproven {
			s.mailRefused.WithLabelValues(store.Unverified).Add(float64(len(to)))
			return &store.QuotaError{Reason: store.Unverified, Message: "Confirm your own e-mail address first: open the link we mailed to " + u.Email +
				" when you signed up (your account page, /" + tenant + "/account/password, sends it again). Until then your organisation sends no e-mail to others. Nothing was sent."}
		}
	}
	if s.mailQuota == nil {
		return nil
	}
	err := s.mailQuota.Take(ctx, tenant, plan, to)
	var qe *store.QuotaError
	if errors.As(err, &qe) {
		s.mailRefused.WithLabelValues(qe.Reason).Add(float64(len(to)))
	}
	return err
}

// publicHost is the host of the public URL, which mails name as where
// they come from.
func (s *Server) publicHost() string {
	if u, err := url.Parse(s.publicURL); err == nil && u.Host != "" {
		return u.Host
	}
	return s.publicURL
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
