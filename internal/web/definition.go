package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// A survey's definition travels between tenants and instances as JSON: its
// texts and questions (each with its kind's settings, as the API takes
// them) and its logic, never its answers, state or slug. Its questions'
// IDs are q1, q2 … (which its rules name); importing one makes a new
// draft, whose questions get IDs of their own.

// definitionFormat names the format, so that it can change.
const definitionFormat = "surveys.definition/1"

// maxDefinition bounds an imported definition.
const maxDefinition = 1 << 20

type definition struct {
	Format      string        `json:"format"`
	Title       string        `json:"title"`
	Description string        `json:"description,omitempty"`
	ThankYou    string        `json:"thankYou,omitempty"`
	Sections    []apiSection  `json:"sections,omitempty"`
	Questions   []apiQuestion `json:"questions"`
	// Language and Translations (absent from definitions made before
	// them, which import as English without translations): the texts'
	// language and their translations, questions named q1, q2 ….
	Language     string                        `json:"language,omitempty"`
	Translations map[string]survey.Translation `json:"translations,omitempty"`
}

// definitionOf is what respondents see of sv, as a definition.
func definitionOf(sv *survey.Survey) definition {
	d := definition{Format: definitionFormat, Title: sv.Title, Description: sv.Description, ThankYou: sv.ThankYou, Questions: []apiQuestion{}}
	cp := sv.Duplicate(time.Now())
	d.Sections = apiSections(cp.Sections)
	for _, q := range cp.Questions {
		d.Questions = append(d.Questions, apiQuestionOf(q))
	}
	d.Language, d.Translations = cp.Language, cp.Translations
	return d
}

// parseDefinition reads a definition into a new draft of tenant; a bad one
// is an EINVALID *Error whose Fields say what is wrong ("definition" for
// the whole, "questions.N.<setting>" for a question).
func parseDefinition(tenant string, data []byte) (*survey.Survey, error) {
	var d definition
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	bad := func(msg string) error {
		return &survey.Error{Code: survey.EINVALID, Message: msg, Fields: map[string]string{"definition": msg}}
	}
	if err := dec.Decode(&d); err != nil {
		return nil, bad(fmt.Sprintf("This is not a survey definition: %s.", jsonProblem(err)))
	}
	if dec.More() {
		return nil, bad("This is not a survey definition: there is more after its end.")
	}
	if d.Format != definitionFormat {
		return nil, bad(fmt.Sprintf("This is not a survey definition: its format is %q, not %q.", d.Format, definitionFormat))
	}
	sv := &survey.Survey{Tenant: tenant, Title: d.Title, Description: d.Description, ThankYou: d.ThankYou, State: survey.Draft, Sections: surveySections(d.Sections),
		Language: d.Language, Translations: d.Translations}
	for _, q := range d.Questions {
		sv.Questions = append(sv.Questions, q.question())
	}
	if errs := definitionProblems(sv, nil); errs != nil {
		for i, q := range sv.Questions {
			if !q.Type.Valid() {
				errs["questions."+strconv.Itoa(i)+".type"] = fmt.Sprintf("Unknown type %q; the types are %s.", q.Type, knownTypes())
			}
		}
		return nil, &survey.Error{Code: survey.EINVALID, Message: "The definition has problems; see each field.", Fields: errs}
	}
	return sv, nil
}

// jsonProblem says where JSON went wrong, without echoing the input.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("the JSON is broken at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s must be a %s", typ.Field, typ.Type)
	case errors.Is(err, io.EOF):
		return "it is empty"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON ends too soon (is it cut short?)"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "it has an unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return "the JSON cannot be read"
}

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
	return enc.Encode(definitionOf(sv))
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
	r.Body = http.MaxBytesReader(w, r.Body, maxDefinition+64<<10)
	if err := r.ParseMultipartForm(maxDefinition); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		return survey.Errorf(survey.EINVALID, "The form could not be read (a definition is at most 1 MiB).")
	}
	page := importPage{Tenant: tenant, Pasted: r.PostFormValue("definition")}
	data := []byte(page.Pasted)
	if f, _, err := r.FormFile("file"); err == nil {
		defer f.Close()
		if data, err = io.ReadAll(io.LimitReader(f, maxDefinition+1)); err != nil {
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
	if len(data) > maxDefinition {
		return fail(map[string]string{"definition": "A definition is at most 1 MiB."})
	}
	sv, err := parseDefinition(tenant, data)
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
	http.Redirect(w, r, "/"+tenant+"/surveys/"+sv.Slug+"/edit", http.StatusSeeOther)
	return nil
}

// apiDefinition is a survey's definition.
func (s *Server) apiDefinition(w http.ResponseWriter, r *http.Request) (int, any, error) {
	sv, err := s.surveys.Get(r.Context(), apiTenant(r), chi.URLParam(r, "slug"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, definitionOf(sv), nil
}

// apiImport makes a new draft from a definition; 201 with the survey.
func (s *Server) apiImport(w http.ResponseWriter, r *http.Request) (int, any, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxDefinition))
	if err != nil {
		return 0, nil, survey.Errorf(survey.EINVALID, "A definition is at most 1 MiB.")
	}
	sv, err := parseDefinition(apiTenant(r), data)
	if err != nil {
		return 0, nil, err
	}
	if err := s.editor.Create(r.Context(), sv); err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, toAPI(sv), nil
}
