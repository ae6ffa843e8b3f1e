package store

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// FuzzAnswerBlob: an answer's blob, made from its segment line
// (answerBlob), is json.Marshal's encoding of the stored answer byte for
// byte, and its line encodeJSON's with a newline, whatever the answer's
// texts hold (HTML's <, > and &, U+2028, control characters, invalid
// UTF-8) and whichever of its optional fields it has.
func FuzzAnswerBlob(f *testing.F) {
	f.Add("0639321846965049946", "adatum", "s", "Title <b>", "q1", "Why & how?", "a <script> \u2028 b", "k", "v", "msg-1", true)
	f.Add("1", "t", "s", "", "", "", "", "", "", "", false)
	f.Add("2", "t\x00", "s\xff", "\xe2\x80", "q\u2029", "&amp;", "\"\\\n\t", "<", ">", "<&>", true)
	f.Fuzz(func(t *testing.T, id, tenant, slug, title, q, text, answer, key, value, msg string, optional bool) {
		a := &survey.SurveyAnswer{ID: id, Tenant: tenant, Slug: slug, Title: title, CreatedOn: time.Date(2026, 12, 6, 20, 0, 0, 123456789, time.UTC),
			Answers: []survey.QuestionAnswer{{QuestionID: q, QuestionText: text, Type: survey.SimpleText, Answer: answer}, {QuestionID: key, Answer: value}}}
		if optional {
			a.Hidden = map[string]string{key: value, "<": answer}
			a.Values = map[string]string{value: key}
			a.Partial = true
			a.Quotas = []string{key, answer}
			a.OverQuota = []string{value}
			a.Answers = nil
		}
		line, err := segmentLine(a)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := encodeJSON(a)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(line, append(enc, '\n')) {
			t.Fatalf("line\n%s\nwant\n%s", line, enc)
		}
		// The direct encoding, where it can, is encodeJSON's.
		if direct, ok := appendAnswerLine(nil, a); ok && !bytes.Equal(direct, line) {
			t.Fatalf("appendAnswerLine\n%s\nwant encodeJSON's\n%s", direct, line)
		}
		got, err := answerBlob(line, msg)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(storedAnswer{SurveyAnswer: *a, Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("blob\n%s\nwant json.Marshal's\n%s", got, want)
		}
	})
}

// TestAnswerLineDirect: an answer of every optional field, with texts
// that JSON escapes (quotes, backslashes, newlines, tabs) or writes as
// they are (é, emoji, <, &), is written the direct way (appendAnswerLine),
// as encodeJSON writes it.
func TestAnswerLineDirect(t *testing.T) {
	a := &survey.SurveyAnswer{ID: "0639321846965049946_1a2b", Tenant: "adatum", Slug: "adatum-customer-satisfaction", Title: "Adatum \"customer\" satisfaction",
		CreatedOn: time.Date(2026, 12, 6, 20, 0, 0, 120000000, time.FixedZone("x", 3600)),
		Answers: []survey.QuestionAnswer{
			{QuestionID: "q1", QuestionText: "What should we improve?", Type: survey.SimpleText, Answer: "Faster pages,\r\n\tplease \\ café 😀 <b> & co"},
			{QuestionID: "q2", QuestionText: "Which features?", Type: survey.Checkboxes, Answer: "Reports\nAlerts"},
			{QuestionID: "q3", Type: survey.FiveStars},
		},
		Hidden: map[string]string{"source": "news", "panel_id": "7", "a\"b": "\\"}, Values: map[string]string{"score": "2.5"},
		Partial: true, Quotas: []string{"age/young", "x"}, OverQuota: []string{"z"}}
	for _, a := range []*survey.SurveyAnswer{a, {ID: "1", Answers: []survey.QuestionAnswer{}}, {ID: "2"}} {
		got, ok := appendAnswerLine(nil, a)
		if !ok {
			t.Fatalf("answer %s is left to encoding/json", a.ID)
		}
		want, err := encodeJSON(a)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, append(want, '\n')) {
			t.Fatalf("appendAnswerLine\n%s\nwant encodeJSON's\n%s", got, want)
		}
	}
}
