package web

import (
	"regexp"
	"strings"
	"testing"
)

func TestCSVCell(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"=HYPERLINK(\"http://evil.example\",\"x\")", "'=HYPERLINK(\"http://evil.example\",\"x\")"},
		{"+1+1", "'+1+1"}, {"-2+3", "'-2+3"}, {"@SUM(A1)", "'@SUM(A1)"},
		{"\t=1", "'\t=1"}, {"\r=1", "'\r=1"},
		{"plain", "plain"}, {"", ""}, {"a=1", "a=1"}, {" =1", " =1"}, {"'quoted", "'quoted"}, {"5", "5"},
		// A plain negative number is no formula; anything more is.
		{"-12.5", "-12.5"}, {"-3", "-3"}, {"-", "'-"}, {"-.5", "'-.5"}, {"-5.", "'-5."}, {"-1.2.3", "'-1.2.3"}, {"-1e3", "'-1e3"}, {"-1-1", "'-1-1"},
	}
	for _, tc := range tests {
		if got := csvCell(tc.in); got != tc.want {
			t.Errorf("csvCell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzCSVCell: a cell never begins with a character a spreadsheet takes
// for a formula, and a text that does not begin with one is unchanged.
func FuzzCSVCell(f *testing.F) {
	for _, s := range []string{"=1+1", "+", "-", "@x", "\tx", "\rx", "text", "", "'=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := csvCell(s)
		if plainNegative(s) {
			if got != s || !regexp.MustCompile(`^-[0-9]+(\.[0-9]+)?$`).MatchString(s) {
				t.Fatalf("csvCell(%q) = %q: only a plain negative number is kept", s, got)
			}
			return
		}
		if got != "" && strings.ContainsAny(got[:1], "=+-@\t\r") {
			t.Fatalf("csvCell(%q) = %q begins with a formula character", s, got)
		}
		dangerous := s != "" && strings.ContainsAny(s[:1], "=+-@\t\r")
		if !dangerous && got != s {
			t.Fatalf("csvCell(%q) = %q changed a safe text", s, got)
		}
		if dangerous && got != "'"+s {
			t.Fatalf("csvCell(%q) = %q, want it prefixed with '", s, got)
		}
	})
}
