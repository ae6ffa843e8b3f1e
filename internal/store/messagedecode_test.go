package store

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/survey"
)

// queuedMessage is a message of the current format as EnqueueEach
// writes it.
func queuedMessage(t testing.TB, plan survey.Plan, qs ...QueuedAnswer) []byte {
	t.Helper()
	data, err := encodeJSON(struct {
		Mark   json.RawMessage `json:"answers"`
		Queued []QueuedAnswer  `json:"queued"`
		Plan   survey.Plan     `json:"plan,omitempty"`
	}{formatMark, qs, plan})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// FuzzDecodeAnswerMessage: whatever a message holds, DecodeAnswerMessage
// (its direct path, fast, or encoding/json) gives what encoding/json
// gives: the same message, or an error where encoding/json fails. Each
// input is also decoded over a message that held another, as
// json.Unmarshal into an AnswerMessage does.
func FuzzDecodeAnswerMessage(f *testing.F) {
	now := time.Date(2026, 12, 6, 20, 0, 0, 123456789, time.UTC)
	f.Add(queuedMessage(f, survey.Premium,
		QueuedAnswer{ID: "1", Tenant: "t", Slug: "s", Title: "T <b>", CreatedOn: now, Values: []QueuedValue{{Question: "q1", Answer: "<b>& \"x\"\n\u2028é"}, {Question: "q2", Answer: ""}}},
		QueuedAnswer{ID: "2", Tenant: "t", Slug: "s", CreatedOn: now, Values: []QueuedValue{{Question: "q1", Answer: "again"}}, Hidden: map[string]string{"source": "web"}, Vars: map[string]string{"score": "3"},
			Partial: true, Quotas: []string{"q/a"}, OverQuota: []string{}},
		QueuedAnswer{ID: "3", Tenant: "t", Slug: "s", CreatedOn: now, Spill: "3.abc"}))
	f.Add(queuedMessage(f, "", QueuedAnswer{ID: "4", Values: []QueuedValue{}}))
	old, _ := json.Marshal(AnswerMessage{Answers: []survey.SurveyAnswer{{ID: "1", Tenant: "t", Slug: "s"}}})
	f.Add(old)
	for _, s := range []string{
		`{}`, ` { } `, `{"queued":[]}`, `{"queued":null}`, `{"answers":null,"queued":{}}`, `{"answers":{"format":2},"answers":[]}`,
		`{"queued":[{"id":"1","ID":"2"}]}`, `{"queued":[{"id":"1","id":"2"}]}`, `{"queued":[{"values":[{"q":"a","q":"b"}]}]}`,
		`{"queued":[{"values":[{"Q":"a","a":"\ud800"}]}]}`, `{"queued":[{"values":[{"q":"a","a":"\ud83d\ude00\u00e9"}]}]}`,
		`{"queued":[{"hidden":{"a":"1","a":"2"},"vars":{}}]}`, `{"queued":[{"partial":true,"quotas":["x"]}]} x`,
		`{"queued":[{"createdOn":"2026-12-06T20:00:00Z"}],"plan":"Premium"}`, `{"queued":[{"createdOn":"bad"}]}`,
		`{"queued":[{"createdOn":null,"partial":null}]}`, `{"plan":"\u0050remium"}`, "{\"queued\":[{\"id\":\"\xff\"}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want AnswerMessage
		wantErr := want.decodeJSON(data)
		got, err := DecodeAnswerMessage(data)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, encoding/json's %v", err, wantErr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decoded\n%#v\nencoding/json's\n%#v", got, want)
		}
		// Over a message that held another.
		over := AnswerMessage{Plan: survey.Premium, Queued: []QueuedAnswer{{ID: "x", Title: "held"}}}
		if err := json.Unmarshal(data, &over); err != nil || !reflect.DeepEqual(over, want) {
			t.Fatalf("json.Unmarshal over another: %v\n%#v\nwant\n%#v", err, over, want)
		}
	})
}

