package web

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// PersonalLinks makes, lists and uses the personal links of surveys that
// take one answer per link (store.PersonalLinkStore).
type PersonalLinks interface {
	Create(ctx context.Context, tenant, slug string, n int, emails []string) ([]store.PersonalLink, error)
	List(ctx context.Context, tenant, slug string) ([]store.PersonalLink, error)
	Get(ctx context.Context, tenant, slug, token string) (*store.PersonalLink, error)
	Use(ctx context.Context, tenant, slug, token, answerID string, mayChange bool) (*store.PersonalLink, error)
	Release(ctx context.Context, tenant, slug, token, answerID string) error
	Settled(ctx context.Context, tenant, slug, id string, done []string) error
	Touch(ctx context.Context, tenant, slug, token string, l *store.PersonalLink, started bool) error
}

// AnswerGetter reads one filed answer (store.SurveyAnswerStore): a
// personal link's earlier answer, to change it.
type AnswerGetter interface {
	Get(ctx context.Context, tenant, slug, id string) (*survey.SurveyAnswer, error)
}

// answeredCookie marks a browser that answered a survey that takes one
// answer per browser; its path is the survey's. It is a courtesy against
// answering twice by mistake, not a security: clearing cookies, another
// browser or a private window answers again.
const (
	answeredCookie    = "answered"
	answeredCookieAge = 400 * 24 * 60 * 60 // the most browsers keep
)

// onceGate is what a survey's "one answer per" setting says of a request
// for its form: the personal link it comes with, and that link's state.
type onceGate struct {
	// Token is the personal link's token ("" for other surveys).
	Token string
	Link  *store.PersonalLink
	// Changing: the link was used and its holder may change the answer.
	Changing bool
}

// onceRefusal is the page of a survey that refuses its form: to a browser
// that answered, a used link, or a request without a valid link.
type onceRefusal struct {
	respondent
	Tenant     *survey.Tenant
	Survey     *survey.Survey
	LogoURL    string
	Invitation bool // no valid personal link
}

// answerOnce applies the survey's "one answer per" setting to a request
// for its form (token: the personal link's, as sent): done when it has
// answered with a refusal page.
func (s *Server) answerOnce(w http.ResponseWriter, r *http.Request, t *survey.Tenant, sv *survey.Survey, token string) (onceGate, bool, error) {
	refuse := func(status int, invitation bool) (onceGate, bool, error) {
		w.Header().Set("Cache-Control", "no-store")
		s.render(w, r, status, "once", onceRefusal{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Invitation: invitation})
		return onceGate{}, true, nil
	}
	answered := http.StatusOK
	if r.Method == http.MethodPost {
		answered = http.StatusConflict
	}
	switch sv.OnePer {
	case survey.OnePerBrowser:
		if c, err := r.Cookie(answeredCookie); err == nil && c.Value == "1" {
			return refuse(answered, false)
		}
	case survey.OnePerLink:
		// The token is in the address: it goes to no other site.
		w.Header().Set("Referrer-Policy", "no-referrer")
		if s.personal == nil || !survey.ValidPersonalToken(token) {
			return refuse(http.StatusForbidden, true)
		}
		l, err := s.personal.Get(r.Context(), t.Key, sv.Slug, token)
		if errors.Is(err, store.ErrNotInvited) {
			return refuse(http.StatusForbidden, true)
		}
		if err != nil {
			return onceGate{}, false, err
		}
		if l.Used() && !sv.MayChange {
			// The form that used it, sent again (a retry after a lost
			// response, or after a crash before the answer was queued):
			// the same answer, queued again, counted once.
			if id, ok := s.signer.check(t.Key, sv.Slug, r.PostForm.Get("token")); r.Method == http.MethodPost && ok && id == l.Answer {
				return onceGate{Token: token, Link: l}, false, nil
			}
			return refuse(answered, false)
		}
		// A campaign's report tells who opened the survey and who went
		// on (a page sent): noted once each, on the link's row.
		if !l.Used() {
			if err := s.personal.Touch(r.Context(), t.Key, sv.Slug, token, l, r.Method == http.MethodPost); err != nil {
				s.log.Warn("personal link's use not noted", "tenant", t.Key, "survey", sv.Slug, "err", err)
			}
		}
		return onceGate{Token: token, Link: l, Changing: l.Used()}, false, nil
	}
	return onceGate{}, false, nil
}

// perRequest reports whether the form must be rendered for this request
// (it carries the personal link), not taken from the pre-rendered forms.
func (g onceGate) perRequest() bool { return g.Token != "" }

