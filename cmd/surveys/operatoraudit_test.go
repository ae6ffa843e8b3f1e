package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestOperatorAudit: what the operator's commands do to a tenant (user
// add, password, activate, two-factor-off, remove; token create and
// revoke; tenant suspend, resume and plan) is in that tenant's audit
// log, with "operator" as the actor and the command as the detail; a
// command refused writes nothing, and another tenant's log stays empty.
func TestOperatorAudit(t *testing.T) {
	dir := t.TempDir()
	newTestMain(t, dir).Close() // creates the demo tenants
	none := func(string) string { return "" }
	cmd := func(stdin string, args ...string) string {
		t.Helper()
		var out strings.Builder
		if err := run(context.Background(), append(append(args[:2:2], "--data", dir), args[2:]...), none, strings.NewReader(stdin), &out, io.Discard); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.String()
	}
	cmd("correct horse battery\n", "user", "add", "--tenant", "adatum", "--email", "b@adatum.example", "--password-stdin")
	cmd("another horse battery\n", "user", "password", "--tenant", "adatum", "--email", "B@adatum.example", "--password-stdin")
	cmd("", "user", "activate", "--tenant", "adatum", "--email", "b@adatum.example")
	cmd("", "token", "create", "--tenant", "adatum", "--name", "ci", "--role", "viewer")
	// A refused command notes nothing.
	if err := run(context.Background(), []string{"user", "remove", "--data", dir, "--tenant", "adatum", "--email", "nobody@adatum.example"}, none, strings.NewReader(""), io.Discard, io.Discard); err == nil {
		t.Fatal("removed an account that is none")
	}
	cmd("", "user", "remove", "--tenant", "adatum", "--email", "b@adatum.example")
	cmd("", "tenant", "suspend", "--tenant", "adatum")
	cmd("", "tenant", "resume", "--tenant", "adatum")
	cmd("", "tenant", "plan", "--tenant", "adatum", "premium")

	st, err := local.Open(filepath.Join(dir, "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	list, _, err := store.NewAuditStore(st).List(ctx, "adatum", survey.AuditFilter{Actor: survey.AuditOperator}, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := len(list) - 1; i >= 0; i-- {
		e := list[i]
		if e.Actor != "operator" || e.IP != "" || e.At.IsZero() || !strings.HasPrefix(e.Detail, "surveys ") {
			t.Errorf("event %+v", e)
		}
		got = append(got, e.Action+" "+e.Target)
	}
	tokens, err := store.NewTokenStore(st).List(ctx, "adatum")
	if err != nil || len(tokens) != 1 {
		t.Fatalf("tokens %v, %v", tokens, err)
	}
	want := []string{
		"member.added b@adatum.example", "password.reset b@adatum.example", "member.activated b@adatum.example", "token.created ci",
		"member.removed b@adatum.example", "tenant.suspended adatum", "tenant.resumed adatum", "tenant.plan adatum",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the operator's events:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(list[0].Detail, "Premium") && !strings.Contains(strings.ToLower(list[0].Detail), "premium") {
		t.Errorf("the plan's event says %q", list[0].Detail)
	}
	_ = st.Close()

	// A token revoked, by its ID.
	cmd("", "token", "revoke", "--tenant", "adatum", tokens[0].ID)
	st, err = local.Open(filepath.Join(dir, "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, _, err = store.NewAuditStore(st).List(ctx, "adatum", survey.AuditFilter{Action: survey.AuditTokenRevoked}, "", 10)
	if err != nil || len(list) != 1 || list[0].Target != tokens[0].ID || list[0].Actor != "operator" {
		t.Fatalf("token revoked: %+v, %v", list, err)
	}
	if other, _, err := store.NewAuditStore(st).List(ctx, "fabrikam", survey.AuditFilter{Actor: survey.AuditOperator}, "", 10); err != nil || len(other) != 0 {
		t.Fatalf("fabrikam's log: %+v, %v", other, err)
	}
}
