package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/fonts"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/theme"
)

// Themes: a tenant's look of its respondents' pages (Tenant.Theme, on
// /{tenant}/settings/theme) and a survey's own over it (Survey.Theme, on
// /{tenant}/surveys/{slug}/theme). The respondents' pages link the
// stylesheet of their theme, /theme/<spec>.css, which spells the theme
// (theme.Spec): it costs no storage read, may be cached for ever, and is
// served only for a theme whose every pair of colours passes.

// SurveyThemes sets a survey's own theme (store.SurveyStore).
type SurveyThemes interface {
	SetTheme(ctx context.Context, tenant, slug string, t *theme.Theme) error
}

// ThemeURL is the stylesheet of the page's theme: the survey's own, else
// its tenant's; "" for the usual look.
func (p surveyPage) ThemeURL() string  { return themeURL(p.Tenant, p.Survey) }
func (p onceRefusal) ThemeURL() string { return themeURL(p.Tenant, p.Survey) }
func (p resultsPage) ThemeURL() string { return themeURL(p.Tenant, p.Survey) }

func themeURL(t *survey.Tenant, s *survey.Survey) string {
	th := survey.ThemeOf(t, s)
	if th == nil || len(th.Problems()) > 0 {
		return ""
	}
	return th.URL(theme.Page)
}

// ThemeURL is the stylesheet the page links after the site's: a
// respondent page's theme, or a theme page's preview ("" for none).
func (l layout) ThemeURL() string {
	if p, ok := l.Page.(interface{ ThemeURL() string }); ok {
		return p.ThemeURL()
	}
	return ""
}

// themeCSS serves the stylesheet of the theme its URL spells, when every
// pair of its colours passes; a URL with the hash of this code's
// stylesheet is cached for ever.
func (s *Server) themeCSS(w http.ResponseWriter, r *http.Request) error {
	th, ok := themeOfURL(r)
	if !ok || len(th.Problems()) > 0 {
		return notFound("No such theme.")
	}
	serveCSS(w, r, th.CSS(theme.Page))
	return nil
}

// themePreviewCSS serves the stylesheet of a theme's preview panel
// (.theme-preview on the theme pages): a theme whose colours fail is
// shown too, there, beside what fails.
func (s *Server) themePreviewCSS(w http.ResponseWriter, r *http.Request) error {
	th, ok := themeOfURL(r)
	if !ok {
		return notFound("No such theme.")
	}
	if p := th.Problems(); len(p) > 1 || (len(p) == 1 && p["contrast"] == "") {
		return notFound("No such theme.")
	}
	serveCSS(w, r, th.CSS(theme.Preview))
	return nil
}

func themeOfURL(r *http.Request) (theme.Theme, bool) {
	spec, ok := strings.CutSuffix(chi.URLParam(r, "spec"), ".css")
	if !ok {
		return theme.Theme{}, false
	}
	return theme.ParseSpec(spec)
}

func serveCSS(w http.ResponseWriter, r *http.Request, css string) {
	h := w.Header()
	h.Set("Content-Type", "text/css; charset=utf-8")
	if r.URL.Query().Get("v") == theme.Hash(css) {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		// An old page's URL (a release ago): this code's stylesheet, not
		// kept.
		h.Set("Cache-Control", "no-cache")
	}
	_, _ = io.WriteString(w, css)
}

// themeFont serves the font files of the "dejavu" font.
func (s *Server) themeFont(w http.ResponseWriter, r *http.Request) error {
	var data []byte
	switch chi.URLParam(r, "name") {
	case "DejaVuSans.ttf":
		data = fonts.Regular
	case "DejaVuSans-Bold.ttf":
		data = fonts.Bold
	default:
		return notFound("No such font.")
	}
	w.Header().Set("Content-Type", "font/ttf")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	_, _ = w.Write(data)
	return nil
}

