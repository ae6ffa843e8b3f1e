package web

import (
	"net/http"

	"github.com/surveys-dev/surveys/internal/survey"
)

// handlerFunc is a handler that returns an error, mapped to a response once,
// in serveError.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts a handlerFunc to http.HandlerFunc.
func (s *Server) handle(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.serveError(w, r, err)
		}
	}
}

// statuses maps error codes to HTTP statuses.
var statuses = map[string]int{
	survey.EINVALID:   http.StatusUnprocessableEntity,
	survey.ENOTFOUND:  http.StatusNotFound,
	survey.ECONFLICT:  http.StatusConflict,
	survey.EFORBIDDEN: http.StatusForbidden,
	survey.EINTERNAL:  http.StatusInternalServerError,
}

// errorStatus returns the HTTP status for err.
func errorStatus(err error) int {
	if st, ok := statuses[survey.ErrorCode(err)]; ok {
		return st
	}
	return http.StatusInternalServerError
}

type errorPage struct {
	Title   string
	Message string
}

// serveError writes the error page for err. Internal errors are logged and
// shown as a plain message, never err.Error().
func (s *Server) serveError(w http.ResponseWriter, r *http.Request, err error) {
	status := errorStatus(err)
	if status == http.StatusInternalServerError {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	page := errorPage{Title: http.StatusText(status), Message: survey.ErrorMessage(err)}
	if status == http.StatusInternalServerError {
		page.Message = "Something went wrong on our side. Please try again in a moment."
	}
	s.render(w, r, status, "error", page)
}

func notFound(msg string) error { return survey.Errorf(survey.ENOTFOUND, "%s", msg) }
