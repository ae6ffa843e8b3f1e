package local

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
)

// Messages are rows keyed by (queue, seq), seq growing with each Enqueue,
// so the primary key is insertion order. A message's ID is a GUID-shaped
// string holding its seq and 64 random bits, so that lookups by ID use
// the primary key and an ID never names a later message with a reused seq.

const (
	// defaultTTL is the life of a message enqueued with a zero TTL.
	defaultTTL = 7 * 24 * time.Hour
	// neverExpires is the expiry of a message enqueued with a negative TTL.
	neverExpires = math.MaxInt64
)

// farFuture is the ExpiresAt of messages that never expire (what Azure
// reports for them).
var farFuture = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

// CreateQueue creates a queue; it succeeds if the queue exists.
func (s *Store) CreateQueue(ctx context.Context, queue string) error {
	if err := storage.ValidateQueueName(queue); err != nil {
		return fmt.Errorf("local: create queue: %w", err)
	}
	err := s.write(ctx, func(tx *wtx) error {
		_, err := tx.Exec("INSERT INTO queues (name) VALUES (?) ON CONFLICT DO NOTHING", queue)
		return err
	})
	if err != nil {
		return fmt.Errorf("local: create queue %s: %w", queue, err)
	}
	return nil
}

// DeleteQueue deletes a queue and its messages (ErrNotFound if absent).
func (s *Store) DeleteQueue(ctx context.Context, queue string) error {
	if err := storage.ValidateQueueName(queue); err != nil {
		return fmt.Errorf("local: delete queue: %w", err)
	}
	err := s.write(ctx, func(tx *wtx) error {
		res, err := tx.Exec("DELETE FROM queues WHERE name = ?", queue)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return storage.ErrNotFound
		}
		_, err = tx.Exec("DELETE FROM messages WHERE queue = ?", queue)
		return err
	})
	if err != nil {
		return fmt.Errorf("local: delete queue %s: %w", queue, err)
	}
	return nil
}

// Enqueue adds a message and returns its ID.
func (s *Store) Enqueue(ctx context.Context, queue string, data []byte, o storage.EnqueueOptions) (string, error) {
	if err := storage.ValidateQueueName(queue); err != nil {
		return "", fmt.Errorf("local: enqueue: %w", err)
	}
	if len(data) > storage.MaxMessageSize {
		return "", fmt.Errorf("local: enqueue %s: message is %d bytes, at most %d allowed: %w",
			queue, len(data), storage.MaxMessageSize, storage.ErrTooLarge)
	}
	if o.Delay < 0 || o.Delay > storage.MaxVisibility {
		return "", fmt.Errorf("local: enqueue %s: delay %s: 0 to %s allowed: %w",
			queue, o.Delay, storage.MaxVisibility, storage.ErrInvalid)
	}
	ttl := o.TTL
	if ttl == 0 {
		ttl = defaultTTL
	}
	if ttl > 0 && o.Delay >= ttl {
		return "", fmt.Errorf("local: enqueue %s: delay %s is not shorter than the time to live %s: %w",
			queue, o.Delay, ttl, storage.ErrInvalid)
	}
	if data == nil {
		data = []byte{}
	}
	var id string
	err := s.write(ctx, func(tx *wtx) error {
		// The queue and the next seq in one statement.
		var (
			ok  bool
			seq int64
		)
		err := tx.QueryRow("SELECT EXISTS (SELECT 1 FROM queues WHERE name = ?1), (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE queue = ?1)",
			queue).Scan(&ok, &seq)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no such queue: %w", storage.ErrNotFound)
		}
		now := s.nowNanos()
		expires := int64(neverExpires)
		if ttl > 0 {
			expires = now + int64(ttl)
		}
		id = messageID(seq)
		_, err = tx.Exec(`INSERT INTO messages (queue, seq, id, inserted, expires, visible, dequeue_count, pop_receipt, data)
			VALUES (?, ?, ?, ?, ?, ?, 0, '', ?)`,
			queue, seq, id, now, expires, now+int64(o.Delay), data)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("local: enqueue %s: %w", queue, err)
	}
	return id, nil
}

