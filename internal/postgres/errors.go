package postgres

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Error is a failure told for a person: what went wrong with the
// subscriber's database and what to do. Err is the cause, for logs.
type Error struct {
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// Message returns err's message for a person when it is an *Error, and a
// general one otherwise.
func Message(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "The transfer failed: " + err.Error()
}

// explain turns an error of pgx into an *Error saying what to fix. doing
// names the step, e.g. "create the tables".
func explain(err error, t Target, doing string) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	msg := func(format string, args ...any) error { return &Error{Message: fmt.Sprintf(format, args...), Err: err} }
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "28P01":
			return msg("The database refused the password of user %q: check the user and the password.", t.User)
		case "28000":
			return msg("The database does not let user %q connect from this server (%s): ask its administrator to allow it in pg_hba.conf.", t.User, pg.Message)
		case "3D000":
			return msg("There is no database %q on %s: check its name.", t.Database, t.Addr())
		case "42501":
			return msg("User %q may not %s: %s. Grant it the rights (CREATE on the schema, then SELECT, INSERT and DELETE on the tables surveys, questions and answers).", t.User, doing, pg.Message)
		case "53300":
			return msg("The database on %s has too many connections now; the transfer will be tried again.", t.Addr())
		case "57P03", "57P01", "57P02":
			return msg("The database on %s is starting or shutting down; the transfer will be tried again.", t.Addr())
		case "3F000":
			return msg("The schema of search_path does not exist in database %q: %s.", t.Database, pg.Message)
		case "42703", "42804", "42P16", "42830":
			// The tables exist, but are not ours: another column set.
			return msg("The database already has a table named surveys, questions or answers that is not this server's (%s). Give the copies a schema of their own: create one (CREATE SCHEMA surveys) and add ?search_path=surveys to the connection string.", pg.Message)
		case "53100":
			return msg("The database on %s has no disk space left.", t.Addr())
		}
		return msg("The database could not %s: %s (SQLSTATE %s).", doing, pg.Message, pg.Code)
	}
	var dns *net.DNSError
	var opErr *net.OpError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recordErr tls.RecordHeaderError
	switch {
	case errors.Is(err, ErrAddressNotAllowed):
		return msg("This server does not connect to %s: it is a private or local address. Give the database's public address, or ask the server's operator to allow its network (SURVEYS_ALLOW_PRIVATE).", t.Host)
	case errors.As(err, &dns):
		return msg("Could not reach %s: the host name %q is not known.", t.Addr(), t.Host)
	case errors.Is(err, syscall.ECONNREFUSED):
		return msg("Could not reach %s: the connection was refused (is PostgreSQL listening there, and the port right?).", t.Addr())
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded), isTimeout(err):
		return msg("Could not reach %s: no answer within %s (check the host, the port and the firewall).", t.Addr(), ConnectTimeout)
	case errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &recordErr):
		return msg("Could not reach %s securely: its TLS certificate was not accepted (%v); check sslmode.", t.Addr(), unwrapAll(err))
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return msg("Could not reach %s: no route to the host.", t.Addr())
	case errors.As(err, &opErr):
		return msg("Could not reach %s: %v.", t.Addr(), opErr.Err)
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return msg("Could not connect to %s: %v.", t.Addr(), unwrapAll(err))
	}
	return msg("The database could not %s: %v.", doing, err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// unwrapAll returns the innermost error, whose text names no connection
// string.
func unwrapAll(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}
