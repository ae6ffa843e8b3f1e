package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// Databases checks and tests a tenant's own PostgreSQL database (the
// SurveySqlStore). Their errors' texts are written for a person.
type Databases interface {
	// Validate checks a connection string; the error says what to fix.
	Validate(connection string) error
	// Redact removes a password from a refused connection string, to show
	// it again.
	Redact(connection string) string
	// TestConnection connects and returns the server's version.
	TestConnection(ctx context.Context, connection, password string) (string, error)
	// SameDestination reports whether next reaches the same host, port,
	// user and database as saved, over TLS at least as strict.
	SameDestination(saved, next string) bool
}

// Transfers requests copies of a survey's answers into the tenant's
// database, and reads the status of the last one.
type Transfers interface {
	Request(ctx context.Context, tenant, slug string) error
	Status(ctx context.Context, tenant, slug string) (*store.TransferStatus, error)
}

type databasePage struct {
	User                      *store.Session
	Tenant                    *survey.Tenant
	Connection                string
	HasPassword, KeepsSecrets bool
	Configured                bool // a database is saved
	Saved, Removed            bool
	Tested                    string // the version, after a successful test
	TestError                 string
	TypedPassword             bool // a password was typed and not saved
	Errors                    map[string]string
	Message                   string
}

func (s *Server) databasePageFor(r *http.Request, t *survey.Tenant) databasePage {
	return databasePage{User: sessionFrom(r.Context()), Tenant: t, Connection: t.SQLConnection, HasPassword: t.SQLPassword != "",
		KeepsSecrets: s.tenantSettings.KeepsSecrets(), Configured: t.SQLConnection != ""}
}

// showDatabase shows the tenant's database settings. The password is never
// shown.
func (s *Server) showDatabase(w http.ResponseWriter, r *http.Request) error {
	if s.databases == nil {
		return notFound("Page not found.")
	}
	t, err := s.tenantSettings.Get(r.Context(), chi.URLParam(r, "tenant"))
	if err != nil {
		return err
	}
	page := s.databasePageFor(r, t)
	page.Saved, page.Removed = r.URL.Query().Get("saved") != "", r.URL.Query().Get("removed") != ""
	s.render(w, r, http.StatusOK, "database", page)
	return nil
}

