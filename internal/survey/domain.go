package survey

import (
	"net/netip"
	"strings"
)

// MaxDomainLength bounds a custom domain: a DNS name is at most 253
// characters.
const MaxDomainLength = 253

// ParseDomain checks a custom domain a tenant names for its surveys
// (surveys.adatum.example) and returns it in its one written form: lower
// case, without a trailing dot. It must be a DNS name of two labels or
// more, without scheme, port, path or address: the address of a page
// the tenant copied (https://surveys.adatum.example/) is taken for its
// host.
func ParseDomain(s string) (string, error) {
	h := strings.ToLower(strings.TrimSpace(s))
	if rest, ok := strings.CutPrefix(h, "https://"); ok {
		h = rest
	} else if rest, ok := strings.CutPrefix(h, "http://"); ok {
		h = rest
	}
	h = strings.TrimSuffix(h, "/")
	h = strings.TrimSuffix(h, ".")
	bad := func(why string) (string, error) {
		return "", &Error{Code: EINVALID, Message: "The domain was not saved.", Fields: map[string]string{"domain": why}}
	}
	switch {
	case h == "":
		return bad("Give the host name your surveys will be served at, such as surveys.adatum.example.")
	case len(h) > MaxDomainLength:
		return bad("A host name is at most 253 characters.")
	case strings.ContainsAny(h, "/:?#@[] "):
		return bad("Give the host name alone, such as surveys.adatum.example: no path, port or address.")
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return bad("Give a host name, not an IP address.")
	}
	labels := strings.Split(h, ".")
	if len(labels) < 2 {
		return bad("Give a full host name with a dot, such as surveys.adatum.example.")
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-") ||
			strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return bad("A host name is made of letters, digits and hyphens between dots (each part at most 63 characters, not starting or ending with a hyphen); write an international name in its xn-- form.")
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return bad("Give a host name, not an IP address.")
	}
	return h, nil
}

// ValidDomain reports whether h is a domain as ParseDomain returns them.
func ValidDomain(h string) bool {
	d, err := ParseDomain(h)
	return err == nil && d == h
}
