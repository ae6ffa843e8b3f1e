package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Contacts keeps a tenant's contact lists (store.ContactStore).
type Contacts interface {
	CreateList(ctx context.Context, tenant, name string) (*store.ContactList, error)
	Lists(ctx context.Context, tenant string) ([]store.ContactList, error)
	List(ctx context.Context, tenant, id string) (*store.ContactList, error)
	Contacts(ctx context.Context, tenant, list string) ([]store.Contact, error)
	Contact(ctx context.Context, tenant, list, id string) (*store.Contact, error)
	Add(ctx context.Context, tenant, list string, r survey.Recipient) (*store.Contact, error)
	Import(ctx context.Context, tenant, list string, rs []survey.Recipient) (int, error)
	Update(ctx context.Context, tenant, list, id, name string, attrs map[string]string) (*store.Contact, error)
	Remove(ctx context.Context, tenant, list, id string) error
	DeleteList(ctx context.Context, tenant, list string) error
	Suppress(ctx context.Context, tenant, addr, reason string) error
	Suppressions(ctx context.Context, tenant string) (map[string]store.Suppression, error)
	Attributes(ctx context.Context, tenant string) (map[string][]string, error)
}

// maxContactsCSV bounds an imported CSV file.
const maxContactsCSV = 2 << 20

// contactsPage is a tenant's contact lists.
type contactsPage struct {
	Tenant string
	Lists  []store.ContactList
	Name   string
	Errors map[string]string
}

func (s *Server) contactStore() (Contacts, error) {
	if s.contacts == nil {
		return nil, notFound("Contacts are not available on this server.")
	}
	return s.contacts, nil
}

// showContacts lists the tenant's contact lists, with the form that
// makes one.
func (s *Server) showContacts(w http.ResponseWriter, r *http.Request) error {
	return s.renderContacts(w, r, http.StatusOK, contactsPage{})
}

func (s *Server) renderContacts(w http.ResponseWriter, r *http.Request, status int, p contactsPage) error {
	cs, err := s.contactStore()
	if err != nil {
		return err
	}
	p.Tenant = chi.URLParam(r, "tenant")
	if p.Lists, err = cs.Lists(r.Context(), p.Tenant); err != nil {
		return err
	}
	s.render(w, r, status, "contacts", p)
	return nil
}

// createContactList makes a list; a bad name: 422 beside it.
func (s *Server) createContactList(w http.ResponseWriter, r *http.Request) error {
	cs, err := s.contactStore()
	if err != nil {
		return err
	}
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	tenant := chi.URLParam(r, "tenant")
	l, err := cs.CreateList(r.Context(), tenant, r.PostForm.Get("name"))
	if fields := invalidFields(err); fields != nil {
		return s.renderContacts(w, r, http.StatusUnprocessableEntity, contactsPage{Name: r.PostForm.Get("name"), Errors: fields})
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/"+tenant+"/contacts/"+l.ID, http.StatusSeeOther)
	return nil
}

// invalidFields is the fields' messages of an EINVALID *survey.Error,
// nil for any other error.
func invalidFields(err error) map[string]string {
	var e *survey.Error
	if errors.As(err, &e) && e.Code == survey.EINVALID {
		if len(e.Fields) == 0 {
			return map[string]string{"form": e.Message}
		}
		return e.Fields
	}
	return nil
}

// contactListPage is one list: its contacts, the forms that add and
// import, and an import's preview.
type contactListPage struct {
	Tenant   string
	List     *store.ContactList
	Contacts []store.Contact
	Flagged  int
	// The add form as sent, and its errors.
	Email, Name, Attrs string
	Errors             map[string]string
	// Preview is an import read but not saved; CSV, its text (sent again
	// to save it).
	Preview  *survey.ContactImport
	CSV      string
	Imported int
	Added    string
}

// AttrList writes a contact's attributes for a table cell.
func (contactListPage) AttrList(c store.Contact) string { return attrText(c.Attrs, ", ") }

func attrText(attrs map[string]string, sep string) string {
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + attrs[k]
	}
	return strings.Join(parts, sep)
}

