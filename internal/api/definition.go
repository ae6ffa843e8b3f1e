package api

import (
	"bytes"
	"context"
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
	"github.com/surveys-dev/surveys/internal/theme"
)

// A survey's definition travels between tenants and instances as JSON: its
// texts and questions (each with its kind's settings, as the API takes
// them) and its logic, never its answers, state or slug. Its questions'
// IDs are q1, q2 … (which its rules name); importing one makes a new
// draft, whose questions get IDs of their own.

// definitionFormat names the format, so that it can change.
const definitionFormat = "surveys.definition/1"

// MaxDefinition bounds an imported definition.
const MaxDefinition = 1 << 20

// Definition is a survey's definition as it travels (DefinitionOf,
// ParseDefinition).
type Definition struct {
	Format      string         `json:"format"`
	Title       string         `json:"title"`
	Description string         `json:"description,omitempty"`
	ThankYou    string         `json:"thankYou,omitempty"`
	Sections    []jsonSection  `json:"sections,omitempty"`
	Questions   []jsonQuestion `json:"questions"`
	// HiddenFields and Prefill (absent from definitions made before
	// them): the values the link may carry, and whether it may prefill
	// questions.
	HiddenFields []string `json:"hiddenFields,omitempty"`
	Prefill      bool     `json:"prefill,omitempty"`
	// SendCopy (absent from definitions made before it, and when off):
	// respondents may e-mail themselves a copy of their answers.
	SendCopy bool `json:"sendCopy,omitempty"`
	// Variables, Outcomes, ShowCorrect, Redirect and RedirectFields
	// (absent from definitions made before them): the scoring, its
	// variables naming questions q1, q2 ….
	survey.Scoring
	// KeepPartialMinutes (absent from definitions made before it, and
	// when none are kept): partial answers kept that long.
	KeepPartialMinutes int `json:"keepPartialMinutes,omitempty"`
	// Quotas (absent from definitions made before them): their rules
	// name questions q1, q2 …; the counts do not travel.
	Quotas []survey.Quota `json:"quotas,omitempty"`
	// Language and Translations (absent from definitions made before
	// them, which import as English without translations): the texts'
	// language and their translations, questions named q1, q2 ….
	Language     string                        `json:"language,omitempty"`
	Translations map[string]survey.Translation `json:"translations,omitempty"`
	// Theme (absent from definitions made before themes, and when the
	// survey takes its organisation's): the survey's own look. Its
	// background image, another tenant's, is copied as a picture is.
	Theme *theme.Theme `json:"theme,omitempty"`
}

// DefinitionOf is what respondents see of sv, as a definition.
func DefinitionOf(sv *survey.Survey) Definition {
	d := Definition{Format: definitionFormat, Title: sv.Title, Description: sv.Description, ThankYou: sv.ThankYou, Questions: []jsonQuestion{}}
	cp := sv.Duplicate(time.Now())
	d.Sections = jsonSections(cp.Sections)
	for _, q := range cp.Questions {
		d.Questions = append(d.Questions, jsonQuestionOf(q))
	}
	d.HiddenFields, d.Prefill, d.SendCopy = cp.HiddenFields, cp.Prefill, cp.SendCopy
	d.Scoring = cp.Scoring
	d.KeepPartialMinutes = int(cp.KeepPartial / time.Minute)
	d.Quotas = cp.Quotas
	d.Language, d.Translations = cp.Language, cp.Translations
	d.Theme = cp.Theme
	return d
}

// ParseDefinition reads a definition into a new draft of tenant; a bad one
// is an EINVALID *Error whose Fields say what is wrong ("definition" for
// the whole, "questions.N.<setting>" for a question). Its pictures must
// be tenant's images: ImportDefinition copies another tenant's first.
func ParseDefinition(tenant string, data []byte) (*survey.Survey, error) {
	return ImportDefinition(context.Background(), tenant, data, nil)
}

// PictureCopier copies an image of the public images' container (a logo
// or a picture, of any tenant: they are served to anyone) as a picture of
// tenant, checked again as an upload is; store.LogoStore is one.
type PictureCopier interface {
	CopyPicture(ctx context.Context, name, tenant string) (string, error)
}

