package azure

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/queueerror"

	"github.com/surveys-dev/surveys/internal/storage"
)

// Message bodies are base64-encoded, so that any bytes survive the XML of
// the queue service; it is also what other Azure SDKs do by default.

// CreateQueue creates a queue; it succeeds if the queue exists.
func (s *Store) CreateQueue(ctx context.Context, queue string) error {
	if err := storage.ValidateQueueName(queue); err != nil {
		return err
	}
	_, err := s.queues.CreateQueue(ctx, queue, nil)
	if err != nil && !queueerror.HasCode(err, queueerror.QueueAlreadyExists) {
		return wrap(err, "create queue %s", queue)
	}
	return nil
}

// DeleteQueue deletes a queue and its messages.
func (s *Store) DeleteQueue(ctx context.Context, queue string) error {
	if err := storage.ValidateQueueName(queue); err != nil {
		return err
	}
	_, err := s.queues.DeleteQueue(ctx, queue, nil)
	return wrap(err, "delete queue %s", queue)
}

// Enqueue adds a message and returns its ID.
func (s *Store) Enqueue(ctx context.Context, queue string, data []byte, o storage.EnqueueOptions) (string, error) {
	if err := storage.ValidateQueueName(queue); err != nil {
		return "", err
	}
	if len(data) > storage.MaxMessageSize {
		return "", fmt.Errorf("enqueue to %s: message of %d bytes, at most %d allowed: %w", queue, len(data), storage.MaxMessageSize, storage.ErrTooLarge)
	}
	var opts azqueue.EnqueueMessageOptions
	switch {
	case o.TTL < 0:
		opts.TimeToLive = to.Ptr(int32(-1))
	case o.TTL > 0:
		ttl, err := seconds("enqueue TTL", o.TTL, time.Second, time.Duration(1<<31-1)*time.Second)
		if err != nil {
			return "", err
		}
		opts.TimeToLive = &ttl
	}
	if o.Delay != 0 {
		delay, err := seconds("enqueue delay", o.Delay, 0, storage.MaxVisibility)
		if err != nil {
			return "", err
		}
		if o.TTL > 0 && o.Delay >= o.TTL {
			return "", fmt.Errorf("enqueue delay %s is not shorter than the TTL %s: %w", o.Delay, o.TTL, storage.ErrInvalid)
		}
		opts.VisibilityTimeout = &delay
	}
	resp, err := s.queues.NewQueueClient(queue).EnqueueMessage(ctx, base64.StdEncoding.EncodeToString(data), &opts)
	if err != nil {
		return "", wrap(err, "enqueue to %s", queue)
	}
	if len(resp.Messages) == 0 || resp.Messages[0] == nil || resp.Messages[0].MessageID == nil {
		return "", fmt.Errorf("azure: enqueue to %s: %w", queue, errNoResponse)
	}
	return *resp.Messages[0].MessageID, nil
}

// Dequeue receives up to max visible messages and hides them for visibility.
func (s *Store) Dequeue(ctx context.Context, queue string, max int, visibility time.Duration) ([]storage.Message, error) {
	if err := storage.ValidateQueueName(queue); err != nil {
		return nil, err
	}
	if err := storage.ValidateDequeue(max, visibility); err != nil {
		return nil, err
	}
	vis, err := seconds("dequeue visibility", visibility, time.Second, storage.MaxVisibility)
	if err != nil {
		return nil, err
	}
	resp, err := s.queues.NewQueueClient(queue).DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{
		NumberOfMessages:  to.Ptr(int32(max)),
		VisibilityTimeout: &vis,
	})
	if err != nil {
		return nil, wrap(err, "dequeue from %s", queue)
	}
	msgs := make([]storage.Message, 0, len(resp.Messages))
	for _, m := range resp.Messages {
		if m == nil || m.MessageID == nil || m.PopReceipt == nil {
			return nil, fmt.Errorf("azure: dequeue from %s: %w", queue, errNoResponse)
		}
		msg := message(*m.MessageID, m.MessageText, m.DequeueCount, m.InsertionTime, m.ExpirationTime)
		msg.PopReceipt = *m.PopReceipt
		msgs = append(msgs, msg)
	}
	return msgs, nil
}

// PeekMessages returns up to max visible messages without hiding them.
func (s *Store) PeekMessages(ctx context.Context, queue string, max int) ([]storage.Message, error) {
	if err := storage.ValidateQueueName(queue); err != nil {
		return nil, err
	}
	if max < 1 || max > storage.MaxDequeue {
		return nil, fmt.Errorf("peek %d messages from %s: 1 to %d allowed: %w", max, queue, storage.MaxDequeue, storage.ErrInvalid)
	}
	resp, err := s.queues.NewQueueClient(queue).PeekMessages(ctx, &azqueue.PeekMessagesOptions{NumberOfMessages: to.Ptr(int32(max))})
	if err != nil {
		return nil, wrap(err, "peek messages of %s", queue)
	}
	msgs := make([]storage.Message, 0, len(resp.Messages))
	for _, m := range resp.Messages {
		if m == nil || m.MessageID == nil {
			return nil, fmt.Errorf("azure: peek messages of %s: %w", queue, errNoResponse)
		}
		msgs = append(msgs, message(*m.MessageID, m.MessageText, m.DequeueCount, m.InsertionTime, m.ExpirationTime))
	}
	return msgs, nil
}

