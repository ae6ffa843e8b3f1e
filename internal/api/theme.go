package api

import (
	"errors"
	"net/http"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/theme"
)

// jsonTheme is the body of GET and PUT /theme: the organisation's theme
// of its respondents' pages, null for the usual look.
type jsonTheme struct {
	Theme *theme.Theme `json:"theme"`
}

// getTheme is the token's tenant's theme (null: the usual look).
func (s *server) getTheme(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if s.TenantTheme == nil || s.SetTenantTheme == nil {
		return 0, nil, notFound("No such API endpoint.")
	}
	t, err := s.TenantTheme(r.Context(), tenantOf(r))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, jsonTheme{Theme: t}, nil
}

// putTheme sets the tenant's theme (null: back to the usual look),
// checked as the theme page checks it: a bad value, another
// organisation's background image, or a pair of colours that does not
// contrast enough (named, with its ratio and the one it needs) is a 422
// that changes nothing.
func (s *server) putTheme(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if s.TenantTheme == nil || s.SetTenantTheme == nil {
		return 0, nil, notFound("No such API endpoint.")
	}
	var in jsonTheme
	if err := readBody(w, r, 16<<10, &in, `a theme, {"theme": {"primary": "#rrggbb", …}} or {"theme": null}`); err != nil {
		return 0, nil, err
	}
	tenant := tenantOf(r)
	if in.Theme != nil {
		in.Theme.Normalize()
		if err := survey.CheckTheme(in.Theme, tenant); err != nil {
			var e *survey.Error
			if errors.As(err, &e) {
				if c := e.Fields["theme.contrast"]; c != "" {
					e.Message = "Nothing was saved: some colours do not contrast enough to read. " + c
				} else {
					e.Message = "Nothing was saved: the theme has problems; see each field."
				}
			}
			return 0, nil, err
		}
	}
	if err := s.SetTenantTheme(r.Context(), tenant, in.Theme); err != nil {
		return 0, nil, err
	}
	s.audit(r, survey.AuditSettings, "", "theme")
	return http.StatusOK, in, nil
}
