package survey_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestParseContactsCSV: each row that cannot be imported says why (a bad
// address, a duplicate in the file or in the list, a missing column); the
// others are read with their attributes.
func TestParseContactsCSV(t *testing.T) {
	in := "\ufeffEmail,Name,Dept\n" +
		"ana@example.com,Ana,Sales\n" +
		"not-an-address,Bo,Sales\n" +
		"ANA@example.com,Ana again,Support\n" +
		"cy@example.com,Cy\n" +
		"\n" +
		"dee@example.com,Dee,\n" +
		"old@example.com,Old,Support\n"
	im, err := survey.ParseContactsCSV(strings.NewReader(in), map[string]bool{"old@example.com": true})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line    int
		email   string
		problem string
	}{
		{2, "ana@example.com", ""},
		{3, "not-an-address", "is not an e-mail address"},
		{4, "ana@example.com", "on line 2 too"},
		{5, "cy@example.com", "a column is missing"},
		{7, "dee@example.com", ""},
		{8, "old@example.com", "in the list already"},
	}
	if len(im.Rows) != len(want) || im.Good() != 2 || len(im.Attrs) != 1 || im.Attrs[0] != "dept" {
		t.Fatalf("rows %+v, attrs %v", im.Rows, im.Attrs)
	}
	for i, w := range want {
		r := im.Rows[i]
		if r.Line != w.line || r.Recipient.Email != w.email || (w.problem == "") != (r.Problem == "") || !strings.Contains(r.Problem, w.problem) {
			t.Errorf("row %d: %+v, want line %d %s %q", i, r, w.line, w.email, w.problem)
		}
	}
	if c := im.Contacts(); c[0].Attrs["dept"] != "Sales" || c[0].Name != "Ana" || c[1].Attrs != nil {
		t.Errorf("contacts: %+v", c)
	}
	for _, bad := range []string{"", "name,dept\nAna,Sales\n", "email,Bad Column\na@example.com,x\n", "email\n", "email,\"open\na@example.com"} {
		var se *survey.Error
		if _, err := survey.ParseContactsCSV(strings.NewReader(bad), nil); !errors.As(err, &se) || se.Fields["csv"] == "" {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzParseContactsCSV(f *testing.F) {
	f.Add("email,name,dept\nana@example.com,Ana,Sales\nbad,,\n")
	f.Fuzz(func(t *testing.T, in string) {
		im, err := survey.ParseContactsCSV(strings.NewReader(in), nil)
		if err != nil {
			return
		}
		for _, c := range im.Contacts() {
			if _, err := survey.NormalizeContact(c); err != nil {
				t.Fatalf("a good row is not a valid contact: %+v: %v", c, err)
			}
		}
	})
}

// TestMatchSegment: every condition must hold; values compare trimmed and
// without regard to case; a contact without the attribute is outside; no
// conditions hold everyone.
func TestMatchSegment(t *testing.T) {
	attrs := map[string]string{"dept": "Sales", "region": "North "}
	for _, tc := range []struct {
		conds []survey.SegmentCondition
		want  bool
	}{
		{nil, true},
		{[]survey.SegmentCondition{{Attr: "dept", Value: "sales"}}, true},
		{[]survey.SegmentCondition{{Attr: "dept", Value: " SALES "}, {Attr: "region", Value: "north"}}, true},
		{[]survey.SegmentCondition{{Attr: "dept", Value: "Sales"}, {Attr: "region", Value: "South"}}, false},
		{[]survey.SegmentCondition{{Attr: "team", Value: "Sales"}}, false},
		{[]survey.SegmentCondition{{Attr: "dept", Value: "Sale"}}, false},
	} {
		if got := survey.MatchSegment(attrs, tc.conds); got != tc.want {
			t.Errorf("MatchSegment(%v) = %v, want %v", tc.conds, got, tc.want)
		}
	}
	if got := survey.SegmentText([]survey.SegmentCondition{{Attr: "dept", Value: "Sales"}, {Attr: "region", Value: "North"}}); got != "contacts whose dept is Sales and region is North" {
		t.Errorf("SegmentText = %q", got)
	}
}
