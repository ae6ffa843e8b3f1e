package outbound_test

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/outbound"
)

// TestCheckURLNumericHosts: an IPv4 address written other than as four
// decimal numbers is refused as a URL's host (ErrNumericHost), whatever
// the operator allows; names and plain addresses are not.
func TestCheckURLNumericHosts(t *testing.T) {
	c := outbound.New(outbound.Config{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	for _, tt := range []struct {
		url     string
		numeric bool
	}{
		{"https://2130706433/", true},
		{"https://0x7f.1/", true},
		{"https://0x7F000001/hooks", true},
		{"https://0177.0.0.1/", true},
		{"https://127.1/", true},
		{"https://127.0.1/", true},
		{"https://127.0.0.1./", true},
		{"https://0/", true},
		{"https://0x/", true},
		{"https://8.8.8.010/", true},
		{"https://2130706433:8443/in", true},
		{"http://0x7f.0.0.1/", true},
		{"https://127.0.0.1/", false},
		{"https://93.184.215.14/in", false},
		{"https://hooks.example.com/in", false},
		{"https://123.example/", false},
		{"https://0xcafe.example/", false},
		{"https://1.2.3.4.5/", false},
		{"https://[::1]/", false},
		{"https://0x7g/", false},
	} {
		err := c.CheckURL(tt.url)
		if got := errors.Is(err, outbound.ErrNumericHost); got != tt.numeric {
			t.Errorf("CheckURL(%q) = %v, want numeric host %v", tt.url, err, tt.numeric)
		}
	}
}

// inetAton is the reference: how the C library reads a host as an IPv4
// address (one to four parts, decimal, 0-octal or 0x-hex, the last
// filling the bytes left), ok false when it does not.
func inetAton(host string) (netip.Addr, bool) {
	parts := strings.Split(strings.TrimSuffix(host, "."), ".")
	if host == "" || len(parts) > 4 {
		return netip.Addr{}, false
	}
	var nums []uint64
	for _, p := range parts {
		base, digits := 10, p
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, digits = 16, p[2:]
			if digits == "" {
				digits = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" || strings.ContainsAny(digits, "+-_") {
			return netip.Addr{}, false
		}
		n, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		nums = append(nums, n)
	}
	var v uint64
	for i, n := range nums {
		shift := 8 * (3 - i)
		if i == len(nums)-1 {
			if n >= 1<<(8*(4-i)) {
				return netip.Addr{}, false
			}
			v |= n
			break
		}
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << shift
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// FuzzCheckURLNumericHost: no host that the C library reads as an IPv4
// address passes CheckURL unless it is written as four decimal numbers
// (which the guard then checks as the address it is).
func FuzzCheckURLNumericHost(f *testing.F) {
	for _, s := range []string{"2130706433", "0x7f.1", "0177.0.0.1", "127.1", "127.0.0.1", "127.0.0.1.", "hooks.example.com", "0x", "1.2.3.4.5", "0xffffffff", "4294967296"} {
		f.Add(s)
	}
	c := outbound.New(outbound.Config{Allow: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}})
	f.Fuzz(func(t *testing.T, host string) {
		if strings.ContainsAny(host, "/?#@:[]%\\ \t\r\n") {
			return // not a bare host
		}
		err := c.CheckURL("https://" + host + "/in")
		if _, isAddr := inetAton(host); isAddr && err == nil {
			if a, perr := netip.ParseAddr(host); perr != nil || !a.Is4() {
				t.Fatalf("CheckURL accepted the host %q, an IPv4 address", host)
			}
		}
		if errors.Is(err, outbound.ErrNumericHost) != outbound.LooseIPv4(host) {
			t.Fatalf("CheckURL(%q) = %v, LooseIPv4 = %v", host, err, outbound.LooseIPv4(host))
		}
	})
}
