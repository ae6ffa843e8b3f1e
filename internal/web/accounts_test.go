package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// TestCommonPasswordsRefused: a password of the common list is refused,
// whatever its case, with 422 and a message beside the field, on sign-up
// and on a password change.
func TestCommonPasswordsRefused(t *testing.T) {
	app := newTestApp(t)
	const says = "one of the most common"
	code, _, body := app.do(t, "POST", "/onboarding", url.Values{"name": {"Contoso"}, "email": {"carol@contoso.example"}, "password": {"Password123"}, "plan": {"Trial"}}, nil)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, `<p class="field-error">This password is `+says) {
		t.Errorf("sign-up with a common password = %d\n%s", code, body)
	}
	if _, err := store.NewTenantStore(app.st).Get(context.Background(), "contoso"); survey.ErrorCode(err) != survey.ENOTFOUND {
		t.Errorf("the refused sign-up made a tenant: %v", err)
	}
	if _, err := store.NewUserStore(app.st).Add(context.Background(), "adatum", "ana@adatum.example", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery")
	code, _, body = app.do(t, "POST", "/adatum/account/password", url.Values{"current": {"correct horse battery"}, "new": {"QWERTYUIOP"}, "confirm": {"QWERTYUIOP"}},
		map[string]string{"Cookie": "surveys_session=" + c.Value})
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, says) {
		t.Errorf("password change to a common password = %d\n%s", code, body)
	}
	if code, _ := app.signIn(t, "adatum", "ana@adatum.example", "correct horse battery"); code != http.StatusSeeOther {
		t.Errorf("the old password after a refused change = %d", code)
	}
}
