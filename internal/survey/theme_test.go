package survey

import (
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/theme"
)

func TestThemeOf(t *testing.T) {
	own := &theme.Theme{Primary: "#8a1c7c"}
	tenants := &theme.Theme{Primary: "#0b5d1e"}
	for _, tc := range []struct {
		name   string
		tenant *Tenant
		survey *Survey
		want   *theme.Theme
	}{
		{"neither", &Tenant{}, &Survey{}, nil},
		{"the tenant's", &Tenant{Theme: tenants}, &Survey{}, tenants},
		{"the survey's own wins", &Tenant{Theme: tenants}, &Survey{Theme: own}, own},
		{"the survey's own, no tenant's", &Tenant{}, &Survey{Theme: own}, own},
		{"no survey", &Tenant{Theme: tenants}, nil, tenants},
	} {
		if got := ThemeOf(tc.tenant, tc.survey); got != tc.want {
			t.Errorf("%s: ThemeOf = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestCheckTheme: a tenant's theme may name only the tenant's own images
// (not those of a tenant whose key begins with its own), and its problems
// are the fields theme.<field>; a tenant with a failing theme does not
// validate.
func TestCheckTheme(t *testing.T) {
	ok := theme.Default()
	for _, tc := range []struct {
		name, image, field, says string
	}{
		{"no image", "", "", ""},
		{"its own image", "ada-0123456789ab.png", "", ""},
		{"another tenant's image", "fabrikam-0123456789ab.png", "theme.image", "another organisation's"},
		{"the image of a tenant whose key begins with its own", "adax-0123456789ab.png", "theme.image", "another organisation's"},
		{"not an image name", "ada-../../x.png", "theme.image", "upload it again"},
	} {
		th := ok
		th.Image = tc.image
		err := CheckTheme(&th, "ada")
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.field != "" && (err == nil || !strings.Contains(err.(*Error).Fields[tc.field], tc.says)):
			t.Errorf("%s: %v, want %s saying %q", tc.name, err, tc.field, tc.says)
		}
	}
	if err := CheckTheme(nil, "ada"); err != nil {
		t.Errorf("no theme: %v", err)
	}
	bad := ok
	bad.Text = "#777777"
	tn := &Tenant{Key: "ada", Name: "Ada", Plan: Trial, Theme: &bad}
	if err := tn.Validate(); err == nil || !strings.Contains(err.(*Error).Fields["theme.contrast"], "Text on the background") {
		t.Errorf("a tenant with a failing theme: %v", err)
	}
}
