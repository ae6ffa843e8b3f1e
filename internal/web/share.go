package web

import (
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"rsc.io/qr"

	"github.com/surveys-dev/surveys/internal/survey"
)

type sharePage struct {
	Tenant string
	Survey *survey.Survey
	Link   string
	// Embed is the snippet that shows the survey in a page of a site it
	// allows (Survey.EmbedOrigins).
	Embed string
	// Role is the signed-in member's: it hides what they may not do.
	Role survey.Role
	// Preview is a preview link (designer_preview.go) anyone may open until
	// PreviewUntil; Published, that the survey was just published.
	Preview      string
	PreviewUntil time.Time
	Published    bool
	// EmbedSite is a site typed to allow embedding, EmbedError its
	// problem.
	EmbedSite, EmbedError string
}

// MailTo is a mailto: link that opens the sender's own mail program with
// the survey's link in a prepared text (nothing is sent by this server).
func (p sharePage) MailTo() string {
	esc := func(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }
	subject := p.Survey.Title
	body := "Hello,\n\nPlease answer our survey \"" + p.Survey.Title + "\": " + p.Link + "\n\nThank you!"
	return "mailto:?subject=" + esc(subject) + "&body=" + esc(body)
}

// maxHostLength bounds the Host a link is built on when no public URL is
// configured: a DNS name is at most 253 characters, a port 6 more.
const maxHostLength = 253 + 6

// baseURL is the scheme and host browsers reach this server at: the
// configured public URL, or else the request's own Host, https only when
// the request came over TLS. Headers a client or proxy may write
// (X-Forwarded-Proto, X-Forwarded-Host, Forwarded) are never believed:
// behind a TLS-terminating proxy, set the public URL.
func (s *Server) baseURL(r *http.Request) (string, error) {
	if s.publicURL != "" {
		return s.publicURL, nil
	}
	if !validHost(r.Host) {
		return "", &survey.Error{Code: survey.EINVALID, Message: "This page was reached at an address that is not a host name, so no link can be made; reach it at the server's own name, or have the operator set the public URL."}
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host, nil
}

// mailBase is the scheme and host of every link we mail (a password
// reset, an invitation, a personal link): the configured public URL alone.
// It takes no request on purpose: a mailed link never comes from a
// request's Host or a forwarded header, which whoever sends the request
// writes ("Host: evil.example" would mail a victim a link to the
// attacker's site carrying a working token). New refuses e-mail without a
// public URL; an empty one here is a wiring mistake, refused too.
func (s *Server) mailBase() (string, error) {
	if s.publicURL == "" {
		return "", errNoPublicURL
	}
	return s.publicURL, nil
}

// errNoPublicURL: e-mail is on without a public URL (New refuses that).
var errNoPublicURL = errors.New("web: e-mail needs the public URL (Deps.PublicURL): mailed links are built from it alone")

// shownBase is the base of a link shown on a page to a signed-in member
// and, when e-mail is on, mailed as well (invitations, personal links):
// the public URL when e-mail is on, else the request's own (baseURL).
func (s *Server) shownBase(r *http.Request) (string, error) {
	if s.mailOn() {
		return s.mailBase()
	}
	return s.baseURL(r)
}

// validHost reports whether h is a host name or address, with an optional
// port, of a sensible length.
func validHost(h string) bool {
	if h == "" || len(h) > maxHostLength {
		return false
	}
	host := h
	if hp, port, err := net.SplitHostPort(h); err == nil {
		if port == "" || strings.Trim(port, "0123456789") != "" {
			return false
		}
		if strings.HasPrefix(h, "[") {
			return net.ParseIP(hp) != nil && strings.Contains(hp, ":") // "[::1]:8080"
		}
		host = hp
	} else if strings.ContainsAny(h, ":[]") {
		return false // an IPv6 address without brackets, or brackets without a port
	}
	if net.ParseIP(host) != nil {
		return true
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") ||
			strings.Trim(strings.ToLower(label), "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return false
		}
	}
	return true
}

// publicLink is the absolute address of a survey's public page: on the
// tenant's verified custom domain, https://<domain>/<slug>.
func (s *Server) publicLink(r *http.Request, tenant, slug string) (string, error) {
	if h, err := s.domains.hostOf(r.Context(), tenant); err == nil && h != "" {
		return "https://" + h + "/" + slug, nil
	}
	base, err := s.baseURL(r)
	if err != nil {
		return "", err
	}
	return base + "/survey/" + tenant + "/" + slug, nil
}

// share shows the public link, a copy button and a QR code of the link.
func (s *Server) share(w http.ResponseWriter, r *http.Request) error {
	page, err := s.sharePageOf(r)
	if err != nil {
		return err
	}
	page.Published = r.URL.Query().Has("published") && page.Survey.State == survey.Published
	s.render(w, r, http.StatusOK, "share", page)
	return nil
}

// sharePageOf is the share page of the request's survey.
func (s *Server) sharePageOf(r *http.Request) (sharePage, error) {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return sharePage{}, err
	}
	link, err := s.publicLink(r, tenant, slug)
	if err != nil {
		return sharePage{}, err
	}
	base, err := s.baseURL(r)
	if err != nil {
		return sharePage{}, err
	}
	page := sharePage{Tenant: tenant, Survey: sv, Link: link, Embed: embedSnippet(s.surveyBase(r.Context(), tenant, base), sv), Role: roleOf(r),
		PreviewUntil: s.signer.now().Add(previewLinkDays * 24 * time.Hour).UTC()}
	page.Preview = base + "/preview/" + s.previews.link(tenant, slug, page.PreviewUntil)
	return page, nil
}

