package secret

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testKey(b byte) []byte { return bytes.Repeat([]byte{b}, KeySize) }

func TestSealOpen(t *testing.T) {
	box, err := New(testKey(1))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, plain, ad string }{
		{"empty", "", "adatum/clientSecret"},
		{"ascii", "s3cret!", "adatum/clientSecret"},
		{"unicode", "пароль 🔑", "fabrikam/sqlPassword"},
		{"long", strings.Repeat("x", 10000), "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sealed, err := box.Seal(tt.plain, tt.ad)
			if err != nil {
				t.Fatal(err)
			}
			if tt.plain != "" && strings.Contains(sealed, tt.plain) {
				t.Fatalf("sealed value %q shows the plaintext", sealed)
			}
			again, _ := box.Seal(tt.plain, tt.ad)
			if again == sealed {
				t.Fatal("two seals of one value are equal: the nonce is not random")
			}
			got, err := box.Open(sealed, tt.ad)
			if err != nil || got != tt.plain {
				t.Fatalf("Open = %q, %v; want %q", got, err, tt.plain)
			}
		})
	}
}

func TestOpenRefuses(t *testing.T) {
	box, _ := New(testKey(1))
	other, _ := New(testKey(2))
	sealed, _ := box.Seal("s3cret", "adatum/clientSecret")
	flipped := []byte(sealed)
	flipped[len(flipped)-2] ^= 1
	tests := []struct {
		name   string
		box    *Box
		sealed string
		ad     string
	}{
		{"other key", other, sealed, "adatum/clientSecret"},
		{"other tenant", box, sealed, "fabrikam/clientSecret"},
		{"tampered", box, string(flipped), "adatum/clientSecret"},
		{"not sealed", box, "s3cret", "adatum/clientSecret"},
		{"truncated", box, sealed[:6], "adatum/clientSecret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := tt.box.Open(tt.sealed, tt.ad); err == nil {
				t.Fatalf("Open = %q, want an error", got)
			}
		})
	}
	var none *Box
	if _, err := none.Seal("x", ""); !errors.Is(err, ErrNoKey) {
		t.Fatalf("nil Seal: %v, want ErrNoKey", err)
	}
	if _, err := none.Open(sealed, ""); !errors.Is(err, ErrNoKey) {
		t.Fatalf("nil Open: %v, want ErrNoKey", err)
	}
}

func TestLoad(t *testing.T) {
	k := testKey(7)
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte(base64.StdEncoding.EncodeToString(k)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, inline, file string
		wantBox, wantErr   bool
	}{
		{"none", "", "", false, false},
		{"base64", base64.StdEncoding.EncodeToString(k), "", true, false},
		{"raw url base64", base64.RawURLEncoding.EncodeToString(k), "", true, false},
		{"hex", hex.EncodeToString(k), "", true, false},
		{"file", "", file, true, false},
		{"both", "x", file, false, true},
		{"short", base64.StdEncoding.EncodeToString(k[:16]), "", false, true},
		{"garbage", "not a key!", "", false, true},
		{"missing file", "", file + ".missing", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			box, err := Load(tt.inline, tt.file)
			if (err != nil) != tt.wantErr || (box != nil) != tt.wantBox {
				t.Fatalf("Load = %v, %v; want box %v, error %v", box, err, tt.wantBox, tt.wantErr)
			}
		})
	}
}

// FuzzSealOpen checks that any value round-trips, that it opens only with
// its own associated data, and that Open of arbitrary text is an error, not
// a panic.
func FuzzSealOpen(f *testing.F) {
	box, _ := New(testKey(3))
	f.Add("seed", "ad", "v1:AAAA")
	f.Add("", "", "v1:")
	f.Fuzz(func(t *testing.T, plain, ad, junk string) {
		sealed, err := box.Seal(plain, ad)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := box.Open(sealed, ad); err != nil || got != plain {
			t.Fatalf("round trip of %q = %q, %v", plain, got, err)
		}
		if _, err := box.Open(sealed, ad+"x"); err == nil {
			t.Fatal("opened with other associated data")
		}
		if got, err := box.Open(junk, ad); err == nil {
			t.Fatalf("junk %q opened as %q", junk, got)
		}
	})
}

// TestDerive: a derived key is the same from the same key and purpose, and
// opens nothing sealed with the key it comes from or for another purpose.
func TestDerive(t *testing.T) {
	b, err := New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	a1, a2, other := b.Derive("a"), b.Derive("a"), b.Derive("b")
	sealed, err := a1.Seal("x", "ad")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := a2.Open(sealed, "ad"); err != nil || v != "x" {
		t.Fatalf("the same derivation: %q %v", v, err)
	}
	if _, err := other.Open(sealed, "ad"); err == nil {
		t.Fatal("another purpose opened it")
	}
	if _, err := b.Open(sealed, "ad"); err == nil {
		t.Fatal("the parent key opened it")
	}
	if (*Box)(nil).Derive("a") != nil {
		t.Fatal("a nil box derived a key")
	}
	r1, _ := Random()
	r2, _ := Random()
	if s, _ := r1.Seal("x", ""); func() bool { _, err := r2.Open(s, ""); return err == nil }() {
		t.Fatal("two random keys are the same")
	}
}

func TestDeriveKey(t *testing.T) {
	k1, k2 := bytes.Repeat([]byte{1}, KeySize), bytes.Repeat([]byte{2}, KeySize)
	a, _ := New(k1)
	b, _ := New(k1)
	c, _ := New(k2)
	if !bytes.Equal(a.DeriveKey("forms"), b.DeriveKey("forms")) || len(a.DeriveKey("forms")) != 32 {
		t.Fatal("the same key derived two keys")
	}
	if bytes.Equal(a.DeriveKey("forms"), a.DeriveKey("other")) || bytes.Equal(a.DeriveKey("forms"), c.DeriveKey("forms")) || bytes.Equal(a.DeriveKey("forms"), k1) {
		t.Fatal("derived keys are not distinct")
	}
	if (*Box)(nil).DeriveKey("forms") != nil {
		t.Fatal("a nil box derived a key")
	}
}
