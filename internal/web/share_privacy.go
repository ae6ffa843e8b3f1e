package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// SurveyPrivacy sets a survey's retention rule and receipts
// (store.SurveyStore.SetPrivacy).
type SurveyPrivacy interface {
	SetPrivacy(ctx context.Context, tenant, slug string, days int, receipts bool) error
}

// privacyPage is a survey's privacy settings: how long its answers are
// kept, and whether respondents get receipts.
type privacyPage struct {
	Tenant string
	Survey *survey.Survey
	Role   survey.Role
	// TenantDays is the tenant's default (0: kept).
	TenantDays int
	// Retain is "tenant", "keep" or "days"; Days the number typed.
	Retain, Days string
	Receipts     bool
	// NoReceipts: this server cannot make receipts (no secret key).
	NoReceipts bool
	Errors     map[string]string
	Saved      bool
}

// privacyFor reads the page of the request's survey.
func (s *Server) privacyFor(r *http.Request) (*privacyPage, error) {
	if s.privacy == nil || s.tenantSettings == nil {
		return nil, notFound("Page not found.")
	}
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return nil, err
	}
	t, err := s.tenantSettings.Get(r.Context(), tenant)
	if err != nil {
		return nil, err
	}
	p := &privacyPage{Tenant: tenant, Survey: sv, Role: roleOf(r), TenantDays: t.RetainDays, Receipts: sv.Receipts, NoReceipts: len(s.receiptKey) == 0, Retain: "tenant"}
	switch {
	case sv.RetainDays == survey.KeepAnswers:
		p.Retain = "keep"
	case sv.RetainDays > 0:
		p.Retain, p.Days = "days", strconv.Itoa(sv.RetainDays)
	}
	return p, nil
}

// showPrivacy shows a survey's privacy settings.
func (s *Server) showPrivacy(w http.ResponseWriter, r *http.Request) error {
	p, err := s.privacyFor(r)
	if err != nil {
		return err
	}
	p.Saved = r.URL.Query().Get("saved") == "1"
	s.render(w, r, http.StatusOK, "privacy", p)
	return nil
}

// savePrivacy saves them: 422 with the problem beside its field, and
// nothing changed, for a bad number of days or receipts this server
// cannot make; 303 back.
func (s *Server) savePrivacy(w http.ResponseWriter, r *http.Request) error {
	p, err := s.privacyFor(r)
	if err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	f := r.PostForm
	p.Retain, p.Days, p.Receipts = f.Get("retain"), strings.TrimSpace(f.Get("days")), f.Get("receipts") != ""
	days := 0
	switch p.Retain {
	case "tenant":
	case "keep":
		days = survey.KeepAnswers
	case "days":
		n, err := strconv.Atoi(p.Days)
		if err != nil || n < 1 || n > survey.MaxRetainDays {
			p.Errors = map[string]string{"days": fmt.Sprintf("Give a number of days from 1 to %d.", survey.MaxRetainDays)}
		}
		days = n
	default:
		p.Errors = map[string]string{"retain": "Choose how long the answers are kept."}
	}
	if p.Receipts && !p.Survey.Receipts && p.NoReceipts {
		p.Errors = map[string]string{"receipts": "This server cannot make receipts yet: its operator must set SURVEYS_SECRET_KEY first."}
	}
	if p.Errors == nil {
		err = s.privacy.SetPrivacy(r.Context(), p.Tenant, p.Survey.Slug, days, p.Receipts)
		var e *survey.Error
		if errors.As(err, &e) && e.Code == survey.EINVALID {
			p.Errors = e.Fields
		} else if err != nil {
			return err
		}
	}
	if p.Errors != nil {
		s.render(w, r, http.StatusUnprocessableEntity, "privacy", p)
		return nil
	}
	if f, ok := s.public.(forgetter); ok {
		f.Forget(p.Tenant, p.Survey.Slug) // the thank-you page shows receipts at once
	}
	s.audit(r, survey.AuditSettings, p.Survey.Slug, privacyDetail(days, p.Receipts))
	http.Redirect(w, r, "/"+p.Tenant+"/surveys/"+p.Survey.Slug+"/privacy?saved=1", http.StatusSeeOther)
	return nil
}

// privacyDetail is the audit event's words for a survey's privacy
// settings.
func privacyDetail(days int, receipts bool) string {
	d := "retention: the organisation's default"
	switch {
	case days == survey.KeepAnswers:
		d = "retention: keep the answers"
	case days > 0:
		d = fmt.Sprintf("retention: %d days", days)
	}
	if receipts {
		return d + "; receipts on"
	}
	return d + "; receipts off"
}
