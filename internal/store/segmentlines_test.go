package store

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// FuzzSegmentLine: whatever a segment's line holds, the line decoder gives
// what encoding/json gives (the same answer, or an error where it fails),
// into an answer that held another before.
func FuzzSegmentLine(f *testing.F) {
	on := time.Date(2026, 12, 3, 12, 0, 0, 123456789, time.FixedZone("CET", 3600))
	for _, a := range []survey.SurveyAnswer{
		{ID: "08dc1e2f3a4b5c6d", Tenant: "adatum", Slug: "s", Title: "T", CreatedOn: on, Answers: []survey.QuestionAnswer{
			{QuestionID: "q1", QuestionText: "Why <b>?</b> & \"how\"", Type: survey.SimpleText, Answer: "tab\there, line\nnext, \\ back, \u2028, é, 😀, \x01, \x7f"},
			{QuestionID: "q2", Type: survey.FiveStars, Answer: "4"},
		}},
		{ID: "1", Answers: []survey.QuestionAnswer{}},
		{ID: "2", Answers: []survey.QuestionAnswer{{}}},
		{ID: "3", Title: "bad \xff utf-8"},
		{ID: "4", Answers: []survey.QuestionAnswer{{QuestionID: "q1", Answer: "x"}}, Hidden: map[string]string{"source": "news <letter> \"é\"", "panel_id": "42"}},
		{ID: "5", Answers: []survey.QuestionAnswer{{QuestionID: "q1", Answer: "x"}}, Hidden: map[string]string{"source": "s"}, Values: map[string]string{"score": "6", "total": "-1.25"}},
	} {
		line, err := encodeJSON(&a)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(line)
	}
	for _, s := range []string{
		`{}`, ` { "id" : "a" , "answers" : [ ] } `, `{"id":"a","ID":"b"}`, `{"id":"a","id":"b"}`, `{"answers":null}`,
		`{"answers":[{"answer":"x","answer":"y"}]}`, `{"title":"\ud83d\ude00 \ud83d \u00e9\u00E9"}`, `{"title":"\udc00"}`,
		`{"createdOn":"2026-12-03T12:00:00Z"}`, `{"createdOn":"yesterday"}`, `{"createdOn":null}`, `{"id":1}`,
		`{"id":"a"}{"id":"b"}`, `{"hidden":{}}`, `{"hidden":null}`, `{"hidden":{"a":"b","a":"c"}}`, `{"hidden":{"a":1}}`, `{"hidden":{"\u0061":"b"}}`,
		`{"hidden":{"a":"b"},"hidden":{}}`, `{"values":{"score":"3"}}`, `{"values":null}`, `{"values":{"a":1}}`, `{"values":{},"hidden":{}}`, `{"hidden":{"a":"b",}}`, `{"hidden":[]}`, `{"id":"a",}`, `{"id":"a"`, `{"message":"m","id":"a"}`, `{"id":"\q"}`, `[]`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var want survey.SurveyAnswer
		wantErr := json.Unmarshal(line, &want)
		var d lineDecoder
		got := survey.SurveyAnswer{ID: "before", Title: "before", Answers: []survey.QuestionAnswer{{Answer: "before"}, {QuestionID: "before"}}}
		err := d.decode(line, &got)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("decode(%q) = %v; encoding/json: %v", line, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decode(%q) =\n%#v\nencoding/json:\n%#v", line, got, want)
		}
	})
}