// themePage is the theme page of a tenant (Survey nil) or of a survey.
type themePage struct {
	Tenant *survey.Tenant
	Survey *survey.Survey
	// Own: the tenant has a theme (else the usual look), or the survey
	// its own (else its tenant's).
	Own bool
	// Theme is the form's values; Pairs their colours' contrasts (none
	// when a colour does not read).
	Theme  theme.Theme
	Pairs  []theme.Pair
	Errors map[string]string
	// Message says what went wrong with the form; Previewed that the
	// page shows values not saved.
	Message   string
	Saved     bool
	Previewed bool
	LogoURL   string
	Fonts     []theme.Option
	Corners   []theme.Option
	Logos     []theme.Option
}

// Action is where the form posts.
func (p themePage) Action() string {
	if p.Survey != nil {
		return "/" + p.Tenant.Key + "/surveys/" + p.Survey.Slug + "/theme"
	}
	return "/" + p.Tenant.Key + "/settings/theme"
}

// ImageURL is the background image's URL ("" for none).
func (p themePage) ImageURL() string {
	if p.Theme.Image == "" {
		return ""
	}
	return "/logos/" + p.Theme.Image
}

// ThemeURL is the preview's stylesheet: the form's theme, when its values
// read (its colours may fail: the preview shows them, beside the pairs
// that fail).
func (p themePage) ThemeURL() string {
	pr := p.Theme.Problems()
	if len(pr) > 1 || (len(pr) == 1 && pr["contrast"] == "") {
		return ""
	}
	return p.Theme.URL(theme.Preview)
}

func (s *Server) themePageOf(t *survey.Tenant, sv *survey.Survey) themePage {
	p := themePage{Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Fonts: theme.Fonts, Corners: theme.Corners, Logos: theme.LogoPlaces}
	switch th := survey.ThemeOf(t, sv); {
	case sv != nil && sv.Theme != nil, sv == nil && t.Theme != nil:
		p.Own, p.Theme = true, *th
	case th != nil:
		p.Theme = *th
	default:
		p.Theme = theme.Default()
	}
	p.Pairs = pairsOf(p.Theme)
	return p
}

// pairsOf are the contrasts of th's pairs of colours; none when one of
// its colours does not read.
func pairsOf(th theme.Theme) []theme.Pair {
	for _, c := range []string{th.Primary, th.Background, th.Text} {
		if _, ok := theme.ParseColour(c); !ok {
			return nil
		}
	}
	return th.Pairs()
}

func (s *Server) showTenantTheme(w http.ResponseWriter, r *http.Request) error {
	t, err := s.tenantSettings.Get(r.Context(), chi.URLParam(r, "tenant"))
	if err != nil {
		return err
	}
	p := s.themePageOf(t, nil)
	p.Saved = r.URL.Query().Get("saved") == "1"
	s.render(w, r, http.StatusOK, "theme", p)
	return nil
}

func (s *Server) showSurveyTheme(w http.ResponseWriter, r *http.Request) error {
	t, sv, err := s.themeSurvey(r)
	if err != nil {
		return err
	}
	p := s.themePageOf(t, sv)
	p.Saved = r.URL.Query().Get("saved") == "1"
	s.render(w, r, http.StatusOK, "theme", p)
	return nil
}

func (s *Server) themeSurvey(r *http.Request) (*survey.Tenant, *survey.Survey, error) {
	t, err := s.tenantSettings.Get(r.Context(), chi.URLParam(r, "tenant"))
	if err != nil {
		return nil, nil, err
	}
	sv, err := s.surveys.Get(r.Context(), t.Key, chi.URLParam(r, "slug"))
	if err != nil {
		return nil, nil, err
	}
	if sv.Trashed() {
		return nil, nil, notFound("This survey is in the trash: restore it first.")
	}
	return t, sv, nil
}

// maxThemeBody bounds the theme form: a background image and a few
// fields.
const maxThemeBody = survey.MaxLogoBytes + 64<<10

