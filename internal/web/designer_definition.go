package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/api"
	"github.com/surveys-dev/surveys/internal/survey"
)

// definitionFile downloads a survey's definition.
func (s *Server) definitionFile(w http.ResponseWriter, r *http.Request) error {
	sv, err := s.surveys.Get(r.Context(), chi.URLParam(r, "tenant"), chi.URLParam(r, "slug"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+sv.Slug+`.survey.json"`)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(api.DefinitionOf(sv))
}

// importPage takes a definition, as a file or pasted.
type importPage struct {
	Tenant string
	Pasted string
	Errors map[string]string
	// Problems lists the definition's problems by field, in order.
	Problems []string
}

func (s *Server) showImport(w http.ResponseWriter, r *http.Request) error {
	s.render(w, r, http.StatusOK, "import", importPage{Tenant: chi.URLParam(r, "tenant")})
	return nil
}

// importSurvey makes a new draft from a definition (a file, or else the
// pasted text) and lands on its designer; a bad one is a 422 that says what
// is wrong, and nothing is made.
func (s *Server) importSurvey(w http.ResponseWriter, r *http.Request) error {
	tenant := chi.URLParam(r, "tenant")
	r.Body = http.MaxBytesReader(w, r.Body, api.MaxDefinition+64<<10)
	if err := r.ParseMultipartForm(api.MaxDefinition); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		return survey.Errorf(survey.EINVALID, "The form could not be read (a definition is at most 1 MiB).")
	}
	page := importPage{Tenant: tenant, Pasted: r.PostFormValue("definition")}
	data := []byte(page.Pasted)
	if f, _, err := r.FormFile("file"); err == nil {
		defer f.Close()
		if data, err = io.ReadAll(io.LimitReader(f, api.MaxDefinition+1)); err != nil {
			return err
		}
	}
	fail := func(errs map[string]string) error {
		page.Errors = errs
		for k, v := range errs {
			if k != "definition" {
				page.Problems = append(page.Problems, k+": "+v)
			}
		}
		if page.Errors["definition"] == "" {
			page.Errors["definition"] = "The definition has problems: see the list above."
		}
		s.render(w, r, http.StatusUnprocessableEntity, "import", page)
		return nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return fail(map[string]string{"definition": "Choose a definition file (.survey.json) or paste one."})
	}
	if len(data) > api.MaxDefinition {
		return fail(map[string]string{"definition": "A definition is at most 1 MiB."})
	}
	sv, err := api.ImportDefinition(r.Context(), tenant, data, s.logos)
	var e *survey.Error
	if errors.As(err, &e) && e.Code == survey.EINVALID {
		return fail(e.Fields)
	}
	if err != nil {
		return err
	}
	if err := s.editor.Create(r.Context(), sv); err != nil {
		return err
	}
	s.audit(r, survey.AuditSurveyCreated, sv.Slug, "imported")
	http.Redirect(w, r, "/"+tenant+"/surveys/"+sv.Slug+"/edit", http.StatusSeeOther)
	return nil
}
