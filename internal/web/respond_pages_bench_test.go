package web

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// benchPaged is benchSurvey on three pages: its first two questions, then
// one, then one.
func benchPaged() *survey.Survey {
	s := benchSurvey()
	s.Sections = []survey.Section{{ID: "a", Title: "About you"}, {ID: "b", Title: "Products", Description: "What you use"}, {ID: "c", Title: "Last words"}}
	for i, sec := range []string{"a", "a", "b", "c"} {
		s.Questions[i].Section = sec
	}
	return s
}

// BenchmarkPageRender compares the respondent's page of a one-page survey
// with the pages of the same survey on three: the first page through the
// router (both from the cache of rendered forms), and the next page
// (a POST: the token checked, the page's answers checked, the state of the
// other pages opened and sealed again, the page rendered) against the
// one-page form's template render.
func BenchmarkPageRender(b *testing.B) {
	for _, tc := range []struct {
		name string
		sv   *survey.Survey
	}{{"one-page", benchSurvey()}, {"three-pages", benchPaged()}} {
		s, pub := newBenchServer(b, tc.sv)
		h := s.Handler()
		b.Run(tc.name+"/first", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchGet(b, h)
			}
		})
		b.Run(tc.name+"/render", func(b *testing.B) { benchRender(b, s, pub) })
		if tc.name == "one-page" {
			continue
		}
		q := pub.survey.Questions
		m := regexp.MustCompile(`name="token" value="([^"]+)"`).FindStringSubmatch(benchGet(b, h).Body.String())
		if m == nil {
			b.Fatal("no token")
		}
		body := url.Values{"token": {m[1]}, "action": {"next"}, "q-" + q[0].ID: {"4"}, "q-" + q[1].ID: {"Mobile app"}}.Encode()
		b.Run(tc.name+"/next", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, benchPath, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("POST = %d\n%s", rec.Code, rec.Body)
				}
			}
		})
	}
}

// benchRules is benchPaged with logic on questions and sections: the
// product question shows after more than 2 stars (the same page), the
// products page only for two of them, the last question unless one star
// (an earlier page), and "API" jumps over the products page.
func benchRules() *survey.Survey {
	s := benchPaged()
	q := s.Questions
	cond := func(id, op string, vs ...string) *survey.Condition {
		return &survey.Condition{Match: survey.MatchAll, Rules: []survey.Rule{{Question: id, Op: op, Values: vs}}}
	}
	q[1].ShowIf = cond(q[0].ID, survey.OpGreaterThan, "2")
	q[3].ShowIf = cond(q[0].ID, survey.OpNotEquals, "1")
	s.Sections[1].ShowIf = cond(q[1].ID, survey.OpOneOf, "Mobile app", "Web portal")
	s.Sections[0].Jumps = []survey.Jump{{If: *cond(q[1].ID, survey.OpEquals, "API"), To: "c"}}
	return s
}

// BenchmarkPageRenderRules is BenchmarkPageRender's three pages with
// rules (benchRules): the first page (from the cache of rendered forms)
// and the next page, whose path and questions follow the answers, to set
// against three-pages/first and three-pages/next.
func BenchmarkPageRenderRules(b *testing.B) {
	s, pub := newBenchServer(b, benchRules())
	h := s.Handler()
	if body := benchGet(b, h).Body.String(); !strings.Contains(body, "logic.js") || !strings.Contains(body, "Page 1 of 2") {
		b.Fatalf("the first page has no live question:\n%s", body)
	}
	b.Run("three-pages-rules/first", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchGet(b, h)
		}
	})
	q := pub.survey.Questions
	m := regexp.MustCompile(`name="token" value="([^"]+)"`).FindStringSubmatch(benchGet(b, h).Body.String())
	if m == nil {
		b.Fatal("no token")
	}
	body := url.Values{"token": {m[1]}, "action": {"next"}, "q-" + q[0].ID: {"4"}, "q-" + q[1].ID: {"Mobile app"}}.Encode()
	b.Run("three-pages-rules/next", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req := httptest.NewRequest(http.MethodPost, benchPath, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Page 2 of 3") {
				b.Fatalf("POST = %d\n%s", rec.Code, rec.Body)
			}
		}
	})
}

