package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TenantSettings is what the settings pages need of the tenant store.
type TenantSettings interface {
	Get(ctx context.Context, key string) (*survey.Tenant, error)
	Update(ctx context.Context, t *survey.Tenant) error
	// KeepsSecrets is false when the server has no key to seal secrets.
	KeepsSecrets() bool
}

// Logos keeps tenants' public images: their logos, and the pictures of
// their picture choice questions (PutPicture), served at /logos/{name}.
type Logos interface {
	Put(ctx context.Context, tenant string, data []byte) (string, error)
	PutPicture(ctx context.Context, tenant string, data []byte) (string, error)
	PutBackground(ctx context.Context, tenant string, data []byte) (string, error)
	CopyPicture(ctx context.Context, name, tenant string) (string, error)
	Get(ctx context.Context, name string) ([]byte, string, error)
	Delete(ctx context.Context, tenant, name string) error
}

type settingsPage struct {
	Tenant    *survey.Tenant
	Name      string
	Plan      survey.Plan
	LogoURL   string
	TrialEnds time.Time
	Errors    map[string]string
	Message   string
	Saved     bool
	// DisabledWebhooks counts the webhook endpoints disabled after
	// failing, for the banner.
	DisabledWebhooks int
	// Files says how much of the plan's storage the files respondents
	// sent take ("" when unknown).
	Files string
	// RequireTwoFactor: every password sign-in takes two steps.
	RequireTwoFactor bool
	// RetainDays is the default retention rule of the surveys, as typed
	// ("": none).
	RetainDays string
	// SessionIdle is the idle time chosen, in minutes.
	SessionIdle int
}

// IdleChoice is an idle time the settings page offers.
type IdleChoice struct {
	Minutes int
	Label   string
}

// IdleChoices are the idle times the settings page offers.
func (settingsPage) IdleChoices() []IdleChoice {
	var out []IdleChoice
	for _, m := range survey.SessionIdleChoices {
		out = append(out, IdleChoice{m, idleLabel(m)})
	}
	return out
}

// idleLabel names an idle time of m minutes for people.
func idleLabel(m int) string {
	switch {
	case m%(24*60) == 0:
		return survey.Count(int64(m/(24*60)), "day")
	case m%60 == 0:
		return survey.Count(int64(m/60), "hour")
	}
	return survey.Count(int64(m), "minute")
}

func (s *Server) settingsPageFor(t *survey.Tenant) settingsPage {
	p := settingsPage{Tenant: t, Name: t.Name, Plan: t.Plan, LogoURL: s.logoURL(t), TrialEnds: t.TrialEnds(), RequireTwoFactor: t.RequireTwoFactor,
		SessionIdle: int(t.SessionIdle() / time.Minute)}
	if t.RetainDays > 0 {
		p.RetainDays = strconv.Itoa(t.RetainDays)
	}
	return p
}

// showSettings shows the tenant's settings: display name and logo, and
// the plan.
func (s *Server) showSettings(w http.ResponseWriter, r *http.Request) error {
	t, err := s.tenantSettings.Get(r.Context(), chi.URLParam(r, "tenant"))
	if err != nil {
		return err
	}
	page := s.settingsPageFor(t)
	page.Saved = r.URL.Query().Get("saved") == "1"
	page.DisabledWebhooks = s.disabledWebhooks(r.Context(), t.Key)
	if s.uploads != nil {
		if used, err := s.uploads.Usage(r.Context(), t.Key); err == nil {
			page.Files = fileSize(used) + " of " + fileSize(int64(t.Plan.Limits().UploadStorageMB)<<20) + " taken by the files respondents sent."
		}
	}
	s.render(w, r, http.StatusOK, "settings", page)
	return nil
}

// maxSettingsBody bounds the settings form: a logo and a few fields.
const maxSettingsBody = survey.MaxLogoBytes + 64<<10

