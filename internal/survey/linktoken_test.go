package survey

import (
	"strings"
	"testing"
)

func TestValidLinkToken(t *testing.T) {
	good := LinkTokenPrefix + strings.Repeat("A", 42) + "Q"
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{good, true},
		{"", false},
		{LinkTokenPrefix, false},
		{good[:len(good)-1], false},
		{good + "A", false},
		{"svy_" + good[len(LinkTokenPrefix):], false},
		{LinkTokenPrefix + strings.Repeat("A", 42) + "B", false}, // non-canonical last character
		{LinkTokenPrefix + strings.Repeat("+", 43), false},
		{LinkTokenPrefix + strings.Repeat("/", 43), false},
	} {
		if got := ValidLinkToken(tc.in); got != tc.want {
			t.Errorf("ValidLinkToken(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzValidLinkToken: any input is accepted only in the canonical form,
// whose 32 bytes re-encode to the same text.
func FuzzValidLinkToken(f *testing.F) {
	f.Add(LinkTokenPrefix + strings.Repeat("A", 42) + "Q")
	f.Add("lnk_\x00")
	f.Fuzz(func(t *testing.T, s string) {
		if !ValidLinkToken(s) {
			return
		}
		if !strings.HasPrefix(s, LinkTokenPrefix) || len(s) != len(LinkTokenPrefix)+43 || strings.ContainsAny(s[len(LinkTokenPrefix):], "+/=") {
			t.Fatalf("accepted %q", s)
		}
	})
}
