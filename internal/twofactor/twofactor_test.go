package twofactor_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/surveys-dev/surveys/internal/twofactor"
)

// The secret of RFC 6238's test vectors ("12345678901234567890"), base32.
const rfcSecret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

// TestRFC6238Vectors: the six-digit codes of the RFC's SHA-1 vectors
// (its appendix B, last six digits).
func TestRFC6238Vectors(t *testing.T) {
	for _, tc := range []struct {
		unix int64
		code string
	}{
		{59, "287082"},
		{1111111109, "081804"},
		{1111111111, "050471"},
		{1234567890, "005924"},
		{2000000000, "279037"},
	} {
		if step, ok := twofactor.Match(rfcSecret, tc.code, time.Unix(tc.unix, 0), 0); !ok || step != tc.unix/30 {
			t.Errorf("at %d: %s = step %d, %v; want step %d", tc.unix, tc.code, step, ok, tc.unix/30)
		}
	}
}

func TestMatch(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 10, 0, time.UTC) // 10 s into a step
	cur := now.Unix() / 30
	code := func(d time.Duration) string {
		c, err := totp.GenerateCode(rfcSecret, now.Add(d))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		name     string
		code     string
		last     int64
		ok       bool
		wantStep int64
	}{
		{"this step", code(0), 0, true, cur},
		{"typed with a space", code(0)[:3] + " " + code(0)[3:], 0, true, cur},
		{"one step early (phone behind)", code(-30 * time.Second), 0, true, cur - 1},
		{"one step late (phone ahead)", code(30 * time.Second), 0, true, cur + 1},
		{"two steps early", code(-60 * time.Second), 0, false, 0},
		{"two steps late", code(60 * time.Second), 0, false, 0},
		{"replay: this step used", code(0), cur, false, 0},
		{"older than the step used", code(-30 * time.Second), cur, false, 0},
		{"newer than the step used", code(30 * time.Second), cur, true, cur + 1},
		{"previous step used, this one free", code(0), cur - 1, true, cur},
		{"wrong code", "000000", 0, code(0) == "000000", cur},
		{"five digits", code(0)[:5], 0, false, 0},
		{"seven digits", code(0) + "1", 0, false, 0},
		{"letters", "abcdef", 0, false, 0},
		{"empty", "", 0, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			step, ok := twofactor.Match(rfcSecret, tc.code, now, tc.last)
			if ok != tc.ok || ok && step != tc.wantStep {
				t.Errorf("Match(%q, last %d) = %d, %v; want %d, %v", tc.code, tc.last, step, ok, tc.wantStep, tc.ok)
			}
		})
	}
}

func TestSecretAndURI(t *testing.T) {
	s, err := twofactor.NewSecret()
	if err != nil || !twofactor.ValidSecret(s) || len(s) != 32 {
		t.Fatalf("NewSecret() = %q, %v", s, err)
	}
	for _, bad := range []string{"", "abc", rfcSecret[:16], "!!!!" + s[4:]} {
		if twofactor.ValidSecret(bad) {
			t.Errorf("ValidSecret(%q) = true", bad)
		}
	}
	uri, err := twofactor.URI("Surveys (Adatum)", "ana@adatum.example", s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"otpauth://totp/", "secret=" + s, "period=30", "digits=6", "algorithm=SHA1", "issuer=Surveys"} {
		if !strings.Contains(uri, want) {
			t.Errorf("URI %q lacks %q", uri, want)
		}
	}
}

func TestRecoveryCodes(t *testing.T) {
	codes, err := twofactor.NewRecoveryCodes()
	if err != nil || len(codes) != twofactor.RecoveryCodes {
		t.Fatalf("NewRecoveryCodes() = %v, %v", codes, err)
	}
	seen := map[string]bool{}
	var hashes []string
	for _, c := range codes {
		if len(c) != 14 || c[4] != '-' || c[9] != '-' || seen[c] {
			t.Errorf("recovery code %q: want xxxx-xxxx-xxxx, each new", c)
		}
		seen[c] = true
		h := twofactor.HashRecovery(c)
		if h == "" || strings.Contains(h, c) {
			t.Errorf("HashRecovery(%q) = %q", c, h)
		}
		hashes = append(hashes, h)
	}
	// Each code is used once, however it is typed.
	for _, tc := range []struct {
		name, code string
		ok         bool
	}{
		{"first code", codes[0], true},
		{"first code again", codes[0], false},
		{"upper case, no hyphens", strings.ToUpper(strings.ReplaceAll(codes[1], "-", "")), true},
		{"second code again, as given", codes[1], false},
		{"spaces for hyphens", strings.ReplaceAll(codes[2], "-", " "), true},
		{"a code never given", "abcd-efgh-jkmn", false},
		{"a one-time code's shape", "123456", false},
		{"empty", "", false},
		{"last code", codes[9], true},
	} {
		rest, ok := twofactor.UseRecovery(hashes, tc.code)
		if ok != tc.ok {
			t.Errorf("%s: UseRecovery(%q) = %v; want %v", tc.name, tc.code, ok, tc.ok)
		}
		if ok && len(rest) != len(hashes)-1 || !ok && len(rest) != len(hashes) {
			t.Errorf("%s: %d hashes left of %d", tc.name, len(rest), len(hashes))
		}
		hashes = rest
	}
	if len(hashes) != 6 {
		t.Errorf("%d recovery codes left; want 6", len(hashes))
	}
}

// FuzzCodes: whatever a person types, the checks neither panic nor take
// what is not a code of the secret's (a recovery code's hash is only of a
// code's shape).
func FuzzCodes(f *testing.F) {
	for _, s := range []string{"123456", "123 456", "abcd-efgh-jkmn", "", "ABCD EFGH JKMN", "１２３４５６", "\x00\xff", strings.Repeat("9", 100)} {
		f.Add(s)
	}
	now := time.Unix(1234567890, 0)
	f.Fuzz(func(t *testing.T, code string) {
		if step, ok := twofactor.Match(rfcSecret, code, now, 0); ok {
			want, _ := totp.GenerateCode(rfcSecret, time.Unix(step*30, 0))
			if twofactor.CleanCode(code) != want || step < now.Unix()/30-1 || step > now.Unix()/30+1 {
				t.Fatalf("Match(%q) took step %d", code, step)
			}
		}
		if h := twofactor.HashRecovery(code); h != "" && len(twofactor.CleanCode(code)) != 12 {
			t.Fatalf("HashRecovery(%q) = %q for a code of another shape", code, h)
		}
		if _, ok := twofactor.UseRecovery(nil, code); ok {
			t.Fatalf("UseRecovery(nil, %q) found a code", code)
		}
	})
}
