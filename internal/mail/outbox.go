package mail

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// ErrNotConfigured is what Enqueue returns when this server has no SMTP
// server: a page shows its message as it is.
var ErrNotConfigured = survey.Errorf(survey.ECONFLICT, "E-mail is not set up on this server; ask the operator.")

// Outbox puts messages on the mail queue for the mail worker. A nil
// Outbox is mail switched off.
type Outbox struct {
	st storage.Storage
	// Queued, when set, is called after a message is queued: it wakes
	// this instance's mail worker (worker.Mail.Wake). It never blocks.
	Queued func()
}

// NewOutbox returns the outbox over st; nil when cfg is nil (mail is off).
func NewOutbox(st storage.Storage, cfg *Config) *Outbox {
	if cfg == nil {
		return nil
	}
	return &Outbox{st: st}
}

// Enqueue validates m and queues it; it returns once the message is
// durably queued, without waiting for the SMTP server. It returns
// ErrNotConfigured when mail is off and an error wrapping ErrInvalid for
// a message that cannot be sent.
func (o *Outbox) Enqueue(ctx context.Context, m Message) error {
	if o == nil {
		return ErrNotConfigured
	}
	if err := m.Validate(); err != nil {
		return err
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if _, err := o.st.Enqueue(ctx, store.MailQueue, data, storage.EnqueueOptions{}); err != nil {
		return fmt.Errorf("mail: queue a message: %w", err)
	}
	if o.Queued != nil {
		o.Queued()
	}
	return nil
}
