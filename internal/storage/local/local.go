// Package local implements storage.Storage in one embedded SQLite file
// (modernc.org/sqlite, pure Go), for development, tests and single-node
// deployments.
//
// The file is in WAL mode with synchronous=FULL, so every write is durable
// when its call returns. Writes are serialised through one writer goroutine
// that owns the only write connection and commits them in groups (see
// writer.go): many concurrent callers share one fsync. Reads use a separate
// pool of read-only connections and run concurrently with the writer.
package local

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// ErrClosed is returned by every operation on a Store after Close.
var ErrClosed = errors.New("local: store is closed")

// Store is a storage.Storage in one SQLite file. It is safe for concurrent
// use. Create it with Open.
type Store struct {
	rdb *sql.DB // read-only pool
	wdb *sql.DB // holds the writer's single connection
	wtx *wtx    // the writer's connection; only the writer goroutine uses it
	// lock holds the shared lock on the file (lock.go).
	lock *os.File

	// mu guards closed against submissions racing with Close: submitters
	// hold it shared while they hand an op to the writer, Close holds it
	// exclusively while it closes ops.
	mu     sync.RWMutex
	closed atomic.Bool
	ops    chan *writeOp
	done   chan struct{} // closed when the writer goroutine has exited
	// commits counts the batches committed; only the writer goroutine
	// touches it (tests read it after Close).
	commits int64

	// now is the clock; tests may replace it before the first operation.
	now func() time.Time
}

var _ storage.Storage = (*Store)(nil)

const schema = `
CREATE TABLE IF NOT EXISTS tables (
	name TEXT NOT NULL PRIMARY KEY
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS entities (
	tbl   TEXT    NOT NULL,
	pk    TEXT    NOT NULL,
	rk    TEXT    NOT NULL,
	etag  TEXT    NOT NULL,
	ts    INTEGER NOT NULL,
	props TEXT    NOT NULL,
	PRIMARY KEY (tbl, pk, rk)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS containers (
	name   TEXT    NOT NULL PRIMARY KEY,
	public INTEGER NOT NULL
) WITHOUT ROWID;
-- Blob contents can be large, so blobs is a rowid table: a WITHOUT ROWID
-- table would copy whole rows into its interior pages. Lookups by name use
-- the small (container, name) index.
CREATE TABLE IF NOT EXISTS blobs (
	id           INTEGER PRIMARY KEY,
	container    TEXT    NOT NULL,
	name         TEXT    NOT NULL,
	etag         TEXT    NOT NULL,
	modified     INTEGER NOT NULL,
	content_type TEXT    NOT NULL,
	size         INTEGER NOT NULL,
	data         BLOB    NOT NULL,
	UNIQUE (container, name)
);
CREATE TABLE IF NOT EXISTS queues (
	name TEXT NOT NULL PRIMARY KEY
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS messages (
	queue         TEXT    NOT NULL,
	seq           INTEGER NOT NULL,
	id            TEXT    NOT NULL,
	inserted      INTEGER NOT NULL,
	expires       INTEGER NOT NULL,
	visible       INTEGER NOT NULL,
	dequeue_count INTEGER NOT NULL,
	pop_receipt   TEXT    NOT NULL,
	data          BLOB    NOT NULL,
	PRIMARY KEY (queue, seq)
) WITHOUT ROWID;
`

// schemaVersion is the PRAGMA user_version of files with this schema.
const schemaVersion = 1

// Open opens the store in the SQLite file at path, creating the file and
// its schema if they are missing.
func Open(path string) (*Store, error) {
	s, err := open(path)
	if err != nil {
		return nil, fmt.Errorf("local: open %s: %w", path, err)
	}
	return s, nil
}

