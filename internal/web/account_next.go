package web

import (
	"net/url"
	"strings"
	"unicode"
)

// defaultNext is where safeNext sends a browser whose "next" is not safe.
const defaultNext = "/"

// maxNext bounds the length of a "next" page.
const maxNext = 2048

// safeNext returns next when it is a plain path of this site that no
// browser can read as another host, re-encoded; otherwise defaultNext.
// Every redirect target taken from a request goes through it.
//
// Refused: anything not starting with a single "/" ("//host" and "/\host"
// are other hosts to a browser), a backslash anywhere, a control or
// invisible character anywhere (browsers drop tabs and newlines, so
// "/\t/host" would become "//host"), a scheme, host or user, and "." or
// ".." segments or doubled slashes in the decoded path (http.Redirect
// cleans the path, so "/a/../\host" would become "/\host"). A query is
// kept; a fragment is dropped.
func safeNext(next string) string {
	if next == "" || len(next) > maxNext || next[0] != '/' || strings.HasPrefix(next, "//") {
		return defaultNext
	}
	if !plainText(next) {
		return defaultNext
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || u.User != nil {
		return defaultNext
	}
	p := u.Path
	if !strings.HasPrefix(p, "/") || strings.Contains(p, "//") || !plainText(p) {
		return defaultNext
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." {
			return defaultNext
		}
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return defaultNext
	}
	out := (&url.URL{Path: p}).EscapedPath()
	if len(q) > 0 {
		out += "?" + q.Encode()
	}
	if !strings.HasPrefix(out, "/") || strings.HasPrefix(out, "//") || strings.HasPrefix(out, `/\`) {
		return defaultNext
	}
	return out
}

// plainText reports whether s has no backslash and only printable
// characters (no controls, no invisible formatting such as bidi
// overrides).
func plainText(s string) bool {
	for _, r := range s {
		if r == '\\' || r == unicode.ReplacementChar || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// tenantNext is the page to go to after signing in to tenant: next when
// it is safe and one of the tenant's pages, else the tenant's surveys.
func tenantNext(tenant, next string) string {
	if n := safeNext(next); strings.HasPrefix(n, "/"+tenant+"/") {
		return n
	}
	return "/" + tenant + "/surveys"
}
