package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/survey"
)

// A preview runs the real survey (the respondent's pages, one section per
// page, with its logic, jumps, shuffles, checks and languages) and stores
// nothing: no answer, no view, no saved progress. It lives at a preview
// link, /preview/{link}, which a subscriber may hand to a colleague who
// has no account: the link names the tenant and the survey, is signed
// with a key derived from the form key, and expires after
// previewLinkDays; it shows the survey as last saved, drafts included.
// The designer's Preview button shows the unsaved edits the same way: the
// definition rides in the preview's form, sealed (so no one can make the
// server show a page it did not define), from page to page.

// previewLinkDays is how long a preview link opens.
const previewLinkDays = 7

// maxPreviewDef bounds a sealed definition in a preview's form.
const maxPreviewDef = 4 << 20

var (
	errPreviewLink    = errors.New("web: not a preview link")
	errPreviewExpired = errors.New("web: the preview link has expired")
)

// previewLinks signs preview links and seals the definitions of unsaved
// previews.
type previewLinks struct {
	key []byte
	box *secret.Box
}

func newPreviewLinks(formKey []byte) *previewLinks {
	m := hmac.New(sha256.New, formKey)
	m.Write([]byte("surveys/preview"))
	key := m.Sum(nil)
	box, err := secret.New(key)
	if err != nil {
		panic(err) // a SHA-256 is always secret.KeySize bytes
	}
	return &previewLinks{key: key, box: box}
}

// previewTarget is what a preview link names.
type previewTarget struct {
	Tenant string `json:"t"`
	Slug   string `json:"s,omitempty"` // "" for a survey not saved yet
	Until  int64  `json:"e"`           // Unix seconds
}