// Dequeue returns up to max visible messages, oldest first, and hides them
// for visibility. Expired messages met on the way are deleted.
func (s *Store) Dequeue(ctx context.Context, queue string, max int, visibility time.Duration) ([]storage.Message, error) {
	if err := storage.ValidateQueueName(queue); err != nil {
		return nil, fmt.Errorf("local: dequeue: %w", err)
	}
	if err := storage.ValidateDequeue(max, visibility); err != nil {
		return nil, fmt.Errorf("local: dequeue %s: %w", queue, err)
	}
	var msgs []storage.Message
	err := s.write(ctx, func(tx *wtx) error {
		msgs = nil
		now := s.nowNanos()
		seqs, expired, err := pickMessages(tx, queue, now, max, &msgs)
		if err != nil {
			return err
		}
		// A queue with messages exists (DeleteQueue deletes them): it
		// is looked up only when none was met.
		if len(seqs) == 0 && len(expired) == 0 {
			return queueExists(tx, queue)
		}
		for _, seq := range expired {
			if _, err := tx.Exec("DELETE FROM messages WHERE queue = ? AND seq = ?", queue, seq); err != nil {
				return err
			}
		}
		visible := now + int64(visibility)
		for i, seq := range seqs {
			receipt := rand.Text()
			if _, err := tx.Exec(`UPDATE messages SET visible = ?, dequeue_count = dequeue_count + 1, pop_receipt = ?
				WHERE queue = ? AND seq = ?`, visible, receipt, queue, seq); err != nil {
				return err
			}
			msgs[i].PopReceipt = receipt
			msgs[i].DequeueCount++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("local: dequeue %s: %w", queue, err)
	}
	return msgs, nil
}

// PeekMessages returns up to max visible messages, oldest first, without
// hiding them.
func (s *Store) PeekMessages(ctx context.Context, queue string, max int) ([]storage.Message, error) {
	if err := storage.ValidateQueueName(queue); err != nil {
		return nil, fmt.Errorf("local: peek: %w", err)
	}
	if max < 1 || max > storage.MaxDequeue {
		return nil, fmt.Errorf("local: peek %s: %d messages: 1 to %d allowed: %w", queue, max, storage.MaxDequeue, storage.ErrInvalid)
	}
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	ok, err := exists(ctx, s.rdb, "SELECT 1 FROM queues WHERE name = ?", queue)
	if err == nil && !ok {
		err = fmt.Errorf("no such queue: %w", storage.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("local: peek %s: %w", queue, err)
	}
	now := s.nowNanos()
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, inserted, expires, dequeue_count, data FROM messages
		WHERE queue = ? AND visible <= ? AND expires > ? ORDER BY seq LIMIT ?`, queue, now, now, max)
	if err != nil {
		return nil, fmt.Errorf("local: peek %s: %w", queue, err)
	}
	defer rows.Close()
	var msgs []storage.Message
	for rows.Next() {
		var (
			m            storage.Message
			ins, expires int64
		)
		if err := rows.Scan(&m.ID, &ins, &expires, &m.DequeueCount, &m.Data); err != nil {
			return nil, fmt.Errorf("local: peek %s: %w", queue, err)
		}
		if m.Data == nil {
			m.Data = []byte{}
		}
		m.InsertedAt = fromNanos(ins)
		m.ExpiresAt = expiresAt(expires)
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("local: peek %s: %w", queue, err)
	}
	return msgs, nil
}

// pickMessages reads, oldest first, up to max messages of queue visible at
// now into msgs, and returns their seqs and those of the expired messages
// it met before them.
func pickMessages(tx *wtx, queue string, now int64, max int, msgs *[]storage.Message) (seqs, expired []int64, err error) {
	rows, err := tx.Query(`SELECT seq, id, inserted, expires, dequeue_count, data FROM messages
		WHERE queue = ? AND visible <= ? ORDER BY seq`, queue, now)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for len(seqs) < max && rows.Next() {
		var (
			m                 storage.Message
			seq, ins, expires int64
		)
		if err := rows.Scan(&seq, &m.ID, &ins, &expires, &m.DequeueCount, &m.Data); err != nil {
			return nil, nil, err
		}
		if expires <= now {
			expired = append(expired, seq)
			continue
		}
		if m.Data == nil {
			m.Data = []byte{}
		}
		m.InsertedAt = fromNanos(ins)
		m.ExpiresAt = expiresAt(expires)
		seqs = append(seqs, seq)
		*msgs = append(*msgs, m)
	}
	return seqs, expired, rows.Err()
}

// DeleteMessage deletes a message whose pop receipt is popReceipt.
func (s *Store) DeleteMessage(ctx context.Context, queue, id, popReceipt string) error {
	if err := validateMessageRef(queue, id, popReceipt); err != nil {
		return fmt.Errorf("local: delete message: %w", err)
	}
	err := s.write(ctx, func(tx *wtx) error {
		seq, err := s.findMessage(tx, queue, id, popReceipt)
		if err != nil {
			return err
		}
		_, err = tx.Exec("DELETE FROM messages WHERE queue = ? AND seq = ?", queue, seq)
		return err
	})
	if err != nil {
		return fmt.Errorf("local: delete message %s/%s: %w", queue, id, err)
	}
	return nil
}

// UpdateVisibility hides a message for visibility from now and returns its
// new pop receipt.
func (s *Store) UpdateVisibility(ctx context.Context, queue, id, popReceipt string, visibility time.Duration) (string, error) {
	if err := validateMessageRef(queue, id, popReceipt); err != nil {
		return "", fmt.Errorf("local: update visibility: %w", err)
	}
	if visibility < 0 || visibility > storage.MaxVisibility {
		return "", fmt.Errorf("local: update visibility %s/%s: visibility %s: 0 to %s allowed: %w",
			queue, id, visibility, storage.MaxVisibility, storage.ErrInvalid)
	}
	var receipt string
	err := s.write(ctx, func(tx *wtx) error {
		seq, err := s.findMessage(tx, queue, id, popReceipt)
		if err != nil {
			return err
		}
		receipt = rand.Text()
		_, err = tx.Exec("UPDATE messages SET visible = ?, pop_receipt = ? WHERE queue = ? AND seq = ?",
			s.nowNanos()+int64(visibility), receipt, queue, seq)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("local: update visibility %s/%s: %w", queue, id, err)
	}
	return receipt, nil
}

// findMessage returns the seq of the live message id of queue, checking
// its pop receipt.
//
// A message found is of a queue that exists (DeleteQueue deletes its
// messages): the queue is looked up only when the message is not.
func (s *Store) findMessage(tx *wtx, queue, id, popReceipt string) (int64, error) {
	notFound := func() (int64, error) {
		if err := queueExists(tx, queue); err != nil {
			return 0, err
		}
		return 0, fmt.Errorf("no such message: %w", storage.ErrNotFound)
	}
	seq, ok := parseMessageID(id)
	if !ok {
		return notFound()
	}
	var (
		storedID, receipt string
		expires           int64
	)
	err := tx.QueryRow("SELECT id, pop_receipt, expires FROM messages WHERE queue = ? AND seq = ?", queue, seq).
		Scan(&storedID, &receipt, &expires)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && (storedID != id || expires <= s.nowNanos())) {
		return notFound()
	}
	if err != nil {
		return 0, err
	}
	if receipt != popReceipt {
		return 0, fmt.Errorf("pop receipt does not match: %w", storage.ErrPrecondition)
	}
	return seq, nil
}

// ApproximateCount counts the queue's unexpired messages.
func (s *Store) ApproximateCount(ctx context.Context, queue string) (int, error) {
	if err := storage.ValidateQueueName(queue); err != nil {
		return 0, fmt.Errorf("local: count messages: %w", err)
	}
	if err := s.checkOpen(); err != nil {
		return 0, err
	}
	var n int
	err := s.rdb.QueryRowContext(ctx, "SELECT COUNT(*) FROM messages WHERE queue = ? AND expires > ?",
		queue, s.nowNanos()).Scan(&n)
	if err == nil && n == 0 {
		var ok bool
		ok, err = exists(ctx, s.rdb, "SELECT 1 FROM queues WHERE name = ?", queue)
		if err == nil && !ok {
			err = fmt.Errorf("no such queue: %w", storage.ErrNotFound)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("local: count messages %s: %w", queue, err)
	}
	return n, nil
}

// queueExists returns ErrNotFound, wrapped, unless queue exists.
func queueExists(tx *wtx, queue string) error {
	ok, err := exists(context.Background(), tx, "SELECT 1 FROM queues WHERE name = ?", queue)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("no such queue: %w", storage.ErrNotFound)
	}
	return nil
}

func validateMessageRef(queue, id, popReceipt string) error {
	if err := storage.ValidateQueueName(queue); err != nil {
		return err
	}
	if id == "" {
		return fmt.Errorf("empty message ID: %w", storage.ErrInvalid)
	}
	if popReceipt == "" {
		return fmt.Errorf("message %s: empty pop receipt: %w", id, storage.ErrInvalid)
	}
	return nil
}

// messageID makes the ID of message seq: a GUID-shaped string whose first
// 16 hex digits are seq and whose last 16 are random.
func messageID(seq int64) string {
	var b [16]byte
	for i := range 8 {
		b[i] = byte(uint64(seq) >> (56 - 8*i))
	}
	rand.Read(b[8:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// parseMessageID returns the seq in an ID made by messageID.
func parseMessageID(id string) (int64, bool) {
	h := strings.ReplaceAll(id, "-", "")
	if len(h) != 32 {
		return 0, false
	}
	seq, err := strconv.ParseUint(h[:16], 16, 63)
	if err != nil {
		return 0, false
	}
	return int64(seq), true
}

func expiresAt(n int64) time.Time {
	if n == neverExpires {
		return farFuture
	}
	return fromNanos(n)
}
