package store

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// FuzzQueuedJSON: a queued answer and a message are written in the bytes
// encodeJSON (encoding/json without HTML escaping) writes for them,
// whatever their strings, times and empty fields.
func FuzzQueuedJSON(f *testing.F) {
	for _, s := range [][3]string{
		{"Ana", "a \"quoted\" \\ text", "<b>&</b>"}, {"", "", ""}, {"\x00\x1f\x7f", "\b\f\n\r\t", "\u2028\u2029"},
		{"\xff\xfe", "été 日本 \U0001F600", "\ufffd"}, {`{"email":"a@b.c"}`, `["x","y"]`, "Premium"},
	} {
		f.Add(s[0], s[1], s[2], int64(1796599801123456789), uint8(0))
	}
	f.Fuzz(func(t *testing.T, a, b, c string, nanos int64, empty uint8) {
		r := rand.New(rand.NewPCG(uint64(nanos), uint64(empty)))
		at := time.Unix(0, nanos).UTC()
		if empty&1 != 0 {
			at = at.In(time.FixedZone("", int(r.Int32N(50000))-25000))
		}
		q := QueuedAnswer{ID: a, Tenant: b, Slug: c, Title: b + c, CreatedOn: at,
			Values: []QueuedValue{{Question: a, Answer: b}, {Question: c, Answer: a + b + c}},
			Hidden: map[string]string{a: b, c: a}, Vars: map[string]string{b: c}, Spill: c,
			Partial: empty&2 != 0, Quotas: []string{a, b}, OverQuota: []string{c}}
		if empty&4 != 0 {
			q.Title, q.Values, q.Hidden, q.Vars, q.Spill, q.Quotas, q.OverQuota = "", []QueuedValue{}, map[string]string{}, nil, "", []string{}, nil
		}
		want, werr := encodeJSON(q)
		got, err := queuedJSON(&q)
		if (err != nil) != (werr != nil) || string(got) != string(want) {
			t.Fatalf("queuedJSON(%#v) = %s, %v\nwant %s, %v", q, got, err, want, werr)
		}
		if err != nil {
			return
		}
		for _, p := range []survey.Plan{"", survey.Premium, survey.Plan(c)} {
			parts := [][]byte{got, got}
			raw := []json.RawMessage{got, got}
			want, err := encodeJSON(struct {
				Mark   json.RawMessage   `json:"answers"`
				Queued []json.RawMessage `json:"queued"`
				Plan   survey.Plan       `json:"plan,omitempty"`
			}{formatMark, raw, p})
			if err != nil {
				t.Fatal(err)
			}
			if got := messageJSON(parts, p); string(got) != string(want) {
				t.Fatalf("messageJSON(plan %q) = %s\nwant %s", p, got, want)
			}
		}
	})
}

// BenchmarkQueuedJSON encodes a message of eight answers of the demo
// survey's size (18 values, a few lists and objects among them), as the
// notifier's EnqueueEach does for each batch: encoding/json (encodeJSON)
// against the direct way (queuedJSON, messageJSON).
func BenchmarkQueuedJSON(b *testing.B) {
	var answers []QueuedAnswer
	for i := range 8 {
		q := QueuedAnswer{ID: "06390000000000000" + string(rune('0'+i)), Tenant: "adatum", Slug: "adatum-customer-satisfaction",
			CreatedOn: time.Date(2026, 12, 6, 20, 30, i, 123456789, time.UTC)}
		for k := range 18 {
			a := "4"
			switch k % 6 {
			case 1:
				a = `["Reports","Dashboards","Other: a tea pot"]`
			case 2:
				a = "Faster pages, please & more <dark> themes"
			case 3:
				a = `{"email":"ana@example.com","name":"Ana"}`
			}
			q.Values = append(q.Values, QueuedValue{Question: "0638800000000000000_0" + string(rune('0'+k/10)) + string(rune('0'+k%10)), Answer: a})
		}
		answers = append(answers, q)
	}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			parts := make([]json.RawMessage, len(answers))
			for i := range answers {
				parts[i], _ = encodeJSON(answers[i])
			}
			if _, err := encodeJSON(struct {
				Mark   json.RawMessage   `json:"answers"`
				Queued []json.RawMessage `json:"queued"`
				Plan   survey.Plan       `json:"plan,omitempty"`
			}{formatMark, parts, survey.Premium}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			parts := make([][]byte, len(answers))
			for i := range answers {
				parts[i], _ = queuedJSON(&answers[i])
			}
			_ = messageJSON(parts, survey.Premium)
		}
	})
}
