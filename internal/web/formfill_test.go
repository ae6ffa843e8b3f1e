package web_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/surveys-dev/surveys/internal/formfill"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
)

// TestFormFillAnswersEveryKind: the form filler of the load run and the
// crash test reads the real page of a survey of every kind (and of the demo
// survey) and its answers are accepted, question for question.
func TestFormFillAnswersEveryKind(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	sv, _ := surveytest.ExampleSurvey("adatum", "")
	if err := app.surveys.Create(context.Background(), sv); err != nil {
		t.Fatal(err)
	}
	if _, err := app.surveys.SetState(context.Background(), "adatum", sv.Slug, survey.Published); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	text := func(r *rand.Rand) string { return "answer " + strconv.Itoa(r.IntN(1000)) }
	for _, s := range []*survey.Survey{sv, app.adatum} {
		path := "/survey/adatum/" + s.Slug
		for i := 0; i < 20; i++ {
			code, _, page := app.do(t, "GET", path, nil, nil)
			f, err := formfill.Parse([]byte(page))
			if code != 200 || err != nil {
				t.Fatalf("%s: %d, %v", path, code, err)
			}
			if f.Questions() != len(s.Questions) {
				t.Fatalf("%s: the filler finds %d questions, the survey has %d", path, f.Questions(), len(s.Questions))
			}
			if code, _, body := app.do(t, "POST", path, f.Answer(r, text), nil); code != 303 {
				t.Fatalf("%s: the filler's answer = %d\n%s", path, code, body)
			}
		}
	}
	if n := app.stored(t); n != 20 {
		t.Errorf("%d answers of the demo survey stored, want 20", n)
	}
}