// fill puts the personal link in the form, and its earlier answer when
// its holder is changing it (if the worker has filed it yet), whose
// hidden values it returns.
func (s *Server) fillOnce(ctx context.Context, g onceGate, p *surveyPage) (hidden map[string]string) {
	p.Personal, p.Changing = g.Token, g.Changing
	if !g.Changing || s.answerGet == nil || p.Values != nil {
		return nil
	}
	if a, err := s.answerGet.Get(ctx, p.Tenant.Key, p.Survey.Slug, g.Link.Answer); err == nil {
		p.Values = survey.FormOf(p.Survey, a)
		return p.Survey.KeepHidden(a.Hidden)
	}
	return nil
}

// useOnce marks the personal link used by answer id before the answer is
// acknowledged (of two submits in flight, on any instances, one wins):
// done when it has answered with the refusal page.
func (s *Server) useOnce(w http.ResponseWriter, r *http.Request, t *survey.Tenant, sv *survey.Survey, g onceGate, id string) (*store.PersonalLink, bool, error) {
	if g.Token == "" {
		return nil, false, nil
	}
	l, err := s.personal.Use(r.Context(), t.Key, sv.Slug, g.Token, id, sv.MayChange)
	switch {
	case errors.Is(err, store.ErrAnswered):
		s.render(w, r, http.StatusConflict, "once", onceRefusal{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, LogoURL: s.logoURL(t)})
		return nil, true, nil
	case errors.Is(err, store.ErrNotInvited):
		s.render(w, r, http.StatusForbidden, "once", onceRefusal{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Invitation: true})
		return nil, true, nil
	case err != nil:
		return nil, false, err
	}
	return l, false, nil
}

// releaseOnce undoes useOnce when the answer could not be acknowledged.
func (s *Server) releaseOnce(t *survey.Tenant, sv *survey.Survey, g onceGate, id string) {
	if g.Token == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.personal.Release(ctx, t.Key, sv.Slug, g.Token, id); err != nil {
		s.log.Warn("personal link not released", "tenant", t.Key, "survey", sv.Slug, "err", err)
	}
}

// acknowledgedOnce follows an acknowledged answer: a browser of a survey
// that takes one answer per browser gets its cookie; the answers a
// personal link's new answer replaced are deleted.
func (s *Server) acknowledgedOnce(w http.ResponseWriter, r *http.Request, t *survey.Tenant, sv *survey.Survey, l *store.PersonalLink) {
	if sv.OnePer == survey.OnePerBrowser {
		http.SetCookie(w, &http.Cookie{Name: answeredCookie, Value: "1", Path: "/survey/" + t.Key + "/" + sv.Slug,
			HttpOnly: true, Secure: s.secureCookies(r), SameSite: http.SameSiteLaxMode, MaxAge: answeredCookieAge})
	}
	if l != nil && len(l.Pending) > 0 {
		for _, left := range s.settleReplaced(r.Context(), t.Key, sv.Slug, []store.PersonalLink{*l}, true) {
			s.settleLater(t.Key, sv.Slug, left)
		}
	}
}

// settleDelays are the waits before each new try at deleting the answers
// a changed answer replaced that the worker had not counted yet: the
// worker counts an answer within seconds, or minutes when storage is slow.
var settleDelays = []time.Duration{2 * time.Second, 10 * time.Second, time.Minute, 5 * time.Minute, 15 * time.Minute}

// maxSettling bounds the links that wait for settleLater at once.
const maxSettling = 1000

// settleLater tries again, in the background, to settle a link whose
// replaced answers the worker had not counted yet, after each of
// settleDelays until none is left. Trying again is safe (the delete is
// exactly once). A link beyond maxSettling, or one left when the
// instance stops, is settled when an editor next opens the links page.
func (s *Server) settleLater(tenant, slug string, l store.PersonalLink) {
	if s.settling.Add(1) > maxSettling {
		s.settling.Add(-1)
		s.log.Warn("replaced answers left for the links page", "tenant", tenant, "survey", slug)
		return
	}
	go func() {
		defer s.settling.Add(-1)
		for _, d := range settleDelays {
			time.Sleep(d)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			left := s.settleReplaced(ctx, tenant, slug, []store.PersonalLink{l}, true)
			cancel()
			if len(left) == 0 {
				return
			}
			l = left[0]
		}
	}()
}