// message is a dequeued or peeked message of the SDK as a storage.Message
// (without its pop receipt).
func message(id string, text *string, dequeueCount *int64, inserted, expires *time.Time) storage.Message {
	msg := storage.Message{ID: id, Data: decodeBody(deref(text))}
	if dequeueCount != nil {
		msg.DequeueCount = *dequeueCount
	}
	if inserted != nil {
		msg.InsertedAt = inserted.UTC()
	}
	if expires != nil {
		msg.ExpiresAt = expires.UTC()
	}
	return msg
}

// decodeBody decodes a base64 message body. A body that is not base64 was
// not enqueued by this package; it is returned as it is.
func decodeBody(text string) []byte {
	if data, err := base64.StdEncoding.DecodeString(text); err == nil {
		return data
	}
	return []byte(text)
}

// DeleteMessage deletes a dequeued message.
func (s *Store) DeleteMessage(ctx context.Context, queue, id, popReceipt string) error {
	if err := validateMessage(queue, id, popReceipt); err != nil {
		return err
	}
	_, err := s.queues.NewQueueClient(queue).DeleteMessage(ctx, id, popReceipt, nil)
	return wrap(err, "delete message %s from %s", id, queue)
}

// UpdateVisibility hides a dequeued message for visibility from now and
// returns its new pop receipt. The message's content is left as it is: the
// request is sent without a body (see dropBodyPolicy).
func (s *Store) UpdateVisibility(ctx context.Context, queue, id, popReceipt string, visibility time.Duration) (string, error) {
	if err := validateMessage(queue, id, popReceipt); err != nil {
		return "", err
	}
	vis, err := seconds("visibility", visibility, 0, storage.MaxVisibility)
	if err != nil {
		return "", err
	}
	resp, err := s.queues.NewQueueClient(queue).UpdateMessage(withoutBody(ctx), id, popReceipt, "", &azqueue.UpdateMessageOptions{VisibilityTimeout: &vis})
	if err != nil {
		return "", wrap(err, "update visibility of message %s in %s", id, queue)
	}
	if resp.PopReceipt == nil {
		return "", fmt.Errorf("azure: update visibility of message %s in %s: %w", id, queue, errNoResponse)
	}
	return *resp.PopReceipt, nil
}

// ApproximateCount returns the service's approximate number of messages.
func (s *Store) ApproximateCount(ctx context.Context, queue string) (int, error) {
	if err := storage.ValidateQueueName(queue); err != nil {
		return 0, err
	}
	resp, err := s.queues.NewQueueClient(queue).GetProperties(ctx, nil)
	if err != nil {
		return 0, wrap(err, "get properties of queue %s", queue)
	}
	if resp.ApproximateMessagesCount == nil {
		return 0, fmt.Errorf("azure: get properties of queue %s: %w", queue, errNoResponse)
	}
	return int(*resp.ApproximateMessagesCount), nil
}

func validateMessage(queue, id, popReceipt string) error {
	if err := storage.ValidateQueueName(queue); err != nil {
		return err
	}
	if id == "" || popReceipt == "" {
		return fmt.Errorf("message id %q and pop receipt %q must not be empty: %w", id, popReceipt, storage.ErrInvalid)
	}
	return nil
}

// seconds converts d to whole seconds, rounding up, after checking that it
// is within [min, max].
func seconds(what string, d, min, max time.Duration) (int32, error) {
	if d < min || d > max {
		return 0, fmt.Errorf("%s %s: %s to %s allowed: %w", what, d, min, max, storage.ErrInvalid)
	}
	return int32((d + time.Second - 1) / time.Second), nil
}

// The queue service's Update Message changes only the visibility timeout of
// a message when the request has no body, but azqueue always sends one
// with the new content. dropBodyPolicy, in the queue client's pipeline,
// removes the body of requests whose context withoutBody marked.

type dropBodyKey struct{}

func withoutBody(ctx context.Context) context.Context {
	return context.WithValue(ctx, dropBodyKey{}, true)
}

type dropBodyPolicy struct{}

func (dropBodyPolicy) Do(req *policy.Request) (*http.Response, error) {
	if drop, _ := req.Raw().Context().Value(dropBodyKey{}).(bool); drop && req.Raw().Method == http.MethodPut {
		if err := req.SetBody(nil, ""); err != nil {
			return nil, fmt.Errorf("remove request body: %w", err)
		}
	}
	return req.Next()
}
