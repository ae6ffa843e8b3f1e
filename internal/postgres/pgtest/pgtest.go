// Package pgtest runs a real PostgreSQL server for the tests of one test
// binary:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// Main runs initdb in a temporary folder and starts postgres on a free
// loopback port (its socket in that folder), with password authentication
// (scram-sha-256) for TCP connections and trust on the socket for the
// superuser the tests use to set up and break things. It creates the role
// Role with the password Password. Each test gets a database of its own
// from NewDatabase. Main stops the server and removes the folder at the end.
//
// The binaries are taken from /usr/lib/postgresql/*/bin (the newest
// version), or PATH. As root (CI), initdb and postgres run as the user
// "postgres", which owns the folder. Main never skips: when PostgreSQL is
// missing or does not start, the test binary fails and says why (make test
// installs Debian's postgresql).
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The role the application connects as, and its password.
const (
	Role     = "surveys"
	Password = "pgtest-password-1"
)

// superuser is the bootstrap superuser initdb creates.
const superuser = "postgres"

var (
	srv     *server
	counter atomic.Int64
)

type server struct {
	dir  string // data folder and socket folder
	port int
	cmd  *exec.Cmd
	cred *syscall.Credential
}

// Main starts PostgreSQL, runs the tests and exits with their exit code.
// Call it from TestMain.
func Main(m *testing.M) { os.Exit(Run(m.Run)) }

// Run starts PostgreSQL, calls run (the tests, or another helper's Run
// around them), stops PostgreSQL and returns run's exit code, or 1 when
// PostgreSQL did not start:
//
//	func TestMain(m *testing.M) {
//		os.Exit(pgtest.Run(func() int { return azuritetest.Run(m) }))
//	}
func Run(run func() int) int {
	s, err := start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: FAIL: %v\n", err)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		v := <-sig
		s.stop()
		fmt.Fprintf(os.Stderr, "pgtest: stopped PostgreSQL on %v\n", v)
		os.Exit(1)
	}()
	code := run()
	signal.Stop(sig)
	if err := s.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
	}
	return code
}

// Allow lets a SurveySQLStore connect to the test server on loopback,
// which it refuses by default (postgres.New(pgtest.Allow)).
var Allow = netip.MustParsePrefix("127.0.0.0/8")

// Port is the server's TCP port on 127.0.0.1.
func Port() int { return srv.port }

// ConnectionString returns the connection string (without the password)
// of database as Role, over TCP on loopback.
func ConnectionString(database string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", Role, srv.port, database)
}

// NewDatabase creates a database owned by Role for one test, and drops it
// when the test ends. It returns the database's name.
func NewDatabase(t testing.TB) string {
	t.Helper()
	if srv == nil {
		t.Fatal("pgtest: the server is not running: call pgtest.Main from TestMain")
	}
	name := fmt.Sprintf("t%d_%d", os.Getpid(), counter.Add(1))
	Exec(t, "postgres", "CREATE DATABASE "+name+" OWNER "+Role)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := Admin(ctx, "postgres")
		if err != nil {
			t.Errorf("pgtest: drop %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop %s: %v", name, err)
		}
	})
	return name
}

// Admin connects to database as the superuser, over the socket.
func Admin(ctx context.Context, database string) (*pgx.Conn, error) {
	return pgx.Connect(ctx, fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable", srv.dir, srv.port, superuser, database))
}

// Exec runs statements in database as the superuser (to set up or break
// what a test needs), failing the test on an error.
func Exec(t testing.TB, database string, sql ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := Admin(ctx, database)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", database, err)
	}
	defer conn.Close(ctx)
	for _, q := range sql {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("pgtest: %s: %v", q, err)
		}
	}
}

// binDir finds the folder of initdb and postgres.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("PostgreSQL is not installed (no initdb in /usr/lib/postgresql/*/bin or PATH): run make test, which installs Debian's postgresql, or apt-get install postgresql")
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func start() (*server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pgtest")
	if err != nil {
		return nil, err
	}
	s := &server{dir: dir}
	ok := false
	defer func() {
		if !ok {
			_ = os.RemoveAll(dir)
		}
	}()
	if os.Geteuid() == 0 {
		// initdb and postgres refuse to run as root.
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root, and there is no postgres user to run PostgreSQL as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte("unused-superuser-password\n"), 0o600); err != nil {
		return nil, err
	}
	if s.cred != nil {
		if err := os.Chown(pwfile, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", superuser, "--pwfile", pwfile,
		"-A", "trust", "--auth-host", "scram-sha-256", "-E", "UTF8", "--locale", "C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	// Only the socket (trust, the superuser) and loopback TCP (passwords).
	hba := "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n"
	if err := os.WriteFile(filepath.Join(data, "pg_hba.conf"), []byte(hba), 0o600); err != nil {
		return nil, err
	}
	if s.cred != nil {
		if err := os.Chown(filepath.Join(data, "pg_hba.conf"), int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return nil, err
		}
	}
	if s.port, err = freePort(); err != nil {
		return nil, err
	}
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir, "-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=50", "-c", "shared_buffers=32MB")
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: syscall.SIGKILL}
	logf, err := os.Create(filepath.Join(dir, "postgres.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	runtime.LockOSThread() // the parent-death signal follows this thread: it must live on
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	if err := s.waitReady(); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		return nil, fmt.Errorf("%v\n%s", err, log)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv = s
	conn, err := Admin(ctx, "postgres")
	if err == nil {
		_, err = conn.Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", Role, Password))
		conn.Close(ctx)
	}
	if err != nil {
		s.stop()
		return nil, fmt.Errorf("create role %s: %w", Role, err)
	}
	ok = true
	return s, nil
}

func (s *server) waitReady() error {
	// A bound on a stuck start, generous for a machine busy with other work.
	deadline := time.Now().Add(2 * time.Minute)
	var last error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, fmt.Sprintf("host=%s port=%d user=%s dbname=postgres sslmode=disable", s.dir, s.port, superuser))
		if err == nil {
			conn.Close(ctx)
			cancel()
			return nil
		}
		cancel()
		last = err
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("postgres did not start: %v", last)
}

// stop shuts the server down (fast shutdown) and removes its folder.
func (s *server) stop() error {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- s.cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = s.cmd.Process.Kill()
			<-done
		}
	}
	return os.RemoveAll(s.dir)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// ClosedPort returns a loopback port nothing listens on, for "unreachable
// host" tests.
func ClosedPort(t testing.TB) int {
	t.Helper()
	p, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return p
}
