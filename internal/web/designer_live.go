package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// The designer edited in place (web/static/designer.js): with JavaScript
// its buttons post the same form to the same routes, with the header
// X-Designer: live, and get back the designer's block "designer-live"
// (its summary of problems and its form) instead of the whole page, from
// the same template and the same handler (saveSurvey): one source of
// markup and validation for both paths. A draft is also saved as it is
// typed: the form posted with action=autosave, answered in JSON.

// liveEdit reports whether the request is the designer's script asking
// for its block alone.
func liveEdit(r *http.Request) bool { return r.Header.Get("X-Designer") == "live" }

// autosaveReply is the answer to an autosave: what the designer's status
// line says.
type autosaveReply struct {
	// State is "saved", "invalid" (Message says the first problem, Field
	// is its control's id) or "conflict" (saved by someone else since,
	// or not a draft: Message says so).
	State   string `json:"state"`
	Message string `json:"message,omitempty"`
	Field   string `json:"field,omitempty"`
	// Version is the saved version, which the next save names; Edit the
	// designer's address of a survey saved for the first time.
	Version string `json:"version,omitempty"`
	Edit    string `json:"edit,omitempty"`
}

// autosave saves a new survey or a draft as typed, when it is valid (a
// draft that is not stays as last saved, and the reply says why); never a
// published survey (its edits are saved, and confirmed, by its button),
// and never over a version saved by someone else since the form's.
func (s *Server) autosave(w http.ResponseWriter, r *http.Request, page designerPage, slug string) error {
	if page.Survey != nil && (page.Survey.State != survey.Draft || page.Survey.Trashed()) {
		return writeAutosave(w, http.StatusConflict, autosaveReply{State: "conflict", Message: "Not saved automatically: this survey is " + string(page.Survey.State) + "; use its Save button."})
	}
	sv, own := page.definition(time.Now())
	if errs := definitionProblems(sv, own); errs != nil {
		// The first problem as the page's summary would list it (it lists
		// every one of errs).
		page.setErrors(errs)
		first := designerProblem{Message: "the survey has problems; see each field."}
		if len(page.Problems) > 0 {
			first = page.Problems[0]
		}
		return writeAutosave(w, http.StatusUnprocessableEntity, autosaveReply{State: "invalid", Message: "Not saved: " + first.Message, Field: first.Field})
	}
	var err error
	if page.Survey == nil {
		err = s.editor.Create(r.Context(), sv)
	} else {
		sv.Slug = slug
		err = s.editor.Update(r.Context(), sv)
	}
	var e *survey.Error
	switch {
	case errors.As(err, &e) && e.Code == survey.ECONFLICT:
		return writeAutosave(w, http.StatusConflict, autosaveReply{State: "conflict", Message: e.Message})
	case errors.As(err, &e) && (e.Code == survey.EINVALID || e.Code == survey.EFORBIDDEN):
		return writeAutosave(w, http.StatusUnprocessableEntity, autosaveReply{State: "invalid", Message: "Not saved: " + e.Message})
	case err != nil:
		return err
	}
	if page.Survey == nil {
		s.audit(r, survey.AuditSurveyCreated, sv.Slug, "autosaved")
	} else {
		s.auditAutosave(r, sv.Slug)
	}
	reply := autosaveReply{State: "saved", Version: sv.Version}
	if page.Survey == nil {
		reply.Edit = "/" + page.Tenant + "/surveys/" + sv.Slug + "/edit"
	}
	return writeAutosave(w, http.StatusOK, reply)
}

func writeAutosave(w http.ResponseWriter, status int, reply autosaveReply) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(reply)
}