// settleReplaced deletes from the summary the answers that the links'
// later answers replaced, and drops them from the links. An answer the
// worker has not counted yet stays on its link for the next call (the
// links' page, the link's next answer): deleting is exactly once
// (store.DeleteAnswer), so trying again is safe. Unless acknowledged (the
// links' current answers were just queued), a link's earlier answers are
// deleted only once its current answer is filed: a crash between marking
// the link and queueing its answer must not lose both. It returns the
// links, as settled, whose replaced answers are still counted.
func (s *Server) settleReplaced(ctx context.Context, tenant, slug string, links []store.PersonalLink, acknowledged bool) (left []store.PersonalLink) {
	if s.remover == nil {
		return nil
	}
	var full *survey.Survey
	for _, l := range links {
		if len(l.Pending) == 0 {
			continue
		}
		if !acknowledged {
			if s.answerGet == nil {
				continue
			}
			if _, err := s.answerGet.Get(ctx, tenant, slug, l.Answer); err != nil {
				continue
			}
		}
		if full == nil {
			sv, err := s.surveys.Get(ctx, tenant, slug)
			if err != nil {
				s.log.Warn("replaced answers not settled", "tenant", tenant, "survey", slug, "err", err)
				return append(left, l)
			}
			full = sv
		}
		var done, pending []string
		for _, id := range l.Pending {
			err := s.remover.DeleteAnswer(ctx, full, id)
			switch {
			case err == nil:
				done = append(done, id)
			case survey.ErrorCode(err) != survey.ENOTFOUND:
				s.log.Warn("replaced answer not deleted", "tenant", tenant, "survey", slug, "answer", id, "err", err)
				pending = append(pending, id)
			default:
				pending = append(pending, id)
			}
		}
		if err := s.personal.Settled(ctx, tenant, slug, l.ID, done); err != nil {
			s.log.Warn("replaced answers not settled", "tenant", tenant, "survey", slug, "err", err)
		}
		if len(pending) > 0 {
			l.Pending = pending
			left = append(left, l)
		}
	}
	return left
}

// linksPage is a survey's personal links, for its editors.
type linksPage struct {
	Tenant string
	Survey *survey.Survey
	Role   survey.Role
	Links  []store.PersonalLink
	Used   int
	// Made are the links just made, with their addresses (shown once);
	// Mailed counts those sent by e-mail.
	Made   []madeLink
	Mailed int
	MailOn bool
	// Count and Emails are the form as sent; Errors beside its fields.
	Count, Emails string
	Errors        map[string]string
}

type madeLink struct {
	Email, URL string
}

// showLinks shows a survey's personal links: who used theirs, and when;
// and the form that makes more.
func (s *Server) showLinks(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	p, err := s.linksPage(r, tenant, slug)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "personallinks", p)
	return nil
}

func (s *Server) linksPage(r *http.Request, tenant, slug string) (linksPage, error) {
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return linksPage{}, err
	}
	if s.personal == nil {
		return linksPage{}, notFound("Personal links are not available on this server.")
	}
	links, err := s.personal.List(r.Context(), tenant, slug)
	if err != nil {
		return linksPage{}, err
	}
	// Replacements a crash or the worker's lag left: finish them.
	s.settleReplaced(r.Context(), tenant, slug, links, false)
	p := linksPage{Tenant: tenant, Survey: sv, Role: roleOf(r), Links: links, MailOn: s.mailOn()}
	for _, l := range links {
		if l.Used() {
			p.Used++
		}
	}
	return p, nil
}

