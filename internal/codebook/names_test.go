package codebook

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSanitize: names valid for SPSS and R, from whatever a subscriber
// named a hidden field or a variable.
func TestSanitize(t *testing.T) {
	long := strings.Repeat("a", 70)
	cases := []struct{ in, want string }{
		{"q1", "q1"},
		{"source", "source"},
		{"panel_id", "panel_id"},
		{"panel-id", "panel_id"},
		{"Panel ID", "Panel_ID"},
		{`say "hi"`, "say_hi"},
		{"it's", "it_s"},
		{"Größe", "Grosse"},
		{"Été café", "Ete_cafe"},
		{"naïve_Ångström", "naive_Angstrom"},
		{"Ærø Łódź", "AEro_Lodz"},
		{"日本", "v"},
		{"ß", "ss"},
		{"", "v"},
		{"___", "v"},
		{"_x_", "x"},
		{"a  --  b", "a_b"},
		{"1st", "v1st"},
		{"2024", "v2024"},
		{"9_lives", "v9_lives"},
		{"and", "v_and"},
		{"TO", "v_TO"},
		{"if", "v_if"},
		{"NA", "v_NA"},
		{"TRUE", "v_TRUE"},
		{"x.y", "x_y"},
		{"a\nb\tc", "a_b_c"},
		{long, strings.Repeat("a", 64)},
		{strings.Repeat("a", 63) + "_b", strings.Repeat("a", 63)},
		{"1" + long, "v1" + strings.Repeat("a", 62)},
	}
	for _, c := range cases {
		if got := Sanitize(c.in); got != c.want {
			t.Errorf("Sanitize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestUniqueNames: names that collide, without their case too (SPSS's
// rule), get _2, _3 …, cut to stay within 64 bytes.
func TestUniqueNames(t *testing.T) {
	long := strings.Repeat("b", 64)
	cases := []struct {
		in, want []string
	}{
		{[]string{"q1", "q1", "Q1", "q1_2"}, []string{"q1", "q1_2", "Q1_3", "q1_2_2"}},
		{[]string{"panel id", "panel-id", "panel_id"}, []string{"panel_id", "panel_id_2", "panel_id_3"}},
		{[]string{"x", "x_2", "x"}, []string{"x", "x_2", "x_3"}},
		{[]string{long, long + "c", long}, []string{long, strings.Repeat("b", 62) + "_2", strings.Repeat("b", 62) + "_3"}},
		{[]string{"", "日本", "?"}, []string{"v", "v_2", "v_3"}},
	}
	for _, c := range cases {
		n := namer{}
		var got []string
		for _, s := range c.in {
			got = append(got, n.name(s))
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("names of %q = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSPSSString: SPSS literals in single quotes, quotes doubled, long
// ones in pieces joined by "+", each piece whole characters.
func TestSPSSString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "''"},
		{"plain", "'plain'"},
		{"L'Aquila", "'L''Aquila'"},
		{`say "hi"`, `'say "hi"'`},
		{"''", "''''''"},
		{"Grün café", "'Grün café'"},
		{strings.Repeat("é", 101), "'" + strings.Repeat("é", 100) + "'\n      + 'é'"},
		{strings.Repeat("'", 201), "'" + strings.Repeat("''", 200) + "'\n      + ''''"},
	}
	for _, c := range cases {
		if got := spssString(c.in); got != c.want {
			t.Errorf("spssString(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestRString: R literals in double quotes, backslashes and quotes
// escaped, control characters too, other characters as they are.
func TestRString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`say "hi"`, `"say \"hi\""`},
		{`C:\data`, `"C:\\data"`},
		{"L'Aquila", `"L'Aquila"`},
		{"a\nb\tc\x01", `"a\nb\tc\x01"`},
		{"Grün 日本", `"Grün 日本"`},
	}
	for _, c := range cases {
		if got := rString(c.in); got != c.want {
			t.Errorf("rString(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzSanitize: whatever the text, a valid name: 1 to 64 bytes of ASCII
// letters, digits and "_", a letter first, no "_" last, no reserved word,
// and the same name again when sanitized again.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"q1", "1st", "Größe", "and", "日本", "a  b", `"'`, strings.Repeat("x", 80), "_9", "v_and"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Sanitize(s)
		if got == "" || len(got) > MaxName || !utf8.ValidString(got) {
			t.Fatalf("Sanitize(%q) = %q: empty or too long", s, got)
		}
		for i, r := range got {
			letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
			if !letter && !(i > 0 && (r >= '0' && r <= '9' || r == '_')) {
				t.Fatalf("Sanitize(%q) = %q: %q at %d", s, got, r, i)
			}
		}
		if strings.HasSuffix(got, "_") || reserved[strings.ToLower(got)] {
			t.Fatalf("Sanitize(%q) = %q: ends with _ or is reserved", s, got)
		}
		if again := Sanitize(got); again != got {
			t.Fatalf("Sanitize(%q) = %q, then %q", s, got, again)
		}
		// Two names are never the same for SPSS.
		n := namer{}
		if a, b := n.name(s), n.name(s); strings.EqualFold(a, b) || len(b) > MaxName {
			t.Fatalf("names of %q twice: %q, %q", s, a, b)
		}
	})
}

// FuzzLiterals: whatever the text (valid UTF-8), the SPSS literal reads
// back as it (its pieces unquoted, quotes undoubled, joined), with no
// piece longer than a line takes; the R literal is what Go reads as the
// same string (R's escapes here are Go's), a NUL replaced.
func FuzzLiterals(f *testing.F) {
	for _, s := range []string{"", "L'Aquila", `say "hi"`, "a\nb", strings.Repeat("é'", 150), `C:\data`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		var back strings.Builder
		for _, piece := range strings.Split(spssString(s), "\n      + ") {
			inner, ok := strings.CutPrefix(piece, "'")
			inner, ok2 := strings.CutSuffix(inner, "'")
			if !ok || !ok2 || len(inner) > 2*literalChunk || strings.Contains(strings.ReplaceAll(inner, "''", ""), "'") {
				t.Fatalf("spssString(%q): bad piece %q", s, piece)
			}
			back.WriteString(strings.ReplaceAll(inner, "''", "'"))
		}
		if back.String() != s {
			t.Fatalf("spssString(%q) reads back as %q", s, back.String())
		}
		if got, err := strconv.Unquote(rString(s)); err != nil || got != strings.ReplaceAll(s, "\x00", "\uFFFD") {
			t.Fatalf("rString(%q) = %s, which reads as %q (%v)", s, rString(s), got, err)
		}
	})
}
