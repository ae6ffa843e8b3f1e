package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Members keeps a tenant's accounts and their roles (store.UserStore).
type Members interface {
	Members(ctx context.Context, tenant string) ([]store.Member, error)
	SetRole(ctx context.Context, tenant, email string, role survey.Role) error
	RemoveMember(ctx context.Context, tenant, email string) error
	AddMember(ctx context.Context, tenant, email, password string, role survey.Role) (*survey.User, error)
	AddExternalMember(ctx context.Context, tenant, email string, role survey.Role) (*survey.User, error)
}

// membersPage lists a tenant's members and pending invitations, with the
// form that invites one more.
type membersPage struct {
	Tenant      *survey.Tenant
	User        *store.Session
	Members     []store.Member
	Admins      int
	Invitations []store.Link
	Roles       []survey.Role
	// The invitation form: its values and problems.
	Email  string
	Role   survey.Role
	Errors map[string]string
	// Message is a problem of the page (a role change refused); Notice
	// says what was done.
	Message, Notice string
	// Invited is the address just invited; Link its link, shown when
	// e-mail is off (MailOff), to pass on by hand.
	Invited string
	Link    string
	MailOff bool
}

// membersPage reads the page's lists.
func (s *Server) membersPage(r *http.Request) (membersPage, error) {
	tenant := chi.URLParam(r, "tenant")
	t, err := s.tenants.Get(r.Context(), tenant)
	if err != nil {
		return membersPage{}, err
	}
	page := membersPage{Tenant: t, User: sessionFrom(r.Context()), Roles: survey.Roles, Role: survey.Editor, MailOff: s.mail == nil}
	if page.Members, err = s.members.Members(r.Context(), tenant); err != nil {
		return page, err
	}
	for _, m := range page.Members {
		if m.Role == survey.Admin {
			page.Admins++
		}
	}
	if page.Invitations, err = s.links.List(r.Context(), tenant, store.LinkInvite); err != nil {
		return page, err
	}
	return page, nil
}

// showMembers shows the members page.
func (s *Server) showMembers(w http.ResponseWriter, r *http.Request) error {
	page, err := s.membersPage(r)
	if err != nil {
		return err
	}
	switch r.URL.Query().Get("done") {
	case "role":
		page.Notice = "The role is changed."
	case "removed":
		page.Notice = "The member is removed; their sessions have ended."
	case "revoked":
		page.Notice = "The invitation is withdrawn: its link no longer works."
	}
	s.render(w, r, http.StatusOK, "members", page)
	return nil
}

// invite makes an invitation: a single-use link for InviteLinkTTL, sent by
// e-mail, or shown on the page when e-mail is off. An invalid form (422)
// saves nothing.
func (s *Server) invite(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	page, err := s.membersPage(r)
	if err != nil {
		return err
	}
	page.Email = survey.NormalizeEmail(r.PostForm.Get("email"))
	page.Errors = map[string]string{}
	if !survey.ValidEmail(page.Email) {
		page.Errors["email"] = "Enter an email address such as ana@example.com."
	}
	role, err := survey.ParseRole(r.PostForm.Get("role"))
	if err != nil {
		page.Errors["role"] = "Choose admin, editor or viewer."
	} else {
		page.Role = role
	}
	for _, m := range page.Members {
		if m.Email == page.Email {
			page.Errors["email"] = page.Email + " is already a member."
		}
	}
	if len(page.Errors) > 0 {
		page.Message = "Nobody was invited; see the fields below."
		s.render(w, r, http.StatusUnprocessableEntity, "members", page)
		return nil
	}
	// Mailed when e-mail is on: from the public URL alone.
	base, err := s.shownBase(r)
	if err != nil {
		return err
	}
	// Mailed within the tenant's quotas: refused, nothing is made.
	var qe *store.QuotaError
	if err := s.takeMailQuota(r.Context(), page.Tenant.Key, page.Tenant.Plan, []string{page.Email}); errors.As(err, &qe) {
		page.Errors["email"] = qe.Message
		page.Message = "Nobody was invited; see the fields below."
		s.render(w, r, http.StatusUnprocessableEntity, "members", page)
		return nil
	} else if err != nil {
		return err
	}
	// One pending invitation per address: a new one replaces the old.
	if err := s.links.RevokeFor(r.Context(), page.Tenant.Key, store.LinkInvite, page.Email); err != nil {
		return err
	}
	token, err := s.links.Create(r.Context(), store.Link{Purpose: store.LinkInvite, Tenant: page.Tenant.Key, Email: page.Email, Role: string(role), By: page.User.Email}, store.InviteLinkTTL)
	if err != nil {
		return err
	}
	link := base + "/invite/" + token
	page.Invited = page.Email
	s.audit(r, survey.AuditMemberInvited, page.Email, "as "+role.Label())
	if s.mailOn() {
		if err := s.sendMail(r.Context(), "invite", page.Email, inviteMail{Tenant: page.Tenant.Name, By: page.User.Email, Role: role.Label(), Link: link, Days: int(store.InviteLinkTTL.Hours() / 24)}); err != nil {
			return err
		}
	} else {
		page.Link = link
	}
	if page.Invitations, err = s.links.List(r.Context(), page.Tenant.Key, store.LinkInvite); err != nil {
		return err
	}
	page.Email, page.Role, page.Errors = "", survey.Editor, nil
	s.render(w, r, http.StatusOK, "members", page)
	return nil
}

