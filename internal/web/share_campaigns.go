package web

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/api"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Campaigns keeps the tenants' campaigns (store.CampaignStore).
type Campaigns interface {
	Create(ctx context.Context, tenant string, n store.NewCampaign) (*store.Campaign, error)
	Get(ctx context.Context, tenant, id string) (*store.Campaign, string, error)
	List(ctx context.Context, tenant, slug string) ([]store.Campaign, error)
	Sends(ctx context.Context, tenant, campaign string, step int) ([]store.Send, error)
	RemindNow(ctx context.Context, tenant, id string) (*store.Campaign, error)
}

// campaignsPage is a survey's campaigns, and the form that starts one.
type campaignsPage struct {
	Tenant    string
	Survey    *survey.Survey
	Role      survey.Role
	Campaigns []store.Campaign
	Lists     []store.ContactList
	// Off says why campaigns cannot be sent ("" when they can).
	Off string
	// Attrs are the attribute names of each list's contacts (by list
	// ID); AttrNames, all of them, which the segment's selects offer.
	Attrs     map[string][]string
	AttrNames []string
	// The form as sent, and its errors.
	List, Subject, Text, When, SendAt, Reminders, RemindDays string
	Segment                                                  []segmentRow
	Errors                                                   map[string]string
}

// segmentRow is one condition of the form's segment: its fields are
// segAttr<N> and segValue<N>, its error "seg<N>".
type segmentRow struct {
	N           int
	Attr, Value string
}

// HasAttr reports whether a is an attribute of one of the lists.
func (p campaignsPage) HasAttr(a string) bool { return slices.Contains(p.AttrNames, a) }

// ListAttrs is the list's attribute names, for people.
func (p campaignsPage) ListAttrs(list string) string {
	if len(p.Attrs[list]) == 0 {
		return "no attributes"
	}
	return strings.Join(p.Attrs[list], ", ")
}

// Status is a campaign's state, for people.
func (campaignsPage) Status(c store.Campaign) string { return campaignStatus(&c) }

func campaignStatus(c *store.Campaign) string {
	switch {
	case c.Over():
		return "Sent, with every reminder"
	case c.Step == 0 && c.Due(0).After(time.Now()):
		return "To be sent on " + c.Due(0).UTC().Format("2 Jan 2006 15:04 UTC")
	case c.Step == 0:
		return "Sending"
	case c.Due(c.Step).After(time.Now()):
		return "Sent; reminder " + strconv.Itoa(c.Step) + " of " + strconv.Itoa(c.MaxReminders) + " on " + c.Due(c.Step).UTC().Format("2 Jan 2006 15:04 UTC")
	}
	return "Sending reminder " + strconv.Itoa(c.Step) + " of " + strconv.Itoa(c.MaxReminders)
}

// campaignsOff says why this server sends no campaign ("" when it does).
func (s *Server) campaignsOff() string {
	switch {
	case s.campaigns == nil || s.contacts == nil:
		return "Campaigns are not available on this server."
	case !s.mailOn():
		return "E-mail is off on this server: its operator must set SURVEYS_SMTP_URL before a campaign can be sent."
	case len(s.campaignKey) == 0:
		return "Campaigns are off on this server: its operator must set SURVEYS_SECRET_KEY (or SURVEYS_SECRET_KEY_FILE), from which each contact's link is derived."
	}
	return ""
}

func (s *Server) campaignsPage(r *http.Request) (campaignsPage, error) {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return campaignsPage{}, err
	}
	p := campaignsPage{Tenant: tenant, Survey: sv, Role: roleOf(r), Off: s.campaignsOff(), When: "now", Reminders: "1", RemindDays: "3"}
	if s.campaigns == nil || s.contacts == nil {
		return p, nil
	}
	if p.Campaigns, err = s.campaigns.List(r.Context(), tenant, slug); err != nil {
		return p, err
	}
	if p.Lists, err = s.contacts.Lists(r.Context(), tenant); err != nil {
		return p, err
	}
	for i := range survey.MaxSegmentConditions {
		p.Segment = append(p.Segment, segmentRow{N: i + 1})
	}
	if len(p.Lists) > 0 {
		if p.Attrs, err = s.contacts.Attributes(r.Context(), tenant); err != nil {
			return p, err
		}
		for _, names := range p.Attrs {
			for _, a := range names {
				if !slices.Contains(p.AttrNames, a) {
					p.AttrNames = append(p.AttrNames, a)
				}
			}
		}
		sort.Strings(p.AttrNames)
	}
	return p, nil
}

