package web

// Benchmarks of the respondent pages with in-memory fakes: they measure the
// HTTP, routing, rendering and validation cost only, no storage. Every
// helper here is named bench* so as not to clash with the package's other
// test files.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

const benchPath = "/survey/adatum/adatum-customer-satisfaction"

// benchTenant and benchSurvey mirror the demo survey: the three question
// types, four questions.
func benchTenant() *survey.Tenant {
	return &survey.Tenant{Key: "adatum", Name: "Adatum", Plan: survey.Premium}
}

func benchSurvey() *survey.Survey {
	const version = "0638800000000000000"
	qs := []survey.Question{
		{Text: "How satisfied are you with our service?", Type: survey.FiveStars},
		{Text: "Which of our products do you use most?", Type: survey.MultipleChoice,
			PossibleAnswers: []string{"Web portal", "Mobile app", "Desktop client", "API"}},
		{Text: "How likely are you to recommend us to a friend?", Type: survey.FiveStars},
		{Text: "What should we improve?", Type: survey.SimpleText},
	}
	for i := range qs {
		qs[i].ID = fmt.Sprintf("%s_%03d", version, i)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return &survey.Survey{
		Tenant: "adatum", Slug: "adatum-customer-satisfaction", Title: "Adatum customer satisfaction",
		State: survey.Published, CreatedOn: now, PublishedOn: now, Listed: true, Questions: qs,
	}
}

// benchPublic is an in-memory PublicSurveys holding one survey.
type benchPublic struct {
	tenant *survey.Tenant
	survey *survey.Survey
}

func (p benchPublic) Survey(_ context.Context, tenant, slug string) (*survey.Survey, error) {
	if tenant != p.survey.Tenant || slug != p.survey.Slug {
		return nil, notFound("Survey not found.")
	}
	return p.survey, nil
}

func (p benchPublic) Tenant(_ context.Context, key string) (*survey.Tenant, error) {
	if key != p.tenant.Key {
		return nil, notFound("Survey not found.")
	}
	return p.tenant, nil
}

// benchNotifier accepts everything and stores nothing.
type benchNotifier struct{}

func (benchNotifier) Notify(context.Context, survey.SurveyAnswer, survey.Plan) error { return nil }

// benchMixedSurvey is a survey of survey.MaxQuestions questions mixing
// every kind (each kind's example, in turn), and a source of the forms a
// respondent sends to it.
func benchMixedSurvey() (*survey.Survey, func(*rand.Rand) url.Values) {
	s := benchSurvey()
	s.Questions = nil
	var forms []func(*rand.Rand) survey.Form
	for i := 0; i < survey.MaxQuestions; i++ {
		q, form := surveytest.Example(survey.Kinds()[i%len(survey.Kinds())])
		q = surveytest.OfTenant(q, s.Tenant)
		q.ID = fmt.Sprintf("0638800000000000000_%03d", i)
		// Files come in a multipart form (BenchmarkUpload): what a
		// url-encoded form sends for them is dropped.
		q.Optional = q.Optional || survey.TakesFiles(q)
		s.Questions = append(s.Questions, q)
		forms = append(forms, form)
	}
	s.Normalize()
	return s, func(r *rand.Rand) url.Values {
		v := url.Values{}
		for i, form := range forms {
			for suffix, vs := range form(r) {
				name := "q-" + s.Questions[i].ID
				if suffix != "" {
					name += "-" + suffix
				}
				v[name] = vs
			}
		}
		return v
	}
}

// newBenchServer returns the server over the fakes, and its survey: the
// demo's, or sv when given.
func newBenchServer(b *testing.B, sv ...*survey.Survey) (*Server, benchPublic) {
	b.Helper()
	pub := benchPublic{tenant: benchTenant(), survey: benchSurvey()}
	if len(sv) > 0 {
		pub.survey = sv[0]
	}
	s, err := New(Deps{
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Public:   pub,
		Notifier: benchNotifier{},
	})
	if err != nil {
		b.Fatal(err)
	}
	return s, pub
}

// benchRender renders the survey page's template alone, as showSurvey
// calls it, b.N times.
func benchRender(b *testing.B, s *Server, pub benchPublic) {
	req := httptest.NewRequest(http.MethodGet, benchPath, nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		page := surveyPage{Tenant: pub.tenant, Survey: pub.survey, Token: store.NewAnswerID(time.Now())}
		s.render(rec, req, http.StatusOK, "survey", page)
		if rec.Code != http.StatusOK {
			b.Fatalf("render = %d\n%s", rec.Code, rec.Body)
		}
	}
}

// benchGet serves one GET of benchPath with h and checks the status.
func benchGet(b *testing.B, h http.Handler) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, benchPath, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		b.Fatalf("GET %s = %d\n%s", benchPath, rec.Code, rec.Body)
	}
	return rec
}

