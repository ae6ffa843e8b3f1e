package survey_test

import (
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

func TestRoleMay(t *testing.T) {
	all := []survey.Action{survey.ReadResults, survey.EditSurveys, survey.DeleteAnswers, survey.TransferAnswers,
		survey.ManageTenant, survey.ManageMembers, survey.ManageTokens}
	allowed := map[survey.Role][]survey.Action{
		survey.Admin:  all,
		survey.Editor: {survey.ReadResults, survey.EditSurveys, survey.DeleteAnswers, survey.TransferAnswers},
		survey.Viewer: {survey.ReadResults},
		"":            nil,
		"owner":       nil,
	}
	for role, want := range allowed {
		ok := map[survey.Action]bool{}
		for _, a := range want {
			ok[a] = true
		}
		for _, a := range append(all, "fly") {
			if got := role.May(a); got != ok[a] {
				t.Errorf("%q.May(%q) = %v, want %v", role, a, got, ok[a])
			}
		}
	}
}

func TestParseAndStoredRole(t *testing.T) {
	for _, tc := range []struct {
		in      string
		parsed  survey.Role
		parseOK bool
		stored  survey.Role
	}{
		{"admin", survey.Admin, true, survey.Admin},
		{"editor", survey.Editor, true, survey.Editor},
		{"viewer", survey.Viewer, true, survey.Viewer},
		{"", "", false, survey.Admin}, // before roles: admin
		{"Admin", "", false, survey.Viewer},
		{"root", "", false, survey.Viewer},
	} {
		got, err := survey.ParseRole(tc.in)
		if got != tc.parsed || (err == nil) != tc.parseOK {
			t.Errorf("ParseRole(%q) = %q, %v", tc.in, got, err)
		}
		if err != nil && survey.ErrorCode(err) != survey.EINVALID {
			t.Errorf("ParseRole(%q) error code %q", tc.in, survey.ErrorCode(err))
		}
		if got := survey.StoredRole(tc.in); got != tc.stored {
			t.Errorf("StoredRole(%q) = %q, want %q", tc.in, got, tc.stored)
		}
	}
}

func TestRoleGrants(t *testing.T) {
	for _, tc := range []struct {
		r, other survey.Role
		want     bool
	}{
		{survey.Admin, survey.Admin, true},
		{survey.Admin, survey.Viewer, true},
		{survey.Editor, survey.Admin, false},
		{survey.Editor, survey.Editor, true},
		{survey.Viewer, survey.Editor, false},
		{survey.Admin, "", false},
		{survey.Admin, "root", false},
	} {
		if got := tc.r.Grants(tc.other); got != tc.want {
			t.Errorf("%q.Grants(%q) = %v", tc.r, tc.other, got)
		}
	}
}
