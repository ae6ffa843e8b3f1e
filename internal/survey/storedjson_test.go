package survey

import (
	"encoding/json"
	"reflect"
	"testing"
)

// storedJSONSeeds are stored lists and rows, plain and not.
var storedJSONSeeds = []string{
	`[]`, `{}`, `["Coffee"]`, `["Coffee","Été","Other: tea"]`, `{"Price":"3","Quality":"Good"}`,
	`["a\"b"]`, `["\u003cb\u003e"]`, `null`, `[1]`, `["a",]`, `["a" ,"b"]`, `{"a"}`, `{"a":"b",}`,
	`{"a":"b","a":"c"}`, `[{"name":"cv.pdf","size":12345,"type":"application/pdf","key":"a/b"}]`,
	`[{"name":"a","size":0,"type":"image/png","key":"k"},{"name":"é","size":1,"type":"t","key":""}]`, `[{"name":"a","size":01,"type":"t","key":"k"}]`,
	`[{"name":"a","size":-1,"type":"t","key":"k"}]`, `[{"name":"a","size":99999999999999999999,"type":"t","key":"k"}]`, `[{"name":"a","size":1,"type":"t","key":"k"},]`,
	`[{"Name":"a","size":1,"type":"t","key":"k"}]`, `[{"name":"a","size":1.5,"type":"t","key":"k"}]`, `[{"name":"a","size":1,"type":"t","key":"k","key":"j"}]`, `["\xff"]`, "[\"a\tb\"]", `[`, ``, `"a"`, `{"a":["b"]}`, `[""]`, `{"":""}`,
}

// FuzzStoredJSON: decodeList and decodeRows give what encoding/json
// gives (nil for what it cannot read), whatever their direct path takes.
func FuzzStoredJSON(f *testing.F) {
	for _, s := range storedJSONSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var l []string
		if json.Unmarshal([]byte(s), &l) != nil {
			l = nil
		}
		if got := decodeList(s); !reflect.DeepEqual(got, l) {
			t.Errorf("decodeList(%q) = %#v, want %#v", s, got, l)
		}
		var m map[string]string
		if json.Unmarshal([]byte(s), &m) != nil {
			m = nil
		}
		if got := decodeRows(s); !reflect.DeepEqual(got, m) {
			t.Errorf("decodeRows(%q) = %#v, want %#v", s, got, m)
		}
		var files []UploadedFile
		if json.Unmarshal([]byte(s), &files) != nil {
			files = nil
		}
		if got := DecodeFiles(s); !reflect.DeepEqual(got, files) {
			t.Errorf("DecodeFiles(%q) = %#v, want %#v", s, got, files)
		}
	})
}

// FuzzEncodePlain: encodeJSON writes lists and objects of strings in the
// bytes json.Marshal writes, whether its direct path (encodePlain) takes
// them or not.
func FuzzEncodePlain(f *testing.F) {
	for _, s := range [][3]string{
		{"Coffee", "Été", "Other: tea"}, {"", "", ""}, {"a\"b", "<b>", "&"}, {"\xff", "a\tb", "\u2028"},
		{"name", "Ana", "email"}, {"ü", "\u2029x", "\x7f"}, {"\ufffd", "日本", "a\\b"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		for _, v := range []any{[]string{a, b, c}, []string{a}, []string{}, []string(nil),
			map[string]string{a: b, c: a, b: c}, map[string]string{}, map[string]string(nil)} {
			want, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if got := encodeJSON(v); got != string(want) {
				t.Errorf("encodeJSON(%#v) = %s, want %s", v, got, want)
			}
		}
	})
}

// TestEncodePlainTaken: the direct path takes plain lists and objects.
func TestEncodePlainTaken(t *testing.T) {
	for v, want := range map[*any]string{
		ptr[any]([]string{"Coffee", "Été", "Other: tea"}): `["Coffee","Été","Other: tea"]`,
		ptr[any]([]string{}): `[]`,
		ptr[any](map[string]string{"name": "Ana", "email": "ana@example.com"}): `{"email":"ana@example.com","name":"Ana"}`,
	} {
		if got, ok := encodePlain(*v); !ok || got != want {
			t.Errorf("encodePlain(%#v) = %s, %v; want %s", *v, got, ok, want)
		}
	}
	if _, ok := encodePlain([]string{"<b>"}); ok {
		t.Error("encodePlain took a string json.Marshal escapes")
	}
}

func ptr[T any](v T) *T { return &v }
