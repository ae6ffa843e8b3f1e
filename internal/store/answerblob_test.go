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
