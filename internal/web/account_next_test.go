package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestSignInNextStaysOnSite: the page a sign-in goes on to is one of the
// tenant's, whatever "next" the form carried; a trick that a cleaned path
// turns into another host ("/\evil.example") lands on the dashboard.
func TestSignInNextStaysOnSite(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	if _, err := testUsers(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ next, want string }{
		{"/adatum/surveys/new", "/adatum/surveys/new"},
		{"", "/adatum/surveys"},
		{`/adatum/../\evil.example`, "/adatum/surveys"},
		{`/adatum/..\evil.example`, "/adatum/surveys"},
		{"/adatum/../../evil.example", "/adatum/surveys"},
		{"/adatum/%2e%2e/%5cevil.example", "/adatum/surveys"},
		{"/adatum/\t/evil.example", "/adatum/surveys"},
		{"//evil.example/adatum/", "/adatum/surveys"},
		{"/adatum//evil.example", "/adatum/surveys"},
		{"https://evil.example/adatum/", "/adatum/surveys"},
		{"/fabrikam/surveys", "/adatum/surveys"},
	} {
		form := url.Values{"tenant": {"adatum"}, "email": {"ana@adatum.example"}, "password": {"correct horse battery"}, "next": {tc.next}}
		code, h, _ := app.do(t, "POST", "/login", form, nil)
		if code != http.StatusSeeOther || h.Get("Location") != tc.want {
			t.Errorf("next %q: %d to %q, want 303 to %q", tc.next, code, h.Get("Location"), tc.want)
		}
		if loc := h.Get("Location"); strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, `/\`) {
			t.Errorf("next %q: sent to another host: %q", tc.next, loc)
		}
	}
}
