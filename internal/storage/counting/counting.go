// Package counting wraps a storage.Storage and counts every operation by
// service (table, blob, queue) and kind, with errors counted apart. On Azure
// every storage call is billed, so these counts are the cost of a flow.
package counting

import (
	"context"
	"sort"
	"sync/atomic"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
)

// Op names one kind of storage operation.
type Op struct {
	Service string // "table", "blob" or "queue"
	Kind    string // e.g. "get", "insert", "transact", "put", "dequeue"
}

func (o Op) String() string { return o.Service + "." + o.Kind }

var ops = []Op{
	{"table", "create_table"}, {"table", "delete_table"}, {"table", "get"}, {"table", "insert"},
	{"table", "upsert"}, {"table", "update"}, {"table", "delete"}, {"table", "query"}, {"table", "scan"}, {"table", "transact"},
	{"blob", "create_container"}, {"blob", "delete_container"}, {"blob", "put"}, {"blob", "get"},
	{"blob", "delete"}, {"blob", "list"},
	{"queue", "create_queue"}, {"queue", "delete_queue"}, {"queue", "enqueue"}, {"queue", "dequeue"}, {"queue", "peek"},
	{"queue", "delete_message"}, {"queue", "update_visibility"}, {"queue", "count"},
	{"account", "ping"},
}

type counter struct{ calls, errors atomic.Int64 }

// Store counts the operations made through it. It is safe for concurrent use.
type Store struct {
	next     storage.Storage
	counters map[Op]*counter
	seen     queueSeen
}

var _ storage.Storage = (*Store)(nil)

// New wraps next.
func New(next storage.Storage) *Store {
	s := &Store{next: next, counters: make(map[Op]*counter, len(ops))}
	for _, op := range ops {
		s.counters[op] = &counter{}
	}
	return s
}

// Unwrap returns the wrapped storage.
func (s *Store) Unwrap() storage.Storage { return s.next }

// Count is one row of a snapshot.
type Count struct {
	Op     Op
	Calls  int64
	Errors int64
}

