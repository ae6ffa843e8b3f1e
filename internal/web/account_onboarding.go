package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
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
	if err := s.askToVerify(r.Context(), t, page.Email); err != nil {
		return err
	}
	token, err := s.users.NewSession(s.sessionContext(r, u.Tenant), u)
	if err != nil {
		return err
	}
	s.setSession(w, r, token)
	http.Redirect(w, r, "/"+t.Key+"/welcome", http.StatusSeeOther)
	return nil
}

// Verifier keeps whether a member's e-mail address is proven
// (store.UserStore): a new sign-up's is not until it opens the link
// mailed to it, and until then its organisation mails nobody else.
type Verifier interface {
	SetUnverified(ctx context.Context, tenant, email string, unverified bool) error
	Unverified(ctx context.Context, tenant, email string) (bool, error)
}

// verifyMail is what the verification e-mail says.
type verifyMail struct {
	Tenant, Link string
	Days         int
}

// askToVerify marks a new sign-up's address unproven and mails it the
// link that proves it, when e-mail is on (without e-mail nothing is sent
// to anyone, so there is nothing to hold back).
func (s *Server) askToVerify(ctx context.Context, t *survey.Tenant, email string) error {
	if s.mail == nil || s.verifier == nil || s.links == nil {
		return nil
	}
	base, err := s.mailBase()
	if err != nil {
		return err
	}
	if err := s.verifier.SetUnverified(ctx, t.Key, email, true); err != nil {
		return err
	}
	token, err := s.links.Create(ctx, store.Link{Purpose: store.LinkVerify, Tenant: t.Key, Email: email}, store.VerifyLinkTTL)
	if err != nil {
		return err
	}
	return s.sendMail(ctx, "verify", email, verifyMail{Tenant: t.Name, Link: base + "/verify/" + token, Days: int(store.VerifyLinkTTL.Hours() / 24)})
}

// resendVerify mails the signed-in member a new link that confirms their
// address, when it is not confirmed yet. The mail counts against the
// tenant's quotas like any other, and the address's own daily limit keeps
// the button from mailing it more than a few times a day.
func (s *Server) resendVerify(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r.Context())
	page, err := s.accountPage(r)
	if err != nil {
		return err
	}
	if !page.Unverified {
		http.Redirect(w, r, "/"+sess.Tenant+"/account/password", http.StatusSeeOther)
		return nil
	}
	t, err := s.tenants.Get(r.Context(), sess.Tenant)
	if err != nil {
		return err
	}
	if s.mailQuota != nil {
		err := s.mailQuota.Take(r.Context(), t.Key, t.Plan, []string{sess.Email})
		var qe *store.QuotaError
		if errors.As(err, &qe) {
			s.mailRefused.WithLabelValues(qe.Reason).Inc()
			page.Errors = map[string]string{"verify": "This address has had its e-mails for today (we send one address at most a few a day). Open the last link we sent, or try again tomorrow."}
			s.render(w, r, http.StatusTooManyRequests, "password", page)
			return nil
		}
		if err != nil {
			return err
		}
	}
	if err := s.askToVerify(r.Context(), t, sess.Email); err != nil {
		return err
	}
	http.Redirect(w, r, "/"+sess.Tenant+"/account/password?verify=sent", http.StatusSeeOther)
	return nil
}

// verifyAddress redeems a verification link: the account's address is
// proven, and its organisation may mail others.
func (s *Server) verifyAddress(w http.ResponseWriter, r *http.Request) error {
	if s.verifier == nil || s.links == nil {
		return notFound("Page not found.")
	}
	l, err := s.links.Use(r.Context(), store.LinkVerify, chi.URLParam(r, "token"))
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		s.render(w, r, http.StatusGone, "error", errorPage{Title: "This link does not work",
			Message: "This link to confirm an e-mail address has been used or has expired (it works once, within 7 days)."})
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.verifier.SetUnverified(r.Context(), l.Tenant, l.Email, false); err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "error", errorPage{Title: "Your e-mail address is confirmed",
		Message: l.Email + " is confirmed: your organisation may now invite its team and send personal links. Sign in to go on."})
	return nil
}
