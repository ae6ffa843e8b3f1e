package postgres

import (
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5/pgconn"
)

// Target is where a connection string points: for messages.
type Target struct {
	User, Host, Database string
	Port                 int
}

// Addr is host:port.
func (t Target) Addr() string { return net.JoinHostPort(t.Host, strconv.Itoa(t.Port)) }

// SameDestination reports whether the valid connection string next names
// the same host (ignoring case), port, user and database as saved, over
// TLS at least as strict: a saved password goes on to next only then.
func SameDestination(saved, next string) bool {
	ta, errA := ValidateConnection(saved)
	tb, errB := ValidateConnection(next)
	return errA == nil && errB == nil && strings.EqualFold(ta.Host, tb.Host) && ta.Port == tb.Port &&
		ta.User == tb.User && ta.Database == tb.Database && sslStrength(next) >= sslStrength(saved)
}

// sslStrength ranks a connection string's sslmode, weakest first; no
// sslmode is pgx's default, prefer.
func sslStrength(conn string) int {
	mode := "prefer"
	if u, err := url.Parse(conn); err == nil && u.Query().Has("sslmode") {
		mode = u.Query().Get("sslmode")
	}
	return slices.Index([]string{"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}, mode)
}

// MaxConnectionLength bounds a connection string.
const MaxConnectionLength = 1024

// allowedParams are the query parameters a connection string may carry,
// with a check of each value ("" when fine).
var allowedParams = map[string]func(string) string{
	"sslmode": func(v string) string {
		switch v {
		case "disable", "allow", "prefer", "require", "verify-ca", "verify-full":
			return ""
		}
		return "sslmode is one of disable, allow, prefer, require, verify-ca or verify-full."
	},
	"application_name": func(v string) string {
		if len(v) > 63 {
			return "Keep application_name to 63 characters."
		}
		return ""
	},
	"connect_timeout": func(v string) string {
		if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 10 {
			return "connect_timeout is a number of seconds from 1 to 10."
		}
		return ""
	},
	"search_path": func(v string) string {
		for _, r := range v {
			if !(r == '_' || r == ',' || r == ' ' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
				return "search_path is a list of schema names separated by commas."
			}
		}
		return ""
	},
}

// ValidateConnection checks a connection string as a subscriber enters it:
// a URL, postgres://user@host[:port]/database[?sslmode=…], with no
// password (that belongs in the password field), one host reached over
// TCP (never a local socket), and no parameter other than sslmode,
// application_name, connect_timeout and search_path (none that would read
// files of this server, such as sslrootcert, passfile or service). The
// error's message says what to fix.
func ValidateConnection(s string) (Target, error) {
	bad := func(msg string) (Target, error) { return Target{}, &Error{Message: msg} }
	switch {
	case strings.TrimSpace(s) == "":
		return bad("Enter the connection string, e.g. postgres://surveys@db.example.com:5432/surveys?sslmode=require.")
	case len(s) > MaxConnectionLength:
		return bad("Keep the connection string to 1024 characters.")
	}
	if !strings.HasPrefix(s, "postgres://") && !strings.HasPrefix(s, "postgresql://") {
		return bad("Write the connection string as a URL: postgres://user@host:5432/database?sslmode=require.")
	}
	for _, r := range s {
		if r < 0x21 || r == 0x7f || r == unicode.ReplacementChar {
			return bad("The connection string may not contain spaces or control characters.")
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return bad("The connection string is not a valid URL: postgres://user@host:5432/database?sslmode=require.")
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			return bad("Leave the password out of the connection string: enter it in the password field.")
		}
	}
	t := Target{Port: 5432}
	if u.User != nil {
		t.User = u.User.Username()
	}
	if t.User == "" {
		return bad("Name the user before the host: postgres://user@host/database.")
	}
	if u.Fragment != "" || u.RawFragment != "" || strings.Contains(s, "#") {
		return bad("The connection string may not contain '#'.")
	}
	host := u.Hostname()
	switch {
	case host == "":
		return bad("Name the database server's host: postgres://user@host/database.")
	case strings.ContainsAny(host, ",/%"):
		return bad("Name one host, reached over the network (no list of hosts, no local socket).")
	}
	t.Host = host
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return bad("The port is a number from 1 to 65535.")
		}
		t.Port = n
	} else if strings.HasSuffix(u.Host, ":") {
		return bad("The port is a number from 1 to 65535.")
	}
	db := strings.TrimPrefix(u.Path, "/")
	switch {
	case db == "":
		return bad("Name the database after the host: postgres://user@host/database.")
	case strings.Contains(db, "/"):
		return bad("Name one database after the host: postgres://user@host/database.")
	case len(db) > 63:
		return bad("Keep the database name to 63 characters.")
	}
	t.Database = db
	if len(t.User) > 63 {
		return bad("Keep the user name to 63 characters.")
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return bad("The parameters after '?' could not be read: write them as name=value&name=value.")
	}
	for k, vs := range q {
		check, ok := allowedParams[k]
		if !ok {
			if k == "password" {
				return bad("Leave the password out of the connection string: enter it in the password field.")
			}
			return bad("The connection string may not set " + strconv.Quote(k) + ": only sslmode, application_name, connect_timeout and search_path are allowed.")
		}
		if len(vs) != 1 {
			return bad("Set " + k + " once.")
		}
		if msg := check(vs[0]); msg != "" {
			return bad(msg)
		}
	}
	cfg, err := pgconn.ParseConfig(s)
	if err != nil {
		return bad("The connection string could not be read: postgres://user@host:5432/database?sslmode=require.")
	}
	if cfg.Host != t.Host || int(cfg.Port) != t.Port || cfg.Database != t.Database || cfg.User != t.User {
		return bad("The connection string could not be read: postgres://user@host:5432/database?sslmode=require.")
	}
	return t, nil
}

// Redact returns a connection string fit to show again in a form: without
// the password a subscriber put in it by mistake. A string that cannot be
// read as a URL and names a user ('@') is not shown at all.
func Redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		if strings.Contains(s, "@") || strings.Contains(strings.ToLower(s), "password") {
			return ""
		}
		return s
	}
	changed := false
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.User(u.User.Username())
			changed = true
		}
	}
	if q := u.Query(); q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
		changed = true
	}
	if !changed {
		return s
	}
	return u.String()
}