// inviteMail is what the invitation's e-mail says.
type inviteMail struct {
	Tenant, By, Role, Link string
	Days                   int
}

// changeRole sets a member's role; the last admin stays one (422).
func (s *Server) changeRole(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	tenant := chi.URLParam(r, "tenant")
	email := survey.NormalizeEmail(r.PostForm.Get("email"))
	role, err := survey.ParseRole(r.PostForm.Get("role"))
	if err == nil {
		err = s.members.SetRole(r.Context(), tenant, email, role)
	}
	if survey.ErrorCode(err) == survey.EINVALID {
		return s.membersProblem(w, r, err)
	}
	if err != nil {
		return err
	}
	s.audit(r, survey.AuditMemberRole, email, "to "+role.Label())
	http.Redirect(w, r, "/"+tenant+"/settings/members?done=role", http.StatusSeeOther)
	return nil
}

// membersProblem shows the members page with a refused change (422).
func (s *Server) membersProblem(w http.ResponseWriter, r *http.Request, problem error) error {
	page, err := s.membersPage(r)
	if err != nil {
		return err
	}
	page.Message = survey.ErrorMessage(problem)
	s.render(w, r, http.StatusUnprocessableEntity, "members", page)
	return nil
}

// removePage asks before a member is removed, saying what they lose.
type removePage struct {
	Tenant *survey.Tenant
	Member store.Member
	Self   bool
}

func (s *Server) memberToRemove(r *http.Request, email string) (removePage, error) {
	tenant := chi.URLParam(r, "tenant")
	t, err := s.tenants.Get(r.Context(), tenant)
	if err != nil {
		return removePage{}, err
	}
	list, err := s.members.Members(r.Context(), tenant)
	if err != nil {
		return removePage{}, err
	}
	email = survey.NormalizeEmail(email)
	for _, m := range list {
		if m.Email == email {
			return removePage{Tenant: t, Member: m, Self: email == sessionFrom(r.Context()).Email}, nil
		}
	}
	return removePage{}, notFound("No such member.")
}

// confirmRemoveMember asks before removing a member.
func (s *Server) confirmRemoveMember(w http.ResponseWriter, r *http.Request) error {
	page, err := s.memberToRemove(r, r.URL.Query().Get("email"))
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "member_remove", page)
	return nil
}