// themeForm reads the theme form into p: whether it asks for a theme of
// its own, its values, and the background image uploaded (nil: none).
// A form that cannot be read is a problem of p.
func themeForm(w http.ResponseWriter, r *http.Request, p *themePage) (image []byte, ok bool) {
	r.Body = http.MaxBytesReader(w, r.Body, maxThemeBody)
	if err := r.ParseMultipartForm(maxThemeBody); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			p.Errors = map[string]string{"image": "The image is too large; keep it under 512 KiB."}
			return nil, false
		}
		if err := r.ParseForm(); err != nil {
			p.Errors = map[string]string{"form": "The form could not be read; try again."}
			return nil, false
		}
	}
	p.Own = r.FormValue("use") == "own"
	keep := p.Theme.Image
	p.Theme = theme.Theme{Primary: r.FormValue("primary"), Background: r.FormValue("background"), Text: r.FormValue("text"),
		Font: r.FormValue("font"), Corners: r.FormValue("corners"), Logo: r.FormValue("logo"), Image: keep}
	if r.FormValue("removeImage") != "" {
		p.Theme.Image = ""
	}
	p.Theme.Normalize()
	if r.MultipartForm != nil {
		if f, _, err := r.FormFile("image"); err == nil {
			image, err = io.ReadAll(io.LimitReader(f, survey.MaxLogoBytes+1))
			_ = f.Close()
			if err != nil {
				p.Errors = map[string]string{"image": "The image could not be read; try again."}
				return nil, false
			}
		}
	}
	return image, true
}

// checkThemeForm checks the form's theme (when it asks for one) and
// stores its new background image; false: p says what is wrong, and
// nothing was stored.
func (s *Server) checkThemeForm(r *http.Request, p *themePage, image []byte) (bool, error) {
	p.Pairs = pairsOf(p.Theme)
	if !p.Own {
		return true, nil
	}
	if err := survey.CheckTheme(&p.Theme, p.Tenant.Key); err != nil {
		p.Errors = themeErrors(err)
		return false, nil
	}
	if len(image) == 0 {
		return true, nil
	}
	name, err := s.logos.PutBackground(r.Context(), p.Tenant.Key, image)
	var e *survey.Error
	if errors.As(err, &e) && e.Code == survey.EINVALID {
		p.Errors = e.Fields
		return false, nil
	}
	if err != nil {
		return false, err
	}
	p.Theme.Image = name
	return true, nil
}

// themeErrors are a theme's problems by the form's fields.
func themeErrors(err error) map[string]string {
	var e *survey.Error
	out := map[string]string{}
	if errors.As(err, &e) {
		for k, v := range e.Fields {
			out[strings.TrimPrefix(k, "theme.")] = v
		}
	}
	return out
}

// refuseTheme shows the form again with its problems (422): the pairs
// that fail by name, with their ratios.
func (s *Server) refuseTheme(w http.ResponseWriter, r *http.Request, p themePage) error {
	p.Message = "Nothing was saved: the theme has problems."
	if c := p.Errors["contrast"]; c != "" {
		p.Message = "Nothing was saved: some colours do not contrast enough to read. " + c
	}
	s.render(w, r, http.StatusUnprocessableEntity, "theme", p)
	return nil
}

// saveTenantTheme saves the tenant's theme (or the usual look); with
// do=preview, it only shows the form's theme in the preview and its
// pairs' contrasts.
func (s *Server) saveTenantTheme(w http.ResponseWriter, r *http.Request) error {
	t, err := s.tenantSettings.Get(r.Context(), chi.URLParam(r, "tenant"))
	if err != nil {
		return err
	}
	p := s.themePageOf(t, nil)
	image, ok := themeForm(w, r, &p)
	if !ok {
		return s.refuseTheme(w, r, p)
	}
	if r.FormValue("do") == "preview" {
		return s.previewTheme(w, r, p)
	}
	if ok, err := s.checkThemeForm(r, &p, image); err != nil || !ok {
		if err != nil {
			return err
		}
		return s.refuseTheme(w, r, p)
	}
	next := *t
	next.Theme = nil
	if p.Own {
		next.Theme = p.Theme.Clone()
	}
	if err := s.tenantSettings.Update(r.Context(), &next); err != nil {
		return err
	}
	s.audit(r, survey.AuditSettings, "", settingsChanged(t, &next))
	http.Redirect(w, r, p.Action()+"?saved=1", http.StatusSeeOther)
	return nil
}