// benchPiping is benchRules whose second page recalls the first page's
// answers (its section's title, a question's text and help), with
// fallbacks.
func benchPiping() *survey.Survey {
	s := benchRules()
	q := s.Questions
	s.Sections[1].Title = "Products: {{" + q[1].ID + "|yours}}"
	q[2].Text = "You gave us {{" + q[0].ID + "|no}} stars for {{" + q[1].ID + "}}: how likely are you to recommend it?"
	q[2].Help = "About {{" + q[1].ID + "|it}}."
	return s
}

// BenchmarkPageRenderPiping is BenchmarkPageRenderRules' next page with
// piping (benchPiping), to set against three-pages-rules/next.
func BenchmarkPageRenderPiping(b *testing.B) {
	s, pub := newBenchServer(b, benchPiping())
	h := s.Handler()
	q := pub.survey.Questions
	m := regexp.MustCompile(`name="token" value="([^"]+)"`).FindStringSubmatch(benchGet(b, h).Body.String())
	if m == nil {
		b.Fatal("no token")
	}
	body := url.Values{"token": {m[1]}, "action": {"next"}, "q-" + q[0].ID: {"4"}, "q-" + q[1].ID: {"Mobile app"}}.Encode()
	b.Run("three-pages-piping/next", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			req := httptest.NewRequest(http.MethodPost, benchPath, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "You gave us 4 stars for Mobile app") {
				b.Fatalf("POST = %d\n%s", rec.Code, rec.Body)
			}
		}
	})
}

// bench50 is a survey of 50 questions on two pages: a star rating and a
// product on the first, then 48 questions of every kind in turn (their
// examples, surveytest) on the second. With logic, each of the 48 shows
// only after more than one star and recalls the product in its text and
// help ({{…}}); without, its texts say the same words outright, so that
// both render the same page.
func bench50(b *testing.B, logic bool) *survey.Survey {
	s := &survey.Survey{Tenant: "adatum", Slug: "adatum-customer-satisfaction", Title: "Adatum customer satisfaction", State: survey.Published,
		Sections: []survey.Section{{ID: "a", Title: "About you"}, {ID: "b", Title: "Everything else"}}}
	s.Questions = []survey.Question{
		{ID: "stars", Section: "a", Text: "How satisfied are you with our service?", Type: survey.FiveStars},
		{ID: "product", Section: "a", Text: "Which of our products do you use most?", Type: survey.MultipleChoice,
			PossibleAnswers: []string{"Web portal", "Mobile app", "Desktop client", "API"}},
	}
	kinds := survey.Kinds()
	for i := range 48 {
		q, _ := surveytest.Example(kinds[i%len(kinds)])
		q.ID, q.Section, q.Optional = fmt.Sprintf("q%d", i+3), "b", true
		if logic {
			q.Text += " (about {{product|your product}})"
			q.Help = "Think of {{product}} as you answer."
			q.ShowIf = &survey.Condition{Match: survey.MatchAll, Rules: []survey.Rule{{Question: "stars", Op: survey.OpGreaterThan, Values: []string{"1"}}}}
		} else {
			q.Text += " (about Mobile app)"
			q.Help = "Think of Mobile app as you answer."
		}
		s.Questions = append(s.Questions, q)
	}
	s.Normalize()
	if err := s.Validate(); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkPageRender50 is issue 27's target: the second page of bench50
// (48 questions of every kind) after the first page's Next, with rules
// and piping (rules-piping) against the same page without them (plain).
// The goal is rules-piping at most 1.5× plain's time.
func BenchmarkPageRender50(b *testing.B) {
	for _, logic := range []bool{false, true} {
		name := "plain"
		if logic {
			name = "rules-piping"
		}
		s, _ := newBenchServer(b, bench50(b, logic))
		h := s.Handler()
		m := regexp.MustCompile(`name="token" value="([^"]+)"`).FindStringSubmatch(benchGet(b, h).Body.String())
		if m == nil {
			b.Fatal("no token")
		}
		body := url.Values{"token": {m[1]}, "action": {"next"}, "q-stars": {"4"}, "q-product": {"Mobile app"}}.Encode()
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, benchPath, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if n := strings.Count(rec.Body.String(), "Think of Mobile app as you answer."); rec.Code != http.StatusOK || n != 48 {
					b.Fatalf("POST = %d, %d questions recall the product", rec.Code, n)
				}
			}
		})
	}
}