// showCampaigns shows the survey's campaigns and the form that starts
// one.
func (s *Server) showCampaigns(w http.ResponseWriter, r *http.Request) error {
	p, err := s.campaignsPage(r)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "campaigns", p)
	return nil
}

// createCampaign starts a campaign: its first step is queued for now or
// the time chosen, and the worker sends it within the tenant's mail
// quota. A bad field: 422 beside it, nothing stored or sent.
func (s *Server) createCampaign(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	p, err := s.campaignsPage(r)
	if err != nil {
		return err
	}
	f := r.PostForm
	p.List, p.Subject, p.Text, p.When, p.SendAt, p.Reminders, p.RemindDays = f.Get("list"), f.Get("subject"), f.Get("text"), f.Get("when"), f.Get("sendAt"), f.Get("reminders"), f.Get("remindDays")
	if p.Off != "" {
		return survey.Errorf(survey.ECONFLICT, "%s", p.Off)
	}
	refuse := func(fields map[string]string) error {
		p.Errors = fields
		s.render(w, r, http.StatusUnprocessableEntity, "campaigns", p)
		return nil
	}
	if p.Survey.OnePer != survey.OnePerLink {
		return refuse(map[string]string{"form": "A campaign sends personal links: first choose “personal links” under “One answer per” in the survey's settings."})
	}
	if msg, err := s.unverifiedSender(r.Context(), p.Tenant); err != nil {
		return err
	} else if msg != "" {
		return refuse(map[string]string{"form": msg})
	}
	n := store.NewCampaign{Survey: p.Survey.Slug, List: p.List, Subject: p.Subject, Text: p.Text, SendAt: time.Now()}
	if u := sessionFrom(r.Context()); u != nil {
		n.CreatedBy = u.Email
	}
	fields := map[string]string{}
	if p.When == "later" {
		at, err := time.ParseInLocation("2006-01-02T15:04", strings.TrimSpace(p.SendAt), time.UTC)
		if err != nil {
			fields["sendAt"] = "Give the date and time (UTC) to send it, such as 2026-12-24T09:00."
		}
		n.SendAt = at
	}
	if n.MaxReminders, err = strconv.Atoi(strings.TrimSpace(p.Reminders)); err != nil {
		fields["reminders"] = "Give a number of reminders, from 0 to 5."
	}
	if n.MaxReminders > 0 {
		days, err := strconv.Atoi(strings.TrimSpace(p.RemindDays))
		if err != nil || days < 1 || days > 30 {
			fields["remindDays"] = "Give a number of days, from 1 to 30."
		}
		n.RemindEvery = time.Duration(days) * 24 * time.Hour
	}
	if _, err := s.contacts.List(r.Context(), p.Tenant, p.List); err != nil {
		fields["list"] = "Choose one of your contact lists."
	}
	// The segment: each row with an attribute or a value is a condition,
	// on an attribute the list's contacts have.
	for i := range p.Segment {
		rw := &p.Segment[i]
		k := "seg" + strconv.Itoa(rw.N)
		rw.Attr, rw.Value = strings.ToLower(strings.TrimSpace(f.Get("segAttr"+strconv.Itoa(rw.N)))), f.Get("segValue"+strconv.Itoa(rw.N))
		switch {
		case rw.Attr == "" && strings.TrimSpace(rw.Value) == "":
			continue
		case rw.Attr == "":
			fields[k] = "Choose the attribute that must have this value."
		case fields["list"] == "" && !slices.Contains(p.Attrs[p.List], rw.Attr):
			fields[k] = "The list has no attribute “" + survey.CleanLine(rw.Attr) + "”: choose one of its attributes (" + p.ListAttrs(p.List) + ")."
		case strings.TrimSpace(rw.Value) == "":
			fields[k] = "Give the value of " + rw.Attr + " that the contacts must have."
		}
		n.Segment = append(n.Segment, survey.SegmentCondition{Attr: rw.Attr, Value: rw.Value})
	}
	for k, v := range invalidFields(n.Validate(time.Now())) {
		if k == "remindEvery" {
			k = "remindDays"
		}
		if k == "segment" {
			k = "seg1"
			for _, rw := range p.Segment {
				if rw.Attr != "" {
					k = "seg" + strconv.Itoa(rw.N)
					break
				}
			}
		}
		if fields[k] == "" {
			fields[k] = v
		}
	}
	if len(fields) > 0 {
		return refuse(fields)
	}
	c, err := s.campaigns.Create(r.Context(), p.Tenant, n)
	if fe := invalidFields(err); fe != nil {
		if fe["remindEvery"] != "" {
			fe["remindDays"] = fe["remindEvery"]
		}
		if fe["segment"] != "" {
			fe["seg1"] = fe["segment"]
		}
		return refuse(fe)
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/"+p.Tenant+"/surveys/"+p.Survey.Slug+"/campaigns/"+c.ID, http.StatusSeeOther)
	return nil
}

// unverifiedSender is the refusal of a member whose own address is not
// proven yet ("" when it is): until then the tenant mails no one else.
func (s *Server) unverifiedSender(ctx context.Context, tenant string) (string, error) {
	u := sessionFrom(ctx)
	if s.verifier == nil || u == nil {
		return "", nil
	}
	unproven, err := s.verifier.Unverified(ctx, tenant, u.Email)
	if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		return "", err
	}
	if unproven {
		return "Confirm your own e-mail address first: open the link we mailed to " + u.Email + " when you signed up (your account page sends it again). Until then your organisation sends no e-mail to others.", nil
	}
	return "", nil
}

