package postgres

import (
	"errors"
	"net/netip"
	"testing"
)

// TestAllowed: the store's dials reach the globally routable addresses,
// and the others only in the ranges the operator allows.
func TestAllowed(t *testing.T) {
	// allowed reports whether the store's dialer lets a connection to a
	// through (its Control hook, as dial sets it).
	allowed := func(s *SurveySQLStore, a netip.Addr) bool {
		err := s.guard().Control("tcp", netip.AddrPortFrom(a, 5432).String(), nil)
		if err != nil && !errors.Is(err, ErrAddressNotAllowed) {
			t.Fatalf("%s: %v, want ErrAddressNotAllowed", a, err)
		}
		return err == nil
	}
	private := &SurveySQLStore{}
	tenNet := &SurveySQLStore{Allow: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	cases := []struct {
		addr           string
		public, tenNet bool
	}{
		{"8.8.8.8", true, true},
		{"2001:4860:4860::8888", true, true},
		{"127.0.0.1", false, false},
		{"::1", false, false},
		{"::ffff:127.0.0.1", false, false},
		{"169.254.169.254", false, false}, // the cloud's metadata endpoint
		{"10.1.2.3", false, true},
		{"::ffff:10.1.2.3", false, true},
		{"172.16.0.1", false, false},
		{"192.168.1.1", false, false},
		{"100.64.0.1", false, false},
		{"fd00::1", false, false},
		{"fe80::1", false, false},
		{"0.0.0.0", false, false},
		{"224.0.0.1", false, false},
		// Not globally routable unicast, though the standard library's
		// IsGlobalUnicast says so (issue 11, item 13).
		{"64:ff9b::a9fe:a9fe", false, false},                   // NAT64 of the metadata endpoint
		{"2002:7f00:1::1", false, false},                       // 6to4 of loopback
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false, false}, // Teredo
		{"fec0::1", false, false},
		{"0.1.2.3", false, false},
		{"198.18.0.1", false, false},
		{"240.0.0.1", false, false},
		{"192.0.2.1", false, false},
		{"2001:db8::1", false, false},
	}
	for _, c := range cases {
		a := netip.MustParseAddr(c.addr)
		if got := allowed(private, a); got != c.public {
			t.Errorf("allowed(%s) with no ranges = %v, want %v", c.addr, got, c.public)
		}
		if got := allowed(tenNet, a); got != c.tenNet {
			t.Errorf("allowed(%s) with 10.0.0.0/8 = %v, want %v", c.addr, got, c.tenNet)
		}
	}
}
