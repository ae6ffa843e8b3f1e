package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestTenantCommands: an operator lists, suspends, resumes and deletes
// tenants from the command line, on the store the server uses.
func TestTenantCommands(t *testing.T) {
	dir := t.TempDir()
	newTestMain(t, dir).Close() // creates the demo tenants
	none := func(string) string { return "" }
	tenant := func(args ...string) (string, error) {
		var out strings.Builder
		err := run(context.Background(), append([]string{"tenant"}, append(args, "--data", dir)...), none, strings.NewReader(""), &out, io.Discard)
		return out.String(), err
	}
	if err := run(context.Background(), []string{"user", "add", "--data", dir, "--tenant", "adatum", "--email", "a@adatum.example", "--password-stdin"}, none, strings.NewReader("correct horse battery\n"), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}

	out, err := tenant("list")
	if err != nil || !strings.Contains(out, "adatum") || !strings.Contains(out, "fabrikam") || strings.Count(out, "active") != 2 {
		t.Fatalf("tenant list = %q, %v", out, err)
	}
	if out, err := tenant("suspend", "--tenant", "adatum"); err != nil || !strings.Contains(out, "adatum: suspended") {
		t.Fatalf("suspend = %q, %v", out, err)
	}
	out, _ = tenant("list")
	if !regexpLine(out, "adatum", "suspended") {
		t.Fatalf("list after suspend = %q", out)
	}
	// The served site refuses a suspended tenant.
	m := newTestMain(t, dir)
	if code, _ := get(t, m, "/survey/adatum/adatum-customer-satisfaction"); code != http.StatusNotFound {
		t.Errorf("a suspended tenant's survey = %d, want 404", code)
	}
	if code, _ := get(t, m, "/survey/fabrikam/fabrikam-product-feedback"); code != http.StatusOK {
		t.Errorf("another tenant's survey = %d, want 200", code)
	}
	_ = m.Close()
	if _, err := tenant("resume", "--tenant", "adatum"); err != nil {
		t.Fatal(err)
	}

	// The plan: sign-ups start on the Trial; the operator changes it.
	if out, err := tenant("plan", "--tenant", "fabrikam", "standard"); err != nil || !strings.Contains(out, "fabrikam: plan Standard (was Premium") {
		t.Fatalf("plan = %q, %v", out, err)
	}
	if out, _ = tenant("list"); !regexpLine(out, "fabrikam", "Standard") {
		t.Fatalf("list after plan = %q", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--tenant", "fabrikam", "Gold"}, `"Gold" is not a plan`},
		{[]string{"plan", "--tenant", "fabrikam"}, "give one plan"},
		{[]string{"plan", "--tenant", "contoso", "Premium"}, `tenant "contoso"`},
		{[]string{"delete", "--tenant", "adatum"}, "add --yes"},
		{[]string{"delete", "--tenant", "contoso", "--yes"}, `tenant "contoso"`},
		{[]string{"suspend", "--tenant", "contoso"}, `tenant "contoso"`},
		{[]string{"rename"}, `unknown command "rename"`},
		{nil, "give one of"},
	} {
		if _, err := tenant(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("tenant %v: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
	out, err = tenant("delete", "--tenant", "adatum", "--yes")
	if err != nil || !strings.Contains(out, "deleted 1 survey, 1 account") {
		t.Fatalf("delete = %q, %v", out, err)
	}
	out, _ = tenant("list")
	if strings.Contains(out, "adatum") || !strings.Contains(out, "fabrikam") {
		t.Fatalf("list after delete = %q", out)
	}
}

func regexpLine(out, key, state string) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, key+" ") && strings.Contains(line, state) {
			return true
		}
	}
	return false
}