// saveSurveyTheme saves the survey's own theme (or its tenant's), as
// saveTenantTheme does.
func (s *Server) saveSurveyTheme(w http.ResponseWriter, r *http.Request) error {
	t, sv, err := s.themeSurvey(r)
	if err != nil {
		return err
	}
	p := s.themePageOf(t, sv)
	image, ok := themeForm(w, r, &p)
	if !ok {
		return s.refuseTheme(w, r, p)
	}
	if r.FormValue("do") == "preview" {
		return s.previewTheme(w, r, p)
	}
	if ok, err := s.checkThemeForm(r, &p, image); err != nil || !ok {
		if err != nil {
			return err
		}
		return s.refuseTheme(w, r, p)
	}
	var own *theme.Theme
	if p.Own {
		own = p.Theme.Clone()
	}
	if s.themes == nil {
		return errors.New("web: no store of the surveys' themes")
	}
	err = s.themes.SetTheme(r.Context(), t.Key, sv.Slug, own)
	if f, ok := s.public.(forgetter); ok {
		f.Forget(t.Key, sv.Slug)
	}
	if err != nil {
		var e *survey.Error
		if errors.As(err, &e) && e.Code == survey.EINVALID {
			p.Errors = themeErrors(err)
			return s.refuseTheme(w, r, p)
		}
		return err
	}
	s.audit(r, survey.AuditSurveyEdited, sv.Slug, "theme")
	http.Redirect(w, r, p.Action()+"?saved=1", http.StatusSeeOther)
	return nil
}

// previewTheme shows the form's theme in the preview, saving nothing: its
// pairs' contrasts, and what fails.
func (s *Server) previewTheme(w http.ResponseWriter, r *http.Request, p themePage) error {
	p.Previewed = true
	p.Pairs = pairsOf(p.Theme)
	if err := survey.CheckTheme(&p.Theme, p.Tenant.Key); err != nil {
		p.Errors = themeErrors(err)
		return s.refuseTheme(w, r, p)
	}
	s.render(w, r, http.StatusOK, "theme", p)
	return nil
}

// themeFieldData is a field of the theme form as its partial shows it.
type themeFieldData struct {
	Key, Label, Hint, Value string
	// Error is the field's problem; Contrast marks a colour of a pair
	// that fails (the problem is under the colours).
	Error    string
	Contrast bool
	Options  []theme.Option
}

// themeField is the pages' themeField function.
func themeField(key, label, hint, value string, errs map[string]string, opts ...[]theme.Option) themeFieldData {
	d := themeFieldData{Key: key, Label: label, Hint: hint, Value: value, Error: errs[key], Contrast: errs["contrast"] != ""}
	if len(opts) > 0 {
		d.Options = opts[0]
	}
	return d
}

// Failing counts the pairs of colours that fail.
func (p themePage) Failing() int {
	n := 0
	for _, pr := range p.Pairs {
		if !pr.OK() {
			n++
		}
	}
	return n
}

// apiTenantTheme is the tenant's theme for the API (nil: the usual
// look).
func (s *Server) apiTenantTheme(ctx context.Context, tenant string) (*theme.Theme, error) {
	t, err := s.tenantSettings.Get(ctx, tenant)
	if err != nil {
		return nil, err
	}
	return t.Theme, nil
}

// apiSetTenantTheme saves the tenant's theme the API checked (nil: the
// usual look), as the theme page does: this instance's public pages show
// it at once (tenantSettings forgets the tenant's cached copy).
func (s *Server) apiSetTenantTheme(ctx context.Context, tenant string, th *theme.Theme) error {
	t, err := s.tenantSettings.Get(ctx, tenant)
	if err != nil {
		return err
	}
	next := *t
	next.Theme = th.Clone()
	return s.tenantSettings.Update(ctx, &next)
}
