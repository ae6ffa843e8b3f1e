// Package outbound is the one way the server reaches an address a tenant
// names: an identity provider, a webhook, a PostgreSQL database. A tenant
// could otherwise make the server reach what only the server can reach:
// its own loopback services (/metrics), the cloud's metadata endpoint
// (169.254.169.254), the private network behind it. So every connection is
// checked on the address actually dialled, after name resolution (a name
// that resolves, or later re-resolves, to a private address is refused
// too), and only globally routable unicast addresses are allowed, besides
// the ranges the operator allows (--allow-private).
package outbound

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"syscall"
)

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
			if err != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is neither an address nor a CIDR range such as 10.0.0.0/8", f)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR range such as 10.0.0.0/8", f)
		}
		if p.Addr().Is4In6() && p.Bits() >= 96 { // ::ffff:10.0.0.0/104 is 10.0.0.0/8
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// notGlobal are the ranges of the IANA special-purpose address registries
// (RFC 6890 and its updates) that are not globally routable unicast, and a
// few more that lead somewhere other than the address itself (6to4, Teredo,
// NAT64 translate to an IPv4 address that may be private).
var notGlobal = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",       // "this network"
		"10.0.0.0/8",      // private
		"100.64.0.0/10",   // carrier-grade NAT
		"127.0.0.0/8",     // loopback
		"169.254.0.0/16",  // link-local, the cloud's metadata endpoint
		"172.16.0.0/12",   // private
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // documentation
		"192.31.196.0/24", // AS112
		"192.52.193.0/24", // AMT
		"192.88.99.0/24",  // 6to4 relay anycast
		"192.168.0.0/16",  // private
		"192.175.48.0/24", // AS112
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // documentation
		"203.0.113.0/24",  // documentation
		"224.0.0.0/4",     // multicast
		"240.0.0.0/4",     // reserved, and the broadcast address
		"::/128",          // unspecified
		"::1/128",         // loopback
		"::ffff:0:0/96",   // IPv4-mapped (unwrapped before the check)
		"64:ff9b::/96",    // NAT64
		"64:ff9b:1::/48",  // local-use NAT64
		"100::/64",        // discard
		"2001::/23",       // IETF protocol assignments, with Teredo 2001::/32
		"2001:db8::/32",   // documentation
		"2002::/16",       // 6to4
		"3fff::/20",       // documentation
		"5f00::/16",       // SRv6 SIDs
		"fc00::/7",        // unique local
		"fe80::/10",       // link-local
		"fec0::/10",       // site-local (deprecated)
		"ff00::/8",        // multicast
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// globalV6 is where all of IPv6's global unicast space lies.
var globalV6 = netip.MustParsePrefix("2000::/3")

// Global reports whether a is a globally routable unicast address: not
// loopback, private, link-local, multicast, reserved, documentation,
// benchmarking, nor a tunnel or translation prefix. An IPv4-mapped IPv6
// address is judged as its IPv4 address; an address with a zone is never
// global.
func Global(a netip.Addr) bool {
	if !a.IsValid() || a.Zone() != "" {
		return false
	}
	a = a.Unmap()
	if a.Is6() && !globalV6.Contains(a) {
		return false
	}
	for _, p := range notGlobal {
		if p.Contains(a) {
			return false
		}
	}
	return a.IsGlobalUnicast()
}

// Guard decides which addresses may be dialled: the global ones, and those
// in Allow.
type Guard struct {
	// Allow are the non-global ranges the operator allows.
	Allow []netip.Prefix
}

// Allowed reports whether a may be dialled.
func (g Guard) Allowed(a netip.Addr) bool {
	return Global(a) || g.InAllowed(a)
}

// InAllowed reports whether a is in one of the ranges the operator allows.
func (g Guard) InAllowed(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.WithZone("").Unmap()
	for _, p := range g.Allow {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Control is a net.Dialer's Control hook: it refuses a connection to an
// address the guard does not allow. It runs for every address a name
// resolves to, just before connecting, so DNS rebinding cannot pass it.
func (g Guard) Control(_, address string, _ syscall.RawConn) error {
	return g.check(address, g.Allowed)
}

// ControlAllowedOnly is a Control hook that lets through only the
// operator's ranges: for plain-text (http) connections.
func (g Guard) ControlAllowedOnly(_, address string, _ syscall.RawConn) error {
	return g.check(address, g.InAllowed)
}

func (g Guard) check(address string, ok func(netip.Addr) bool) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !ok(ap.Addr()) {
		return fmt.Errorf("dial %s: %w", address, ErrAddressNotAllowed)
	}
	return nil
}