// saveDatabase saves the connection string and password ("save"), tests
// them without saving ("test"), or removes them ("remove"). A blank
// password keeps the saved one while the destination is unchanged. Invalid input is shown beside its field
// (422) and nothing is saved.
func (s *Server) saveDatabase(w http.ResponseWriter, r *http.Request) error {
	if s.databases == nil {
		return notFound("Page not found.")
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		return survey.Errorf(survey.EINVALID, "The form could not be read.")
	}
	t, err := s.tenantSettings.Get(r.Context(), chi.URLParam(r, "tenant"))
	if err != nil {
		return err
	}
	f := r.PostForm
	action := f.Get("action")
	next := *t
	if action == "remove" {
		next.SQLConnection, next.SQLPassword = "", ""
		if err := s.tenantSettings.Update(r.Context(), &next); err != nil {
			return err
		}
		s.audit(r, survey.AuditDatabase, "", "removed")
		http.Redirect(w, r, "/"+t.Key+"/settings/database?removed=1", http.StatusSeeOther)
		return nil
	}
	if action != "save" && action != "test" {
		return survey.Errorf(survey.EINVALID, "Choose Save, Test connection or Remove.")
	}
	next.SQLConnection = strings.TrimSpace(f.Get("connection"))
	typed := f.Get("password")
	if typed != "" {
		next.SQLPassword = typed
	}
	page := s.databasePageFor(r, &next)
	page.HasPassword, page.Configured, page.TypedPassword = t.SQLPassword != "", t.SQLConnection != "", typed != ""
	fail := func(fields map[string]string) error {
		page.Errors, page.Message = fields, "The database was not saved; see each field."
		if action == "test" {
			page.Message = "The connection was not tested; see each field."
		}
		s.render(w, r, http.StatusUnprocessableEntity, "database", page)
		return nil
	}
	if err := s.databases.Validate(next.SQLConnection); err != nil {
		page.Connection = s.databases.Redact(next.SQLConnection) // never a password shown again
		return fail(map[string]string{"connection": err.Error()})
	}
	if len(typed) > 1024 {
		return fail(map[string]string{"password": "Keep the password to 1024 characters."})
	}
	// The saved password goes only where it was saved for: re-pointed at
	// another host, port, user or database, it must be typed again (else
	// anyone of the tenant could send it to a server of theirs).
	if typed == "" && t.SQLPassword != "" && !s.databases.SameDestination(t.SQLConnection, next.SQLConnection) {
		return fail(map[string]string{"password": destinationChanged})
	}
	if action == "test" {
		v, err := s.databases.TestConnection(r.Context(), next.SQLConnection, next.SQLPassword)
		if err != nil {
			s.log.Info("database test failed", "tenant", t.Key, "err", err)
			page.TestError = err.Error()
		} else {
			page.Tested = v
		}
		s.render(w, r, http.StatusOK, "database", page)
		return nil
	}
	if next.SQLPassword != t.SQLPassword && !page.KeepsSecrets {
		return fail(map[string]string{"password": noPasswordKeyMessage})
	}
	if err := s.tenantSettings.Update(r.Context(), &next); err != nil {
		if survey.ErrorCode(err) == survey.EINVALID {
			return fail(map[string]string{"password": survey.ErrorMessage(err)})
		}
		return err
	}
	s.audit(r, survey.AuditDatabase, "", "saved")
	http.Redirect(w, r, "/"+t.Key+"/settings/database?saved=1", http.StatusSeeOther)
	return nil
}

// destinationChanged is the answer to a blank secret with a new
// destination.
const destinationChanged = "Enter the password again: the destination changed."

const noPasswordKeyMessage = "This server keeps no secrets: its operator must set SURVEYS_SECRET_KEY (or SURVEYS_SECRET_KEY_FILE) before a database password can be saved."

// requestTransfer puts a copy of the survey's answers into the tenant's
// database on the queue, then goes back to the survey's analysis (303).
func (s *Server) requestTransfer(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	if s.transfers == nil {
		return notFound("Page not found.")
	}
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	t, err := s.tenants.Get(r.Context(), tenant)
	if err != nil {
		return err
	}
	if t.SQLConnection == "" {
		return survey.Errorf(survey.EINVALID, "There is no database to copy the answers to: set one up in Settings › Your database (/%s/settings/database) first.", tenant)
	}
	if err := s.transfers.Request(r.Context(), tenant, sv.Slug); err != nil {
		return err
	}
	http.Redirect(w, r, "/"+tenant+"/surveys/"+sv.Slug+"/analyze?transfer=requested#transfer", http.StatusSeeOther)
	return nil
}

// transferView is the analysis page's view of the last transfer.
type transferView struct {
	Enabled     bool // the server can transfer
	HasDatabase bool
	Requested   bool // just requested (the redirect)
	Status      *store.TransferStatus
}

// transferViewFor reads the survey's transfer status for its page.
func (s *Server) transferViewFor(r *http.Request, tenant, slug string) (transferView, error) {
	if s.transfers == nil {
		return transferView{}, nil
	}
	v := transferView{Enabled: true, Requested: r.URL.Query().Get("transfer") == "requested"}
	t, err := s.tenants.Get(r.Context(), tenant)
	if err != nil {
		return v, err
	}
	v.HasDatabase = t.SQLConnection != ""
	st, err := s.transfers.Status(r.Context(), tenant, slug)
	switch {
	case err == nil:
		v.Status = st
	case survey.ErrorCode(err) != survey.ENOTFOUND:
		return v, err
	}
	return v, nil
}
