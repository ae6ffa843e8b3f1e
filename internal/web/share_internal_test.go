package web

import (
	"net"
	"net/netip"
	"net/url"
	"testing"
)

// FuzzValidHost: a Host accepted for a share link makes a URL whose host
// is exactly it: no user, path, query or fragment smuggled in.
func FuzzValidHost(f *testing.F) {
	for _, s := range []string{"surveys.example.com", "localhost:8080", "127.0.0.1:80", "[::1]:8080", "evil.example/x", "a@b", "a..b", "-a.b", "bad_host", "x:y", "[::1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		if !validHost(h) {
			return
		}
		u, err := url.Parse("http://" + h + "/survey/adatum/s")
		if err != nil || u.Host != h || u.User != nil || u.Path != "/survey/adatum/s" || u.RawQuery != "" || u.Fragment != "" {
			t.Fatalf("validHost(%q) but the link parses as %#v (%v)", h, u, err)
		}
	})
}

// FuzzAddrAllowed: with the default networks, only a loopback address is
// allowed.
func FuzzAddrAllowed(f *testing.F) {
	for _, s := range []string{"127.0.0.1:1", "[::1]:1", "[::ffff:127.0.0.1]:1", "203.0.113.5:4711", "10.0.0.1", "[fe80::1%eth0]:1", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, remote string) {
		if !addrAllowed(remote, DefaultMetricsAllow) {
			return
		}
		host, _, err := net.SplitHostPort(remote)
		if err != nil {
			host = remote
		}
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Unmap().IsLoopback() {
			t.Fatalf("allowed %q, not a loopback address", remote)
		}
	})
}