// benchPage is the survey page as the router renders it.
func benchPage(b *testing.B) []byte {
	b.Helper()
	s, _ := newBenchServer(b)
	return benchGet(b, s.Handler()).Body.Bytes()
}

func BenchmarkRenderSurveyPage(b *testing.B) {
	s, pub := newBenchServer(b)
	size := int64(len(benchPage(b)))

	// The template alone, as showSurvey calls it.
	b.Run("render", func(b *testing.B) {
		b.SetBytes(size)
		benchRender(b, s, pub)
	})

	// The whole request: cross-origin check, router, handler, render.
	b.Run("router", func(b *testing.B) {
		h := s.Handler()
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			benchGet(b, h)
		}
	})
}

// BenchmarkTrivialHandler is the ceiling for BenchmarkRenderSurveyPage: the
// same request to a handler writing the same page from memory.
func BenchmarkTrivialHandler(b *testing.B) {
	page := benchPage(b)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(page)
	})
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		benchGet(b, h)
	}
}

// BenchmarkSubmitAnswer posts a form through the router to fakes that store
// nothing: parsing, validation and the redirect, or the 422 re-render.
func BenchmarkSubmitAnswer(b *testing.B) {
	s, pub := newBenchServer(b)
	h := s.Handler()
	q := pub.survey.Questions
	// The token of a served form (one token, sent again and again: the
	// same answer each time).
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, benchPath, nil))
	m := regexp.MustCompile(`name="token" value="([^"]+)"`).FindStringSubmatch(rec.Body.String())
	if m == nil {
		b.Fatalf("GET %s = %d without a token", benchPath, rec.Code)
	}
	valid := url.Values{
		"token":        {m[1]},
		"q-" + q[0].ID: {"4"},
		"q-" + q[1].ID: {"Mobile app"},
		"q-" + q[2].ID: {"5"},
		"q-" + q[3].ID: {"Faster pages, please, and a dark theme."},
	}
	invalid := url.Values{"token": valid["token"], "q-" + q[0].ID: {"9"}, "q-" + q[1].ID: {"Fax"}}
	for _, tc := range []struct {
		name string
		form url.Values
		want int
	}{
		{"valid", valid, http.StatusSeeOther},
		{"invalid", invalid, http.StatusUnprocessableEntity},
	} {
		b.Run(tc.name, func(b *testing.B) {
			body := tc.form.Encode()
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, benchPath, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != tc.want {
					b.Fatalf("POST %s = %d, want %d\n%s", benchPath, rec.Code, tc.want, rec.Body)
				}
			}
		})
	}
}

// BenchmarkMixedSurvey renders and submits a survey of 50 questions mixing
// every kind: the page through the router (served from the cache of
// rendered forms, or rendered for each respondent when a question shuffles
// its choices), the template alone, and a valid answer posted (parsing,
// each kind's checks, the redirect).
func BenchmarkMixedSurvey(b *testing.B) {
	sv, forms := benchMixedSurvey()
	s, pub := newBenchServer(b, sv)
	h := s.Handler()
	b.Run("page", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchGet(b, h)
		}
	})
	b.Run("render", func(b *testing.B) { benchRender(b, s, pub) })
	b.Run("submit", func(b *testing.B) {
		m := regexp.MustCompile(`name="token" value="([^"]+)"`).FindStringSubmatch(benchGet(b, h).Body.String())
		if m == nil {
			b.Fatal("no token")
		}
		form := forms(rand.New(rand.NewPCG(1, 2)))
		form.Set("token", m[1])
		body := form.Encode()
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			req := httptest.NewRequest(http.MethodPost, benchPath, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusSeeOther {
				b.Fatalf("POST = %d\n%s", rec.Code, rec.Body)
			}
		}
	})
}