// saveSettings changes the display name, and uploads or removes the logo.
// The plan is shown, not chosen: an operator changes it (surveys tenant
// plan), so that no one takes a paid plan without paying. An invalid form comes back (422) with each problem beside its
// field, and nothing is changed.
func (s *Server) saveSettings(w http.ResponseWriter, r *http.Request) error {
	t, err := s.tenantSettings.Get(r.Context(), chi.URLParam(r, "tenant"))
	if err != nil {
		return err
	}
	page := s.settingsPageFor(t)
	fail := func(fields map[string]string, msg string) error {
		page.Errors, page.Message = fields, msg
		s.render(w, r, http.StatusUnprocessableEntity, "settings", page)
		return nil
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSettingsBody)
	if err := r.ParseMultipartForm(maxSettingsBody); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fail(map[string]string{"logo": "The logo is too large; keep it under 512 KiB."}, "Nothing was saved.")
		}
		if err := r.ParseForm(); err != nil {
			return fail(nil, "The form could not be read; nothing was saved.")
		}
	}
	page.Name = strings.TrimSpace(survey.CleanLine(r.FormValue("name")))
	page.RequireTwoFactor = r.FormValue("requireTwoFactor") != ""
	next := *t
	next.Name, next.RequireTwoFactor = page.Name, page.RequireTwoFactor
	page.RetainDays = strings.TrimSpace(r.FormValue("retainDays"))
	next.RetainDays = 0
	if page.RetainDays != "" {
		n, err := strconv.Atoi(page.RetainDays)
		if err != nil || n < 1 {
			return fail(map[string]string{"retainDays": fmt.Sprintf("Give a number of days from 1 to %d, or leave it empty to keep the answers.", survey.MaxRetainDays)}, "Nothing was saved.")
		}
		next.RetainDays = n
	}
	if v := r.FormValue("sessionIdle"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || !slices.Contains(survey.SessionIdleChoices, n) {
			return fail(map[string]string{"sessionIdle": "Choose one of the idle times offered."}, "Nothing was saved.")
		}
		page.SessionIdle = n
		next.SessionIdleMinutes = n
		if time.Duration(n)*time.Minute == survey.DefaultSessionIdle {
			next.SessionIdleMinutes = 0
		}
	}
	if next.RequireTwoFactor && !t.RequireTwoFactor && (s.twoFactor == nil || !s.twoFactor.KeepsSecrets()) {
		return fail(map[string]string{"requireTwoFactor": "This server cannot keep two-step sign-in's secrets yet: its operator must set SURVEYS_SECRET_KEY first."}, "Nothing was saved.")
	}
	if err := next.Validate(); err != nil {
		var e *survey.Error
		errors.As(err, &e)
		return fail(e.Fields, "Nothing was saved.")
	}
	var logo []byte
	if r.MultipartForm != nil {
		if f, _, err := r.FormFile("logo"); err == nil {
			logo, err = io.ReadAll(io.LimitReader(f, survey.MaxLogoBytes+1))
			_ = f.Close()
			if err != nil {
				return fail(map[string]string{"logo": "The logo could not be read; try again."}, "Nothing was saved.")
			}
		}
	}
	old := t.Logo
	switch {
	case len(logo) > 0:
		name, err := s.logos.Put(r.Context(), t.Key, logo)
		var e *survey.Error
		if errors.As(err, &e) && e.Code == survey.EINVALID {
			return fail(e.Fields, "Nothing was saved.")
		}
		if err != nil {
			return err
		}
		next.Logo = name
	case r.FormValue("removeLogo") != "":
		next.Logo = ""
	}
	if err := s.tenantSettings.Update(r.Context(), &next); err != nil {
		if next.Logo != old {
			_ = s.logos.Delete(context.WithoutCancel(r.Context()), t.Key, next.Logo)
		}
		return err
	}
	if old != "" && old != next.Logo {
		// The old logo is no longer named by the tenant: remove it. A failure
		// leaves an unreferenced blob, not a broken page.
		if err := s.logos.Delete(r.Context(), t.Key, old); err != nil {
			s.log.Warn("settings: remove the old logo", "tenant", t.Key, "logo", old, "err", err)
		}
	}
	s.audit(r, survey.AuditSettings, "", settingsChanged(t, &next))
	http.Redirect(w, r, "/"+t.Key+"/settings?saved=1", http.StatusSeeOther)
	return nil
}

// logo serves a logo from the public logos container. Logo names change
// with each upload, so they are cached for a long time.
func (s *Server) logo(w http.ResponseWriter, r *http.Request) error {
	data, ct, err := s.logos.Get(r.Context(), chi.URLParam(r, "name"))
	if err != nil {
		return err
	}
	if ct != "image/png" && ct != "image/jpeg" {
		return notFound("Logo not found.")
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'none'")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	_, _ = w.Write(data)
	return nil
}
