package scim

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
)

func ops(t testing.TB, raw string) []patchOp {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal([]byte(raw), &body); err != nil {
		t.Fatal(err)
	}
	o, err := readPatch(body)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return o
}

// TestPatchUser: the PATCH bodies Entra ID and Okta send, each applied to
// the same user, and the user they leave.
func TestPatchUser(t *testing.T) {
	start := store.SCIMUser{Email: "ana@example.com", GivenName: "Ana", FamilyName: "Lima", DisplayName: "Ana Lima", ExternalID: "e1", Active: true}
	for _, c := range []struct {
		name, body string
		want       store.SCIMUser
	}{
		{"Entra ID deactivates", `{"Operations":[{"op":"Replace","path":"active","value":"False"}]}`,
			store.SCIMUser{Email: "ana@example.com", GivenName: "Ana", FamilyName: "Lima", DisplayName: "Ana Lima", ExternalID: "e1"}},
		{"Okta deactivates", `{"Operations":[{"op":"replace","value":{"active":false}}]}`,
			store.SCIMUser{Email: "ana@example.com", GivenName: "Ana", FamilyName: "Lima", DisplayName: "Ana Lima", ExternalID: "e1"}},
		{"Entra ID's attributes", `{"Operations":[{"op":"Add","path":"name.givenName","value":"Anna"},{"op":"Replace","path":"displayName","value":"A. L."},
			{"op":"Replace","path":"externalId","value":"e2"},{"op":"Add","path":"title","value":"Boss"},
			{"op":"Replace","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager","value":"x"},
			{"op":"Replace","path":"emails[type eq \"work\"].value","value":"other@example.com"}]}`,
			store.SCIMUser{Email: "ana@example.com", GivenName: "Anna", FamilyName: "Lima", DisplayName: "A. L.", ExternalID: "e2", Active: true}},
		{"a core URN path", `{"Operations":[{"op":"replace","path":"urn:ietf:params:scim:schemas:core:2.0:User:name.familyName","value":"Silva"}]}`,
			store.SCIMUser{Email: "ana@example.com", GivenName: "Ana", FamilyName: "Silva", DisplayName: "Ana Lima", ExternalID: "e1", Active: true}},
		{"Okta's name object and a dotted key", `{"Operations":[{"op":"replace","value":{"name":{"givenName":"Bea"},"name.familyName":"Reis","displayName":"Bea Reis"}}]}`,
			store.SCIMUser{Email: "ana@example.com", GivenName: "Bea", FamilyName: "Reis", DisplayName: "Bea Reis", ExternalID: "e1", Active: true}},
		{"remove", `{"Operations":[{"op":"remove","path":"name.givenName"},{"op":"remove","path":"displayName"}]}`,
			store.SCIMUser{Email: "ana@example.com", FamilyName: "Lima", ExternalID: "e1", Active: true}},
	} {
		u := start
		if err := applyPatch(ops(t, c.body), setUser(&u), nil); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if u != c.want {
			t.Errorf("%s: %+v; want %+v", c.name, u, c.want)
		}
	}
	for name, body := range map[string]string{
		"active not a boolean": `{"Operations":[{"op":"replace","path":"active","value":"maybe"}]}`,
		"a path that is none":  `{"Operations":[{"op":"replace","path":"name..x","value":"y"}]}`,
		"no object":            `{"Operations":[{"op":"replace","value":"y"}]}`,
		"name not an object":   `{"Operations":[{"op":"replace","path":"name","value":3}]}`,
	} {
		u := start
		err := applyPatch(ops(t, body), setUser(&u), nil)
		if e := errorOf(err); err == nil || e.Status != 400 {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, body := range map[string]string{
		"no operations":   `{"schemas":[]}`,
		"a bad op":        `{"Operations":[{"op":"move","path":"x"}]}`,
		"remove, no path": `{"Operations":[{"op":"remove"}]}`,
	} {
		var b map[string]any
		_ = json.Unmarshal([]byte(body), &b)
		if _, err := readPatch(b); err == nil || errorOf(err).Status != 400 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestPatchGroup: members added, replaced and removed as Entra ID and Okta
// send it.
func TestPatchGroup(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"add", `{"Operations":[{"op":"add","path":"members","value":[{"value":"c"},{"value":"d"}]}]}`, []string{"a", "b", "c", "d"}},
		{"Entra ID removes with a value", `{"Operations":[{"op":"Remove","path":"members","value":[{"value":"a"}]}]}`, []string{"b"}},
		{"Okta removes with a filter", `{"Operations":[{"op":"remove","path":"members[value eq \"b\"]"}]}`, []string{"a"}},
		{"remove all", `{"Operations":[{"op":"remove","path":"members"}]}`, nil},
		{"replace", `{"Operations":[{"op":"replace","path":"members","value":[{"value":"z"}]}]}`, []string{"z"}},
		{"Okta replaces the name, no path", `{"Operations":[{"op":"replace","value":{"id":"x","displayName":"Renamed"}}]}`, []string{"a", "b"}},
	} {
		g := store.SCIMGroup{DisplayName: "G", Members: []string{"a", "b"}}
		if err := applyPatch(ops(t, c.body), setGroup(&g), &g.Members); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(g.Members, c.want) {
			t.Errorf("%s: %v; want %v", c.name, g.Members, c.want)
		}
	}
}

// TestFilters: filters evaluated on a user and a group, by what the RFC's
// examples ask, and the filters refused.
func TestFilters(t *testing.T) {
	u := &store.SCIMUser{ID: "u1", Email: "ana@example.com", GivenName: "Ana", ExternalID: "E-1", Active: true}
	g := &store.SCIMGroup{ID: "g1", DisplayName: "Survey Editors", Members: []string{"u1", "u2"}}
	for _, c := range []struct {
		filter string
		user   bool
		want   bool
	}{
		{`userName eq "ANA@example.com"`, true, true},
		{`userName eq "bo@example.com"`, true, false},
		{`urn:ietf:params:scim:schemas:core:2.0:User:userName eq "ana@example.com"`, true, true},
		{`externalId eq "E-1"`, true, true},
		{`externalId eq "e-1"`, true, false}, // caseExact
		{`userName sw "ana" and active eq true`, true, true},
		{`active eq false or name.givenName co "n"`, true, true},
		{`not (userName ew ".org")`, true, true},
		{`emails[type eq "work" and value eq "ana@example.com"]`, true, true},
		{`emails.value pr`, true, true},
		{`displayName eq "survey editors"`, false, true},
		{`id eq "g1" and members[value eq "u2"]`, false, true},
		{`members[value eq "u3"]`, false, false},
		{`members.value eq "u1"`, false, true},
	} {
		expr, err := parseFilter(c.filter)
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		a := groupAttrs(g)
		if c.user {
			a = userAttrs(u)
		}
		got, err := matches(expr, a)
		if err != nil || got != c.want {
			t.Errorf("%s = %v, %v; want %v", c.filter, got, err, c.want)
		}
	}
	for _, bad := range []string{`userName eq`, `userName xx "a"`, `(userName eq "a"`, `"a" eq userName`} {
		if _, err := parseFilter(bad); err == nil || errorOf(err).ScimType != "invalidFilter" {
			t.Errorf("%s parsed: %v", bad, err)
		}
	}
	for _, unknown := range []string{`title eq "x"`, `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "x"`, `phoneNumbers[type eq "work"]`} {
		expr, err := parseFilter(unknown)
		if err != nil {
			t.Fatalf("%s: %v", unknown, err)
		}
		if _, err := matches(expr, userAttrs(u)); err == nil || errorOf(err).ScimType != "invalidFilter" {
			t.Errorf("%s evaluated: %v", unknown, err)
		}
	}
}

// FuzzPatchAndFilter: no body or filter makes the parsing and applying of
// a PATCH or a filter panic.
func FuzzPatchAndFilter(f *testing.F) {
	f.Add(`{"Operations":[{"op":"Replace","path":"active","value":"False"}]}`, `userName eq "a@b.c"`)
	f.Add(`{"Operations":[{"op":"remove","path":"members[value eq \"b\"]"}]}`, `members[value eq "u2"] and not (id pr)`)
	f.Add(`{"Operations":[{"op":"replace","value":{"name":{"givenName":1}}}]}`, `emails[type eq "work"]`)
	f.Fuzz(func(t *testing.T, body, filter string) {
		var b map[string]any
		if json.Unmarshal([]byte(body), &b) == nil && b != nil {
			if o, err := readPatch(b); err == nil {
				u := store.SCIMUser{Email: "a@b.c"}
				_ = applyPatch(o, setUser(&u), nil)
				g := store.SCIMGroup{Members: []string{"a"}}
				_ = applyPatch(o, setGroup(&g), &g.Members)
			}
		}
		if e, err := parseFilter(filter); err == nil {
			_, _ = matches(e, userAttrs(&store.SCIMUser{Email: "a@b.c"}))
			_, _ = matches(e, groupAttrs(&store.SCIMGroup{Members: []string{"a"}}))
		}
	})
}
