package outbound

import (
	"net/netip"
	"testing"
)

func TestGlobal(t *testing.T) {
	tenNet := Guard{Allow: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	cases := []struct {
		addr           string
		global, tenNet bool
	}{
		{"8.8.8.8", true, true},
		{"1.1.1.1", true, true},
		{"2001:4860:4860::8888", true, true},
		{"2606:4700:4700::1111", true, true},
		{"::ffff:8.8.8.8", true, true},
		{"127.0.0.1", false, false},
		{"127.255.255.254", false, false},
		{"::1", false, false},
		{"::ffff:127.0.0.1", false, false},
		{"169.254.169.254", false, false}, // the cloud's metadata endpoint
		{"::ffff:169.254.169.254", false, false},
		{"10.1.2.3", false, true},
		{"::ffff:10.1.2.3", false, true},
		{"172.16.0.1", false, false},
		{"172.31.255.255", false, false},
		{"192.168.1.1", false, false},
		{"100.64.0.1", false, false},
		{"0.0.0.0", false, false},
		{"0.1.2.3", false, false},
		{"192.0.0.8", false, false},
		{"192.0.2.1", false, false},
		{"192.88.99.1", false, false},
		{"198.18.0.1", false, false},
		{"198.19.255.255", false, false},
		{"198.51.100.7", false, false},
		{"203.0.113.9", false, false},
		{"224.0.0.1", false, false},
		{"239.255.255.250", false, false},
		{"240.0.0.1", false, false},
		{"255.255.255.255", false, false},
		{"::", false, false},
		{"::127.0.0.1", false, false}, // IPv4-compatible, deprecated
		{"64:ff9b::7f00:1", false, false},
		{"64:ff9b::808:808", false, false}, // NAT64 of a public address: still refused
		{"64:ff9b:1::1", false, false},
		{"100::1", false, false},
		{"2001::1", false, false}, // Teredo
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false, false},
		{"2001:2::1", false, false},
		{"2001:db8::1", false, false},
		{"2002:7f00:1::1", false, false}, // 6to4 of 127.0.0.1
		{"2002:a9fe:a9fe::1", false, false},
		{"3fff::1", false, false},
		{"5f00::1", false, false},
		{"fc00::1", false, false},
		{"fd00::1", false, false},
		{"fe80::1", false, false},
		{"fe80::1%eth0", false, false},
		{"fec0::1", false, false},
		{"ff02::1", false, false},
		{"4000::1", false, false}, // outside 2000::/3
	}
	for _, c := range cases {
		a := netip.MustParseAddr(c.addr)
		if got := Global(a); got != c.global {
			t.Errorf("Global(%s) = %v, want %v", c.addr, got, c.global)
		}
		if got := (Guard{}).Allowed(a); got != c.global {
			t.Errorf("Allowed(%s) with no ranges = %v, want %v", c.addr, got, c.global)
		}
		if got := tenNet.Allowed(a); got != c.tenNet {
			t.Errorf("Allowed(%s) with 10.0.0.0/8 = %v, want %v", c.addr, got, c.tenNet)
		}
	}
}

func TestControl(t *testing.T) {
	g := Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	cases := []struct {
		address    string
		tls, plain bool // Control, ControlAllowedOnly
	}{
		{"8.8.8.8:443", true, false},
		{"127.0.0.1:80", true, true},
		{"[::1]:443", false, false},
		{"10.0.0.1:443", false, false},
		{"[::ffff:127.0.0.1]:80", true, true},
		{"localhost:80", false, false},
		{"garbage", false, false},
	}
	for _, c := range cases {
		if err := g.Control("tcp", c.address, nil); (err == nil) != c.tls {
			t.Errorf("Control(%s) = %v, want allowed %v", c.address, err, c.tls)
		}
		if err := g.ControlAllowedOnly("tcp", c.address, nil); (err == nil) != c.plain {
			t.Errorf("ControlAllowedOnly(%s) = %v, want allowed %v", c.address, err, c.plain)
		}
	}
}

func TestParseAllow(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		bad  bool
	}{
		{"", nil, false},
		{"10.0.0.0/8", []string{"10.0.0.0/8"}, false},
		{" 10.1.2.3/8 , 127.0.0.1,::1", []string{"10.0.0.0/8", "127.0.0.1/32", "::1/128"}, false},
		{"::ffff:10.0.0.0/104", []string{"10.0.0.0/8"}, false},
		{"10.0.0.0/33", nil, true},
		{"localhost", nil, true},
		{"fe80::1%eth0", nil, true},
		{"10.0.0.0/8,,", []string{"10.0.0.0/8"}, false},
	}
	for _, c := range cases {
		got, err := ParseAllow(c.in)
		if (err != nil) != c.bad {
			t.Errorf("ParseAllow(%q) error = %v, want error %v", c.in, err, c.bad)
			continue
		}
		if len(got) != len(c.want) {
			t.Errorf("ParseAllow(%q) = %v, want %v", c.in, got, c.want)
			continue
		}
		for i := range got {
			if got[i].String() != c.want[i] {
				t.Errorf("ParseAllow(%q) = %v, want %v", c.in, got, c.want)
			}
		}
	}
}

// FuzzGuard: the guard never allows an address in a range that is not
// globally routable unicast, whatever its form (IPv4, IPv6, IPv4-mapped),
// unless the operator allowed that range.
func FuzzGuard(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a00:1", "2002:a00::1", "2001::1", "fec0::1", "8.8.8.8", "2606:4700::1111", "10.0.0.1"} {
		f.Add(netip.MustParseAddr(s).AsSlice())
	}
	ten := Guard{Allow: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, ok := netip.AddrFromSlice(b)
		if !ok {
			return
		}
		u := a.Unmap()
		if Global(a) {
			if !u.IsGlobalUnicast() || u.IsPrivate() || u.IsLoopback() || u.IsLinkLocalUnicast() || u.IsMulticast() || u.IsUnspecified() {
				t.Fatalf("Global(%s): the standard library says it is not global unicast", a)
			}
			for _, p := range notGlobal {
				if p.Contains(u) {
					t.Fatalf("Global(%s) but it is in %s", a, p)
				}
			}
			if u.Is6() && !globalV6.Contains(u) {
				t.Fatalf("Global(%s) outside 2000::/3", a)
			}
		}
		if (Guard{}).Allowed(a) != Global(a) {
			t.Fatalf("with no ranges, Allowed(%s) != Global", a)
		}
		if ten.Allowed(a) && !Global(a) && !netip.MustParsePrefix("10.0.0.0/8").Contains(u) {
			t.Fatalf("with 10.0.0.0/8, Allowed(%s)", a)
		}
	})
}
