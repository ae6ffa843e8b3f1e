package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestAnswerMessageFormats: a message of the current format is one that a
// worker of an earlier version (which knows only the first format's
// "answers" list) cannot decode, so it poisons the message, keeping it,
// rather than finding no answers and deleting it; this version reads both.
func TestAnswerMessageFormats(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	as := store.NewSurveyAnswerStore(st)
	a := survey.SurveyAnswer{ID: store.NewAnswerID(time.Now()), Tenant: "adatum", Slug: "s", CreatedOn: time.Now().UTC(),
		Answers: []survey.QuestionAnswer{{QuestionID: "q1", QuestionText: "Why?", Type: survey.SimpleText, Answer: "because"}}}
	if err := as.Enqueue(ctx, []survey.SurveyAnswer{a}); err != nil {
		t.Fatal(err)
	}
	msgs, err := st.Dequeue(ctx, store.AnswersQueue, 1, time.Minute)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("dequeue: %d %v", len(msgs), err)
	}
	// What a worker before this format decoded.
	var earlier struct {
		Answers []survey.SurveyAnswer `json:"answers"`
		Plan    survey.Plan           `json:"plan"`
	}
	if err := json.Unmarshal(msgs[0].Data, &earlier); err == nil {
		t.Fatalf("an earlier worker decodes the message (to %d answers) and would delete it", len(earlier.Answers))
	}
	var m store.AnswerMessage
	if err := json.Unmarshal(msgs[0].Data, &m); err != nil {
		t.Fatal(err)
	}
	if p, _ := m.Pending(); len(p) != 1 || p[0].ID != a.ID || len(m.Answers) != 0 {
		t.Fatalf("this version reads %d pending answers, %d whole", len(p), len(m.Answers))
	}
	first, _ := json.Marshal(store.AnswerMessage{Answers: []survey.SurveyAnswer{a}})
	m = store.AnswerMessage{}
	if err := json.Unmarshal(first, &m); err != nil || len(m.Answers) != 1 || m.Answers[0].ID != a.ID {
		t.Fatalf("the first format: %+v %v", m, err)
	}
}
