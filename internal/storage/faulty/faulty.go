// Package faulty wraps a storage.Storage and makes it fail as a process
// that dies between two storage calls: every call from the FailAt-th on
// fails, the FailAt-th itself before it reaches storage or, with After,
// once it has (a reply lost, or a crash before the caller took note). It
// is the one fault injection of the crash tests: every method of
// storage.Storage goes through it (it embeds nothing, so a new method
// must be added here before anything compiles), named by the same Op as
// the counting layer's (TestEveryCallCounted checks both).
package faulty

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/counting"
)

// ErrCrash is the error of every call the dead process makes.
var ErrCrash = errors.New("injected crash")

// Op names a storage call, as the counting layer does.
type Op = counting.Op

// Writes counts only the calls that change something (Store.Counts), for
// a test that crashes a flow at each of its writes.
func Writes(op Op) bool {
	switch op.Kind {
	case "get", "query", "scan", "list", "peek", "count", "dequeue", "ping":
		return false
	}
	return true
}

// Store fails as a process that died at call FailAt. The zero FailAt
// never fails: a clean run, which counts the calls a flow makes (Calls).
type Store struct {
	next storage.Storage
	// FailAt is the counted call (from 1) at which the process dies: it
	// and every counted call after it fail with ErrCrash. 0: none.
	FailAt int64
	// After makes the FailAt-th call reach storage before it fails.
	After bool
	// Counts says which calls count (nil: every one); calls not counted
	// go through, until the process has died.
	Counts func(Op) bool

	// OnDeath, when set, is called once, as the process dies (say, to
	// cancel the context of the flow under test, as a kill would end it).
	OnDeath func()

	calls atomic.Int64
	died  sync.Once
	mu    sync.Mutex
	ops   []Call
}

// Call is one counted storage call: its Op and the table, container or
// queue it named ("" for a ping).
type Call struct {
	Op
	Target string
}

var _ storage.Storage = (*Store)(nil)

// New wraps next.
func New(next storage.Storage) *Store { return &Store{next: next} }

// At wraps next to die at call n, before it or (after) once it is made.
func At(next storage.Storage, n int64, after bool) *Store {
	return &Store{next: next, FailAt: n, After: after}
}

// Unwrap returns the wrapped storage.
func (f *Store) Unwrap() storage.Storage { return f.next }

// Calls is how many counted calls were made (or tried) so far.
func (f *Store) Calls() int64 { return f.calls.Load() }

// Ops are the counted calls so far, in order.
func (f *Store) Ops() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.ops...)
}

// Dead reports whether the process has died (its FailAt-th call made).
func (f *Store) Dead() bool { return f.FailAt > 0 && f.calls.Load() >= f.FailAt }

func (f *Store) step(op Op, target string, call func() error) error {
	if f.Counts != nil && !f.Counts(op) {
		if f.Dead() {
			return ErrCrash
		}
		return call()
	}
	f.mu.Lock()
	f.ops = append(f.ops, Call{Op: op, Target: target})
	f.mu.Unlock()
	n := f.calls.Add(1)
	switch {
	case f.FailAt == 0 || n < f.FailAt:
		return call()
	case n == f.FailAt && f.After:
		_ = call()
	}
	if f.OnDeath != nil {
		f.died.Do(f.OnDeath)
	}
	return ErrCrash
}

// Close closes the wrapped storage; it is no storage call.
func (f *Store) Close() error { return f.next.Close() }

func (f *Store) Ping(ctx context.Context) error {
	return f.step(Op{Service: "account", Kind: "ping"}, "", func() error { return f.next.Ping(ctx) })
}

func (f *Store) CreateTable(ctx context.Context, table string) error {
	return f.step(Op{Service: "table", Kind: "create_table"}, table, func() error { return f.next.CreateTable(ctx, table) })
}

func (f *Store) DeleteTable(ctx context.Context, table string) error {
	return f.step(Op{Service: "table", Kind: "delete_table"}, table, func() error { return f.next.DeleteTable(ctx, table) })
}

func (f *Store) GetEntity(ctx context.Context, table, pk, rk string) (out storage.Entity, err error) {
	err = f.step(Op{Service: "table", Kind: "get"}, table, func() (x error) { out, x = f.next.GetEntity(ctx, table, pk, rk); return x })
	return out, err
}

func (f *Store) InsertEntity(ctx context.Context, table string, e storage.Entity) (out string, err error) {
	err = f.step(Op{Service: "table", Kind: "insert"}, table, func() (x error) { out, x = f.next.InsertEntity(ctx, table, e); return x })
	return out, err
}

func (f *Store) UpsertEntity(ctx context.Context, table string, e storage.Entity) (out string, err error) {
	err = f.step(Op{Service: "table", Kind: "upsert"}, table, func() (x error) { out, x = f.next.UpsertEntity(ctx, table, e); return x })
	return out, err
}

func (f *Store) UpdateEntity(ctx context.Context, table string, e storage.Entity, ifMatch string) (out string, err error) {
	err = f.step(Op{Service: "table", Kind: "update"}, table, func() (x error) { out, x = f.next.UpdateEntity(ctx, table, e, ifMatch); return x })
	return out, err
}

