package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// A subscriber names the host the server connects to, so an unguarded
// server could be made to reach what only it can reach: its own loopback
// services, the cloud's metadata endpoint (169.254.169.254), the private
// network behind it. A SurveySQLStore therefore connects only to public
// addresses, and to the ranges its operator allows (--sql-allow). The
// check is made on the address actually dialled, after name resolution, so
// a name that resolves to a private address (or changes to one) is refused
// too.

// ErrAddressNotAllowed is the cause of a refused dial.
var ErrAddressNotAllowed = errors.New("address not allowed")

// ParseAllow reads the operator's list of allowed ranges: CIDR prefixes or
// single addresses, separated by commas (e.g. "10.0.0.0/8, 127.0.0.1").
func ParseAllow(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("%q is neither an address nor a CIDR range such as 10.0.0.0/8", f)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR range such as 10.0.0.0/8", f)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// public reports whether a is an address of the public internet.
func public(a netip.Addr) bool {
	return a.IsGlobalUnicast() && !a.IsPrivate() &&
		!netip.MustParsePrefix("100.64.0.0/10").Contains(a) // carrier-grade NAT
}

// allowed reports whether the store may dial a.
func (s *SurveySQLStore) allowed(a netip.Addr) bool {
	a = a.Unmap()
	if public(a) {
		return true
	}
	for _, p := range s.Allow {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// dial connects to addr ("ip:port", as pgx passes it after resolving the
// host) when the store allows its address.
func (s *SurveySQLStore) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{
		Timeout:   ConnectTimeout,
		KeepAlive: 5 * time.Minute,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("dial %s: %w", address, ErrAddressNotAllowed)
			}
			if !s.allowed(ap.Addr()) {
				return fmt.Errorf("dial %s: %w", address, ErrAddressNotAllowed)
			}
			return nil
		},
	}
	return d.DialContext(ctx, network, addr)
}
