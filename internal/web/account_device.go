package web

import (
	"crypto/hmac"
	"encoding/base64"
	"net/http"

	"github.com/surveys-dev/surveys/internal/survey"
)

// deviceCookie marks a browser that signed in to an account (OWASP's
// device cookie): its sign-ins are not made to wait for the account's
// throttle, which others' guesses may have set off (store.UserStore's
// AuthenticateKnownDevice). It holds a MAC of the account, so it tells
// nothing and cannot be made for another account; a browser keeps the
// cookie of the last account it signed in to.
const deviceCookie = "surveys_device"

// deviceTTL is how long a browser stays known after a sign-in.
const deviceTTL = 180 * 24 * 60 * 60 // seconds

func (s *Server) deviceToken(tenant, email string) string {
	return base64.RawURLEncoding.EncodeToString(s.signer.mac("device", tenant, survey.NormalizeEmail(email)))
}

// knownDevice reports whether the request comes from a browser that signed
// in to the account before.
func (s *Server) knownDevice(r *http.Request, tenant, email string) bool {
	c, err := r.Cookie(deviceCookie)
	return err == nil && hmac.Equal([]byte(c.Value), []byte(s.deviceToken(tenant, email)))
}

// setDevice marks the browser as known to the account it signed in to.
func (s *Server) setDevice(w http.ResponseWriter, r *http.Request, tenant, email string) {
	http.SetCookie(w, &http.Cookie{Name: deviceCookie, Value: s.deviceToken(tenant, email), Path: "/login", HttpOnly: true,
		Secure: s.secureCookies(r), SameSite: http.SameSiteLaxMode, MaxAge: deviceTTL})
}
