package api

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Contacts keeps a tenant's contact lists (store.ContactStore).
type Contacts interface {
	Lists(ctx context.Context, tenant string) ([]store.ContactList, error)
	CreateList(ctx context.Context, tenant, name string) (*store.ContactList, error)
	Contacts(ctx context.Context, tenant, list string) ([]store.Contact, error)
	Import(ctx context.Context, tenant, list string, rs []survey.Recipient) (int, error)
}

// Campaigns reads a survey's campaigns (store.CampaignStore).
type Campaigns interface {
	List(ctx context.Context, tenant, slug string) ([]store.Campaign, error)
}

// CampaignTotals are a campaign's counts, in total, as its page shows
// them: contacts of the list, invitations sent, contacts who opened the
// survey, started, completed, bounced, unsubscribed, whose invitation
// failed, and reminders sent.
type CampaignTotals struct {
	Contacts, Sent, Opened, Started, Completed, Bounced, Unsubscribed, Failed, Reminders int
}

// maxContactsBody bounds an import's body (CSV or JSON): 2 MB of CSV as
// the page takes, and room for JSON's quotes.
const maxContactsBody = 4 << 20

// contactsOn is the check of every contact and campaign endpoint: a
// server without them answers 404.
func (s *server) contactsOn() error {
	if s.Contacts == nil || s.Campaigns == nil || s.CampaignReport == nil {
		return notFound("Contact lists and campaigns are not available on this server.")
	}
	return nil
}

type jsonContactList struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedOn time.Time `json:"createdOn"`
}

func listJSON(l store.ContactList) jsonContactList {
	return jsonContactList{ID: l.ID, Name: l.Name, CreatedOn: l.CreatedOn}
}

// listContactLists is GET /contacts/lists: the tenant's lists.
func (s *server) listContactLists(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if err := s.contactsOn(); err != nil {
		return 0, nil, err
	}
	lists, err := s.Contacts.Lists(r.Context(), tenantOf(r))
	if err != nil {
		return 0, nil, err
	}
	out := make([]jsonContactList, 0, len(lists))
	for _, l := range lists {
		out = append(out, listJSON(l))
	}
	return http.StatusOK, map[string]any{"lists": out}, nil
}

// createContactList is POST /contacts/lists {"name": …}.
func (s *server) createContactList(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if err := s.contactsOn(); err != nil {
		return 0, nil, err
	}
	var in struct {
		Name string `json:"name"`
	}
	if err := readBody(w, r, 16<<10, &in, `a contact list, {"name": "…"}`); err != nil {
		return 0, nil, err
	}
	l, err := s.Contacts.CreateList(r.Context(), tenantOf(r), in.Name)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, listJSON(*l), nil
}

// jsonContact is a contact as an import's JSON body gives it.
type jsonContact struct {
	Email      string            `json:"email"`
	Name       string            `json:"name"`
	Attributes map[string]string `json:"attributes"`
}

