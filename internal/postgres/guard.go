package postgres

import (
	"context"
	"net"
	"time"

	"github.com/surveys-dev/surveys/internal/outbound"
)

// A subscriber names the host the server connects to, so an unguarded
// server could be made to reach what only it can reach: its own loopback
// services, the cloud's metadata endpoint (169.254.169.254), the private
// network behind it. A SurveySQLStore therefore connects only to globally
// routable addresses, and to the ranges its operator allows
// (--allow-private). The check is outbound's, the same as for every URL a
// tenant names, made on the address actually dialled, after name
// resolution, so a name that resolves to a private address (or changes to
// one) is refused too.

// ErrAddressNotAllowed is the cause of a refused dial.
var ErrAddressNotAllowed = outbound.ErrAddressNotAllowed

// guard is the guard of the store's dials: globally routable addresses,
// and the ranges the operator allows.
func (s *SurveySQLStore) guard() outbound.Guard {
	return outbound.Guard{Allow: s.Allow}
}

// dial connects to addr ("ip:port", as pgx passes it after resolving the
// host) when the store allows its address.
func (s *SurveySQLStore) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{
		Timeout:   ConnectTimeout,
		KeepAlive: 5 * time.Minute,
		Control:   s.guard().Control,
	}
	return d.DialContext(ctx, network, addr)
}