func (p *previewLinks) mac(body string) string {
	m := hmac.New(sha256.New, p.key)
	m.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// link is the preview link of tenant's survey slug, open until until.
func (p *previewLinks) link(tenant, slug string, until time.Time) string {
	raw, _ := json.Marshal(previewTarget{Tenant: tenant, Slug: slug, Until: until.Unix()})
	body := base64.RawURLEncoding.EncodeToString(raw)
	return body + "." + p.mac(body)
}

// open is the survey link names, if this server signed it and it has not
// expired at now.
func (p *previewLinks) open(link string, now time.Time) (previewTarget, error) {
	body, sig, ok := strings.Cut(link, ".")
	if !ok || len(link) > 300 || !hmac.Equal([]byte(sig), []byte(p.mac(body))) {
		return previewTarget{}, errPreviewLink
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return previewTarget{}, errPreviewLink
	}
	var t previewTarget
	if json.Unmarshal(raw, &t) != nil || survey.ValidateTenantKey(t.Tenant) != nil || (t.Slug != "" && !survey.ValidSlug(t.Slug)) {
		return previewTarget{}, errPreviewLink
	}
	if now.Unix() > t.Until {
		return previewTarget{}, errPreviewExpired
	}
	return t, nil
}

func previewDefAD(link string) string { return "preview-definition\x00" + link }

// sealDef seals the definition of an unsaved preview for the form of
// the preview at link.
func (p *previewLinks) sealDef(link string, sv *survey.Survey) (string, error) {
	raw, err := json.Marshal(sv)
	if err != nil {
		return "", err
	}
	return p.box.Seal(string(raw), previewDefAD(link))
}

// openDef is the definition sealed for the preview at link.
func (p *previewLinks) openDef(link, sealed string) (*survey.Survey, error) {
	if len(sealed) > maxPreviewDef {
		return nil, errPreviewLink
	}
	raw, err := p.box.Open(sealed, previewDefAD(link))
	if err != nil {
		return nil, errPreviewLink
	}
	var sv survey.Survey
	if err := json.Unmarshal([]byte(raw), &sv); err != nil {
		return nil, errPreviewLink
	}
	return &sv, nil
}

// previewLinkOf is a new preview link of tenant's survey slug.
func (s *Server) previewLinkOf(tenant, slug string) string {
	return s.previews.link(tenant, slug, s.signer.now().Add(previewLinkDays*24*time.Hour))
}

// preview, the signed-in address of a survey's preview, goes to a new
// preview link of it.
func (s *Server) preview(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	if _, err := s.surveys.Get(r.Context(), tenant, slug); err != nil {
		return err
	}
	http.Redirect(w, r, "/preview/"+s.previewLinkOf(tenant, slug), http.StatusSeeOther)
	return nil
}

// previewSurvey is the survey and tenant of the preview at link: the
// definition its form carries, sealed, or else the survey as saved.
// An expired link gets its page (410) here, and a nil survey back.
func (s *Server) previewSurvey(w http.ResponseWriter, r *http.Request, link string) (*survey.Tenant, *survey.Survey, string, error) {
	target, err := s.previews.open(link, s.signer.now())
	switch {
	case errors.Is(err, errPreviewExpired):
		w.Header().Set("Cache-Control", "no-store")
		s.render(w, r, http.StatusGone, "error", errorPage{Title: "This preview link has expired",
			Message: "A preview link opens for " + strconv.Itoa(previewLinkDays) + " days. Ask whoever sent it for a new one: it is on the survey's Share page."})
		return nil, nil, "", nil
	case err != nil:
		return nil, nil, "", notFound("This preview link is not valid.")
	}
	t, err := s.tenants.Get(r.Context(), target.Tenant)
	if err != nil {
		return nil, nil, "", err
	}
	if t.Suspended {
		return nil, nil, "", notFound("Survey not found.")
	}
	if sealed := r.PostForm.Get("def"); sealed != "" {
		sv, err := s.previews.openDef(link, sealed)
		if err != nil {
			return nil, nil, "", &survey.Error{Code: survey.EINVALID, Message: "This preview could not be read. Open it again from the designer."}
		}
		sv.Tenant, sv.Slug = t.Key, target.Slug
		return t, sv, sealed, nil
	}
	if target.Slug == "" {
		return nil, nil, "", notFound("This preview link is not valid.")
	}
	sv, err := s.surveys.Get(r.Context(), t.Key, target.Slug)
	if err != nil {
		return nil, nil, "", err
	}
	if sv.Trashed() {
		return nil, nil, "", notFound("Survey not found.")
	}
	return t, sv.Visible(), "", nil
}

// previewHeaders mark a preview's pages: never kept, never indexed.
func previewHeaders(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Robots-Tag", "noindex, nofollow")
}

// showPreview shows the first page of the survey of a preview link.
func (s *Server) showPreview(w http.ResponseWriter, r *http.Request) error {
	link := chi.URLParam(r, "link")
	t, sv, _, err := s.previewSurvey(w, r, link)
	if err != nil || sv == nil {
		return err
	}
	previewHeaders(w)
	if q := r.URL.Query(); q.Has("s") {
		// A page of the preview again, from the browser's history
		// (pageURL, as for respondents).
		token := q.Get("t")
		st, err := s.openPageURL(t, sv, token, q.Get("s"))
		if err != nil || !strings.HasPrefix(token, "preview-") {
			return &survey.Error{Code: survey.EINVALID, Message: stateRefused}
		}
		p := surveyPage{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Values: st.Values, Token: token, Preview: link}
		return s.renderPage(w, r, http.StatusOK, p, sv.Pages(), st)
	}
	return s.renderPreview(w, r, t, sv, link, "")
}

// renderPreview shows the first page of a preview, of the survey saved
// or (def, sealed) of the unsaved edits.
func (s *Server) renderPreview(w http.ResponseWriter, r *http.Request, t *survey.Tenant, sv *survey.Survey, link, def string) error {
	p := surveyPage{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Token: previewToken(), Preview: link, PreviewDef: def}
	return s.renderPage(w, r, http.StatusOK, p, sv.Pages(), pageState{})
}

// previewToken is a preview's stand-in for a form token: its pages'
// state is sealed to it, and its shuffles follow it.
func previewToken() string { return "preview-" + rand.Text() }

// readPreview reads the form of a preview's page (its definition, when
// it carries one, within bounds) and the survey it previews.
func (s *Server) readPreview(w http.ResponseWriter, r *http.Request) (link string, t *survey.Tenant, sv *survey.Survey, def string, err error) {
	link = chi.URLParam(r, "link")
	if err := readFormDroppingFiles(w, r, maxPreviewDef+maxAnswerBody+maxSealedState); err != nil {
		return "", nil, nil, "", err
	}
	t, sv, def, err = s.previewSurvey(w, r, link)
	return link, t, sv, def, err
}

// previewPath is pathProbe for a preview's page (path.js).
func (s *Server) previewPath(w http.ResponseWriter, r *http.Request) error {
	link, t, sv, _, err := s.readPreview(w, r)
	if err != nil || sv == nil {
		return err
	}
	return s.writePath(w, r, surveyPage{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, Token: r.PostForm.Get("token"), Preview: link})
}

// stepPreview takes a page of a preview: Back, Next and the language menu
// as for a respondent, the page's checks, and at the end the preview's
// last page, which says that nothing was stored.
func (s *Server) stepPreview(w http.ResponseWriter, r *http.Request) error {
	link, t, sv, def, err := s.readPreview(w, r)
	if err != nil || sv == nil {
		return err
	}
	previewHeaders(w)
	token := r.PostForm.Get("token")
	if token == "" {
		// Start again (the last page's button): the first page.
		return s.renderPreview(w, r, t, sv, link, def)
	}
	if !strings.HasPrefix(token, "preview-") || len(token) > 64 {
		token = previewToken()
	}
	page := surveyPage{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Token: token, Preview: link, PreviewDef: def}
	tn, err := s.readTurn(r, page)
	if err != nil {
		return err
	}
	a, err := s.turn(w, r, &tn)
	if err != nil || a == nil {
		return err
	}
	s.render(w, r, http.StatusOK, "thankyou", surveyPage{respondent: page.respondent, Tenant: t, Survey: sv, LogoURL: page.LogoURL, Preview: link, PreviewDef: def})
	return nil
}