// importContacts is POST /contacts/lists/{list}/contacts: contacts as
// JSON ({"contacts": [{"email", "name", "attributes"}]}) or as a CSV file
// (Content-Type text/csv: a header row naming email, name and attribute
// columns), added to the list. All or nothing: a bad row (a bad address,
// an address twice, one the list has) is a 422 naming each, and nothing
// is added.
func (s *server) importContacts(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if err := s.contactsOn(); err != nil {
		return 0, nil, err
	}
	tenant, list := tenantOf(r), chi.URLParam(r, "list")
	existing, err := s.Contacts.Contacts(r.Context(), tenant, list)
	if err != nil {
		return 0, nil, err
	}
	known := map[string]bool{}
	for _, c := range existing {
		known[c.Email] = true
	}
	body := http.MaxBytesReader(w, r.Body, maxContactsBody)
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var rs []survey.Recipient
	problems := map[string]string{}
	switch mt {
	case "text/csv":
		im, err := survey.ParseContactsCSV(body, known)
		if err != nil {
			return 0, nil, err
		}
		for _, row := range im.Rows {
			if row.Problem != "" {
				problems[fmt.Sprintf("line %d", row.Line)] = row.Problem
			}
		}
		rs = im.Contacts()
	case "application/json", "":
		var in struct {
			Contacts []jsonContact `json:"contacts"`
		}
		if err := decodeJSON(body, &in, `a list of contacts, {"contacts": [{"email": …, "name": …, "attributes": {…}}]}, nor a CSV file sent as text/csv`); err != nil {
			return 0, nil, err
		}
		if len(in.Contacts) > survey.MaxContactsImport {
			return 0, nil, survey.Errorf(survey.EINVALID, "Send at most %d contacts at once.", survey.MaxContactsImport)
		}
		seen := map[string]int{}
		for i, c := range in.Contacts {
			key := fmt.Sprintf("contacts[%d]", i)
			rc, err := survey.NormalizeContact(survey.Recipient{Email: c.Email, Name: c.Name, Attrs: c.Attributes})
			switch {
			case err != nil:
				problems[key] = survey.ErrorMessage(err)
			case known[rc.Email]:
				problems[key] = fmt.Sprintf("%s is in the list already.", rc.Email)
			case seen[rc.Email] > 0:
				problems[key] = fmt.Sprintf("%s is given twice (contacts[%d] too).", rc.Email, seen[rc.Email]-1)
			default:
				seen[rc.Email] = i + 1
				rs = append(rs, rc)
			}
		}
	default:
		return 0, nil, survey.Errorf(survey.EINVALID, "Send the contacts as application/json or as a CSV file (text/csv), not %s.", mt)
	}
	if len(problems) > 0 {
		return 0, nil, &survey.Error{Code: survey.EINVALID, Message: fmt.Sprintf("%d contacts cannot be added; nothing was imported: fix them, or leave them out.", len(problems)), Fields: problems}
	}
	if len(rs) == 0 {
		return 0, nil, survey.Errorf(survey.EINVALID, "Send at least one contact.")
	}
	n, err := s.Contacts.Import(r.Context(), tenant, list, rs)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]int{"imported": n}, nil
}

type jsonCampaign struct {
	ID           string    `json:"id"`
	Survey       string    `json:"survey"`
	List         string    `json:"list"`
	Subject      string    `json:"subject"`
	SendAt       time.Time `json:"sendAt"`
	RemindEvery  string    `json:"remindEvery,omitempty"`
	MaxReminders int       `json:"maxReminders"`
	CreatedOn    time.Time `json:"createdOn"`
	CreatedBy    string    `json:"createdBy"`
	Step         int       `json:"step"`
	Done         bool      `json:"done"`
	// Segment: the conditions (attribute = value, all holding) that
	// limit the campaign to part of its list; absent for all of it.
	Segment []survey.SegmentCondition `json:"segment,omitempty"`
	Totals  *CampaignTotals           `json:"totals,omitempty"`
}

func campaignJSON(c *store.Campaign, t *CampaignTotals) jsonCampaign {
	out := jsonCampaign{ID: c.ID, Survey: c.Survey, List: c.List, Subject: c.Subject, SendAt: c.SendAt, MaxReminders: c.MaxReminders,
		CreatedOn: c.CreatedOn, CreatedBy: c.CreatedBy, Step: c.Step, Done: c.Done, Segment: c.Segment, Totals: t}
	if c.MaxReminders > 0 {
		out.RemindEvery = c.RemindEvery.String()
	}
	return out
}

// listCampaigns is GET /surveys/{slug}/campaigns.
func (s *server) listCampaigns(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if err := s.contactsOn(); err != nil {
		return 0, nil, err
	}
	tenant, slug := tenantOf(r), chi.URLParam(r, "slug")
	if _, err := s.Surveys.Get(r.Context(), tenant, slug); err != nil {
		return 0, nil, err
	}
	cs, err := s.Campaigns.List(r.Context(), tenant, slug)
	if err != nil {
		return 0, nil, err
	}
	out := make([]jsonCampaign, 0, len(cs))
	for i := range cs {
		out = append(out, campaignJSON(&cs[i], nil))
	}
	return http.StatusOK, map[string]any{"campaigns": out}, nil
}

// getCampaign is GET /surveys/{slug}/campaigns/{id}: the campaign with
// its totals.
func (s *server) getCampaign(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if err := s.contactsOn(); err != nil {
		return 0, nil, err
	}
	c, t, err := s.CampaignReport(r.Context(), tenantOf(r), chi.URLParam(r, "slug"), strings.TrimSpace(chi.URLParam(r, "id")))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, campaignJSON(c, &t), nil
}
