package local

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
)

// ErrNotStore is returned when a file is not a store of this package.
var ErrNotStore = errors.New("not a Surveys store")

// Snapshot is a read-only, point-in-time view of a store file: every read
// runs in one SQLite read transaction, so a process writing the file
// meanwhile changes nothing it sees. It enumerates what the storage.Storage
// interface cannot: the tables, containers and queues, every entity, blob
// and message (invisible ones included). Migrations and backups use it.
type Snapshot struct {
	db   *sql.DB
	conn *sql.Conn
	tx   *sql.Tx
	// At is when the snapshot began: messages expired by then are left out.
	At time.Time
}

// Container is a blob container and its public flag.
type Container struct {
	Name   string
	Public bool
}

// BlobInfo describes a blob of a snapshot.
type BlobInfo struct {
	Container   string
	Name        string
	ContentType string
	Size        int64
}

// QueuedMessage is a message of a snapshot, as the queue holds it.
type QueuedMessage struct {
	ID           string
	Data         []byte
	InsertedAt   time.Time
	ExpiresAt    time.Time // zero when it never expires
	VisibleAt    time.Time // after At when the message is invisible
	DequeueCount int64
}

// OpenSnapshot opens the store file at path read-only and begins the read
// transaction that the snapshot's reads share. It fails with ErrNotStore
// (wrapped) when the file is not a store of this schema version.
func OpenSnapshot(ctx context.Context, path string) (_ *Snapshot, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("local: snapshot: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("local: snapshot %s: not a file: %w", path, ErrNotStore)
	}
	db, err := sql.Open("sqlite", "file:"+escapePath(path)+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, fmt.Errorf("local: snapshot %s: %w", path, err)
	}
	s := &Snapshot{db: db}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	if s.conn, err = db.Conn(ctx); err != nil {
		return nil, fmt.Errorf("local: snapshot %s: %w", path, err)
	}
	if s.tx, err = s.conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}); err != nil {
		return nil, fmt.Errorf("local: snapshot %s: %w", path, err)
	}
	// The first read fixes the snapshot (SQLite starts a read transaction
	// at the first statement, not at BEGIN).
	var version int
	if err := s.tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return nil, fmt.Errorf("local: snapshot %s: %v: %w", path, err, ErrNotStore)
	}
	var n int
	if err := s.tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('tables', 'entities', 'containers', 'blobs', 'queues', 'messages')").Scan(&n); err != nil {
		return nil, fmt.Errorf("local: snapshot %s: %v: %w", path, err, ErrNotStore)
	}
	if version != schemaVersion || n != 6 {
		return nil, fmt.Errorf("local: snapshot %s: schema version %d with %d of its 6 tables: %w", path, version, n, ErrNotStore)
	}
	s.At = time.Now()
	return s, nil
}

// Close ends the read transaction and closes the file.
func (s *Snapshot) Close() error {
	var errs []error
	if s.tx != nil {
		errs = append(errs, s.tx.Rollback())
	}
	if s.conn != nil {
		errs = append(errs, s.conn.Close())
	}
	return errors.Join(append(errs, s.db.Close())...)
}