// campaignRow is one contact of a campaign's report.
type campaignRow struct {
	Email, Name                      string
	Invitation                       string // the state of its invitation, for people
	Reminders                        int    // reminders sent
	Opened, Started, Completed       bool
	Bounced, Unsubscribed, Failed    bool
	OpenedOn, StartedOn, CompletedOn time.Time
	InvitedOn                        time.Time
	invited                          bool
}

// campaignTotals count a campaign's contacts in each state.
type campaignTotals struct {
	Contacts, Sent, Opened, Started, Completed, Bounced, Unsubscribed, Failed, Reminders int
}

// campaignPage is one campaign's report.
type campaignPage struct {
	Tenant   string
	Survey   *survey.Survey
	Role     survey.Role
	Campaign *store.Campaign
	Status   string
	ListName string
	// Segment says which of the list's contacts the campaign is for (""
	// for all of them): "Only contacts whose dept is Sales".
	Segment   string
	Rows      []campaignRow
	Totals    campaignTotals
	MayRemind bool
	Notice    string
}

// Every is the time between the campaign's steps, for people.
func (p campaignPage) Every() string {
	d := p.Campaign.RemindEvery
	if d%(24*time.Hour) == 0 {
		return survey.Count(int(d/(24*time.Hour)), "day")
	}
	return survey.Count(int(d/time.Hour), "hour")
}

// showCampaign shows a campaign: in total and per contact, sent, opened
// the survey, started, completed, bounced and unsubscribed (from the
// ledger, the contacts' personal links and the tenant's flags: three
// partition queries and the list's).
func (s *Server) showCampaign(w http.ResponseWriter, r *http.Request) error {
	p, err := s.campaignReport(r)
	if err != nil {
		return err
	}
	if r.URL.Query().Get("reminded") == "1" {
		p.Notice = "The reminder is on its way to the contacts who have not answered."
	}
	s.render(w, r, http.StatusOK, "campaign", p)
	return nil
}

func (s *Server) campaignReport(r *http.Request) (campaignPage, error) {
	p, err := s.campaignReportOf(r.Context(), chi.URLParam(r, "tenant"), chi.URLParam(r, "slug"), chi.URLParam(r, "id"))
	p.Role = roleOf(r)
	return p, err
}

// campaignReportAPI is the campaign with its totals, for the API.
func (s *Server) campaignReportAPI(ctx context.Context, tenant, slug, id string) (*store.Campaign, api.CampaignTotals, error) {
	p, err := s.campaignReportOf(ctx, tenant, slug, id)
	if err != nil {
		return nil, api.CampaignTotals{}, err
	}
	return p.Campaign, api.CampaignTotals(p.Totals), nil
}

// apiContacts and apiCampaigns are the stores for the API, nil (their
// endpoints answer 404) when the server has none.
func (s *Server) apiContacts() api.Contacts {
	if s.contacts == nil || s.campaigns == nil || s.personal == nil {
		return nil
	}
	return s.contacts
}

func (s *Server) apiCampaigns() api.Campaigns {
	if s.contacts == nil || s.campaigns == nil || s.personal == nil {
		return nil
	}
	return s.campaigns
}