// createLinks makes personal links: a number of them, or one per address
// pasted (each sent by e-mail when e-mail is on). Their addresses are shown
// once, on the page that answers, or downloaded as CSV ("download"): only
// their hashes are kept. A bad count or address: 422 beside the field,
// nothing made.
func (s *Server) createLinks(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
	if err := r.ParseForm(); err != nil {
		return survey.Errorf(survey.EINVALID, "The form could not be read.")
	}
	p, err := s.linksPage(r, tenant, slug)
	if err != nil {
		return err
	}
	p.Count, p.Emails = r.PostForm.Get("count"), r.PostForm.Get("emails")
	n, emails, err := survey.ParsePersonalLinks(p.Count, p.Emails)
	if err != nil {
		var e *survey.Error
		if !errors.As(err, &e) || e.Code != survey.EINVALID {
			return err
		}
		p.Errors = e.Fields
		s.render(w, r, http.StatusUnprocessableEntity, "personallinks", p)
		return nil
	}
	// Mailed when e-mail is on, within the tenant's quotas: a batch that
	// would pass one makes no link and sends nothing.
	from := tenant
	if s.mailOn() && len(emails) > 0 {
		t, err := s.tenants.Get(r.Context(), tenant)
		if err != nil {
			return err
		}
		from = t.Name
		var qe *store.QuotaError
		if err := s.takeMailQuota(r.Context(), tenant, t.Plan, emails); errors.As(err, &qe) {
			p.Errors = map[string]string{"emails": qe.Message}
			s.render(w, r, http.StatusUnprocessableEntity, "personallinks", p)
			return nil
		} else if err != nil {
			return err
		}
	}
	// Mailed when e-mail is on: from the public URL alone.
	site, err := s.shownBase(r)
	if err != nil {
		return err
	}
	// On the tenant's verified custom domain, when it has one.
	base := s.surveyBase(r.Context(), tenant, site) + "/survey/" + tenant + "/" + slug
	made, err := s.personal.Create(r.Context(), tenant, slug, n, emails)
	if err != nil {
		return err
	}
	s.audit(r, survey.AuditLinksCreated, slug, linksDetail(len(made), len(emails)))
	for _, l := range made {
		m := madeLink{Email: l.Email, URL: base + "?k=" + l.Token}
		p.Made = append(p.Made, m)
		if m.Email == "" || !s.mailOn() {
			continue
		}
		err := s.sendMail(r.Context(), "personallink", m.Email, personalLinkMail{Survey: p.Survey.Title, Tenant: from, Site: s.publicHost(), Link: m.URL,
			MayChange: p.Survey.MayChange})
		if err != nil && !errors.Is(err, mail.ErrNotConfigured) {
			s.log.Warn("personal link not mailed", "tenant", tenant, "survey", slug, "err", err)
			continue
		}
		p.Mailed++
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	if r.PostForm.Get("download") != "" {
		return writeLinksCSV(w, tenant, slug, "new-links", func(cw *csv.Writer) error {
			if err := cw.Write([]string{"email", "link"}); err != nil {
				return err
			}
			for _, m := range p.Made {
				if err := cw.Write([]string{csvCell(m.Email), m.URL}); err != nil {
					return err
				}
			}
			return nil
		})
	}
	p.Links, err = s.personal.List(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	p.Used = 0
	for _, l := range p.Links {
		if l.Used() {
			p.Used++
		}
	}
	p.Count, p.Emails = "", ""
	s.render(w, r, http.StatusOK, "personallinks", p)
	return nil
}

// personalLinkMail is the data of the personallink mail template.
type personalLinkMail struct {
	// Tenant is the organisation's name, which the subject leads with;
	// Site the host of this server, so that the sender is plain.
	Survey, Tenant, Site, Link string
	MayChange                  bool
}

// exportLinks downloads the survey's links as CSV: to whom, made when,
// used when (never the tokens, which are not kept).
func (s *Server) exportLinks(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	if _, err := s.surveys.Get(r.Context(), tenant, slug); err != nil {
		return err
	}
	if s.personal == nil {
		return notFound("Personal links are not available on this server.")
	}
	links, err := s.personal.List(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	return writeLinksCSV(w, tenant, slug, "links", func(cw *csv.Writer) error {
		if err := cw.Write([]string{"id", "email", "created", "used"}); err != nil {
			return err
		}
		for _, l := range links {
			used := ""
			if l.Used() {
				used = l.UsedOn.UTC().Format(time.RFC3339)
			}
			if err := cw.Write([]string{l.ID, csvCell(l.Email), l.CreatedOn.UTC().Format(time.RFC3339), used}); err != nil {
				return err
			}
		}
		return nil
	})
}

func writeLinksCSV(w http.ResponseWriter, tenant, slug, what string, rows func(*csv.Writer) error) error {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s-%s-%s.csv"`, tenant, slug, what))
	cw := csv.NewWriter(w)
	if err := rows(cw); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// MayEdit reports whether the share page's member may edit the survey
// (and so make its personal links).
func (p sharePage) MayEdit() bool { return p.Role == "" || p.Role.May(survey.EditSurveys) }

// linksDetail says how many personal links were made, and how many of
// them for addresses pasted.
func linksDetail(made, addressed int) string {
	d := fmt.Sprintf("%d links", made)
	if made == 1 {
		d = "1 link"
	}
	if addressed > 0 {
		d += fmt.Sprintf(", %d for addresses", addressed)
	}
	return d
}
