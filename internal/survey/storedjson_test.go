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