// campaignReportOf is the report of campaign id of the survey slug.
func (s *Server) campaignReportOf(ctx context.Context, tenant, slug, id string) (campaignPage, error) {
	if s.campaigns == nil || s.contacts == nil || s.personal == nil {
		return campaignPage{}, notFound("Campaigns are not available on this server.")
	}
	sv, err := s.surveys.Get(ctx, tenant, slug)
	if err != nil {
		return campaignPage{}, err
	}
	c, _, err := s.campaigns.Get(ctx, tenant, id)
	if err != nil {
		return campaignPage{}, err
	}
	if c.Survey != slug {
		return campaignPage{}, store.ErrNoCampaign
	}
	p := campaignPage{Tenant: tenant, Survey: sv, Campaign: c, Status: campaignStatus(c), ListName: "(deleted list)"}
	if seg := survey.SegmentText(c.Segment); seg != "" {
		p.Segment = "Only " + seg
	}
	var contacts []store.Contact
	if l, err := s.contacts.List(ctx, tenant, c.List); err == nil {
		p.ListName = l.Name
		if contacts, err = s.contacts.Contacts(ctx, tenant, c.List); err != nil {
			return p, err
		}
	}
	sends, err := s.campaigns.Sends(ctx, tenant, c.ID, -1)
	if err != nil {
		return p, err
	}
	links, err := s.personal.List(ctx, tenant, slug)
	if err != nil {
		return p, err
	}
	sup, err := s.contacts.Suppressions(ctx, tenant)
	if err != nil {
		return p, err
	}
	byID := map[string]*campaignRow{}
	var order []string
	row := func(id, email string) *campaignRow {
		if rw := byID[id]; rw != nil {
			return rw
		}
		rw := &campaignRow{Email: email, Invitation: "Not sent yet"}
		byID[id] = rw
		order = append(order, id)
		return rw
	}
	for _, ct := range contacts {
		// Outside the segment: counted only if mailed (its attributes
		// changed since), by the ledger below.
		if survey.MatchSegment(ct.Attrs, c.Segment) {
			row(ct.ID, ct.Email).Name = ct.Name
		}
	}
	for _, sd := range sends {
		rw := row(sd.Contact, sd.Email)
		if sd.Step > 0 {
			if sd.State == store.SendSent {
				rw.Reminders++
			}
			continue
		}
		rw.invited = true
		switch sd.State {
		case store.SendSent:
			rw.Invitation, rw.InvitedOn = "Sent", sd.SentOn
		case store.SendBounced:
			rw.Invitation, rw.Bounced = "Bounced", true
		case store.SendFailed:
			rw.Invitation, rw.Failed = "Failed", true
		default:
			rw.Invitation = "Sending"
		}
	}
	byLink := map[string]store.PersonalLink{}
	for _, l := range links {
		byLink[l.ID] = l
	}
	for _, id := range order {
		rw := byID[id]
		if f, ok := sup[id]; ok {
			rw.Unsubscribed, rw.Bounced = f.Unsubscribed, rw.Bounced || f.Bounced
			if !rw.invited && f.Unsubscribed {
				rw.Invitation = "Not sent: unsubscribed"
			} else if !rw.invited && f.Bounced {
				rw.Invitation = "Not sent: bounced before"
			}
		}
		if len(s.campaignKey) > 0 && rw.invited {
			if l, ok := byLink[store.LinkID(store.CampaignToken(s.campaignKey, tenant, c.ID, id))]; ok {
				rw.Completed, rw.CompletedOn = l.Used(), l.UsedOn
				rw.Started, rw.StartedOn = !l.StartedOn.IsZero() || l.Used(), l.StartedOn
				rw.Opened, rw.OpenedOn = !l.OpenedOn.IsZero() || rw.Started, l.OpenedOn
			}
		}
		t := &p.Totals
		t.Contacts++
		t.Reminders += rw.Reminders
		for _, x := range []struct {
			on bool
			n  *int
		}{{rw.Invitation == "Sent", &t.Sent}, {rw.Opened, &t.Opened}, {rw.Started, &t.Started}, {rw.Completed, &t.Completed}, {rw.Bounced, &t.Bounced}, {rw.Unsubscribed, &t.Unsubscribed}, {rw.Failed, &t.Failed}} {
			if x.on {
				*x.n++
			}
		}
		p.Rows = append(p.Rows, *rw)
	}
	p.MayRemind = s.campaignsOff() == "" && !c.Over() && (c.Step > 0 || c.Done) && c.MaxReminders > 0
	return p, nil
}

// remindNow sends the campaign's next reminder at once (to the contacts
// whose link has no answer yet), rather than at its time.
func (s *Server) remindNow(w http.ResponseWriter, r *http.Request) error {
	p, err := s.campaignReport(r)
	if err != nil {
		return err
	}
	if off := s.campaignsOff(); off != "" {
		return survey.Errorf(survey.ECONFLICT, "%s", off)
	}
	if _, err := s.campaigns.RemindNow(r.Context(), p.Tenant, p.Campaign.ID); err != nil {
		return err
	}
	http.Redirect(w, r, "/"+p.Tenant+"/surveys/"+p.Survey.Slug+"/campaigns/"+p.Campaign.ID+"?reminded=1", http.StatusSeeOther)
	return nil
}
