package web

import (
	"net/http"
	"strings"

	"github.com/surveys-dev/surveys/internal/i18n"

	"github.com/surveys-dev/surveys/internal/api"
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

type errorPage struct {
	Title   string
	Message string
	// L is the page's language: a respondent's on the respondent routes
	// (/survey/…), else English.
	L i18n.Lang
	// respondent: the page answers a respondent route, and carries no
	// sign-in header (layout.Respondent).
	respondent bool
	// home is the site's home page on a custom domain (Server.homeOf).
	home string
}

// Home is where "Back to the home page" goes: "/", or on a tenant's
// custom domain the public URL's home page.
func (p errorPage) Home() string { return or(p.home, "/") }

func (p errorPage) respondentPage() bool { return p.respondent }

// Language and T are the page's language and its words (base.html).
func (p errorPage) Language() i18n.Lang              { return p.L }
func (p errorPage) T(key string, args ...any) string { return p.L.T(key, args...) }

// inRespondentLanguage puts the page's title and message in the
// respondent's language on the respondent routes, where the catalogs
// have them (a message they lack stays English), and on a tenant's
// custom domain, where every page is a respondent's.
func (s *Server) inRespondentLanguage(w http.ResponseWriter, r *http.Request, p errorPage) errorPage {
	p.home = s.homeOf(r)
	if !strings.HasPrefix(r.URL.Path, "/survey/") && p.home == "" {
		return p
	}
	p.L, p.respondent = s.respondentOf(w, r, nil).L, true
	p.Title, p.Message = p.L.Text(p.Title), p.L.Text(p.Message)
	return p
}

// serveError writes the error page for err. Internal errors are logged and
// shown as a plain message, never err.Error().
func (s *Server) serveError(w http.ResponseWriter, r *http.Request, err error) {
	status := api.ErrorStatus(err)
	if status == http.StatusInternalServerError {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	page := errorPage{Title: http.StatusText(status), Message: survey.ErrorMessage(err)}
	if status == http.StatusInternalServerError {
		page.Message = "Something went wrong on our side. Please try again in a moment."
	}
	s.render(w, r, status, "error", s.inRespondentLanguage(w, r, page))
}

func notFound(msg string) error { return survey.Errorf(survey.ENOTFOUND, "%s", msg) }
