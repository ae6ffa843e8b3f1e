package survey

import (
	"reflect"
	"slices"
	"testing"
)

// TestCleanForm: a form with nothing to clean is taken as it is (no
// copy); any value to clean or drop makes a cleaned copy, the form sent
// unchanged.
func TestCleanForm(t *testing.T) {
	clean := Form{"": {"Very good"}, "other": {"a", "b"}}
	if got := cleanForm(clean); reflect.ValueOf(got).Pointer() != reflect.ValueOf(clean).Pointer() {
		t.Errorf("a clean form was copied")
	}
	for _, tc := range []struct {
		name string
		in   Form
		want Form
	}{
		{"spaces around", Form{"": {"  good "}}, Form{"": {"good"}}},
		{"an empty value", Form{"": {"a", ""}, "x": {"b"}}, Form{"": {"a"}, "x": {"b"}}},
		{"only empty values", Form{"": {"", " "}, "x": {"b"}}, Form{"x": {"b"}}},
		{"no values", Form{"": {}, "x": {"b"}}, Form{"x": {"b"}}},
		{"a control character", Form{"": {"go\x00od"}}, Form{"": {"good"}}},
		{"a direction override", Form{"": {"\u202egood"}}, Form{"": {"good"}}},
		{"not UTF-8", Form{"": {"go\xffod"}}, Form{"": {"good"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sent := Form{}
			for k, vs := range tc.in {
				sent[k] = slices.Clone(vs)
			}
			if got := cleanForm(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("cleanForm(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if !reflect.DeepEqual(tc.in, sent) {
				t.Errorf("cleanForm changed the form sent: %q, was %q", tc.in, sent)
			}
		})
	}
}
