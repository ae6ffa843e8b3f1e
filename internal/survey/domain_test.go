package survey

import (
	"strings"
	"testing"
)

// TestParseDomain: a host name comes back in its one written form; what
// is not a host name (an address, a port, a path, one label, bad
// characters) is refused beside the domain field.
func TestParseDomain(t *testing.T) {
	for in, want := range map[string]string{
		"surveys.adatum.example":               "surveys.adatum.example",
		"  Surveys.Adatum.Example.  ":          "surveys.adatum.example",
		"https://surveys.adatum.example/":      "surveys.adatum.example",
		"http://xn--bcher-kva.example":         "xn--bcher-kva.example",
		"a-b.c-d.example":                      "a-b.c-d.example",
		"":                                     "",
		"localhost":                            "",
		"203.0.113.7":                          "",
		"1.2.3.4.5":                            "",
		"[::1]":                                "",
		"surveys.adatum.example:8443":          "",
		"surveys.adatum.example/path":          "",
		"user@surveys.adatum.example":          "",
		"surveys..example":                     "",
		"-surveys.example":                     "",
		"surveys-.example":                     "",
		"sur_veys.example":                     "",
		"bücher.example":                       "",
		strings.Repeat("a", 64) + ".example":   "",
		strings.Repeat("abcdefghi.", 26) + "x": "",
	} {
		got, err := ParseDomain(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("ParseDomain(%q) = %q, %v; want %q", in, got, err, want)
		}
		if e, ok := err.(*Error); err != nil && (!ok || e.Code != EINVALID || e.Fields["domain"] == "") {
			t.Errorf("ParseDomain(%q): %v, want EINVALID beside the domain field", in, err)
		}
	}
}

// FuzzParseDomain: what ParseDomain accepts is a valid domain, written
// as it writes it (parsing it again gives it back).
func FuzzParseDomain(f *testing.F) {
	for _, s := range []string{"surveys.adatum.example", "HTTPS://A.B/", "1.2.3.4", "a..b", "xn--x.example."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDomain(s)
		if err != nil {
			return
		}
		if !ValidDomain(d) || len(d) > MaxDomainLength || d != strings.ToLower(d) {
			t.Fatalf("ParseDomain(%q) = %q, not a valid domain", s, d)
		}
	})
}
