package web

import (
	"net/url"
	"strings"
	"testing"
	"unicode"
)

func TestSafeNext(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ next, want string }{
		{"/adatum/surveys", "/adatum/surveys"},
		{"/adatum/surveys/x/analyze?transfer=requested", "/adatum/surveys/x/analyze?transfer=requested"},
		{"/adatum/surveys/x/analyze#transfer", "/adatum/surveys/x/analyze"},
		{"/adatum/surveys/", "/adatum/surveys/"},
		{"/", "/"},
		{"", "/"},
		{"adatum/surveys", "/"},
		{"//evil.example", "/"},
		{"///evil.example", "/"},
		{`/\evil.example`, "/"},
		{`/adatum/../\evil.example`, "/"},
		{`/adatum\surveys`, "/"},
		{"/adatum/%5cevil", "/"},
		{"/adatum/../fabrikam/surveys", "/"},
		{"/adatum/./surveys", "/"},
		{"/adatum/%2e%2e/fabrikam", "/"},
		{"/adatum/..", "/"},
		{"/adatum//evil.example", "/"},
		{"/%2fevil.example", "/"},
		{"https://evil.example/adatum/", "/"},
		{"javascript:alert(1)", "/"},
		{"/adatum/\t/evil", "/"},
		{"/\n/evil.example", "/"},
		{"/adatum/\x00", "/"},
		{"/adatum/\u202esurveys", "/"},
		{"/adatum/%0a", "/"},
		{"/adatum/" + strings.Repeat("a", maxNext), "/"},
		{"/adatum/caf\u00e9", "/adatum/caf%C3%A9"},
		{"/adatum/a b", "/adatum/a%20b"},
	} {
		if got := safeNext(tc.next); got != tc.want {
			t.Errorf("safeNext(%q) = %q, want %q", tc.next, got, tc.want)
		}
	}
}

func TestTenantNext(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ next, want string }{
		{"/adatum/settings", "/adatum/settings"},
		{"/fabrikam/settings", "/adatum/surveys"},
		{"/adatum", "/adatum/surveys"},
		{"/adatumx/surveys", "/adatum/surveys"},
		{`/adatum/../\evil.example`, "/adatum/surveys"},
	} {
		if got := tenantNext("adatum", tc.next); got != tc.want {
			t.Errorf("tenantNext(%q) = %q, want %q", tc.next, got, tc.want)
		}
	}
}

// FuzzSafeNext: whatever it is given, safeNext returns a path of this site
// that a browser resolves to this host, with no backslash, control
// character or dot segment, and stable (safe for a second pass).
func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/adatum/surveys", "//evil.example/adatum/", "/adatum//evil.example", `/adatum/\evil`,
		`/adatum/../\evil.example`, "/adatum/../fabrikam/surveys", "https://evil.example/adatum/", "/a?b=c#d", "/%2e%2e/", "/\t/x"} {
		f.Add(s)
	}
	base, _ := url.Parse("https://surveys.example/adatum/surveys")
	f.Fuzz(func(t *testing.T, next string) {
		got := safeNext(next)
		if !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") || strings.ContainsRune(got, '\\') {
			t.Fatalf("safeNext(%q) = %q: not a local path", next, got)
		}
		for _, r := range got {
			if r > unicode.MaxASCII || unicode.IsControl(r) || r == ' ' {
				t.Fatalf("safeNext(%q) = %q: has %q", next, got, r)
			}
		}
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("safeNext(%q) = %q: %v", next, got, err)
		}
		if abs := base.ResolveReference(u); abs.Host != "surveys.example" || abs.Scheme != "https" {
			t.Fatalf("safeNext(%q) = %q: resolves to %s", next, got, abs)
		}
		for _, seg := range strings.Split(u.Path, "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("safeNext(%q) = %q: dot segment", next, got)
			}
		}
		if again := safeNext(got); again != got {
			t.Fatalf("safeNext(%q) = %q, but safeNext of that = %q", next, got, again)
		}
	})
}
