package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// FuzzSegmentLine: whatever a segment's line holds, the line decoder gives
// what encoding/json gives (the same answer, or an error where it fails),
// into an answer that held another before. Its input is up to four
// lines, decoded by one decoder one after another (then the first
// again), as a scan decodes a segment's.
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
	// Several lines, one decoder: what it keeps of a line (the heads of
	// its answers to questions) never changes what it reads of the next.
	head := `{"id":"h","answers":[{"questionId":"q9","questionText":"Gone","type":"SimpleText","answer":`
	for _, s := range []string{
		head + `"x"}]}` + "\n" + head + `1}]}`, head + `"x"}]}` + "\n" + head + `"x","answer":"y"}]}`,
		head + `"x"}]}` + "\n" + head + `"x","questionId":"q1"}]}`, head + `"x"}]}` + "\n" + head + `"x"]}`,
		head + `"x"}]}` + "\n" + head + `"\ud800"}]}`, head + `"x"}]}` + "\n" + head + `"x" } , {}]}`,
		head + `"x"},` + head[len(`{"id":"h","answers":[`):] + `"y"}]}` + "\n" + head + `"x"},{"questionId":"q9"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		// Each line of text (a segment's), then the first again.
		var lines [][]byte
		for l := range bytes.SplitSeq(text, []byte("\n")) {
			if len(lines) < 4 {
				lines = append(lines, l)
			}
		}
		if len(lines) > 1 {
			lines = append(lines, lines[0])
		}
		var d lineDecoder
		got := survey.SurveyAnswer{ID: "before", Title: "before", Answers: []survey.QuestionAnswer{{Answer: "before"}, {QuestionID: "before"}}}
		for _, line := range lines {
			var want survey.SurveyAnswer
			wantErr := json.Unmarshal(line, &want)
			err := d.decode(line, &got)
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("decode(%q) = %v; encoding/json: %v", line, err, wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("decode(%q) =\n%#v\nencoding/json:\n%#v", line, got, want)
			}
		}
	})
}

// FuzzSegmentPeek: whatever a segment's line holds, when peek reads it,
// encoding/json reads it too, to an answer of the same ID and tenant
// that every filter (of a question's answer, a checked box, a hidden
// field, a variable, days, partial answers, several at once) picks
// exactly when it picks what peek read; and a line of the shape the
// worker writes is always peeked. Its input is up to four lines, read by
// one decoder one after another (then the first again), as a scan
// reads a segment's.
func FuzzSegmentPeek(f *testing.F) {
	on := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	sv := &survey.Survey{
		Questions: []survey.Question{
			{ID: "q1", Text: "Why?", Type: survey.SimpleText},
			{ID: "q2", Text: "Stars", Type: survey.FiveStars},
			{ID: "q3", Text: "Which?", Type: survey.Checkboxes, PossibleAnswers: []string{"Tea", "Coffee"}},
		},
		HiddenFields: []string{"source"},
		Scoring:      survey.Scoring{Variables: []survey.Variable{{Name: "total", Func: "sum", Args: []string{"q2"}}}},
	}
	var filters []survey.AnswerFilter
	for _, q := range []url.Values{
		{"q": {"q1"}, "a": {"because"}},
		{"c": {"q2=4"}},
		{"c": {"q3=Coffee", "q2=4"}},
		{"c": {"hidden:source=news"}},
		{"c": {"var:total=4"}},
		{"from": {"2026-12-03"}, "status": {"partial"}},
		{"to": {"2026-12-02"}, "c": {"q1=x"}, "status": {"complete"}},
	} {
		flt, err := survey.ParseAnswerFilter(sv, q)
		if err != nil {
			f.Fatal(q, err)
		}
		filters = append(filters, flt)
	}
	shaped := []survey.SurveyAnswer{
		{ID: "08dc1e2f3a4b5c6d", Tenant: "adatum", Slug: "s", Title: "T", CreatedOn: on, Answers: []survey.QuestionAnswer{
			{QuestionID: "q1", QuestionText: "Why <b>?</b> & \"how\"", Type: survey.SimpleText, Answer: "because"},
			{QuestionID: "q2", Type: survey.FiveStars, Answer: "4"},
			{QuestionID: "q3", Type: survey.Checkboxes, Answer: `["Tea","Coffee"]`},
		}, Quotas: []string{"a"}, OverQuota: []string{"b", "c"}},
		{ID: "2", Tenant: "t", CreatedOn: on.AddDate(0, 0, -1), Partial: true, Answers: []survey.QuestionAnswer{
			{QuestionID: "q9", QuestionText: "Gone \\ \u00e9", Type: survey.SimpleText, Answer: "tab\there, \u2028, 😀, \x01"},
			{QuestionID: "q1", Type: survey.SimpleText, Answer: "x"},
		}},
		{ID: "4", Tenant: "t", Answers: []survey.QuestionAnswer{{QuestionID: "q1", Answer: "x"}}, Hidden: map[string]string{"source": "news", "panel_id": "42"}, Values: map[string]string{"total": "4"}},
		{ID: "5", Tenant: "t", Answers: []survey.QuestionAnswer{}},
	}
	for _, a := range shaped {
		line, err := encodeJSON(&a)
		if err != nil {
			f.Fatal(err)
		}
		var d lineDecoder
		var got survey.SurveyAnswer
		for _, flt := range filters {
			fields := flt.Fields()
			if !d.peek(line, &fields, &got) {
				f.Fatalf("peek(%s) failed", line)
			}
		}
		f.Add(line)
	}
	f.Add(tombstone("7"))
	for _, s := range []string{
		`{}`, `{"id":"a","ID":"b"}`, `{"id":"a","id":"b"}`, `{"answers":null}`, `{"partial":1}`, `{"partial":true,"tenant":"t"}`,
		`{"answers":[{"questionId":"q2","answer":"4"},{"questionId":"q2","answer":"5"}],"tenant":"t"}`,
		`{"answers":[{"answer":"4","questionId":"q2"}],"tenant":"t"}`, `{"answers":[{"questionId":"q9","answer":1}],"tenant":"t"}`,
		`{"answers":[{"questionId":"q9","answer":"\q"}],"tenant":"t"}`, `{"answers":[{"questionId":"q9","Answer":"x"}],"tenant":"t"}`,
		`{"answers":[{"questionId":"q9","questionText":"x","questionText":"y"}],"tenant":"t"}`,
		`{"title":"a` + "\x01" + `b","tenant":"t"}`, `{"slug":["x"],"tenant":"t"}`, `{"quotas":["a",1],"tenant":"t"}`, `{"quotas":null,"tenant":"t"}`,
		`{"hidden":{"source":"news"},"tenant":"t"}`, `{"hidden":{"source":null},"tenant":"t"}`, `{"values":{"total":"4"},"values":{},"tenant":"t"}`,
		`{"createdOn":"2026-12-03T12:00:00Z","tenant":"t"}`, `{"createdOn":"yesterday"}`, `{"tenant":"t"}{"id":"b"}`, `{"id":"a",}`, ``,
	} {
		f.Add([]byte(s))
	}
	// Several lines, one decoder: what peek keeps of a line (the heads of
	// its answers to questions) never changes what it reads of the next.
	first, err := encodeJSON(&shaped[0])
	if err != nil {
		f.Fatal(err)
	}
	head := `{"id":"h","tenant":"t","answers":[{"questionId":"q9","questionText":"Gone","type":"SimpleText","answer":`
	for _, s := range []string{
		head + `"x"}]}` + "\n" + head + `1}]}`, head + `"x"}]}` + "\n" + head + `"x","answer":"y"}]}`,
		head + `"x"}]}` + "\n" + head + `"x","questionId":"q1"}]}`, head + `"x"}]}` + "\n" + head + `"x"]}`,
		head + `"x"}]}` + "\n" + head + `"\q"}]}`, head + `"x"}]}` + "\n" + head + `"x"  }  ]}`,
		`{"tenant":"t","answers":[ {"questionId":"q1","questionText":"Why \u00e9","type":"SimpleText","answer":"because"}]}` + "\n" +
			`{"tenant":"t","answers":[ {"questionId":"q1","questionText":"Why \u00e9","type":"SimpleText","answer":"no"}]}`,
		`{"tenant":"t","answers":[{"questionId":"q2","questionText":"S","type":"FiveStars","answer":"4"}]}` + "\n" +
			`{"tenant":"t","answers":[{"questionId":"q2","questionText":"S","type":"FiveStars","answer":"\ud800"}]}`,
	} {
		f.Add([]byte(s))
	}
	for i := range shaped[1:] {
		line, err := encodeJSON(&shaped[i+1])
		if err != nil {
			f.Fatal(err)
		}
		two := append(append(append([]byte{}, first...), '\n'), line...)
		var d lineDecoder
		var got survey.SurveyAnswer
		for _, flt := range filters {
			fields := flt.Fields()
			for _, l := range [][]byte{first, line, first} {
				if !d.peek(l, &fields, &got) {
					f.Fatalf("peek(%s) after another line failed", l)
				}
			}
		}
		f.Add(two)
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		// Each line of text (a segment's), then the first again.
		var lines [][]byte
		for l := range bytes.SplitSeq(text, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 && len(lines) < 4 {
				lines = append(lines, l)
			}
		}
		if len(lines) > 1 {
			lines = append(lines, lines[0])
		}
		var d lineDecoder
		got := survey.SurveyAnswer{ID: "before", Tenant: "before", Answers: []survey.QuestionAnswer{{Answer: "before"}, {QuestionID: "q1"}}}
		for _, flt := range filters {
			fields := flt.Fields()
			for _, line := range lines {
				if !d.peek(line, &fields, &got) {
					continue
				}
				var want survey.SurveyAnswer
				if err := json.Unmarshal(line, &want); err != nil {
					t.Fatalf("peek(%q) read what encoding/json refuses: %v", line, err)
				}
				if string(d.id) != want.ID || got.Tenant != want.Tenant {
					t.Fatalf("peek(%q) = ID %q of %q; encoding/json: %q of %q", line, d.id, got.Tenant, want.ID, want.Tenant)
				}
				if flt.Match(&got) != flt.Match(&want) {
					t.Fatalf("filter %v picks peek(%q) = %#v: %v; the whole answer %#v: %v", flt.Values(), line, got, flt.Match(&got), want, flt.Match(&want))
				}
			}
		}
	})
}

// TestStopMask8: the lowest byte stopMask8 marks in eight bytes is the
// first of them that stop marks, whatever the bytes after it (which can
// be marked wrongly, by a borrow).
func TestStopMask8(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'a', ' ', 0x00, 0x01, 0x1f, 0x20, 0x21, '"', '\\', '"' + 1, '\\' + 1, 0x7f, 0x80, 0x81, 0xa0, 0xdf, 0xe0, 0xff}
	for range 200_000 {
		var b [8]byte
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		want := 8
		for i, c := range b {
			if stop[c] {
				want = i
				break
			}
		}
		got := 8
		if m := stopMask8(binary.LittleEndian.Uint64(b[:])); m != 0 {
			got = bits.TrailingZeros64(m) / 8
		}
		if got != want {
			t.Fatalf("stopMask8(%q) marks byte %d first, want %d", b, got, want)
		}
	}
}

// TestStops8: eight bytes stop a skipped string's plain run when one of
// them, wherever it is and whatever is beside it, is a byte stop marks.
func TestStops8(t *testing.T) {
	for _, fill := range []byte{'a', 0x20, 0x21, 0x7f, 0x80, 0xff, '"' + 1, '\\' + 1} {
		for c := range 256 {
			for k := range 8 {
				var b [8]byte
				for i := range b {
					b[i] = fill
				}
				b[k] = byte(c)
				want := stop[c] || stop[fill]
				if got := stops8(binary.LittleEndian.Uint64(b[:])); got != want {
					t.Fatalf("stops8(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
}
