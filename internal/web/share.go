package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"rsc.io/qr"

	"github.com/surveys-dev/surveys/internal/survey"
)

type sharePage struct {
	Tenant string
	Survey *survey.Survey
	Link   string
}

// publicLink is the absolute address of a survey's public page, as the
// browser reached this server.
func publicLink(r *http.Request, tenant, slug string) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/survey/" + tenant + "/" + slug
}

// share shows the public link, a copy button and a QR code of the link.
func (s *Server) share(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "share", sharePage{Tenant: tenant, Survey: sv, Link: publicLink(r, tenant, slug)})
	return nil
}

// qrCode is a PNG QR code of the survey's public link.
func (s *Server) qrCode(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	if _, err := s.surveys.Get(r.Context(), tenant, slug); err != nil {
		return err
	}
	code, err := qr.Encode(publicLink(r, tenant, slug), qr.M)
	if err != nil {
		return err
	}
	code.Scale = 8
	w.Header().Set("Content-Type", "image/png")
	_, _ = w.Write(code.PNG())
	return nil
}
