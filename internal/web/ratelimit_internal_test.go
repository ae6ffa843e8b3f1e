package web

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestClientAddr(t *testing.T) {
	t.Parallel()
	proxies := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8")}
	tests := []struct {
		name, remote, xff string
		trusted           []netip.Prefix
		want              string
	}{
		{"direct", "198.51.100.7:5000", "", nil, "198.51.100.7"},
		{"direct, forged header ignored", "198.51.100.7:5000", "192.0.2.1", nil, "198.51.100.7"},
		{"untrusted peer's header ignored", "198.51.100.7:5000", "192.0.2.1", proxies, "198.51.100.7"},
		{"behind the proxy", "127.0.0.1:5000", "192.0.2.1", proxies, "192.0.2.1"},
		{"client's own header left of the proxy's", "127.0.0.1:5000", "6.6.6.6, 192.0.2.1", proxies, "192.0.2.1"},
		{"two proxies", "127.0.0.1:5000", "6.6.6.6, 192.0.2.1, 10.1.2.3", proxies, "192.0.2.1"},
		{"garbage stops the walk", "127.0.0.1:5000", "192.0.2.1, nonsense", proxies, "127.0.0.1"},
		{"proxy without a header", "127.0.0.1:5000", "", proxies, "127.0.0.1"},
		{"IPv6 by its /64", "[2001:db8:1:2:3:4:5:6]:443", "", nil, "2001:db8:1:2::/64"},
		{"mapped IPv4", "[::ffff:198.51.100.7]:443", "", nil, "198.51.100.7"},
		{"no port", "198.51.100.7", "", nil, "198.51.100.7"},
	}
	for _, tc := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.remote
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := clientAddr(r, tc.trusted); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func FuzzClientAddr(f *testing.F) {
	for _, s := range [][2]string{{"127.0.0.1:1", "192.0.2.1"}, {"[::1]:1", "2001:db8::1, 10.0.0.1"}, {"x", ",,"}, {"127.0.0.1:1", "fe80::1%eth0"}} {
		f.Add(s[0], s[1])
	}
	proxies := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	f.Fuzz(func(t *testing.T, remote, xff string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr, r.Header = remote, map[string][]string{"X-Forwarded-For": {xff}}
		got := clientAddr(r, proxies)
		if _, err := netip.ParseAddrPort(remote); err == nil {
			// A parsed peer always gives an address or a /64, never the
			// header's raw text.
			if _, err := netip.ParseAddr(got); err != nil {
				if _, err := netip.ParsePrefix(got); err != nil || !strings.HasSuffix(got, "/64") {
					t.Fatalf("clientAddr(%q, %q) = %q", remote, xff, got)
				}
			}
		}
	})
}