func open(path string) (_ *Store, err error) {
	if path == "" {
		return nil, fmt.Errorf("empty path: %w", storage.ErrInvalid)
	}
	var closers []func() error
	defer func() {
		if err != nil {
			for i := len(closers) - 1; i >= 0; i-- {
				closers[i]()
			}
		}
	}()
	base := "file:" + escapePath(path) + "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(on)"

	// The writer's connection. The database/sql pool around it is kept
	// at one connection, which the writer holds for the store's life.
	// The WAL is copied into the file every 4000 pages (16 MB; SQLite's
	// default is 1000): the pages written again and again (a survey's
	// summary and open answer segment, the queues) are copied once a
	// checkpoint, so fewer checkpoints copy fewer pages. At 64
	// respondents at once the server spent 6 % of its CPU checkpointing;
	// BenchmarkAnswerPath went from 281, 279 to 268, 268 µs of CPU an
	// answer. 16000 pages cut the bytes it writes from 21.3-22.0 to 17.8
	// KB an answer and BenchmarkWriteMix from 41-43 to 38-40 µs of CPU a
	// write, but a page still in the WAL costs a reader more: with the
	// blobs in it, BenchmarkGetBlobInto1MiB took 1.41-1.63 ms of CPU a
	// blob, not 0.97-1.07, so the analysis of recent answers would pay
	// for the writer's gain. Commits stay durable (synchronous=FULL syncs
	// the WAL).
	//
	// The writer's page cache is 8 MB (2048 pages), as the readers':
	// at the end of every transaction SQLite drops the pages past the
	// end of the file from it, a walk of its whole hash table when many
	// are cached (pcache1TruncateUnsafe, 8-10 % of BenchmarkWriteMix's
	// CPU with 32 MB, 1.5-5 % with 8 MB), while the pages the writer
	// uses again (the b-trees' inner pages, the ends they grow at) fit
	// in 8 MB. BenchmarkWriteMix: 49, 51, 60, 67, 69 µs of CPU a write
	// with 32 MB; 42, 45, 62, 59, 59 with 8 MB. BenchmarkAnswerPath
	// reads no more (1.1-1.2 read calls an answer either way).
	wdb, err := sql.Open("sqlite", base+"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"+
		"&_pragma=journal_size_limit(67108864)&_pragma=wal_autocheckpoint(4000)&_pragma=cache_size(-8192)")
	if err != nil {
		return nil, err
	}
	closers = append(closers, wdb.Close)
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	wdb.SetConnMaxIdleTime(0)
	ctx := context.Background()
	conn, err := wdb.Conn(ctx)
	if err != nil {
		return nil, err
	}
	closers = append(closers, conn.Close)
	if err := initSchema(ctx, conn); err != nil {
		return nil, err
	}
	lock, err := lockShared(path)
	if err != nil {
		return nil, err
	}
	closers = append(closers, lock.Close)

	// The readers read the file a page at a time (a pread each), not
	// mapped: mapped, a read of a 1 MiB blob costs a quarter less CPU
	// (BenchmarkGetBlobInto1MiB), a gain lost in a whole analysis, while
	// an I/O error on the file would stop the process (SIGBUS) instead
	// of failing one read.
	rdb, err := sql.Open("sqlite", base+"&_pragma=cache_size(-8192)&_query_only=1")
	if err != nil {
		return nil, err
	}
	closers = append(closers, rdb.Close)
	n := max(4, runtime.GOMAXPROCS(0))
	rdb.SetMaxOpenConns(n)
	rdb.SetMaxIdleConns(n)
	rdb.SetConnMaxLifetime(0)
	rdb.SetConnMaxIdleTime(0)
	if err := rdb.PingContext(ctx); err != nil {
		return nil, err
	}

	s := &Store{
		rdb:  rdb,
		wdb:  wdb,
		wtx:  &wtx{conn: conn, stmts: make(map[string]*sql.Stmt)},
		lock: lock,
		ops:  make(chan *writeOp, 4*maxBatch),
		done: make(chan struct{}),
		now:  time.Now,
	}
	go s.writer()
	return s, nil
}

// initSchema checks that conn's database is in WAL mode and creates the
// schema if the file is new. It refuses files with another schema version.
func initSchema(ctx context.Context, conn *sql.Conn) (err error) {
	var mode string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, not wal", mode)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_, _ = conn.ExecContext(ctx, "ROLLBACK")
		}
	}()
	var version int
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	switch version {
	case schemaVersion:
	case 0:
		if _, err := conn.ExecContext(ctx, schema); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
			return err
		}
	default:
		return fmt.Errorf("schema version %d, want %d", version, schemaVersion)
	}
	_, err = conn.ExecContext(ctx, "COMMIT")
	return err
}

// escapePath makes path safe inside a SQLite "file:" URI, whose query
// starts at '?' and whose fragment starts at '#'; SQLite decodes %HH.
func escapePath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// Close stops the writer after it has run every write already submitted,
// and closes the database. Operations after Close fail with ErrClosed;
// closing again does nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return nil
	}
	s.closed.Store(true)
	close(s.ops)
	s.mu.Unlock()
	<-s.done
	return errors.Join(s.wtx.close(), s.rdb.Close(), s.wdb.Close(), s.lock.Close())
}

// Ping checks that the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	var one int
	if err := s.rdb.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("local: ping: %w", err)
	}
	return nil
}

// checkOpen returns ErrClosed after Close; reads call it first.
func (s *Store) checkOpen() error {
	if s.closed.Load() {
		return ErrClosed
	}
	return nil
}

// nowNanos is the current time in Unix nanoseconds.
func (s *Store) nowNanos() int64 { return s.now().UnixNano() }

// fromNanos converts Unix nanoseconds to a UTC time.
func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// exists reports whether query, which selects one row by key, finds it.
func exists(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, query string, args ...any) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, query, args...).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	}
	return true, nil
}