// ImportDefinition is ParseDefinition that first copies, with pics, the
// pictures of picture choices named as another tenant's images (a
// definition exported by another tenant of this instance), so that the
// draft is tenant's own. A picture not found here is named beside its
// field ("questions.N.pictures.M.image"). Without pics, none is copied.
func ImportDefinition(ctx context.Context, tenant string, data []byte, pics PictureCopier) (*survey.Survey, error) {
	var d Definition
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
		HiddenFields: d.HiddenFields, Prefill: d.Prefill, SendCopy: d.SendCopy, Quotas: d.Quotas, Language: d.Language, Translations: d.Translations,
		KeepPartial: time.Duration(d.KeepPartialMinutes) * time.Minute, Theme: d.Theme}
	if sv.Theme != nil {
		sv.Theme.Normalize()
	}
	sv.Scoring = d.Scoring
	for _, q := range d.Questions {
		sv.Questions = append(sv.Questions, q.question())
	}
	if err := adoptPictures(ctx, sv, pics); err != nil {
		return nil, err
	}
	if errs := sv.Problems(); errs != nil {
		for i, q := range sv.Questions {
			if !q.Type.Valid() {
				errs["questions."+strconv.Itoa(i)+".type"] = fmt.Sprintf("Unknown type %q; the types are %s.", q.Type, knownTypes())
			}
		}
		return nil, &survey.Error{Code: survey.EINVALID, Message: "The definition has problems; see each field.", Fields: errs}
	}
	return sv, nil
}

// adoptPictures copies the pictures of sv's questions that are images of
// another tenant as sv's tenant's, each image once.
func adoptPictures(ctx context.Context, sv *survey.Survey, pics PictureCopier) error {
	if pics == nil {
		return nil
	}
	copied := map[string]string{}
	missing := map[string]string{}
	for i := range sv.Questions {
		for j, p := range sv.Questions[i].Pictures {
			if !survey.ValidImageName(p.Image) || survey.ImageOfTenant(p.Image, sv.Tenant) {
				continue // none, or tenant's own (or not an image name: validation says so)
			}
			name, ok := copied[p.Image]
			if !ok {
				var err error
				name, err = pics.CopyPicture(ctx, p.Image, sv.Tenant)
				switch {
				case survey.ErrorCode(err) == survey.ENOTFOUND:
					missing["questions."+strconv.Itoa(i)+".pictures."+strconv.Itoa(j)+".image"] = "This picture is not on this server (the definition came from another one): upload it again."
					continue
				case err != nil:
					return err
				}
				copied[p.Image] = name
			}
			sv.Questions[i].Pictures[j].Image = name
		}
	}
	if th := sv.Theme; th != nil && survey.ValidImageName(th.Image) && !survey.ImageOfTenant(th.Image, sv.Tenant) {
		name, err := pics.CopyPicture(ctx, th.Image, sv.Tenant)
		switch {
		case survey.ErrorCode(err) == survey.ENOTFOUND:
			missing["theme.image"] = "This background image is not on this server (the definition came from another one): upload it again."
		case err != nil:
			return err
		default:
			th.Image = name
		}
	}
	if len(missing) > 0 {
		return &survey.Error{Code: survey.EINVALID, Message: "The definition has problems; see each field.", Fields: missing}
	}
	return nil
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

// getDefinition is a survey's definition.
func (s *server) getDefinition(w http.ResponseWriter, r *http.Request) (int, any, error) {
	sv, err := s.Surveys.Get(r.Context(), tenantOf(r), chi.URLParam(r, "slug"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, DefinitionOf(sv), nil
}

// importSurvey makes a new draft from a definition; 201 with the survey.
func (s *server) importSurvey(w http.ResponseWriter, r *http.Request) (int, any, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxDefinition))
	if err != nil {
		return 0, nil, survey.Errorf(survey.EINVALID, "A definition is at most 1 MiB.")
	}
	sv, err := ImportDefinition(r.Context(), tenantOf(r), data, s.Pictures)
	if err != nil {
		return 0, nil, err
	}
	if err := s.Editor.Create(r.Context(), sv); err != nil {
		return 0, nil, err
	}
	s.audit(r, survey.AuditSurveyCreated, sv.Slug, "imported")
	return http.StatusCreated, s.toJSON(r.Context(), sv), nil
}