// allowEmbedSite adds a site to those that may show the survey in a frame,
// from the share page (the designer's "Sites that may embed it" holds the
// same list): one site, as https://www.adatum.example; anything else comes
// back beside the field (422), nothing saved. A survey saved by someone
// else since is not overwritten: the site is added to what they saved.
func (s *Server) allowEmbedSite(w http.ResponseWriter, r *http.Request) error {
	page, err := s.sharePageOf(r)
	if err != nil {
		return err
	}
	page.EmbedSite = strings.TrimSpace(r.PostFormValue("site"))
	sites, err := survey.ParseEmbedOrigins(page.EmbedSite)
	switch {
	case err != nil:
		page.EmbedError = err.Error()
	case len(sites) != 1:
		page.EmbedError = "Give one site, such as https://www.adatum.example."
	case len(page.Survey.EmbedOrigins) >= survey.MaxEmbedOrigins:
		page.EmbedError = "This survey already allows " + survey.Count(int64(len(page.Survey.EmbedOrigins)), "site") + ", the most it may; remove one in the designer first."
	}
	if page.EmbedError != "" {
		s.render(w, r, http.StatusUnprocessableEntity, "share", page)
		return nil
	}
	sv := page.Survey
	if !slices.Contains(sv.EmbedOrigins, sites[0]) {
		sv.EmbedOrigins = append(sv.EmbedOrigins, sites[0])
		if sess := sessionFrom(r.Context()); sess != nil {
			sv.EditedBy = sess.Email
		}
		if err := s.editor.Update(r.Context(), sv); err != nil {
			return err
		}
	}
	http.Redirect(w, r, "/"+page.Tenant+"/surveys/"+sv.Slug+"/share#embed-title", http.StatusSeeOther)
	return nil
}

// qrCode is a PNG QR code of the survey's public link. A link too long for
// a QR code is a 422 that says so, not a server error.
func (s *Server) qrCode(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	if _, err := s.surveys.Get(r.Context(), tenant, slug); err != nil {
		return err
	}
	link, err := s.publicLink(r, tenant, slug)
	if err != nil {
		return err
	}
	code, err := qr.Encode(link, qr.M)
	if err != nil {
		return survey.Errorf(survey.EINVALID, "The link is too long (%d characters) to fit in a QR code; share the link itself.", len(link))
	}
	if r.URL.Query().Has("download") {
		w.Header().Set("Content-Disposition", `attachment; filename="`+slug+`-qr.`+chi.URLParam(r, "format")+`"`)
	}
	switch chi.URLParam(r, "format") {
	case "png":
		code.Scale = 8
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(code.PNG())
	case "svg":
		w.Header().Set("Content-Type", "image/svg+xml")
		_, _ = io.WriteString(w, qrSVG(code, link))
	default:
		return notFound("Page not found.")
	}
	return nil
}

// qrSVG draws code as an SVG image: one path of its dark modules, with
// the quiet zone of four modules the standard asks, titled by the link
// it holds (escaped) for screen readers. It scales without blurring, for
// print.
func qrSVG(code *qr.Code, link string) string {
	const quiet = 4
	n := code.Size + 2*quiet
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" shape-rendering="crispEdges" role="img">`, n, n, n*8, n*8)
	b.WriteString(`<title>QR code of ` + html.EscapeString(link) + `</title>`)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, n, n)
	for y := 0; y < code.Size; y++ {
		for x := 0; x < code.Size; x++ {
			if code.Black(x, y) {
				fmt.Fprintf(&b, "M%d %dh1v1h-1z", x+quiet, y+quiet)
			}
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String()
}