func (f *Store) DeleteEntity(ctx context.Context, table, pk, rk, ifMatch string) error {
	return f.step(Op{Service: "table", Kind: "delete"}, table, func() error { return f.next.DeleteEntity(ctx, table, pk, rk, ifMatch) })
}

func (f *Store) QueryPartition(ctx context.Context, table, pk string, q storage.Query) (out storage.EntityPage, err error) {
	err = f.step(Op{Service: "table", Kind: "query"}, table, func() (x error) { out, x = f.next.QueryPartition(ctx, table, pk, q); return x })
	return out, err
}

func (f *Store) QueryTable(ctx context.Context, table string, q storage.TableQuery) (out storage.EntityPage, err error) {
	err = f.step(Op{Service: "table", Kind: "scan"}, table, func() (x error) { out, x = f.next.QueryTable(ctx, table, q); return x })
	return out, err
}

func (f *Store) Transact(ctx context.Context, table, pk string, tops []storage.TableOp) error {
	return f.step(Op{Service: "table", Kind: "transact"}, table, func() error { return f.next.Transact(ctx, table, pk, tops) })
}

func (f *Store) CreateContainer(ctx context.Context, container string, public bool) error {
	return f.step(Op{Service: "blob", Kind: "create_container"}, container, func() error { return f.next.CreateContainer(ctx, container, public) })
}

func (f *Store) DeleteContainer(ctx context.Context, container string) error {
	return f.step(Op{Service: "blob", Kind: "delete_container"}, container, func() error { return f.next.DeleteContainer(ctx, container) })
}

func (f *Store) PutBlob(ctx context.Context, container, name string, data []byte, o storage.PutOptions) (out string, err error) {
	err = f.step(Op{Service: "blob", Kind: "put"}, container, func() (x error) { out, x = f.next.PutBlob(ctx, container, name, data, o); return x })
	return out, err
}

func (f *Store) GetBlob(ctx context.Context, container, name string) (out storage.Blob, err error) {
	err = f.step(Op{Service: "blob", Kind: "get"}, container, func() (x error) { out, x = f.next.GetBlob(ctx, container, name); return x })
	return out, err
}

// GetBlobInto is GetBlob into buf (storage.BlobIntoReader): the same
// step as a GetBlob.
func (f *Store) GetBlobInto(ctx context.Context, container, name string, buf []byte) (out storage.Blob, err error) {
	err = f.step(Op{Service: "blob", Kind: "get"}, container, func() (x error) {
		out, x = storage.GetBlobInto(ctx, f.next, container, name, buf)
		return x
	})
	return out, err
}

func (f *Store) DeleteBlob(ctx context.Context, container, name, ifMatch string) error {
	return f.step(Op{Service: "blob", Kind: "delete"}, container, func() error { return f.next.DeleteBlob(ctx, container, name, ifMatch) })
}

func (f *Store) ListBlobs(ctx context.Context, container string, o storage.ListOptions) (out storage.BlobPage, err error) {
	err = f.step(Op{Service: "blob", Kind: "list"}, container, func() (x error) { out, x = f.next.ListBlobs(ctx, container, o); return x })
	return out, err
}

func (f *Store) CreateQueue(ctx context.Context, queue string) error {
	return f.step(Op{Service: "queue", Kind: "create_queue"}, queue, func() error { return f.next.CreateQueue(ctx, queue) })
}

func (f *Store) DeleteQueue(ctx context.Context, queue string) error {
	return f.step(Op{Service: "queue", Kind: "delete_queue"}, queue, func() error { return f.next.DeleteQueue(ctx, queue) })
}

func (f *Store) Enqueue(ctx context.Context, queue string, data []byte, o storage.EnqueueOptions) (out string, err error) {
	err = f.step(Op{Service: "queue", Kind: "enqueue"}, queue, func() (x error) { out, x = f.next.Enqueue(ctx, queue, data, o); return x })
	return out, err
}

func (f *Store) Dequeue(ctx context.Context, queue string, max int, visibility time.Duration) (out []storage.Message, err error) {
	err = f.step(Op{Service: "queue", Kind: "dequeue"}, queue, func() (x error) { out, x = f.next.Dequeue(ctx, queue, max, visibility); return x })
	return out, err
}

func (f *Store) PeekMessages(ctx context.Context, queue string, max int) (out []storage.Message, err error) {
	err = f.step(Op{Service: "queue", Kind: "peek"}, queue, func() (x error) { out, x = f.next.PeekMessages(ctx, queue, max); return x })
	return out, err
}

func (f *Store) DeleteMessage(ctx context.Context, queue, id, popReceipt string) error {
	return f.step(Op{Service: "queue", Kind: "delete_message"}, queue, func() error { return f.next.DeleteMessage(ctx, queue, id, popReceipt) })
}

func (f *Store) UpdateVisibility(ctx context.Context, queue, id, popReceipt string, visibility time.Duration) (out string, err error) {
	err = f.step(Op{Service: "queue", Kind: "update_visibility"}, queue, func() (x error) { out, x = f.next.UpdateVisibility(ctx, queue, id, popReceipt, visibility); return x })
	return out, err
}

func (f *Store) ApproximateCount(ctx context.Context, queue string) (out int, err error) {
	err = f.step(Op{Service: "queue", Kind: "count"}, queue, func() (x error) { out, x = f.next.ApproximateCount(ctx, queue); return x })
	return out, err
}
