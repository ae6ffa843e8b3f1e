package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TenantAdmin creates and removes tenants.
type TenantAdmin interface {
	Create(ctx context.Context, t *survey.Tenant) error
	Delete(ctx context.Context, key string) error
}

// AccountAdder adds accounts.
type AccountAdder interface {
	Add(ctx context.Context, tenant, email, password string) (*survey.User, error)
}

type onboardingPage struct {
	Name, Email string
	// Plan is the plan every new tenant starts on: a paid plan is an
	// operator's change (surveys tenant plan), never the form's.
	Plan survey.Plan
	// Region is where the tenant's data will be kept, among Regions.
	Region  string
	Regions []string
	Errors  map[string]string
	Message string
}

func (s *Server) showOnboarding(w http.ResponseWriter, r *http.Request) error {
	s.render(w, r, http.StatusOK, "onboarding", onboardingPage{Plan: survey.Trial, Regions: s.regions})
	return nil
}

// onboard signs a new subscriber up: a tenant named for the organisation,
// its first account, on the Trial plan whatever the form says (anyone may
// sign up; a paid plan is an operator's change). The tenant is live at
// once, and the new administrator is signed in.
func (s *Server) onboard(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	f := r.PostForm
	page := onboardingPage{Name: strings.TrimSpace(survey.CleanLine(f.Get("name"))), Email: survey.NormalizeEmail(f.Get("email")), Plan: survey.Trial,
		Region: f.Get("region"), Regions: s.regions}
	password := f.Get("password")
	fail := func(err error) error {
		var e *survey.Error
		if !errors.As(err, &e) || (e.Code != survey.EINVALID && e.Code != survey.ECONFLICT) {
			return err
		}
		page.Errors, page.Message = e.Fields, e.Message
		if page.Errors == nil {
			page.Errors = map[string]string{"name": e.Message}
		}
		s.render(w, r, http.StatusUnprocessableEntity, "onboarding", page)
		return nil
	}
	key := survey.TenantKey(page.Name)
	t := &survey.Tenant{Key: key, Name: page.Name, Plan: page.Plan, HostGeoLocation: page.Region}
	errs := map[string]string{}
	if len(s.regions) > 0 && !slices.Contains(s.regions, page.Region) {
		errs["region"] = "Choose where your data is kept."
	}
	if len(s.regions) == 0 {
		t.HostGeoLocation = ""
	}
	if err := t.Validate(); err != nil {
		var e *survey.Error
		errors.As(err, &e)
		for k, v := range e.Fields {
			if k == "key" {
				k = "name"
				if key == "" {
					v = "Use at least two letters or digits."
				}
			}
			errs[k] = v
		}
	}
	if err := survey.ValidateCredentials(page.Email, password); err != nil {
		var e *survey.Error
		errors.As(err, &e)
		for k, v := range e.Fields {
			errs[k] = v
		}
	}
	if len(errs) > 0 {
		return fail(&survey.Error{Code: survey.EINVALID, Message: "Please check the form.", Fields: errs})
	}
	if err := s.tenantAdmin.Create(r.Context(), t); err != nil {
		if survey.ErrorCode(err) == survey.ECONFLICT {
			return fail(&survey.Error{Code: survey.ECONFLICT, Message: "That name is taken.", Fields: map[string]string{"name": "The name " + key + " is taken; choose another."}})
		}
		return err
	}
	u, err := s.accounts.Add(r.Context(), t.Key, page.Email, password)
	if err != nil {
		// Nothing half-made: the tenant goes with its failed account.
		_ = s.tenantAdmin.Delete(r.Context(), t.Key)
		return fail(err)
	}
	token, err := s.users.NewSession(r.Context(), u)
	if err != nil {
		return err
	}
	s.setSession(w, r, token)
	http.Redirect(w, r, "/"+t.Key+"/welcome", http.StatusSeeOther)
	return nil
}