func (s *Server) contactListPage(r *http.Request) (contactListPage, error) {
	cs, err := s.contactStore()
	if err != nil {
		return contactListPage{}, err
	}
	tenant := chi.URLParam(r, "tenant")
	l, err := cs.List(r.Context(), tenant, chi.URLParam(r, "list"))
	if err != nil {
		return contactListPage{}, err
	}
	p := contactListPage{Tenant: tenant, List: l}
	if p.Contacts, err = cs.Contacts(r.Context(), tenant, l.ID); err != nil {
		return p, err
	}
	for _, c := range p.Contacts {
		if c.Suppressed() {
			p.Flagged++
		}
	}
	return p, nil
}

// showContactList shows a list's contacts.
func (s *Server) showContactList(w http.ResponseWriter, r *http.Request) error {
	p, err := s.contactListPage(r)
	if err != nil {
		return err
	}
	p.Imported, _ = strconv.Atoi(r.URL.Query().Get("imported"))
	p.Added = r.URL.Query().Get("added")
	s.render(w, r, http.StatusOK, "contactlist", p)
	return nil
}

// addContact adds one contact; a bad address, name or attribute, or an
// address in the list already: 422 beside the field, nothing added.
func (s *Server) addContact(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	p, err := s.contactListPage(r)
	if err != nil {
		return err
	}
	p.Email, p.Name, p.Attrs = r.PostForm.Get("email"), r.PostForm.Get("name"), r.PostForm.Get("attrs")
	attrs, err := survey.ParseContactAttrs(p.Attrs)
	if err == nil {
		var c *store.Contact
		c, err = s.contacts.Add(r.Context(), p.Tenant, p.List.ID, survey.Recipient{Email: p.Email, Name: p.Name, Attrs: attrs})
		if err == nil {
			http.Redirect(w, r, "/"+p.Tenant+"/contacts/"+p.List.ID+"?added="+c.ID, http.StatusSeeOther)
			return nil
		}
	}
	if p.Errors = invalidFields(err); p.Errors == nil {
		return err
	}
	s.render(w, r, http.StatusUnprocessableEntity, "contactlist", p)
	return nil
}

// importContacts reads a CSV file (uploaded, or pasted) of contacts and
// shows what it holds, row by row with each row's problem; sent again
// with "confirm", it adds the good rows. A file that cannot be read at
// all: 422 beside the field, nothing added.
func (s *Server) importContacts(w http.ResponseWriter, r *http.Request) error {
	// A file sent URL-encoded (a script's, or pasted) may triple in size;
	// the page sends it as multipart.
	r.Body = http.MaxBytesReader(w, r.Body, 3*maxContactsCSV+64<<10)
	var text string
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		if err := r.ParseMultipartForm(2*maxContactsCSV + 64<<10); err != nil {
			return survey.Errorf(survey.EINVALID, "The file could not be read: keep it under 2 MB.")
		}
		if f, _, err := r.FormFile("file"); err == nil {
			b, err := io.ReadAll(io.LimitReader(f, maxContactsCSV+1))
			f.Close()
			if err != nil {
				return survey.Errorf(survey.EINVALID, "The file could not be read.")
			}
			text = string(b)
		}
	} else if err := r.ParseForm(); err != nil {
		return survey.Errorf(survey.EINVALID, "The form could not be read: keep the file under 2 MB.")
	}
	if text == "" {
		text = r.PostForm.Get("csv")
	}
	p, err := s.contactListPage(r)
	if err != nil {
		return err
	}
	if len(text) > maxContactsCSV {
		p.Errors = map[string]string{"csv": "The file is larger than 2 MB: split it."}
		s.render(w, r, http.StatusUnprocessableEntity, "contactlist", p)
		return nil
	}
	known := map[string]bool{}
	for _, c := range p.Contacts {
		known[c.Email] = true
	}
	im, err := survey.ParseContactsCSV(strings.NewReader(text), known)
	if p.Errors = invalidFields(err); p.Errors != nil {
		if strings.TrimSpace(text) == "" {
			p.Errors = map[string]string{"csv": "Choose a CSV file, or paste its text: a header row (email, name, and any attributes), then one contact a row."}
		}
		s.render(w, r, http.StatusUnprocessableEntity, "contactlist", p)
		return nil
	}
	if err != nil {
		return err
	}
	if r.PostForm.Get("confirm") == "" || im.Good() == 0 {
		p.Preview, p.CSV = im, text
		s.render(w, r, http.StatusOK, "contactlist", p)
		return nil
	}
	n, err := s.contacts.Import(r.Context(), p.Tenant, p.List.ID, im.Contacts())
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/"+p.Tenant+"/contacts/"+p.List.ID+"?imported="+strconv.Itoa(n), http.StatusSeeOther)
	return nil
}