// Snapshot returns the counts so far, in a stable order.
func (s *Store) Snapshot() []Count {
	out := make([]Count, 0, len(ops))
	for _, op := range ops {
		c := s.counters[op]
		out = append(out, Count{Op: op, Calls: c.calls.Load(), Errors: c.errors.Load()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Op.String() < out[j].Op.String() })
	return out
}

// Total is the number of calls so far, by service ("" for all).
func (s *Store) Total(service string) int64 {
	var n int64
	for op, c := range s.counters {
		if service == "" || op.Service == service {
			n += c.calls.Load()
		}
	}
	return n
}

func (s *Store) count(service, kind string, err error) {
	c := s.counters[Op{service, kind}]
	c.calls.Add(1)
	if err != nil {
		c.errors.Add(1)
	}
}

// Ping counts as an account operation.
func (s *Store) Ping(ctx context.Context) error {
	err := s.next.Ping(ctx)
	s.count("account", "ping", err)
	return err
}

// Close closes the wrapped storage.
func (s *Store) Close() error { return s.next.Close() }

func (s *Store) CreateTable(ctx context.Context, table string) error {
	err := s.next.CreateTable(ctx, table)
	s.count("table", "create_table", err)
	return err
}

func (s *Store) DeleteTable(ctx context.Context, table string) error {
	err := s.next.DeleteTable(ctx, table)
	s.count("table", "delete_table", err)
	return err
}

func (s *Store) GetEntity(ctx context.Context, table, pk, rk string) (storage.Entity, error) {
	e, err := s.next.GetEntity(ctx, table, pk, rk)
	s.count("table", "get", err)
	return e, err
}

func (s *Store) InsertEntity(ctx context.Context, table string, e storage.Entity) (string, error) {
	etag, err := s.next.InsertEntity(ctx, table, e)
	s.count("table", "insert", err)
	return etag, err
}

func (s *Store) UpsertEntity(ctx context.Context, table string, e storage.Entity) (string, error) {
	etag, err := s.next.UpsertEntity(ctx, table, e)
	s.count("table", "upsert", err)
	return etag, err
}

func (s *Store) UpdateEntity(ctx context.Context, table string, e storage.Entity, ifMatch string) (string, error) {
	etag, err := s.next.UpdateEntity(ctx, table, e, ifMatch)
	s.count("table", "update", err)
	return etag, err
}

func (s *Store) DeleteEntity(ctx context.Context, table, pk, rk, ifMatch string) error {
	err := s.next.DeleteEntity(ctx, table, pk, rk, ifMatch)
	s.count("table", "delete", err)
	return err
}

func (s *Store) QueryPartition(ctx context.Context, table, pk string, q storage.Query) (storage.EntityPage, error) {
	p, err := s.next.QueryPartition(ctx, table, pk, q)
	s.count("table", "query", err)
	return p, err
}

func (s *Store) QueryTable(ctx context.Context, table string, q storage.TableQuery) (storage.EntityPage, error) {
	p, err := s.next.QueryTable(ctx, table, q)
	s.count("table", "scan", err)
	return p, err
}

func (s *Store) Transact(ctx context.Context, table, pk string, tops []storage.TableOp) error {
	err := s.next.Transact(ctx, table, pk, tops)
	s.count("table", "transact", err)
	return err
}

func (s *Store) CreateContainer(ctx context.Context, container string, public bool) error {
	err := s.next.CreateContainer(ctx, container, public)
	s.count("blob", "create_container", err)
	return err
}

func (s *Store) DeleteContainer(ctx context.Context, container string) error {
	err := s.next.DeleteContainer(ctx, container)
	s.count("blob", "delete_container", err)
	return err
}

func (s *Store) PutBlob(ctx context.Context, container, name string, data []byte, o storage.PutOptions) (string, error) {
	etag, err := s.next.PutBlob(ctx, container, name, data, o)
	s.count("blob", "put", err)
	return etag, err
}

func (s *Store) GetBlob(ctx context.Context, container, name string) (storage.Blob, error) {
	b, err := s.next.GetBlob(ctx, container, name)
	s.count("blob", "get", err)
	return b, err
}

// GetBlobInto is GetBlob into buf (storage.BlobIntoReader), counted as a
// GetBlob.
func (s *Store) GetBlobInto(ctx context.Context, container, name string, buf []byte) (storage.Blob, error) {
	b, err := storage.GetBlobInto(ctx, s.next, container, name, buf)
	s.count("blob", "get", err)
	return b, err
}

func (s *Store) DeleteBlob(ctx context.Context, container, name, ifMatch string) error {
	err := s.next.DeleteBlob(ctx, container, name, ifMatch)
	s.count("blob", "delete", err)
	return err
}

func (s *Store) ListBlobs(ctx context.Context, container string, o storage.ListOptions) (storage.BlobPage, error) {
	p, err := s.next.ListBlobs(ctx, container, o)
	s.count("blob", "list", err)
	return p, err
}

func (s *Store) CreateQueue(ctx context.Context, queue string) error {
	err := s.next.CreateQueue(ctx, queue)
	s.count("queue", "create_queue", err)
	return err
}

func (s *Store) DeleteQueue(ctx context.Context, queue string) error {
	err := s.next.DeleteQueue(ctx, queue)
	s.count("queue", "delete_queue", err)
	return err
}

func (s *Store) Enqueue(ctx context.Context, queue string, data []byte, o storage.EnqueueOptions) (string, error) {
	id, err := s.next.Enqueue(ctx, queue, data, o)
	s.count("queue", "enqueue", err)
	if err == nil {
		s.seen.enqueued(queue)
	}
	return id, err
}

func (s *Store) Dequeue(ctx context.Context, queue string, max int, visibility time.Duration) ([]storage.Message, error) {
	m, err := s.next.Dequeue(ctx, queue, max, visibility)
	s.count("queue", "dequeue", err)
	if err == nil {
		s.seen.dequeued(queue, len(m))
	}
	return m, err
}

func (s *Store) PeekMessages(ctx context.Context, queue string, max int) ([]storage.Message, error) {
	m, err := s.next.PeekMessages(ctx, queue, max)
	s.count("queue", "peek", err)
	return m, err
}

func (s *Store) DeleteMessage(ctx context.Context, queue, id, popReceipt string) error {
	err := s.next.DeleteMessage(ctx, queue, id, popReceipt)
	s.count("queue", "delete_message", err)
	return err
}

func (s *Store) UpdateVisibility(ctx context.Context, queue, id, popReceipt string, visibility time.Duration) (string, error) {
	r, err := s.next.UpdateVisibility(ctx, queue, id, popReceipt, visibility)
	s.count("queue", "update_visibility", err)
	return r, err
}

func (s *Store) ApproximateCount(ctx context.Context, queue string) (int, error) {
	n, err := s.next.ApproximateCount(ctx, queue)
	s.count("queue", "count", err)
	return n, err
}
