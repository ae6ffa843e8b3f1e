package web

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzFormToken: a token is accepted only as issued, for its own survey,
// and gives back the answer ID it holds.
func FuzzFormToken(f *testing.F) {
	fs := newFormSigner([]byte("0123456789abcdef0123456789abcdef"), nil)
	good := fs.issue("adatum", "survey")
	for _, s := range []string{good, "", ".", good + "x", strings.ToUpper(good), "0639319062242965258-05ffca._VP4Z3j3OdECpcvSnUdAFA", good[:27] + "==", "a.b.c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, token string) {
		id, ok := fs.check("adatum", "survey", token)
		if ok && (token != good || !strings.HasPrefix(good, id+".")) {
			t.Fatalf("accepted %q (id %q), which was not issued", token, id)
		}
		if _, ok := fs.check("adatum", "other", token); ok {
			t.Fatalf("%q accepted for another survey", token)
		}
		if fs.solved(token, token) && token != "" {
			// A number is decimal digits; a token never is.
			t.Fatalf("%q solves its own challenge", token)
		}
	})
}

func TestFormSignerKeys(t *testing.T) {
	t.Parallel()
	now := time.Now()
	a := newFormSigner([]byte("0123456789abcdef0123456789abcdef"), func() time.Time { return now })
	b := newFormSigner([]byte("0123456789abcdef0123456789abcdef"), nil)
	other := newFormSigner(nil, nil) // a key of its own
	tok := a.issue("adatum", "survey")
	if _, ok := b.check("adatum", "survey", tok); !ok {
		t.Fatal("an instance with the same key refused the token")
	}
	if _, ok := other.check("adatum", "survey", tok); ok {
		t.Fatal("an instance with another key accepted the token")
	}
	now = now.Add(formTokenLife + time.Second)
	if _, ok := a.check("adatum", "survey", tok); ok {
		t.Fatal("a token past its life was accepted")
	}
	// Exactly one number in range solves a challenge.
	n := 0
	for i := 0; i <= powMaxNumber; i++ {
		if a.solved(tok, itoa(i)) {
			n++
		}
	}
	if n != 1 || a.solved(tok, itoa(powMaxNumber+1)) {
		t.Fatalf("%d solutions in range", n)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