func (s *Snapshot) names(ctx context.Context, query string) ([]string, error) {
	rows, err := s.tx.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("local: snapshot: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("local: snapshot: %w", err)
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

// Tables lists the tables, in name order. The embedded store keeps table
// names in lower case (table names are case-insensitive).
func (s *Snapshot) Tables(ctx context.Context) ([]string, error) {
	return s.names(ctx, "SELECT name FROM tables ORDER BY name")
}

// Queues lists the queues, in name order.
func (s *Snapshot) Queues(ctx context.Context) ([]string, error) {
	return s.names(ctx, "SELECT name FROM queues ORDER BY name")
}

// Containers lists the blob containers, in name order.
func (s *Snapshot) Containers(ctx context.Context) ([]Container, error) {
	rows, err := s.tx.QueryContext(ctx, "SELECT name, public FROM containers ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("local: snapshot: %w", err)
	}
	defer rows.Close()
	var out []Container
	for rows.Next() {
		var c Container
		if err := rows.Scan(&c.Name, &c.Public); err != nil {
			return nil, fmt.Errorf("local: snapshot: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Entities calls fn for every entity of table, in (PartitionKey, RowKey)
// order, with its properties and their types.
func (s *Snapshot) Entities(ctx context.Context, table string, fn func(storage.Entity) error) error {
	rows, err := s.tx.QueryContext(ctx, "SELECT pk, rk, etag, ts, props FROM entities WHERE tbl = ? ORDER BY pk, rk", tableKey(table))
	if err != nil {
		return fmt.Errorf("local: snapshot of table %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			pk, rk, etag, props string
			ts                  int64
		)
		if err := rows.Scan(&pk, &rk, &etag, &ts, &props); err != nil {
			return fmt.Errorf("local: snapshot of table %s: %w", table, err)
		}
		e, err := makeEntity(pk, rk, etag, ts, props)
		if err != nil {
			return fmt.Errorf("local: snapshot of table %s, entity %s/%s: %w", table, pk, rk, err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Blobs calls fn for every blob of container, in name order, with its
// content.
func (s *Snapshot) Blobs(ctx context.Context, container string, fn func(BlobInfo, []byte) error) error {
	rows, err := s.tx.QueryContext(ctx, "SELECT name, content_type, size, data FROM blobs WHERE container = ? ORDER BY name", container)
	if err != nil {
		return fmt.Errorf("local: snapshot of container %s: %w", container, err)
	}
	defer rows.Close()
	for rows.Next() {
		b := BlobInfo{Container: container}
		var data []byte
		if err := rows.Scan(&b.Name, &b.ContentType, &b.Size, &data); err != nil {
			return fmt.Errorf("local: snapshot of container %s: %w", container, err)
		}
		if data == nil {
			data = []byte{}
		}
		if err := fn(b, data); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Messages calls fn for every message of queue not expired at s.At, in
// insertion order, visible or not.
func (s *Snapshot) Messages(ctx context.Context, queue string, fn func(QueuedMessage) error) error {
	rows, err := s.tx.QueryContext(ctx, `SELECT id, inserted, expires, visible, dequeue_count, data
		FROM messages WHERE queue = ? AND expires > ? ORDER BY seq`, queue, s.At.UnixNano())
	if err != nil {
		return fmt.Errorf("local: snapshot of queue %s: %w", queue, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			m                          QueuedMessage
			inserted, expires, visible int64
		)
		if err := rows.Scan(&m.ID, &inserted, &expires, &visible, &m.DequeueCount, &m.Data); err != nil {
			return fmt.Errorf("local: snapshot of queue %s: %w", queue, err)
		}
		m.InsertedAt, m.VisibleAt = fromNanos(inserted), fromNanos(visible)
		if expires != neverExpires {
			m.ExpiresAt = fromNanos(expires)
		}
		if m.Data == nil {
			m.Data = []byte{}
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Counts are the contents of a store, counted: entities per table, blobs
// and their bytes per container, messages per queue.
type Counts struct {
	Entities  map[string]int64 // by table
	Blobs     map[string]int64 // by container
	BlobBytes map[string]int64 // by container
	Messages  map[string]int64 // by queue, unexpired
}

// Totals returns the number of entities, blobs and messages and the bytes
// of the blobs.
func (c Counts) Totals() (entities, blobs, bytes, messages int64) {
	for _, n := range c.Entities {
		entities += n
	}
	for _, n := range c.Blobs {
		blobs += n
	}
	for _, n := range c.BlobBytes {
		bytes += n
	}
	for _, n := range c.Messages {
		messages += n
	}
	return
}

// Counts counts the snapshot's contents. Every table, container and queue
// has an entry, empty ones included.
func (s *Snapshot) Counts(ctx context.Context) (Counts, error) {
	c := Counts{Entities: map[string]int64{}, Blobs: map[string]int64{}, BlobBytes: map[string]int64{}, Messages: map[string]int64{}}
	queries := []struct {
		query string
		args  []any
		scan  func(name string, n, bytes int64)
	}{
		{"SELECT t.name, COUNT(e.rk), 0 FROM tables t LEFT JOIN entities e ON e.tbl = t.name GROUP BY t.name", nil,
			func(name string, n, _ int64) { c.Entities[name] = n }},
		{"SELECT c.name, COUNT(b.id), COALESCE(SUM(b.size), 0) FROM containers c LEFT JOIN blobs b ON b.container = c.name GROUP BY c.name", nil,
			func(name string, n, bytes int64) { c.Blobs[name], c.BlobBytes[name] = n, bytes }},
		{"SELECT q.name, COUNT(m.seq), 0 FROM queues q LEFT JOIN messages m ON m.queue = q.name AND m.expires > ? GROUP BY q.name", []any{s.At.UnixNano()},
			func(name string, n, _ int64) { c.Messages[name] = n }},
	}
	for _, q := range queries {
		rows, err := s.tx.QueryContext(ctx, q.query, q.args...)
		if err != nil {
			return Counts{}, fmt.Errorf("local: count: %w", err)
		}
		for rows.Next() {
			var (
				name     string
				n, bytes int64
			)
			if err := rows.Scan(&name, &n, &bytes); err != nil {
				rows.Close()
				return Counts{}, fmt.Errorf("local: count: %w", err)
			}
			q.scan(name, n, bytes)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return Counts{}, fmt.Errorf("local: count: %w", err)
		}
	}
	return c, nil
}
