package web

import (
	"errors"
	"io/fs"
	"net/http"
)

// contentSecurityPolicy allows the pages' own scripts, styles and images
// (and data: images) only: no inline script or style, no framing by any
// site, no <base>, forms posted to this server only.
const contentSecurityPolicy = cspBase + "form-action 'self'"

// loginPolicy is the sign-in page's (and its second step's, which shows
// the sign-in page again when its token expired): its "organisation" form
// ends in a redirect to the tenant's identity provider, which browsers
// check against form-action, so that page may submit to https origins.
const loginPolicy = cspBase + "form-action 'self' https:"

const cspBase = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"object-src 'none'; frame-ancestors 'none'; base-uri 'none'; "

// securityHeaders sets the headers every response carries. A handler may
// set a stricter policy of its own (a logo has default-src 'none'). Their
// values are made once (Header.Set makes a slice for each, for each
// request, and the middleware runs twice a request: Handler and Routes).
// Each is a slice of length and capacity one, so that a handler that adds
// to a header makes a new one, and one that sets it replaces it.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		if r.URL.Path == "/login" || r.URL.Path == "/login/code" {
			h["Content-Security-Policy"] = loginPolicyValue[:1:1]
		} else {
			h["Content-Security-Policy"] = policyValue[:1:1]
		}
		h["X-Frame-Options"] = frameOptionsValue[:1:1]
		h["X-Content-Type-Options"] = contentTypeOptionsValue[:1:1]
		h["Referrer-Policy"] = referrerPolicyValue[:1:1]
		next.ServeHTTP(w, r)
	})
}

// The values of securityHeaders.
var (
	policyValue             = []string{contentSecurityPolicy}
	loginPolicyValue        = []string{loginPolicy}
	frameOptionsValue       = []string{"DENY"}
	contentTypeOptionsValue = []string{"nosniff"}
	referrerPolicyValue     = []string{"strict-origin-when-cross-origin"}
)

// filesOnly is a file system that hides its directories, so that a file
// server over it lists none (a directory is "not found").
type filesOnly struct{ fsys fs.FS }

func (f filesOnly) Open(name string) (fs.File, error) {
	file, err := f.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := file.Stat()
	if err != nil || st.IsDir() {
		_ = file.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.Join(fs.ErrNotExist, err)}
	}
	return file, nil
}
