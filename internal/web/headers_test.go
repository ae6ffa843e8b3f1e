package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// inlineCode finds what a strict CSP blocks in a page: a script without a
// src, a style element or attribute, an event-handler attribute, a
// javascript: URL in an attribute.
var inlineCode = regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>\s*[^<\s]|<script>|<style|\sstyle\s*=|\son[a-z]+\s*=|=\s*["']?\s*javascript:`)

// TestSecurityHeaders walks public and signed-in pages (and errors) and
// checks that each carries the security headers, and that no page has
// inline script or style that the policy would block.
func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ana := signedInAna(t, app)
	base := "/adatum/surveys/" + app.adatum.Slug
	pages := []struct {
		path   string
		signIn bool
		code   int
	}{
		{"/", false, 200},
		{app.path(), false, 200},
		{app.path() + "/thankyou", false, 200},
		{"/survey/adatum/no-such-survey", false, 404},
		{"/no/such/page", false, 404},
		{"/login", false, 200},
		{"/onboarding", false, 200},
		{"/adatum/surveys", true, 200},
		{"/adatum/surveys/new", true, 200},
		{base + "/edit", true, 200},
		{base + "/analyze", true, 200},
		{base + "/share", true, 200},
		{base + "/preview", true, 303}, // to its preview link
		{base + "/answers", true, 200},
		{"/adatum/settings", true, 200},
		{"/adatum/settings/identity", true, 200},
		{"/adatum/settings/database", true, 200},
		{"/adatum/account/password", true, 200},
		{"/adatum/surveys", false, 0}, // signed out: the way to sign in
	}
	want := map[string]string{
		"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
		"X-Frame-Options":         "DENY",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "strict-origin-when-cross-origin",
	}
	for _, p := range pages {
		h := map[string]string{}
		if p.signIn {
			h["Cookie"] = ana.Name + "=" + ana.Value
		}
		code, header, body := app.do(t, "GET", p.path, nil, h)
		if p.code != 0 && code != p.code {
			t.Errorf("GET %s = %d, want %d", p.path, code, p.code)
		}
		for k, v := range want {
			if k == "Content-Security-Policy" && p.path == "/login" {
				// The organisation form redirects to the identity provider.
				v = strings.Replace(v, "form-action 'self'", "form-action 'self' https:", 1)
			}
			if got := header.Get(k); got != v {
				t.Errorf("GET %s: %s = %q, want %q", p.path, k, got, v)
			}
		}
		if strings.HasPrefix(header.Get("Content-Type"), "text/html") {
			if m := inlineCode.FindString(body); m != "" {
				t.Errorf("GET %s has inline code the CSP blocks: %q", p.path, m)
			}
		}
	}
}

// TestStaticListsNothing: /static/ serves its files, never a listing of a
// folder.
func TestStaticListsNothing(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	for _, p := range []string{"/static/", "/static/?v=1", "/static/./", "/static/nosuchdir/"} {
		code, _, body := app.do(t, "GET", p, nil, nil)
		if code != http.StatusNotFound || strings.Contains(body, "app.css") || strings.Contains(body, "<a href") {
			t.Errorf("GET %s = %d\n%s", p, code, body)
		}
	}
	if code, h, _ := app.do(t, "GET", "/static/app.css", nil, nil); code != http.StatusOK || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("GET /static/app.css = %d %v", code, h)
	}
}

// TestCrossSiteRefusalHasHeaders: a cross-site POST refused before the
// router still carries the security headers.
func TestCrossSiteRefusalHasHeaders(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	code, h, _ := app.do(t, "POST", "/login", url.Values{"tenant": {"adatum"}}, map[string]string{"Sec-Fetch-Site": "cross-site"})
	if code != http.StatusForbidden {
		t.Fatalf("cross-site POST = %d, want 403", code)
	}
	if h.Get("Content-Security-Policy") == "" || h.Get("X-Frame-Options") != "DENY" || h.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("the refusal's headers: %v", h)
	}
}
