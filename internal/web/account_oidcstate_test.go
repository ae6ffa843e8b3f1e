package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/counting"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/web/oidctest"
)

// writes is the number of storage calls that change something.
func writes(st *counting.Store) int64 {
	var n int64
	for _, c := range st.Snapshot() {
		switch c.Op.Kind {
		case "get", "query", "scan", "list", "dequeue", "peek", "count", "ping":
		default:
			n += c.Calls
		}
	}
	return n
}

// TestOIDCStartWritesNothing: anyone may start a sign-in through a
// tenant's provider, so starting one writes nothing to storage (its state
// is in a sealed cookie); the whole sign-in still works, and its callback
// serves once, with its own cookie only.
func TestOIDCStartWritesNothing(t *testing.T) {
	t.Parallel()
	st := counting.New(backends.Local(t))
	app := newTestAppOn(t, st)
	o := newTestOP(t, app, "adatum")
	app.useOP(t, o, "adatum", "groups", "surveys-staff")

	before := writes(st)
	const n = 50
	for i := 0; i < n; i++ {
		code, h, _ := app.do(t, "GET", "/login/adatum/oidc?next=/adatum/surveys", nil, nil)
		if code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), o.Issuer) || !strings.Contains(h.Get("Set-Cookie"), "surveys_oidc=") {
			t.Fatalf("start = %d %s", code, h.Get("Location"))
		}
	}
	if w := writes(st) - before; w != 0 {
		t.Fatalf("%d anonymous starts of a sign-in made %d storage writes: %v", n, w, st.Snapshot())
	}

	// The whole sign-in works.
	b := oidctest.NewBrowser(true)
	b.SignIn(t, o, app.srv.URL, "adatum", oidctest.StaffUser)
	sealed := b.Cookie(app.srv.URL+"/login/adatum/oidc", "surveys_oidc")
	if sealed == "" || strings.Contains(sealed, b.Callback.Query().Get("state")) {
		t.Fatalf("the state cookie %q is not sealed", sealed)
	}
	code, h, body := b.Fetch(t, b.Callback.String())
	if code != http.StatusSeeOther || h.Get("Location") != "/adatum/surveys" || session(b, app) == "" {
		t.Fatalf("callback = %d %s %s", code, h.Get("Location"), body)
	}
	// Replayed with its own sealed cookie, the callback is refused.
	callback := func(u, cookie string) (int, string) {
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("Cookie", "surveys_oidc="+cookie)
		resp, err := app.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := callback(b.Callback.String(), sealed); code != http.StatusBadRequest || !strings.Contains(body, "Start again") {
		t.Fatalf("replayed callback = %d", code)
	}

	// A tampered cookie, or one sealed for another tenant, is refused.
	b2 := oidctest.NewBrowser(true)
	b2.SignIn(t, o, app.srv.URL, "adatum", oidctest.StaffUser)
	sealed2 := b2.Cookie(app.srv.URL+"/login/adatum/oidc", "surveys_oidc")
	i := len(sealed2) - 5
	flipped := sealed2[:i] + string("AB"[boolInt(sealed2[i] == 'A')]) + sealed2[i+1:]
	if code, _ := callback(b2.Callback.String(), flipped); code != http.StatusBadRequest {
		t.Fatalf("callback with a tampered cookie = %d", code)
	}
	fab := *b2.Callback
	fab.Path = "/login/fabrikam/oidc/callback"
	app.useOP(t, o, "fabrikam", "groups", "surveys-staff")
	if code, _ := callback(fab.String(), sealed2); code != http.StatusBadRequest {
		t.Fatalf("Adatum's cookie at Fabrikam's callback = %d", code)
	}
	q := b2.Callback.Query()
	q.Set("state", otherFirst(q.Get("state")))
	other := *b2.Callback
	other.RawQuery = q.Encode()
	if code, _ := callback(other.String(), sealed2); code != http.StatusBadRequest {
		t.Fatalf("callback with another state than the cookie's = %d", code)
	}
	// The untouched cookie still finishes its sign-in.
	if code, body := callback(b2.Callback.String(), sealed2); code != http.StatusSeeOther {
		t.Fatalf("callback with its cookie = %d %s", code, body)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// otherFirst is s with another first character (x, or y when it is x).
func otherFirst(s string) string {
	if strings.HasPrefix(s, "x") {
		return "y" + s[1:]
	}
	return "x" + s[1:]
}
