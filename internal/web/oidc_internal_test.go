package web

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzSafeNext: a "next" page accepted after a sign-in is always a path of
// the tenant's on this site, never another host.
func FuzzSafeNext(f *testing.F) {
	for _, s := range []string{"/adatum/surveys", "//evil.example/adatum/", "/adatum//evil.example", `/adatum/\evil`, "/adatum/../fabrikam/surveys", "https://evil.example/adatum/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, next string) {
		if !safeNext("adatum", next) {
			return
		}
		u, err := url.Parse(next)
		if err != nil {
			return // the browser is sent to /adatum/… as written, a path on this site
		}
		if u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/adatum/") && !strings.HasPrefix(next, "/adatum/") {
			t.Fatalf("accepted %q (%#v)", next, u)
		}
	})
}
