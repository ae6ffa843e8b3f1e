package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Notifications keeps the members' e-mail choices (store.NotificationStore).
type Notifications interface {
	Subscription(ctx context.Context, tenant, slug, email string) (*store.Subscription, error)
	Subscribe(ctx context.Context, tenant, slug, email string, c survey.NotifyChoices, total int64, now time.Time) error
	Unsubscribe(ctx context.Context, u survey.Unsubscribe, now time.Time) error
	Alerts(ctx context.Context, tenant, email string) (bool, error)
	SetAlerts(ctx context.Context, tenant, email string, on bool) error
}

// NotifyCap is the hourly cap of per-answer e-mails the page tells
// (worker.DefaultNotifyConfig.Cap).
const NotifyCap = 20

type notificationsPage struct {
	Tenant  string
	Survey  *survey.Survey
	Role    survey.Role
	Email   string
	Choices survey.NotifyChoices
	Errors  map[string]string
	Saved   bool
	MailOff bool
	Cap     int
}

// notificationsFor reads the page of the signed-in member's choices.
func (s *Server) notificationsFor(r *http.Request) (*notificationsPage, error) {
	if s.notifications == nil {
		return nil, notFound("Page not found.")
	}
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return nil, err
	}
	sess := sessionFrom(r.Context())
	return &notificationsPage{Tenant: tenant, Survey: sv, Role: sess.Role, Email: sess.Email, MailOff: s.mail == nil, Cap: NotifyCap}, nil
}

// showNotifications is the member's e-mail choices for a survey.
func (s *Server) showNotifications(w http.ResponseWriter, r *http.Request) error {
	page, err := s.notificationsFor(r)
	if err != nil {
		return err
	}
	sub, err := s.notifications.Subscription(r.Context(), page.Tenant, page.Survey.Slug, page.Email)
	if err != nil {
		return err
	}
	page.Choices = survey.NotifyChoices{EachAnswer: sub.EachAnswer, Digest: sub.Digest}
	page.Saved = r.URL.Query().Get("saved") == "1"
	s.render(w, r, http.StatusOK, "notifications", page)
	return nil
}

// saveNotifications saves the member's choices: 422 beside the field for
// a value that is not a checkbox's, or when e-mail is off; 303 back.
func (s *Server) saveNotifications(w http.ResponseWriter, r *http.Request) error {
	page, err := s.notificationsFor(r)
	if err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	c, err := survey.ParseNotifyChoices(r.PostForm)
	page.Choices = c
	var e *survey.Error
	switch {
	case errors.As(err, &e) && e.Code == survey.EINVALID:
		page.Errors = e.Fields
	case err != nil:
		return err
	case s.mail == nil && (c.EachAnswer || c.Digest):
		page.Errors = map[string]string{"each": "E-mail is not set up on this server; ask the operator."}
		if !c.EachAnswer {
			page.Errors = map[string]string{"digest": page.Errors["each"]}
		}
	}
	if page.Errors != nil {
		s.render(w, r, http.StatusUnprocessableEntity, "notifications", page)
		return nil
	}
	// The first digest counts the answers from now.
	var total int64
	if sum, _, err := s.summaries.Get(r.Context(), page.Tenant, page.Survey.Slug); err == nil {
		total = sum.TotalAnswers
	} else if survey.ErrorCode(err) != survey.ENOTFOUND {
		return err
	}
	if err := s.notifications.Subscribe(r.Context(), page.Tenant, page.Survey.Slug, page.Email, c, total, time.Now()); err != nil {
		return err
	}
	http.Redirect(w, r, "/"+page.Tenant+"/surveys/"+page.Survey.Slug+"/notifications?saved=1", http.StatusSeeOther)
	return nil
}

// saveAlerts turns the signed-in member's failure alerts on or off (the
// account page shows the choice to admins, who get them).
func (s *Server) saveAlerts(w http.ResponseWriter, r *http.Request) error {
	if s.notifications == nil {
		return notFound("Page not found.")
	}
	sess := sessionFrom(r.Context())
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	on, err := survey.ParseAlertsChoice(r.PostForm)
	var e *survey.Error
	if errors.As(err, &e) && e.Code == survey.EINVALID {
		s.render(w, r, http.StatusUnprocessableEntity, "password", passwordPage{User: sess, Errors: e.Fields, Admin: sess.Role == survey.Admin, Alerts: on})
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.notifications.SetAlerts(r.Context(), sess.Tenant, sess.Email, on); err != nil {
		return err
	}
	http.Redirect(w, r, "/"+sess.Tenant+"/account/password?alerts=saved", http.StatusSeeOther)
	return nil
}

type unsubscribePage struct {
	Token, Tenant, Survey, Email, What string
	Done                               bool
	// Contact: a contact's unsubscribe from a tenant's campaigns.
	Contact bool
}

// unsubscribeFor reads the link's token: 404 when it was altered.
func (s *Server) unsubscribeFor(r *http.Request) (survey.Unsubscribe, *unsubscribePage, error) {
	tok := chi.URLParam(r, "token")
	u, err := survey.ParseUnsubscribe(s.unsubscribeKey, tok)
	if err != nil && len(s.campaignKey) > 0 {
		// A campaign's mail: signed with the campaigns' key.
		u, err = survey.ParseUnsubscribe(s.campaignKey, tok)
		if err == nil && u.What != survey.NotifyCampaign {
			err = survey.ErrBadUnsubscribe
		}
	} else if err == nil && u.What == survey.NotifyCampaign && !slices.Equal(s.unsubscribeKey, s.campaignKey) {
		err = survey.ErrBadUnsubscribe
	}
	if err != nil {
		return u, nil, err
	}
	if (u.What == survey.NotifyCampaign && s.contacts == nil) || (u.What != survey.NotifyCampaign && s.notifications == nil) {
		return survey.Unsubscribe{}, nil, notFound("Page not found.")
	}
	page := &unsubscribePage{Token: tok, Tenant: u.Tenant, Survey: u.Slug, Email: u.Email, What: survey.NotifyLabel(u.What), Contact: u.What == survey.NotifyCampaign}
	if page.Contact {
		if t, err := s.tenants.Get(r.Context(), u.Tenant); err == nil {
			page.Tenant = t.Name
		}
	}
	if u.Slug != "" {
		if sv, err := s.surveys.Get(r.Context(), u.Tenant, u.Slug); err == nil {
			page.Survey = sv.Title
		}
	}
	return u, page, nil
}

// showUnsubscribe asks to confirm (a mail client that opens the link
// ahead of its reader unsubscribes no one).
func (s *Server) showUnsubscribe(w http.ResponseWriter, r *http.Request) error {
	_, page, err := s.unsubscribeFor(r)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "unsubscribe", page)
	return nil
}

// unsubscribe stops what the signed link names, without signing in.
func (s *Server) unsubscribe(w http.ResponseWriter, r *http.Request) error {
	u, page, err := s.unsubscribeFor(r)
	if err != nil {
		return err
	}
	if u.What == survey.NotifyCampaign {
		// A contact: no campaign of the tenant mails the address again.
		if err := s.contacts.Suppress(r.Context(), u.Tenant, u.Email, store.SuppressUnsubscribed); err != nil {
			return err
		}
	} else if err := s.notifications.Unsubscribe(r.Context(), u, time.Now()); err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		return err
	}
	page.Done = true
	s.render(w, r, http.StatusOK, "unsubscribe", page)
	return nil
}
