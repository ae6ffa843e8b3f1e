package survey

import (
	"reflect"
	"strings"
	"testing"
)

func TestContactAnswer(t *testing.T) {
	q := Question{Text: "Reach you", Type: Contact, Parts: map[string]string{"name": "required", "email": "required", "phone": "optional", "postcode": "optional", "street": "optional"}}
	tests := []struct {
		name string
		in   Form
		want string
		prob string
	}{
		{"name and e-mail", Form{"name": {" Ana  Berg "}, "email": {"ana@example.com"}}, `{"email":"ana@example.com","name":"Ana Berg"}`, ""},
		{"with a phone and postcode", Form{"name": {"Bo"}, "email": {"bo@example.com"}, "phone": {"+44 (20) 7946-0000"}, "postcode": {"LS1 4AP"}},
			`{"email":"bo@example.com","name":"Bo","phone":"+44 (20) 7946-0000","postcode":"LS1 4AP"}`, ""},
		{"a part not asked is dropped", Form{"name": {"Bo"}, "email": {"bo@example.com"}, "country": {"France"}}, `{"email":"bo@example.com","name":"Bo"}`, ""},
		{"nothing", Form{}, "", "Please give your contact details."},
		{"a required part missing", Form{"name": {"Bo"}}, "", "Please also give: E-mail address."},
		{"only an optional part", Form{"phone": {"0612345678"}}, "", "Please also give: Name."},
		{"a bad e-mail", Form{"name": {"Bo"}, "email": {"bo at example"}}, "", "Please give an e-mail address, like name@example.com."},
		{"a phone of letters", Form{"name": {"Bo"}, "email": {"bo@example.com"}, "phone": {"call me"}}, "", "Please give a phone number in digits, like +44 20 7946 0000."},
		{"a phone too short", Form{"name": {"Bo"}, "email": {"bo@example.com"}, "phone": {"123"}}, "", "Please give a phone number in digits, like +44 20 7946 0000."},
		{"a bad postcode", Form{"name": {"Bo"}, "email": {"bo@example.com"}, "postcode": {"LS1; DROP"}}, "", "Please give a postcode of letters, digits, spaces and hyphens."},
		{"a name too long", Form{"name": {strings.Repeat("n", 101)}, "email": {"bo@example.com"}}, "", "Name: please keep it to 100 characters (it has 101)."},
		{"a street of two lines is one", Form{"name": {"Bo"}, "email": {"bo@example.com"}, "street": {"1 Main St\nFlat 2"}}, `{"email":"bo@example.com","name":"Bo","street":"1 Main St Flat 2"}`, ""},
	}
	for _, tc := range tests {
		got, problem := kindsAAnswer(t, q, tc.in)
		if got != tc.want || problem != tc.prob {
			t.Errorf("%s: got %q, %q; want %q, %q", tc.name, got, problem, tc.want, tc.prob)
		}
	}
	// Optional and wholly empty: no answer; partly given: the required
	// parts still needed.
	q.ID, q.Optional = "q1", true
	s := &Survey{Title: "T", State: Published, Questions: []Question{q}}
	s.Normalize()
	if a, err := NewAnswer(s, map[string]Form{"q1": {"name": {" "}}}); err != nil || len(a.Answers) != 0 {
		t.Errorf("optional, empty: %+v, %v", a.Answers, err)
	}
	if _, err := NewAnswer(s, map[string]Form{"q1": {"email": {"bo@example.com"}}}); err == nil || err.(*Error).Fields["q1"] != "Please also give: Name." {
		t.Errorf("optional, partly given: %v", err)
	}
}

func TestContactDefinition(t *testing.T) {
	tests := []struct {
		name  string
		parts map[string]string
		want  string
		norm  map[string]string
	}{
		{"none named: the defaults", nil, "", map[string]string{"name": "required", "email": "required"}},
		{"written loosely", map[string]string{" Phone ": "Optional", "CITY": "required", "street": ""}, "", map[string]string{"phone": "optional", "city": "required"}},
		{"all not asked", map[string]string{"name": "", "email": ""}, "Ask for at least one part of the contact details.", nil},
		{"an unknown part", map[string]string{"adress": "required"}, `A contact question has no part "adress": the parts are name, email, phone, street, city, postcode and country.`, nil},
		{"an unknown way", map[string]string{"email": "mandatory"}, `Ask for the e-mail address as optional or required (not "mandatory").`, nil},
	}
	for _, tc := range tests {
		q := Question{ID: "q1", Text: "Q", Type: Contact, Parts: tc.parts}
		if got := kindsAFields(q)["questions.0.parts"]; got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if tc.norm != nil {
			s := &Survey{Questions: []Question{q}}
			s.Normalize()
			if !reflect.DeepEqual(s.Questions[0].Parts, tc.norm) {
				t.Errorf("%s: normalized %v, want %v", tc.name, s.Questions[0].Parts, tc.norm)
			}
		}
	}
}

// TestContactExport: a column per part asked, in the parts' order; the
// chart counts the parts given, never their text.
func TestContactExport(t *testing.T) {
	s := &Survey{Questions: []Question{{ID: "q1", Text: "Q", Type: Contact, Parts: map[string]string{"city": "optional", "name": "required", "email": "optional"}}}}
	s.Normalize()
	q := s.Questions[0]
	k := contact{}
	if got := k.Columns(q); !reflect.DeepEqual(got, []string{"Name", "E-mail address", "Town or city"}) {
		t.Errorf("columns %v", got)
	}
	qa := QuestionAnswer{Answer: `{"city":"Leeds","name":"Ana"}`}
	if got := k.Cells(q, qa); !reflect.DeepEqual(got, []string{"Ana", "", "Leeds"}) {
		t.Errorf("cells %v", got)
	}
	if got := k.Cells(Question{Type: Contact}, qa); !reflect.DeepEqual(got, []string{"Name: Ana; Town or city: Leeds"}) {
		t.Errorf("cells without the question's parts %v", got)
	}
	sum := NewSummary(s)
	for _, a := range []string{qa.Answer, `{"email":"a@example.com","name":"Bo"}`} {
		sum.Add(SurveyAnswer{Answers: []QuestionAnswer{{QuestionID: "q1", Type: Contact, Answer: a}}})
	}
	c := k.Chart(&sum.Questions[0])
	if !reflect.DeepEqual(c.Labels, []string{"Name", "E-mail address", "Town or city"}) || !reflect.DeepEqual(c.Counts, []int64{2, 1, 1}) || c.Words != nil {
		t.Errorf("chart %v %v %v", c.Labels, c.Counts, c.Words)
	}
	if got := Written(q, qa.Answer); got != "Ana · Leeds" {
		t.Errorf("written as %q, want the parts given, in order", got)
	}
}
