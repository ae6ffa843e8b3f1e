package web

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// TestAnswerDisplay: every kind shows an answer as people read it, on the
// answer page and in a cell of the table: never the stored JSON, and in
// the shape of its kind (a list, a table, an ordered list, links, a date).
func TestAnswerDisplay(t *testing.T) {
	v, err := newViews()
	if err != nil {
		t.Fatal(err)
	}
	s, forms := surveytest.ExampleSurvey("adatum", "every-kind")
	shape := map[survey.QuestionType][2]string{ // full, compact
		survey.Checkboxes:    {`<ul class="ans-list">`, `<ul class="ans-list">`},
		survey.Ranking:       {`<ol class="ans-list ans-ranked">`, `<ol class="ans-list ans-ranked">`},
		survey.Matrix:        {`<table class="ans-grid">`, `<ul class="ans-list">`},
		survey.Date:          {`<time datetime="`, `<time datetime="`},
		survey.Contact:       {`<dl class="ans-parts">`, `<dl class="ans-parts">`},
		survey.FileUpload:    {`<a href="/adatum/surveys/every-kind/answers/A1/files/`, `<a href="/adatum/surveys/every-kind/answers/A1/files/`},
		survey.FiveStars:     {`<span class="ans-stars" aria-hidden="true">`, `<span class="ans-stars" aria-hidden="true">`},
		survey.PictureChoice: {`<ul class="ans-list ans-pictures"><li><img src="/logos/`, `<ul class="ans-list ans-pictures"><li>`},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		a, err := survey.NewAnswer(s, forms(r))
		if err != nil {
			t.Fatal(err)
		}
		a.ID = "A1"
		for _, q := range s.Questions {
			for i, compact := range []bool{false, true} {
				got, err := v.kindDisplay("adatum", &a, q, compact)
				if err != nil {
					t.Fatalf("%s: %v", q.Type, err)
				}
				qa, _ := a.Answer(q.ID)
				html := string(got)
				switch {
				case qa.Answer == "":
					if !compact && !strings.Contains(html, "(no answer)") || compact && html != "" {
						t.Errorf("%s without an answer (compact %v) shows %q", q.Type, compact, html)
					}
					continue
				case strings.Contains(html, `[&#34;`) || strings.Contains(html, `{&#34;`) || strings.Contains(html, `["`) || strings.Contains(html, `{"`):
					t.Errorf("%s (compact %v) shows stored JSON: %s", q.Type, compact, html)
				case strings.TrimSpace(html) == "":
					t.Errorf("%s (compact %v) shows nothing for %q", q.Type, compact, qa.Answer)
				}
				if want := shape[q.Type][i]; want != "" && !strings.Contains(html, want) {
					t.Errorf("%s (compact %v) = %s, want %s", q.Type, compact, html, want)
				}
			}
		}
	}
	// Without its answer: the page says so, the table's cell is empty.
	var none survey.SurveyAnswer
	if got, _ := v.kindDisplay("adatum", &none, s.Questions[0], false); !strings.Contains(string(got), "(no answer)") {
		t.Errorf("no answer shows %q", got)
	}
}

func TestDisplayHelpers(t *testing.T) {
	for _, c := range []struct{ in, want string }{{"2026-03-14", "14 March 2026"}, {"not a date", "not a date"}} {
		if got := longDate(c.in); got != c.want {
			t.Errorf("longDate(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		want string
	}{{"4", "★★★★☆"}, {"0", "☆☆☆☆☆"}, {"9", "★★★★★"}, {"x", "☆☆☆☆☆"}} {
		if got := stars(c.in, 5); got != c.want {
			t.Errorf("stars(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