// contactPage is one contact, to edit or remove.
type contactPage struct {
	Tenant  string
	List    *store.ContactList
	Contact *store.Contact
	Name    string
	Attrs   string
	Errors  map[string]string
}

func (s *Server) contactPage(r *http.Request) (contactPage, error) {
	cs, err := s.contactStore()
	if err != nil {
		return contactPage{}, err
	}
	tenant := chi.URLParam(r, "tenant")
	l, err := cs.List(r.Context(), tenant, chi.URLParam(r, "list"))
	if err != nil {
		return contactPage{}, err
	}
	c, err := cs.Contact(r.Context(), tenant, l.ID, chi.URLParam(r, "contact"))
	if err != nil {
		return contactPage{}, err
	}
	return contactPage{Tenant: tenant, List: l, Contact: c, Name: c.Name, Attrs: attrText(c.Attrs, "\n")}, nil
}

// showContact shows the form that edits a contact.
func (s *Server) showContact(w http.ResponseWriter, r *http.Request) error {
	p, err := s.contactPage(r)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "contact", p)
	return nil
}

// saveContact changes a contact's name and attributes (its address, and
// its flags, stay); 422 beside the field, nothing changed.
func (s *Server) saveContact(w http.ResponseWriter, r *http.Request) error {
	if err := parseSmallForm(w, r); err != nil {
		return err
	}
	p, err := s.contactPage(r)
	if err != nil {
		return err
	}
	p.Name, p.Attrs = r.PostForm.Get("name"), r.PostForm.Get("attrs")
	attrs, err := survey.ParseContactAttrs(p.Attrs)
	if err == nil {
		_, err = s.contacts.Update(r.Context(), p.Tenant, p.List.ID, p.Contact.ID, p.Name, attrs)
	}
	if p.Errors = invalidFields(err); p.Errors != nil {
		s.render(w, r, http.StatusUnprocessableEntity, "contact", p)
		return nil
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/"+p.Tenant+"/contacts/"+p.List.ID, http.StatusSeeOther)
	return nil
}

// removeContact takes a contact out of the list (its address's flags
// stay: an address that unsubscribed is never mailed again).
func (s *Server) removeContact(w http.ResponseWriter, r *http.Request) error {
	p, err := s.contactPage(r)
	if err != nil {
		return err
	}
	if err := s.contacts.Remove(r.Context(), p.Tenant, p.List.ID, p.Contact.ID); err != nil {
		return err
	}
	http.Redirect(w, r, "/"+p.Tenant+"/contacts/"+p.List.ID, http.StatusSeeOther)
	return nil
}

// confirmDeleteContactList asks before a list goes, naming what is lost.
func (s *Server) confirmDeleteContactList(w http.ResponseWriter, r *http.Request) error {
	p, err := s.contactListPage(r)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "contactlist_delete", p)
	return nil
}

// deleteContactList deletes the list and its contacts.
func (s *Server) deleteContactList(w http.ResponseWriter, r *http.Request) error {
	p, err := s.contactListPage(r)
	if err != nil {
		return err
	}
	if err := s.contacts.DeleteList(r.Context(), p.Tenant, p.List.ID); err != nil {
		return err
	}
	http.Redirect(w, r, "/"+p.Tenant+"/contacts", http.StatusSeeOther)
	return nil
}
