package survey

import (
	"regexp"
	"testing"
)

// The languages of slugs and tenant keys, as regular expressions: what
// ValidSlug and tenantKey check by hand.
var (
	slugRE      = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	tenantKeyRE = regexp.MustCompile(`^[a-z0-9]{2,24}$`)
)

// FuzzValidNames: ValidSlug and tenantKey accept what their regular
// expressions match, and nothing else.
func FuzzValidNames(f *testing.F) {
	for _, s := range []string{"", "a", "ab", "adatum", "adatum-customer-satisfaction", "-a", "a-", "a--b", "A", "a_b", "é", "a b",
		"abcdefghijklmnopqrstuvwxyz", "0123456789abcdefghijklmn", "a\n", "a-1-b2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ValidSlug(s), len(s) <= MaxSlugLength+4 && slugRE.MatchString(s); got != want {
			t.Errorf("ValidSlug(%q) = %v, want %v", s, got, want)
		}
		if got, want := tenantKey(s), tenantKeyRE.MatchString(s); got != want {
			t.Errorf("tenantKey(%q) = %v, want %v", s, got, want)
		}
	})
}
