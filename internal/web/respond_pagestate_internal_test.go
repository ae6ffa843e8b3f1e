package web

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

func TestPageStateBound(t *testing.T) {
	t.Parallel()
	p := newPageSealer([]byte("a form key of thirty-two bytes!!"))
	st := pageState{Page: 2, Values: map[string]survey.Form{"q1": {"": {"Ada"}}}, Resume: strings.Repeat("ab", 16)}
	sealed, err := p.seal("adatum", "lunch", "tok.en", st)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.open("adatum", "lunch", "tok.en", sealed); err != nil || !reflect.DeepEqual(got, st) {
		t.Fatalf("open = %+v, %v", got, err)
	}
	for _, tc := range []struct{ tenant, slug, token string }{
		{"fabrikam", "lunch", "tok.en"}, {"adatum", "dinner", "tok.en"}, {"adatum", "lunch", "tok.en2"}, {"adatumlunch", "", "tok.en"},
	} {
		if _, err := p.open(tc.tenant, tc.slug, tc.token, sealed); err == nil {
			t.Errorf("opened for %+v", tc)
		}
	}
	other := newPageSealer([]byte("another key of thirty-two bytes!"))
	if _, err := other.open("adatum", "lunch", "tok.en", sealed); err == nil {
		t.Error("opened with another form key")
	}
}

// FuzzPageState: whatever a client sends as the state, opening it never
// panics and never yields a state out of bounds.
func FuzzPageState(f *testing.F) {
	p := newPageSealer([]byte("a form key of thirty-two bytes!!"))
	sealed, _ := p.seal("adatum", "lunch", "tok", pageState{Page: 1, Values: map[string]survey.Form{"q1": {"": {"x"}}}})
	f.Add(sealed, "tok")
	f.Add("v1:", "tok")
	f.Add("v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "")
	f.Add(sealed[:len(sealed)-1]+"A", "tok")
	f.Fuzz(func(t *testing.T, sealed, token string) {
		st, err := p.open("adatum", "lunch", token, sealed)
		if err != nil {
			return
		}
		checkState(t, st)
	})
}

// FuzzDecodePageState: the decoder of an opened state keeps its bounds
// on any input (a state is sealed by us, but a key can leak).
func FuzzDecodePageState(f *testing.F) {
	f.Add([]byte(`{"p":1,"v":{"q1":{"":["x"]}}}`))
	f.Add([]byte(`{"p":-1}`))
	f.Add([]byte(`{"p":1e9}`))
	f.Add([]byte(`{"r":"../../etc"}`))
	f.Add([]byte(`{"v":{"a":{"":["1","2"]},"b":null}}`))
	f.Add([]byte(`{"p":2,"l":-1,"s":[2,1,2]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		st, err := decodePageState(raw)
		if err != nil {
			return
		}
		checkState(t, st)
		again, _ := json.Marshal(st)
		if st2, err := decodePageState(again); err != nil || st2.Page != st.Page || len(st2.Values) != len(st.Values) {
			t.Fatalf("round trip: %+v, %v", st2, err)
		}
	})
}

func checkState(t *testing.T, st pageState) {
	t.Helper()
	if st.Page < 0 || st.Page >= maxStatePages || len(st.Values) > survey.MaxQuestions || st.Left < 0 || len(st.Reached) > maxStatePages {
		t.Fatalf("out of bounds: %+v", st)
	}
	if st.Resume != "" && len(st.Resume) != 32 {
		t.Fatalf("resume key %q", st.Resume)
	}
}