// TestEnqueuedMessagesDecodeFast: the messages EnqueueEach writes take the
// direct path (fast), not encoding/json's: long answers (spilled), texts
// that JSON escapes, hidden values, variables and quotas included.
func TestEnqueuedMessagesDecodeFast(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	if err := Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	as := NewSurveyAnswerStore(st)
	var answers []survey.SurveyAnswer
	for i := range 9 {
		a := survey.SurveyAnswer{ID: NewAnswerID(time.Now()), Tenant: "adatum", Slug: "s", Title: "Título <1>", CreatedOn: time.Now().UTC(),
			Answers: []survey.QuestionAnswer{{QuestionID: "q1", Answer: "fine & \"well\"\n"}, {QuestionID: "q2", Answer: "😀 \u2028"}}}
		switch i % 3 {
		case 1:
			a.Hidden, a.Values, a.Quotas, a.OverQuota = map[string]string{"source": "web"}, map[string]string{"score": "2.5"}, []string{"age/young"}, []string{"x"}
		case 2:
			a.Answers = append(a.Answers, survey.QuestionAnswer{QuestionID: "q3", Answer: strings.Repeat("long ", maxQueuedAnswer/4)})
		}
		answers = append(answers, a)
	}
	if err := as.EnqueueFor(ctx, survey.Premium, answers); err != nil {
		t.Fatal(err)
	}
	msgs, err := st.Dequeue(ctx, PremiumAnswersQueue, 32, time.Minute)
	if err != nil || len(msgs) == 0 {
		t.Fatalf("dequeue: %d, %v", len(msgs), err)
	}
	n := 0
	for _, msg := range msgs {
		var m AnswerMessage
		if !m.fast(msg.Data) {
			t.Fatalf("a message EnqueueEach wrote is left to encoding/json:\n%s", msg.Data)
		}
		var want AnswerMessage
		if err := want.decodeJSON(msg.Data); err != nil || !reflect.DeepEqual(m, want) {
			t.Fatalf("decoded\n%#v\nencoding/json's (%v)\n%#v", m, err, want)
		}
		n += len(m.Queued)
	}
	if n != len(answers) {
		t.Fatalf("%d answers in the messages, %d queued", n, len(answers))
	}
}

// BenchmarkDecodeAnswerMessage decodes a message of 7 answers to 17
// questions (the demo survey's complete answers, as the web side queues
// them under load), the worker's way (DecodeAnswerMessage) and by
// encoding/json alone.
//
//	go test ./internal/store -run '^$' -bench BenchmarkDecodeAnswerMessage -benchmem
func BenchmarkDecodeAnswerMessage(b *testing.B) {
	now := time.Now().UTC()
	var qs []QueuedAnswer
	for i := range 7 {
		q := QueuedAnswer{ID: NewAnswerID(now), Tenant: "adatum", Slug: "adatum-customer-satisfaction", Title: "Adatum customer satisfaction", CreatedOn: now}
		for j := range 17 {
			v := []string{"4", "Mobile app", "9", "Faster pages, please", "Reports\nAlerts", "6", "Speed: Good\nReliability: Excellent", "2026-03-01", "someone@example.com", "Yes"}[(i+j)%10]
			q.Values = append(q.Values, QueuedValue{Question: "0639321846965049946_0" + string(rune('0'+j/10)) + string(rune('0'+j%10)), Answer: v})
		}
		qs = append(qs, q)
	}
	data := queuedMessage(b, survey.Standard, qs...)
	b.Run("worker", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeAnswerMessage(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var m AnswerMessage
			if err := m.decodeJSON(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestAnswerMessageEnvelope: a message is written directly
// (messageJSON) as encoding/json writes its envelope (the format mark,
// the queued answers, the plan when there is one).
func TestAnswerMessageEnvelope(t *testing.T) {
	now := time.Date(2026, 12, 6, 20, 0, 0, 1, time.UTC)
	var parts []json.RawMessage
	for i, q := range []QueuedAnswer{
		{ID: "1", Tenant: "t", Slug: "s", Title: "<T> & \"x\"", CreatedOn: now, Values: []QueuedValue{{Question: "q1", Answer: "a\nb \u2028 é"}}},
		{ID: "2", Tenant: "t", Slug: "s", CreatedOn: now, Spill: "2.abc", Partial: true},
		{ID: "3", Hidden: map[string]string{"b": "1", "a": "<"}, Vars: map[string]string{"score": "2"}, Quotas: []string{"x"}},
	} {
		d, err := encodeJSON(q)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, d)
		for _, p := range []survey.Plan{"", survey.Standard, survey.Premium, "odd \"plan\" <\x01>"} {
			raw := make([][]byte, i+1)
			for k := range raw {
				raw[k] = parts[k]
			}
			got := messageJSON(raw, p)
			want, err := encodeJSON(struct {
				Mark   json.RawMessage   `json:"answers"`
				Queued []json.RawMessage `json:"queued"`
				Plan   survey.Plan       `json:"plan,omitempty"`
			}{formatMark, parts[:i+1], p})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("plan %q, %d parts:\n%s\nwant encoding/json's\n%s", p, i+1, got, want)
			}
		}
	}
}
