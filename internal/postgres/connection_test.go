package postgres_test

import (
	"net/url"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/surveys-dev/surveys/internal/postgres"
)

func TestValidateConnection(t *testing.T) {
	ok := []struct {
		in   string
		want postgres.Target
	}{
		{"postgres://ana@db.example.com/surveys", postgres.Target{User: "ana", Host: "db.example.com", Database: "surveys", Port: 5432}},
		{"postgresql://ana@10.0.0.5:6543/sv?sslmode=require&application_name=x", postgres.Target{User: "ana", Host: "10.0.0.5", Database: "sv", Port: 6543}},
		{"postgres://ana@[::1]:5433/db?search_path=reports&connect_timeout=5", postgres.Target{User: "ana", Host: "::1", Database: "db", Port: 5433}},
	}
	for _, c := range ok {
		got, err := postgres.ValidateConnection(c.in)
		if err != nil || got != c.want {
			t.Errorf("ValidateConnection(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, want string }{
		{"", "Enter the connection string"},
		{"   ", "Enter the connection string"},
		{"host=db user=ana dbname=x", "Write the connection string as a URL"},
		{"mysql://ana@db/x", "Write the connection string as a URL"},
		{"postgres://ana:secret@db/x", "Leave the password out"},
		{"postgres://ana:@db/x", "Leave the password out"},
		{"postgres://ana@db/x?password=secret", "Leave the password out"},
		{"postgres://db/x", "Name the user"},
		{"postgres://ana@/x", "Name the database server's host"},
		{"postgres://ana@%2Ftmp/x", "not a valid URL"},
		{"postgres://ana@db1,db2/x", "Name one host"},
		{"postgres://ana@db/x?host=/var/run/postgresql", `may not set "host"`},
		{"postgres://ana@db", "Name the database"},
		{"postgres://ana@db/", "Name the database"},
		{"postgres://ana@db/x/y", "Name one database"},
		{"postgres://ana@db:0/x", "The port is a number"},
		{"postgres://ana@db:70000/x", "The port is a number"},
		{"postgres://ana@db:/x", "The port is a number"},
		{"postgres://ana@db/x?sslrootcert=/etc/passwd", `may not set "sslrootcert"`},
		{"postgres://ana@db/x?passfile=/root/.pgpass", `may not set "passfile"`},
		{"postgres://ana@db/x?service=prod", `may not set "service"`},
		{"postgres://ana@db/x?sslmode=sometimes", "sslmode is one of"},
		{"postgres://ana@db/x?sslmode=require&sslmode=disable", "Set sslmode once"},
		{"postgres://ana@db/x?connect_timeout=60", "connect_timeout is a number of seconds from 1 to 10"},
		{"postgres://ana@db/x?search_path=a%27b", "search_path is a list"},
		{"postgres://ana@db/x#frag", "may not contain '#'"},
		{"postgres://ana@db/x y", "spaces or control characters"},
		{"postgres://ana@db/x\x00", "spaces or control characters"},
		{"postgres://ana@db/" + strings.Repeat("x", 1100), "1024 characters"},
		{"postgres://ana@db/" + strings.Repeat("x", 64), "database name to 63"},
	}
	for _, c := range bad {
		_, err := postgres.ValidateConnection(c.in)
		if err == nil || !strings.Contains(postgres.Message(err), c.want) {
			t.Errorf("ValidateConnection(%q) = %v; want %q", c.in, err, c.want)
		}
	}
}

// FuzzValidateConnection: whatever is entered, ValidateConnection does not
// panic; what it accepts pgx reads to the same user, host, port and
// database, with no password, one TCP host, a refusal never shows
// a password, and Redact removes it.
func FuzzValidateConnection(f *testing.F) {
	for _, s := range []string{"postgres://ana@db.example.com:5432/surveys?sslmode=require", "postgres://ana:pw@db/x",
		"postgresql://a@[::1]/d?search_path=s", "postgres://a@h/d?password=p", "postgres://a@h:99999/d", "host=x", "postgres://a@h/d?sslkey=/k"} {
		f.Add(s)
	}
	os.Unsetenv("PGPASSWORD")
	os.Unsetenv("PGHOST")
	f.Fuzz(func(t *testing.T, s string) {
		if r := postgres.Redact(s); r != "" {
			if u, perr := url.Parse(r); perr == nil {
				if _, has := u.User.Password(); has || u.Query().Has("password") {
					t.Fatalf("Redact(%q) = %q keeps a password", s, r)
				}
			} else if strings.Contains(r, "@") {
				t.Fatalf("Redact(%q) = %q: unreadable, with a user", s, r)
			}
		}
		got, err := postgres.ValidateConnection(s)
		if err != nil {
			msg := postgres.Message(err)
			if msg == "" {
				t.Fatalf("no message for %q", s)
			}
			if u, perr := url.Parse(s); perr == nil && u.User != nil {
				if p, ok := u.User.Password(); ok && len(p) >= 4 && strings.Contains(msg, p) {
					t.Fatalf("refusal %q shows the password of %q", msg, s)
				}
			}
			return
		}
		cfg, perr := pgconn.ParseConfig(s)
		if perr != nil {
			t.Fatalf("accepted %q, which pgx cannot read: %v", s, perr)
		}
		if cfg.Password != "" {
			t.Fatalf("accepted %q, with a password", s)
		}
		if cfg.Host != got.Host || int(cfg.Port) != got.Port || cfg.Database != got.Database || cfg.User != got.User {
			t.Fatalf("accepted %q as %+v; pgx reads %s:%d/%s as %s", s, got, cfg.Host, cfg.Port, cfg.Database, cfg.User)
		}
		if strings.HasPrefix(cfg.Host, "/") || len(cfg.Fallbacks) > 1 || !utf8.ValidString(s) {
			t.Fatalf("accepted %q: host %q, %d fallbacks", s, cfg.Host, len(cfg.Fallbacks))
		}
	})
}

// TestSameDestination: a saved password goes on only to the same host,
// port, user and database, over TLS at least as strict as before.
func TestSameDestination(t *testing.T) {
	const saved = "postgres://ana@db.example:5432/answers?sslmode=verify-full"
	for _, tc := range []struct {
		next string
		same bool
	}{
		{saved, true},
		{"postgres://ana@DB.example:5432/answers?sslmode=verify-full&application_name=x", true},
		{"postgres://ana@db.example:5432/answers?sslmode=require", false},
		{"postgres://ana@db.example:5432/answers?sslmode=disable", false},
		{"postgres://ana@db.example:5432/answers", false}, // prefer
		{"postgres://ana@other.example:5432/answers?sslmode=verify-full", false},
		{"postgres://ana@db.example:5433/answers?sslmode=verify-full", false},
		{"postgres://bob@db.example:5432/answers?sslmode=verify-full", false},
		{"postgres://ana@db.example:5432/other?sslmode=verify-full", false},
	} {
		if got := postgres.SameDestination(saved, tc.next); got != tc.same {
			t.Errorf("SameDestination(%q) = %v, want %v", tc.next, got, tc.same)
		}
	}
	if !postgres.SameDestination("postgres://ana@db.example:5432/answers", "postgres://ana@db.example:5432/answers?sslmode=require") {
		t.Error("a stricter sslmode than the default is the same destination")
	}
}
