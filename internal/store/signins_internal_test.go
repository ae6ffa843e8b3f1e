package store

import (
	"strings"
	"testing"
	"time"
)

func TestParseState(t *testing.T) {
	good, err := newState(time.Unix(1_800_000_000, 0))
	if err != nil {
		t.Fatal(err)
	}
	if exp, ok := parseState(good); !ok || exp.Unix() != 1_800_000_000 {
		t.Fatalf("parseState(%q) = %v %v", good, exp, ok)
	}
	_, r, _ := strings.Cut(good, ".")
	for _, bad := range []string{"", ".", good + "x", "1800000000", "-1." + r, "+1." + r, "1e9." + r, "1234567890123." + r, "18." + r[:42] + "=", "18." + r[:42] + "/", "18.." + r[1:]} {
		if _, ok := parseState(bad); ok {
			t.Errorf("parseState(%q) accepted", bad)
		}
	}
}

// FuzzParseState: the callback's state parameter never panics the parser,
// and a state it accepts is a well-formed one that names its key.
func FuzzParseState(f *testing.F) {
	s, _ := newState(time.Unix(1_800_000_000, 0))
	f.Add(s)
	f.Add("0.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	f.Add("999999999999." + strings.Repeat("_", 43))
	f.Fuzz(func(t *testing.T, state string) {
		exp, ok := parseState(state)
		if !ok {
			return
		}
		ts, r, _ := strings.Cut(state, ".")
		if len(r) != 43 || ts == "" || strings.ContainsAny(r, "=+/.") || exp.Unix() < 0 {
			t.Fatalf("accepted %q", state)
		}
		if k := signInKey(exp, state); len(k) != 12+1+64 || strings.ContainsAny(k, `/\#?`) {
			t.Fatalf("key %q of %q", k, state)
		}
	})
}
