package local

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
)

// Group commit.
//
// Every write is a closure run by the writer goroutine on the single write
// connection. The writer takes all the ops pending (up to maxBatch), opens
// one IMMEDIATE transaction, runs each op inside its own SAVEPOINT (so a
// failing op is rolled back alone), commits once and then answers every
// caller. With synchronous=FULL the commit is one fsync of the WAL, shared
// by the whole batch.

// maxBatch is the most ops committed together.
const maxBatch = 256

// States of a writeOp. The writer moves an op from pending to running
// before it runs it; a caller whose context ends moves it from pending to
// abandoned, and the writer then skips it. Whoever wins the swap decides,
// so a caller that returns its context's error knows the op did not run.
const (
	opPending int32 = iota
	opRunning
	opAbandoned
)

// writeOp is one write submitted to the writer.
type writeOp struct {
	ctx   context.Context
	fn    func(tx *wtx) error
	state atomic.Int32
	done  chan error // buffered: the writer never blocks on it
}

// wtx is the writer's open transaction on its connection. It runs every
// query through a prepared statement, prepared on first use and kept for
// the life of the store, so the SQL of a write is parsed once.
type wtx struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt // owned by the writer goroutine
}

func (w *wtx) stmt(query string) (*sql.Stmt, error) {
	if st, ok := w.stmts[query]; ok {
		return st, nil
	}
	st, err := w.conn.PrepareContext(context.Background(), query)
	if err != nil {
		return nil, err
	}
	w.stmts[query] = st
	return st, nil
}

// Exec runs a statement.
func (w *wtx) Exec(query string, args ...any) (sql.Result, error) {
	st, err := w.stmt(query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(context.Background(), args...)
}

// Query runs a query returning rows.
func (w *wtx) Query(query string, args ...any) (*sql.Rows, error) {
	st, err := w.stmt(query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(context.Background(), args...)
}

// QueryRowContext runs a query returning at most one row. ctx is ignored:
// a write, once started, runs to completion.
func (w *wtx) QueryRowContext(_ context.Context, query string, args ...any) *sql.Row {
	return w.QueryRow(query, args...)
}

// QueryRow runs a query returning at most one row.
func (w *wtx) QueryRow(query string, args ...any) *sql.Row {
	st, err := w.stmt(query)
	if err != nil {
		// A Row cannot be made from an error; the unprepared query
		// reports the same error from Scan.
		return w.conn.QueryRowContext(context.Background(), query, args...)
	}
	return st.QueryRowContext(context.Background(), args...)
}

// close releases the prepared statements and the connection.
func (w *wtx) close() error {
	var errs []error
	for _, st := range w.stmts {
		errs = append(errs, st.Close())
	}
	clear(w.stmts)
	return errors.Join(append(errs, w.conn.Close())...)
}

// write runs fn in the writer and returns its error, or the commit's. fn
// must not keep tx, and its results are only valid when write returns nil.
// If ctx ends before the writer starts fn, write returns ctx's error and
// fn never runs; once fn has started, write waits for the commit.
func (s *Store) write(ctx context.Context, fn func(tx *wtx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	op := &writeOp{ctx: ctx, fn: fn, done: make(chan error, 1)}

	s.mu.RLock()
	if s.closed.Load() {
		s.mu.RUnlock()
		return ErrClosed
	}
	select {
	case s.ops <- op:
		s.mu.RUnlock()
	case <-ctx.Done():
		s.mu.RUnlock()
		return ctx.Err()
	}

	select {
	case err := <-op.done:
		return err
	case <-ctx.Done():
		if op.state.CompareAndSwap(opPending, opAbandoned) {
			return ctx.Err()
		}
		// Already running: its outcome is decided within one commit.
		return <-op.done
	}
}

// maxYields bounds the times the writer lets other goroutines run before
// it commits a batch (gather).
const maxYields = 4

// writer is the goroutine that owns wdb. It runs until ops is closed and
// drained.
func (s *Store) writer() {
	defer close(s.done)
	batch := make([]*writeOp, 0, maxBatch)
	for op := range s.ops {
		batch = s.gather(append(batch[:0], op))
		s.commit(batch)
		clear(batch) // drop references to finished ops
	}
}

// gather adds to batch the ops that goroutines ready to run are about to
// submit. Woken by the first op, the writer would otherwise commit it
// alone while the goroutines that submit the rest of a burst (a worker's
// writes started together, requests handled at once) wait for a core: it
// yields (runtime.Gosched) and takes what came, again while something
// came. When nothing else is ready to run, a yield returns at once, so an
// idle store commits as soon as before; no time is waited for.
func (s *Store) gather(batch []*writeOp) []*writeOp {
	for range maxYields {
		runtime.Gosched()
		n := len(batch)
		batch = s.drain(batch)
		if len(batch) == n || len(batch) == maxBatch {
			break
		}
	}
	return batch
}

// drain adds to batch the ops waiting in s.ops, up to maxBatch.
func (s *Store) drain(batch []*writeOp) []*writeOp {
	for len(batch) < maxBatch {
		select {
		case op, ok := <-s.ops:
			if !ok {
				return batch
			}
			batch = append(batch, op)
		default:
			return batch
		}
	}
	return batch
}

// commit runs one batch in one transaction and answers its callers.
func (s *Store) commit(batch []*writeOp) {
	live := batch[:0]
	for _, op := range batch {
		if !op.state.CompareAndSwap(opPending, opRunning) {
			continue // abandoned; its caller has gone
		}
		if err := op.ctx.Err(); err != nil {
			op.done <- err
			continue
		}
		live = append(live, op)
	}
	if len(live) == 0 {
		return
	}

	s.commits++
	errs := make([]error, len(live))
	fail := func(err error) {
		for _, op := range live {
			op.done <- err
		}
	}
	w := s.wtx
	if _, err := w.Exec("BEGIN IMMEDIATE"); err != nil {
		fail(fmt.Errorf("local: begin: %w", err))
		return
	}
	abort := func(what string, err error) {
		_, rerr := w.Exec("ROLLBACK")
		fail(fmt.Errorf("local: %s: %w", what, errors.Join(err, rerr)))
	}
	for i, op := range live {
		if _, err := w.Exec("SAVEPOINT op"); err != nil {
			abort("savepoint", err)
			return
		}
		if errs[i] = op.fn(w); errs[i] != nil {
			if _, err := w.Exec("ROLLBACK TO op"); err != nil {
				abort("rollback to savepoint", errors.Join(errs[i], err))
				return
			}
		}
		if _, err := w.Exec("RELEASE op"); err != nil {
			abort("release savepoint", errors.Join(errs[i], err))
			return
		}
	}
	if _, err := w.Exec("COMMIT"); err != nil {
		// SQLite may keep the transaction open after a failed COMMIT;
		// end it so that the next batch can begin.
		// "no transaction is active" is the expected error.
		_, _ = w.Exec("ROLLBACK")
		err = fmt.Errorf("local: commit: %w", err)
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
	}
	for i, op := range live {
		op.done <- errs[i]
	}
}
