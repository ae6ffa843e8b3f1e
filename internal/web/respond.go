package web

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// PublicSurveys serves the definitions respondents see (cached).
type PublicSurveys interface {
	Survey(ctx context.Context, tenant, slug string) (*survey.Survey, error)
	Tenant(ctx context.Context, key string) (*survey.Tenant, error)
}

// AnswerNotifier makes an answer durable on the answers queue; the worker
// files and counts it.
type AnswerNotifier interface {
	Notify(ctx context.Context, a survey.SurveyAnswer, p survey.Plan) error
}

// maxAnswerBody bounds a respondent's POST: every question answered to
// its limit fits, even in characters of four UTF-8 bytes, each sent as
// twelve (%XX%XX%XX%XX), with room for the names and the token.
const maxAnswerBody = survey.MaxQuestions*(survey.MaxTextAnswerLength*12+64) + 4096

type surveyPage struct {
	Tenant  *survey.Tenant
	Survey  *survey.Survey
	LogoURL string
	Token   string
	Values  map[string]string
	Errors  map[string]string
	// Preview shows the form to its subscriber, without a way to submit.
	Preview bool
}

// publicSurvey finds a survey respondents may see: published or closed, of
// a tenant that is not suspended.
func (s *Server) publicSurvey(r *http.Request) (*survey.Tenant, *survey.Survey, error) {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	t, err := s.public.Tenant(r.Context(), tenant)
	if err != nil {
		return nil, nil, err
	}
	sv, err := s.public.Survey(r.Context(), tenant, slug)
	if err != nil {
		return nil, nil, err
	}
	if t.Suspended || sv.State == survey.Draft {
		return nil, nil, notFound("Survey not found.")
	}
	return t, sv, nil
}

// openSurvey is publicSurvey for a survey taking answers: a closed one gets
// the closed page (410) here, and a nil survey back.
func (s *Server) openSurvey(w http.ResponseWriter, r *http.Request) (*survey.Tenant, *survey.Survey, error) {
	t, sv, err := s.publicSurvey(r)
	if err != nil {
		return nil, nil, err
	}
	if sv.State == survey.Closed || !sv.Open(time.Now()) || t.CheckActive(time.Now()) != nil {
		// Closed, past its close date, or of a tenant whose trial ended.
		s.render(w, r, http.StatusGone, "closed", surveyPage{Tenant: t, Survey: sv})
		return nil, nil, nil
	}
	return t, sv, nil
}

func (s *Server) logoURL(t *survey.Tenant) string {
	if t.Logo == "" {
		return ""
	}
	return "/logos/" + t.Logo
}

// showSurvey renders the survey form, with a fresh one-time token that
// becomes the answer's ID.
func (s *Server) showSurvey(w http.ResponseWriter, r *http.Request) error {
	t, sv, err := s.openSurvey(w, r)
	if err != nil || sv == nil {
		return err
	}
	form, err := s.forms.get(t, sv, func() ([]byte, error) {
		return s.renderBytes("survey", surveyPage{Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Token: tokenMark})
	})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(form.head)
	_, _ = w.Write([]byte(store.NewAnswerID(time.Now())))
	_, _ = w.Write(form.tail)
	if s.viewCounter != nil {
		s.viewCounter.Add(t.Key, sv.Slug) // in memory; flushed to a queue
	}
	return nil
}

// submitSurvey checks an answer and makes it durable on the answers queue.
// An invalid form comes back (422) with the answers kept and each problem
// beside its question; an acknowledged answer redirects (303) to the
// thank-you page. Submitting the same form twice gives one answer: its
// token is the answer's ID.
func (s *Server) submitSurvey(w http.ResponseWriter, r *http.Request) error {
	t, sv, err := s.openSurvey(w, r)
	if err != nil || sv == nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxAnswerBody)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &survey.Error{Code: survey.EINVALID, Message: "Your answers are too long to send."}
		}
		return &survey.Error{Code: survey.EINVALID, Message: "The form could not be read; please reload the page and try again."}
	}
	values := make(map[string]string, len(sv.Questions))
	for _, q := range sv.Questions {
		values[q.ID] = r.PostForm.Get("q-" + q.ID)
	}
	token := r.PostForm.Get("token")
	if !store.ValidAnswerID(token) {
		token = store.NewAnswerID(time.Now())
	}
	a, err := survey.NewAnswer(sv, values)
	if err != nil {
		var e *survey.Error
		if !errors.As(err, &e) || e.Code != survey.EINVALID {
			return err
		}
		s.render(w, r, http.StatusUnprocessableEntity, "survey", surveyPage{
			Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Token: token, Values: values, Errors: e.Fields,
		})
		return nil
	}
	// The token is the answer's ID: the same form submitted twice is one
	// answer, filed and counted once by the worker.
	a.ID, a.CreatedOn = token, time.Now().UTC()
	if err := s.notifier.Notify(r.Context(), a, t.Plan); err != nil {
		return err
	}
	s.accepted.Inc()
	http.Redirect(w, r, "/survey/"+t.Key+"/"+sv.Slug+"/thankyou", http.StatusSeeOther)
	return nil
}

// thankYou is the page after a stored answer.
func (s *Server) thankYou(w http.ResponseWriter, r *http.Request) error {
	t, sv, err := s.publicSurvey(r)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "thankyou", surveyPage{Tenant: t, Survey: sv})
	return nil
}

// starValues lists the five-star choices, highest first: the page shows
// them lowest first, and CSS colours a choice and those below it.
func starValues() []int { return []int{5, 4, 3, 2, 1} }

func inc(i int) int { return i + 1 }
