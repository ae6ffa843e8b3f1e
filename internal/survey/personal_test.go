package survey

import (
	"strconv"
	"strings"
	"testing"
)

func TestValidPersonalToken(t *testing.T) {
	good := PersonalTokenPrefix + strings.Repeat("A", 42) + "Q"
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{good, true},
		{"", false},
		{PersonalTokenPrefix, false},
		{good[:len(good)-1], false},
		{good + "A", false},
		{LinkTokenPrefix + good[len(PersonalTokenPrefix):], false},
		{PersonalTokenPrefix + strings.Repeat("A", 42) + "B", false}, // non-canonical last character
		{PersonalTokenPrefix + strings.Repeat("+", 43), false},
		{PersonalTokenPrefix + strings.Repeat("/", 43), false},
	} {
		if got := ValidPersonalToken(tc.in); got != tc.want {
			t.Errorf("ValidPersonalToken(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzValidPersonalToken: any input is accepted only in the canonical
// form, whose 32 bytes re-encode to the same text.
func FuzzValidPersonalToken(f *testing.F) {
	f.Add(PersonalTokenPrefix + strings.Repeat("A", 42) + "Q")
	f.Add("plk_\x00")
	f.Fuzz(func(t *testing.T, s string) {
		if !ValidPersonalToken(s) {
			return
		}
		if !strings.HasPrefix(s, PersonalTokenPrefix) || len(s) != len(PersonalTokenPrefix)+43 || strings.ContainsAny(s[len(PersonalTokenPrefix):], "+/=") {
			t.Fatalf("accepted %q", s)
		}
	})
}

func TestParsePersonalLinks(t *testing.T) {
	for _, tc := range []struct {
		name, count, emails string
		n                   int
		addrs               int
		field, problem      string
	}{
		{"count", " 25 ", "", 25, 0, "", ""},
		{"addresses", "", "ana@example.com\r\n\n  bo@example.com \nANA@example.com\n", 2, 2, "", ""},
		{"nothing", "", " \n ", 0, 0, "count", "Say how many"},
		{"zero", "0", "", 0, 0, "count", "from 1 to 1000"},
		{"too many", "1001", "", 0, 0, "count", "from 1 to 1000"},
		{"not a number", "1e3", "", 0, 0, "count", "from 1 to 1000"},
		{"bad line", "", "ana@example.com\nana at example\n", 0, 0, "emails", "Line 2 is not an email address"},
		{"both", "3", "ana@example.com", 0, 0, "count", "not both"},
		{"too many addresses", "", strings.Repeat("a@example.com\n", 1) + manyAddresses(MaxPersonalLinks+1), 0, 0, "emails", "at most 1000"},
	} {
		n, addrs, err := ParsePersonalLinks(tc.count, tc.emails)
		if tc.field == "" {
			if err != nil || n != tc.n || len(addrs) != tc.addrs {
				t.Errorf("%s: %d, %v, %v", tc.name, n, addrs, err)
			}
			continue
		}
		e, ok := err.(*Error)
		if !ok || e.Code != EINVALID || !strings.Contains(e.Fields[tc.field], tc.problem) || n != 0 || addrs != nil {
			t.Errorf("%s: %d, %v, %v", tc.name, n, addrs, err)
		}
	}
}

func manyAddresses(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("p" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strconv.Itoa(i) + "@example.com\n")
	}
	return b.String()
}

// FuzzParsePersonalLinks: whatever is sent, the result is a count in
// range with valid, distinct addresses, or a problem beside a field.
func FuzzParsePersonalLinks(f *testing.F) {
	f.Add("3", "")
	f.Add("", "ana@example.com\nbo@example.com")
	f.Add("", "ana@example.com\n=1+1@x.y\n\x00")
	f.Fuzz(func(t *testing.T, count, emails string) {
		n, addrs, err := ParsePersonalLinks(count, emails)
		if err != nil {
			if e, ok := err.(*Error); !ok || e.Code != EINVALID || len(e.Fields) == 0 {
				t.Fatalf("error %v", err)
			}
			return
		}
		if n < 1 || n > MaxPersonalLinks || len(addrs) > 0 && n != len(addrs) {
			t.Fatalf("n %d with %d addresses", n, len(addrs))
		}
		seen := map[string]bool{}
		for _, a := range addrs {
			if !ValidEmail(a) || seen[strings.ToLower(a)] {
				t.Fatalf("address %q", a)
			}
			seen[strings.ToLower(a)] = true
		}
	})
}
