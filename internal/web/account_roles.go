package web

import (
	"net/http"

	"github.com/surveys-dev/surveys/internal/survey"
)

// requireRole lets through a signed-in member whose role may do a; others
// get 403. It follows requireTenantUser, which sets the session.
func (s *Server) requireRole(a survey.Action) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if role := roleOf(r); !role.May(a) {
				s.serveError(w, r, role.Forbidden(a))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// roleOf is the signed-in member's role ("" when no one is signed in,
// which may nothing).
func roleOf(r *http.Request) survey.Role {
	if sess := sessionFrom(r.Context()); sess != nil {
		return sess.Role
	}
	return ""
}
