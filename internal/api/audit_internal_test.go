package api

import (
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/survey"
)

// TestOpenAPIAuditActions: the audit event's action, as openapi.json
// describes it, lists every one of survey.AuditActions in their order,
// and no other, so the two cannot drift apart.
func TestOpenAPIAuditActions(t *testing.T) {
	m := regexp.MustCompile(`"description": "What was done: ([^"]*)\."`).FindSubmatch(openAPIDocument)
	if m == nil {
		t.Fatal("openapi.json has no description of the audit event's action")
	}
	if got, want := string(m[1]), strings.Join(survey.AuditActions, ", "); got != want {
		t.Fatalf("openapi.json lists the actions\n%s\nsurvey.AuditActions are\n%s", got, want)
	}
}
