package survey

import (
	"maps"
	"slices"

	"github.com/surveys-dev/surveys/internal/theme"
)

// addThemeProblems adds the problems of a tenant's theme, or of one of
// its surveys' (nil: none, the tenant's or the usual look), as fields
// "theme.<field>": its values, the contrast of each pair of its colours,
// and its background image being the tenant's own.
func addThemeProblems(f fieldErrors, t *theme.Theme, tenant string) {
	if t == nil {
		return
	}
	p := t.Problems()
	for _, k := range slices.Sorted(maps.Keys(p)) {
		f.add("theme."+k, "%s", p[k])
	}
	if _, bad := p["image"]; !bad && t.Image != "" && !ImageOfTenant(t.Image, tenant) {
		f.add("theme.image", "The background image is another organisation's; upload your own.")
	}
}

// ThemeOf is the theme of a survey's pages: the survey's own, else its
// tenant's, else nil (the usual look).
func ThemeOf(t *Tenant, s *Survey) *theme.Theme {
	switch {
	case s != nil && s.Theme != nil:
		return s.Theme
	case t != nil:
		return t.Theme
	}
	return nil
}

// CheckTheme checks a theme of tenant's: nil when it may be used, else an
// EINVALID *Error whose Fields are "theme.<field>" (theme.contrast names
// each pair of colours that fails, with its ratio).
func CheckTheme(t *theme.Theme, tenant string) error {
	f := fieldErrors{}
	addThemeProblems(f, t, tenant)
	return f.err("The theme")
}
