package web_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestLongFormAccepted posts, through the real handler, the longest
// answers the per-question limits allow: 50 text questions (questions of
// 500 characters) of 4,000 characters each, ASCII and characters of four
// UTF-8 bytes (twelve once form-encoded); and 13 answers of 4,000
// characters. Each is accepted (303), filed and counted.
func TestLongFormAccepted(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	tests := []struct {
		name      string
		questions int
		char      string
	}{
		{"50 questions, ASCII", survey.MaxQuestions, "a"},
		{"50 questions, four-byte characters", survey.MaxQuestions, "😀"},
		{"13 questions, ASCII", 13, "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &survey.Survey{Tenant: "adatum", Title: "Long " + tt.name, State: survey.Published}
			for i := range tt.questions {
				text := fmt.Sprintf("Question %d ", i) + strings.Repeat("?", survey.MaxQuestionLength)
				s.Questions = append(s.Questions, survey.Question{Text: text[:survey.MaxQuestionLength], Type: survey.SimpleText})
			}
			if err := app.surveys.Create(ctx, s); err != nil {
				t.Fatal(err)
			}
			path := "/survey/adatum/" + s.Slug
			token := app.token(t, path)
			form := url.Values{"token": {token}}
			answer := strings.Repeat(tt.char, survey.MaxTextAnswerLength)
			for _, q := range s.Questions {
				form.Set("q-"+q.ID, answer)
			}
			code, h, body := app.do(t, "POST", path, form, nil)
			if code != 303 || !strings.HasSuffix(h.Get("Location"), "/thankyou") {
				t.Fatalf("POST of %d bytes = %d %q\n%.2000s", len(form.Encode()), code, h.Get("Location"), body)
			}
			app.stored(t) // the worker files and counts it
			a, err := app.answers.Get(ctx, "adatum", s.Slug, answerID(token))
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Answers) != tt.questions || a.Answers[tt.questions-1].Answer != answer || a.Answers[0].QuestionText != s.Questions[0].Text {
				t.Fatalf("the stored answer has %d answers, not as posted", len(a.Answers))
			}
		})
	}
}