// removeMember deletes a member's account and ends their sessions, and
// withdraws their password-reset links; the last admin stays (422).
func (s *Server) removeMember(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	page, err := s.memberToRemove(r, r.PostForm.Get("email"))
	if err != nil {
		return err
	}
	err = s.members.RemoveMember(r.Context(), page.Tenant.Key, page.Member.Email)
	if survey.ErrorCode(err) == survey.EINVALID {
		return s.membersProblem(w, r, err)
	}
	if err != nil {
		return err
	}
	s.audit(r, survey.AuditMemberRemoved, page.Member.Email, "")
	if err := s.links.RevokeFor(r.Context(), page.Tenant.Key, store.LinkReset, page.Member.Email); err != nil {
		return err
	}
	if page.Self {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
	http.Redirect(w, r, "/"+page.Tenant.Key+"/settings/members?done=removed", http.StatusSeeOther)
	return nil
}

// revokeInvitation withdraws a pending invitation.
func (s *Server) revokeInvitation(w http.ResponseWriter, r *http.Request) error {
	tenant := chi.URLParam(r, "tenant")
	if err := s.links.Revoke(r.Context(), tenant, store.LinkInvite, chi.URLParam(r, "id")); err != nil {
		return err
	}
	s.audit(r, survey.AuditInviteRevoked, chi.URLParam(r, "id"), "")
	http.Redirect(w, r, "/"+tenant+"/settings/members?done=revoked", http.StatusSeeOther)
	return nil
}

// invitePage is what an invitation's link shows: the tenant, the person,
// and the form that makes the account.
type invitePage struct {
	Token  string
	Tenant *survey.Tenant
	Email  string
	Role   survey.Role
	// OIDC: the tenant signs in through its own identity provider, so the
	// page offers that instead of a password.
	OIDC    bool
	Errors  map[string]string
	Message string
}

// invitation reads the invitation of the URL's token without using it.
func (s *Server) invitation(r *http.Request) (invitePage, error) {
	token := chi.URLParam(r, "token")
	l, err := s.peekLink(r, store.LinkInvite, token)
	if err != nil {
		return invitePage{}, err
	}
	t, err := s.tenants.Get(r.Context(), l.Tenant)
	if err != nil {
		return invitePage{}, err
	}
	if err := s.tenantUsable(r.Context(), t.Key); err != nil {
		return invitePage{}, err
	}
	return invitePage{Token: token, Tenant: t, Email: l.Email, Role: survey.StoredRole(l.Role), OIDC: t.UsesOIDC()}, nil
}

// inviteGone renders the page of an invitation link that is unknown,
// used, expired or withdrawn: 410, saying what to do, and nothing made.
func (s *Server) inviteGone(w http.ResponseWriter, r *http.Request, err error) error {
	if survey.ErrorCode(err) != survey.ENOTFOUND {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, http.StatusGone, "error", errorPage{Title: "This invitation does not work",
		Message: "This invitation link has been used, has expired or was withdrawn. Ask an admin of your organisation to invite you again."})
	return nil
}

// showInvite shows an invitation: whose, for which tenant, and the form to
// accept it.
func (s *Server) showInvite(w http.ResponseWriter, r *http.Request) error {
	page, err := s.invitation(r)
	if err != nil {
		return s.inviteGone(w, r, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	s.render(w, r, http.StatusOK, "invite", page)
	return nil
}

// acceptInvite makes the invited account with the invitation's role, uses
// the link (once: of two requests one wins), signs the person in and lands
// on the dashboard. In a tenant with its own identity provider it makes
// the account without a password and sends the person to sign in there.
// A bad password is 422 beside the field, and the link stays unused.
func (s *Server) acceptInvite(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	page, err := s.invitation(r)
	if err != nil {
		return s.inviteGone(w, r, err)
	}
	w.Header().Set("Cache-Control", "no-store")
	password := r.PostForm.Get("password")
	external := page.OIDC && r.PostForm.Get("via") == "oidc"
	if !external {
		if problem := passwordProblem(page.Email, password, r.PostForm.Get("confirm")); problem != nil {
			page.Errors = problem
			page.Message = "Your account was not made yet; see the fields below."
			s.render(w, r, http.StatusUnprocessableEntity, "invite", page)
			return nil
		}
	}
	// Used first: whatever happens next, the link works once.
	l, err := s.useLink(r, store.LinkInvite, page.Token)
	if err != nil {
		return s.inviteGone(w, r, err)
	}
	role := survey.StoredRole(l.Role)
	if external {
		if _, err := s.members.AddExternalMember(r.Context(), l.Tenant, l.Email, role); err != nil && survey.ErrorCode(err) != survey.ECONFLICT {
			return err
		}
		http.Redirect(w, r, "/login/"+url.PathEscape(l.Tenant)+"/oidc", http.StatusSeeOther)
		return nil
	}
	u, err := s.members.AddMember(r.Context(), l.Tenant, l.Email, password, role)
	if survey.ErrorCode(err) == survey.ECONFLICT {
		return survey.Errorf(survey.ECONFLICT, "%s already has an account here: sign in instead.", l.Email)
	}
	if err != nil {
		return err
	}
	// A tenant that requires two-step sign-in has the new member set it
	// up first.
	return s.signIn(w, r, u, "", false)
}

// passwordProblem checks a new password and its confirmation, by field.
func passwordProblem(email, password, confirm string) map[string]string {
	if err := survey.ValidateCredentials(email, password); err != nil {
		var e *survey.Error
		if errors.As(err, &e) && e.Fields["password"] != "" {
			return map[string]string{"password": e.Fields["password"]}
		}
	}
	if password != confirm {
		return map[string]string{"confirm": "The two passwords differ."}
	}
	return nil
}
