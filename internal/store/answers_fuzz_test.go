package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// FuzzAnswerMessage decodes answers-queue messages as the worker does:
// whatever the bytes, Pending gives each answer ID once and accounts for
// every answer, and an answer not spilled resolves against its survey's
// questions without touching storage, to the values it carried.
func FuzzAnswerMessage(f *testing.F) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	old, _ := json.Marshal(store.AnswerMessage{Answers: []survey.SurveyAnswer{
		{ID: "1", Tenant: "t", Slug: "s", Answers: []survey.QuestionAnswer{{QuestionID: "q1", QuestionText: "Why?", Type: survey.SimpleText, Answer: "because"}}},
	}})
	cur, _ := json.Marshal(store.AnswerMessage{Plan: survey.Premium, Queued: []store.QueuedAnswer{
		{ID: "2", Tenant: "t", Slug: "s", CreatedOn: now, Values: []store.QueuedValue{{Question: "q1", Answer: "<b>&"}}},
		{ID: "2", Tenant: "t", Slug: "s", CreatedOn: now, Values: []store.QueuedValue{{Question: "q1", Answer: "again"}}},
		{ID: "3", Tenant: "t", Slug: "s", Spill: "3.abc"},
	}})
	f.Add(old)
	f.Add(cur)
	f.Add([]byte(`{"queued":[{"id":"4","values":[{"q":"nope","a":"x"}]}]}`))
	f.Add([]byte(`{"answers":null,"queued":{}}`))
	questions := map[string]store.Question{"q1": {Text: "Why?", Type: survey.SimpleText}}
	as := store.NewSurveyAnswerStore(nil) // storage is never reached
	f.Fuzz(func(t *testing.T, data []byte) {
		var m store.AnswerMessage
		if json.Unmarshal(data, &m) != nil {
			return
		}
		pending, repeats := m.Pending()
		if len(pending)+repeats != len(m.Answers)+len(m.Queued) {
			t.Fatalf("%d pending and %d repeats of %d answers", len(pending), repeats, len(m.Answers)+len(m.Queued))
		}
		// The first of each ID in the current format, when the first
		// format does not carry that ID.
		queued := map[string]store.QueuedAnswer{}
		for _, q := range m.Queued {
			if _, ok := queued[q.ID]; !ok {
				queued[q.ID] = q
			}
		}
		for _, a := range m.Answers {
			delete(queued, a.ID)
		}
		seen := map[string]bool{}
		for _, p := range pending {
			if seen[p.ID] {
				t.Fatalf("answer %q pending twice", p.ID)
			}
			seen[p.ID] = true
			if p.Spilled() != "" {
				continue
			}
			a, err := as.Resolve(context.Background(), p, questions)
			if err != nil {
				continue // a question the survey does not have
			}
			if a.ID != p.ID || a.Tenant != p.Tenant || a.Slug != p.Slug {
				t.Fatalf("answer %q resolves to %q of %s/%s", p.ID, a.ID, a.Tenant, a.Slug)
			}
			q, ok := queued[p.ID]
			if !ok {
				continue // the first format: carried whole
			}
			if len(a.Answers) != len(q.Values) {
				t.Fatalf("answer %q: %d values resolve to %d answers", p.ID, len(q.Values), len(a.Answers))
			}
			for i, v := range q.Values {
				if qa := a.Answers[i]; qa.QuestionID != v.Question || qa.Answer != v.Answer || qa.QuestionText != questions[v.Question].Text {
					t.Fatalf("answer %q: value %+v resolves to %+v", p.ID, v, qa)
				}
			}
		}
	})
}
