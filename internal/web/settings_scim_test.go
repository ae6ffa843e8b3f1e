package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/web"
)

// scimToken makes a SCIM token on the SCIM settings page as the admin of
// cookie, and returns it as the page shows it, once.
func (a *testApp) scimToken(t *testing.T, tenant string, admin map[string]string) string {
	t.Helper()
	code, _, body := a.do(t, "POST", "/"+tenant+"/settings/scim", url.Values{"name": {"Entra ID"}}, admin)
	m := regexp.MustCompile(`id="new-token" value="(scim_[A-Za-z0-9_-]+)"`).FindStringSubmatch(body)
	if code != http.StatusOK || m == nil {
		t.Fatalf("making a SCIM token = %d: %s", code, body)
	}
	return m[1]
}

// roleIn is the role of a member of tenant ("" for none) and whether the
// account is deactivated.
func (a *testApp) roleIn(t *testing.T, tenant, email string) (survey.Role, bool) {
	t.Helper()
	ms, err := testUsers(a.st).Members(context.Background(), tenant)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Email == email {
			return m.Role, m.Disabled
		}
	}
	return "", false
}

// TestSCIMClientSequence runs the steps of the identity providers'
// published SCIM test suites (Microsoft Entra ID's SCIM validator, Okta's
// Runscope SCIM 2.0 tests) against the server: discovery, look up by
// filter, create, the duplicate, read, patch attributes (Entra ID's paths
// and Okta's path-less values), groups that give roles (add and remove
// members, Entra ID's membership check), deactivate (a live session ends
// at once, the password is refused), reactivate, page, delete; and the
// errors: a bad filter 400, an unknown id 404, a wrong token 401, a
// revoked token 401, another tenant's token sees nothing. Each change is
// in the audit log, by "SCIM".
func TestSCIMClientSequence(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	admin := app.signedIn(t, "adatum", "admin@adatum.example")
	token := app.scimToken(t, "adatum", admin)
	auth := map[string]string{"Authorization": "Bearer " + token}
	call := func(method, path, body string, want int) map[string]any {
		t.Helper()
		code, v, raw := app.scim(t, method, "/scim/v2"+path, auth, body)
		if code != want {
			t.Fatalf("%s %s = %d, want %d: %s", method, path, code, want, raw)
		}
		return v
	}
	errorOf := func(v map[string]any, status, scimType string) {
		t.Helper()
		if v["status"] != status || fmt.Sprint(v["schemas"]) != "[urn:ietf:params:scim:api:messages:2.0:Error]" || scimType != "" && v["scimType"] != scimType || v["detail"] == "" {
			t.Fatalf("error = %v; want status %s, scimType %q", v, status, scimType)
		}
	}
	q := url.QueryEscape

	// Discovery.
	if v := call("GET", "/ServiceProviderConfig", "", 200); fmt.Sprint(v["patch"]) != "map[supported:true]" {
		t.Fatalf("ServiceProviderConfig = %v", v)
	}
	if v := call("GET", "/ResourceTypes", "", 200); v["totalResults"] != 2.0 {
		t.Fatalf("ResourceTypes = %v", v)
	}
	if v := call("GET", "/Schemas/urn:ietf:params:scim:schemas:core:2.0:Group", "", 200); v["name"] != "Group" {
		t.Fatalf("the Group schema = %v", v)
	}

	// Entra ID first asks whether the user exists; then makes it.
	if v := call("GET", "/Users?filter="+q(`userName eq "ana@adatum.example"`), "", 200); v["totalResults"] != 0.0 {
		t.Fatalf("a user not made yet = %v", v)
	}
	entraUser := `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User","urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
		"externalId":"0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef","userName":"Ana@adatum.example","active":true,"displayName":"Ana Lima",
		"emails":[{"primary":true,"type":"work","value":"ana@adatum.example"}],"name":{"formatted":"Ana Lima","familyName":"Lima","givenName":"Ana"},
		"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"department":"Research"}}`
	made := call("POST", "/Users", entraUser, 201)
	id, _ := made["id"].(string)
	if id == "" || made["userName"] != "ana@adatum.example" || made["active"] != true || made["externalId"] != "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef" {
		t.Fatalf("created = %v", made)
	}
	if role, off := app.roleIn(t, "adatum", "ana@adatum.example"); role != survey.Viewer || off {
		t.Fatalf("the new member: %q, deactivated %v", role, off)
	}
	errorOf(call("POST", "/Users", entraUser, 409), "409", "uniqueness")
	// Found by filter, whatever the case of the address.
	v := call("GET", "/Users?filter="+q(`userName eq "ANA@adatum.example"`), "", 200)
	if res, _ := v["Resources"].([]any); v["totalResults"] != 1.0 || len(res) != 1 || res[0].(map[string]any)["id"] != id {
		t.Fatalf("by filter = %v", v)
	}
	if v := call("GET", "/Users?filter="+q(`externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"`), "", 200); v["totalResults"] != 1.0 {
		t.Fatalf("by externalId = %v", v)
	}
	if v := call("GET", "/Users/"+id, "", 200); v["userName"] != "ana@adatum.example" || fmt.Sprint(v["name"]) != "map[familyName:Lima formatted:Ana Lima givenName:Ana]" {
		t.Fatalf("GET = %v", v)
	}

	// Entra ID's PATCH: capitalised ops, paths, an extension and a
	// filtered e-mail path (accepted, not kept).
	v = call("PATCH", "/Users/"+id, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[
		{"op":"Replace","path":"displayName","value":"Ana L."},{"op":"Add","path":"name.givenName","value":"Anna"},
		{"op":"Replace","path":"emails[type eq \"work\"].value","value":"ana@adatum.example"},
		{"op":"Add","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department","value":"Marketing"}]}`, 200)
	if v["displayName"] != "Ana L." || v["name"].(map[string]any)["givenName"] != "Anna" {
		t.Fatalf("after Entra ID's PATCH = %v", v)
	}
	// Okta's PATCH: no path, an object of attributes.
	v = call("PATCH", "/Users/"+id, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","value":{"name":{"familyName":"Lima-Silva"}}}]}`, 200)
	if v["name"].(map[string]any)["familyName"] != "Lima-Silva" || v["displayName"] != "Ana L." {
		t.Fatalf("after Okta's PATCH = %v", v)
	}
	errorOf(call("PATCH", "/Users/"+id, `{"Operations":[{"op":"remove"}]}`, 400), "400", "noTarget")
	errorOf(call("PATCH", "/Users/"+id, `{"Operations":[{"op":"replace","path":"userName","value":"ana.lima@adatum.example"}]}`, 400), "400", "invalidValue")

	// Groups that give roles: "editor" by its default name.
	group := call("POST", "/Groups", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"editor","members":[]}`, 201)
	gid, _ := group["id"].(string)
	call("PATCH", "/Groups/"+gid, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"add","path":"members","value":[{"value":"`+id+`","display":"ana@adatum.example"}]}]}`, 204)
	if role, _ := app.roleIn(t, "adatum", "ana@adatum.example"); role != survey.Editor {
		t.Fatalf("in the editors' group: %q", role)
	}
	// Entra ID's membership check.
	v = call("GET", "/Groups?excludedAttributes=members&filter="+q(`id eq "`+gid+`" and members[value eq "`+id+`"]`), "", 200)
	if res, _ := v["Resources"].([]any); v["totalResults"] != 1.0 || len(res) != 1 || res[0].(map[string]any)["members"] != nil {
		t.Fatalf("the membership check = %v", v)
	}
	if v := call("GET", "/Users/"+id, "", 200); fmt.Sprint(v["groups"]) == "" || !strings.Contains(fmt.Sprint(v["groups"]), gid) {
		t.Fatalf("the user's groups = %v", v["groups"])
	}
	// Entra ID removes with a value; Okta with a filtered path.
	call("PATCH", "/Groups/"+gid, `{"Operations":[{"op":"Remove","path":"members","value":[{"value":"`+id+`"}]}]}`, 204)
	if role, _ := app.roleIn(t, "adatum", "ana@adatum.example"); role != survey.Viewer {
		t.Fatalf("out of the editors' group: %q", role)
	}
	call("PATCH", "/Groups/"+gid, `{"Operations":[{"op":"Add","path":"members","value":[{"value":"`+id+`"}]}]}`, 204)
	call("PATCH", "/Groups/"+gid, `{"Operations":[{"op":"remove","path":"members[value eq \"`+id+`\"]"}]}`, 204)
	if role, _ := app.roleIn(t, "adatum", "ana@adatum.example"); role != survey.Viewer {
		t.Fatalf("out of the editors' group by a filtered path: %q", role)
	}
	// The admin names the admins' group: Ana joins it and is an admin.
	if code, _, body := app.do(t, "POST", "/adatum/settings/scim/groups", url.Values{"admin": {"Survey admins"}}, admin); code != http.StatusSeeOther {
		t.Fatalf("saving the groups = %d: %s", code, body)
	}
	call("POST", "/Groups", `{"displayName":"Survey admins","members":[{"value":"`+id+`"}]}`, 201)
	if role, _ := app.roleIn(t, "adatum", "ana@adatum.example"); role != survey.Admin {
		t.Fatalf("in the admins' group: %q", role)
	}

	// Deactivation ends Ana's live session at once and refuses her
	// password; Entra ID sends "False" as a string.
	if err := testUsers(app.st).SetPassword(ctx, "adatum", "ana@adatum.example", "ana's long password"); err != nil {
		t.Fatal(err)
	}
	code, cookie := app.signIn(t, "adatum", "ana@adatum.example", "ana's long password")
	if code != http.StatusSeeOther || cookie == nil {
		t.Fatalf("Ana signs in = %d", code)
	}
	if code, _, _ := app.get(t, "/adatum/surveys", cookie); code != http.StatusOK {
		t.Fatalf("Ana's dashboard = %d", code)
	}
	v = call("PATCH", "/Users/"+id, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":"False"}]}`, 200)
	if v["active"] != false {
		t.Fatalf("deactivated = %v", v)
	}
	if code, h, _ := app.get(t, "/adatum/surveys", cookie); code != http.StatusSeeOther || !strings.HasPrefix(h.Get("Location"), "/login") {
		t.Fatalf("Ana's session after the deactivation = %d to %q; want the sign-in page", code, h.Get("Location"))
	}
	if code, c := app.signIn(t, "adatum", "ana@adatum.example", "ana's long password"); code != http.StatusUnauthorized || c != nil {
		t.Fatalf("a deactivated member signs in = %d, cookie %v", code, c)
	}
	if role, off := app.roleIn(t, "adatum", "ana@adatum.example"); role != survey.Admin || !off {
		t.Fatalf("deactivated: %q, %v; the role is kept", role, off)
	}
	if v := call("GET", "/Users?filter="+q(`active eq false`), "", 200); v["totalResults"] != 1.0 {
		t.Fatalf("the inactive users = %v", v)
	}
	// Okta reactivates with a path-less replace.
	call("PATCH", "/Users/"+id, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","value":{"active":true}}]}`, 200)
	if code, c := app.signIn(t, "adatum", "ana@adatum.example", "ana's long password"); code != http.StatusSeeOther || c == nil {
		t.Fatalf("a reactivated member signs in = %d", code)
	}
	// Okta's PUT of the whole user.
	v = call("PUT", "/Users/"+id, `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"ana@adatum.example","name":{"givenName":"Ana","familyName":"Lima"},"active":true}`, 200)
	if v["displayName"] != nil || v["name"].(map[string]any)["givenName"] != "Ana" {
		t.Fatalf("after a PUT = %v", v)
	}

	// Paging: three more users.
	for _, n := range []string{"bo", "cy", "di"} {
		call("POST", "/Users", `{"userName":"`+n+`@adatum.example"}`, 201)
	}
	v = call("GET", "/Users?startIndex=2&count=2", "", 200)
	if res, _ := v["Resources"].([]any); v["totalResults"] != 4.0 || v["startIndex"] != 2.0 || v["itemsPerPage"] != 2.0 || len(res) != 2 || res[0].(map[string]any)["userName"] != "bo@adatum.example" {
		t.Fatalf("page 2 = %v", v)
	}
	if v := call("GET", "/Users?startIndex=9&count=2", "", 200); v["totalResults"] != 4.0 || v["itemsPerPage"] != 0.0 {
		t.Fatalf("past the end = %v", v)
	}

	// Errors.
	errorOf(call("GET", "/Users?filter="+q(`userName eq`), "", 400), "400", "invalidFilter")
	errorOf(call("GET", "/Users?filter="+q(`title eq "boss"`), "", 400), "400", "invalidFilter")
	errorOf(call("GET", "/Users/0123456789abcdef0123456789abcdef", "", 404), "404", "")
	errorOf(call("GET", "/Groups/not-an-id", "", 404), "404", "")
	errorOf(call("POST", "/Users", `{"userName":"not an address"}`, 400), "400", "invalidValue")
	errorOf(call("POST", "/Users", `not json`, 400), "400", "invalidSyntax")
	errorOf(call("POST", "/Groups", `{"displayName":"editor"}`, 409), "409", "uniqueness")
	for _, bad := range []string{"", "Bearer scim_wrong", "Bearer " + strings.Replace(token, token[10:14], "AAAA", 1)} {
		code, v, raw := app.scim(t, "GET", "/scim/v2/Users", map[string]string{"Authorization": bad}, "")
		if code != http.StatusUnauthorized || strings.Contains(raw, "ana@") {
			t.Fatalf("a wrong token %q = %d: %s", bad, code, raw)
		}
		errorOf(v, "401", "")
	}
	// Fabrikam's SCIM token sees none of Adatum's users.
	fred := app.signedIn(t, "fabrikam", "fred@fabrikam.example")
	fabrikam := map[string]string{"Authorization": "Bearer " + app.scimToken(t, "fabrikam", fred)}
	if code, v, raw := app.scim(t, "GET", "/scim/v2/Users?filter="+q(`userName eq "ana@adatum.example"`), fabrikam, ""); code != 200 || v["totalResults"] != 0.0 || strings.Contains(raw, "adatum") {
		t.Fatalf("Fabrikam's token looks for Ana = %d: %s", code, raw)
	}
	if code, _, raw := app.scim(t, "DELETE", "/scim/v2/Users/"+id, fabrikam, ""); code != http.StatusNotFound {
		t.Fatalf("Fabrikam's token deletes Ana = %d: %s", code, raw)
	}

	// Delete: gone, and no more a member.
	call("DELETE", "/Users/"+id, "", 204)
	call("GET", "/Users/"+id, "", 404)
	if role, _ := app.roleIn(t, "adatum", "ana@adatum.example"); role != "" {
		t.Fatalf("a deleted user is a member: %q", role)
	}
	call("DELETE", "/Groups/"+gid, "", 204)

	// The audit log: each change, by SCIM.
	events, _, err := store.NewAuditStore(app.st).List(ctx, "adatum", survey.AuditFilter{Actor: "SCIM"}, "", 200)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range events {
		seen[e.Action]++
	}
	for action, n := range map[string]int{survey.AuditSCIMUserCreated: 4, survey.AuditSCIMUserUpdated: 3, survey.AuditSCIMUserDeactivated: 1,
		survey.AuditSCIMUserReactivated: 1, survey.AuditSCIMUserDeleted: 1, survey.AuditSCIMGroupCreated: 2, survey.AuditSCIMGroupUpdated: 4,
		survey.AuditSCIMGroupDeleted: 1, survey.AuditMemberRole: 5} {
		if seen[action] != n {
			t.Errorf("the audit log has %d %s by SCIM; want %d (all: %v)", seen[action], action, n, seen)
		}
	}
	// The admin revokes the token: refused from then on.
	code, _, body := app.do(t, "GET", "/adatum/settings/scim", nil, admin)
	m := regexp.MustCompile(`/adatum/settings/scim/tokens/([0-9a-f]{16})/revoke`).FindStringSubmatch(body)
	if code != 200 || m == nil || strings.Contains(body, token) {
		t.Fatalf("the SCIM page = %d (shows the token again: %v): %s", code, strings.Contains(body, token), body)
	}
	if code, _, _ := app.do(t, "POST", "/adatum/settings/scim/tokens/"+m[1]+"/revoke", url.Values{}, admin); code != http.StatusSeeOther {
		t.Fatalf("revoking = %d", code)
	}
	if code, _, _ := app.scim(t, "GET", "/scim/v2/Users", auth, ""); code != http.StatusUnauthorized {
		t.Fatalf("a revoked token = %d", code)
	}
}

// TestSCIMRateLimitPerToken: each SCIM token has its own bound per
// minute; past it, 429 in the SCIM error schema, while another token is
// still served.
func TestSCIMRateLimitPerToken(t *testing.T) {
	t.Parallel()
	app := newTestAppOn(t, backends.Local(t), func(d *web.Deps) { d.Limits.SCIMPerToken = 3 })
	tokens := store.NewSCIMTokenStore(app.st)
	first, err := tokens.Create(context.Background(), "adatum", "Okta")
	if err != nil {
		t.Fatal(err)
	}
	second, err := tokens.Create(context.Background(), "adatum", "Entra ID")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if code, _, raw := app.scim(t, "GET", "/scim/v2/Users", map[string]string{"Authorization": "Bearer " + first}, ""); code != 200 {
			t.Fatalf("request %d = %d: %s", i+1, code, raw)
		}
	}
	code, v, raw := app.scim(t, "GET", "/scim/v2/Users", map[string]string{"Authorization": "Bearer " + first}, "")
	if code != http.StatusTooManyRequests || v["status"] != "429" {
		t.Fatalf("the 4th request = %d: %s", code, raw)
	}
	if code, _, raw := app.scim(t, "GET", "/scim/v2/Users", map[string]string{"Authorization": "Bearer " + second}, ""); code != 200 {
		t.Fatalf("another token = %d: %s", code, raw)
	}
}

// TestSCIMPageForms: the SCIM page's forms refuse bad input with a 422
// that says what to fix, and change nothing; an editor cannot open it.
func TestSCIMPageForms(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	ctx := context.Background()
	admin := app.signedIn(t, "adatum", "admin@adatum.example")
	code, _, body := app.do(t, "POST", "/adatum/settings/scim", url.Values{"name": {"  "}}, admin)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "Give the token a name") || strings.Contains(body, `id="new-token"`) {
		t.Fatalf("a token without a name = %d: %s", code, body)
	}
	if l, err := store.NewSCIMTokenStore(app.st).List(ctx, "adatum"); err != nil || len(l) != 0 {
		t.Fatalf("tokens after a refused form: %v, %v", l, err)
	}
	code, _, body = app.do(t, "POST", "/adatum/settings/scim/groups", url.Values{"admin": {"Staff"}, "editor": {"staff"}}, admin)
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "Name a different group for each role") {
		t.Fatalf("one group for two roles = %d: %s", code, body)
	}
	if g, err := store.NewSCIMStore(app.st).RoleGroups(ctx, "adatum"); err != nil || g != (store.SCIMRoleGroups{}) {
		t.Fatalf("the groups after a refused form: %+v, %v", g, err)
	}
	// "editor" left empty is the role's own name: a group called "viewer"
	// for the editors clashes with it.
	code, _, body = app.do(t, "POST", "/adatum/settings/scim/groups", url.Values{"editor": {"Viewer"}}, admin)
	if code != http.StatusUnprocessableEntity {
		t.Fatalf("the editors' group named viewer = %d: %s", code, body)
	}
	code, _, body = app.do(t, "POST", "/adatum/settings/scim/groups", url.Values{"admin": {"Survey admins"}, "editor": {"Survey editors"}}, admin)
	if code != http.StatusSeeOther {
		t.Fatalf("saving the groups = %d: %s", code, body)
	}
	code, _, body = app.do(t, "GET", "/adatum/settings/scim", nil, admin)
	if code != http.StatusOK || !strings.Contains(body, `value="Survey admins"`) || !strings.Contains(body, "/scim/v2") {
		t.Fatalf("the SCIM page = %d: %s", code, body)
	}
	if _, err := testUsers(app.st).AddMember(ctx, "adatum", "ed@adatum.example", "correct horse battery", survey.Editor); err != nil {
		t.Fatal(err)
	}
	_, c := app.signIn(t, "adatum", "ed@adatum.example", "correct horse battery")
	if code, _, _ := app.get(t, "/adatum/settings/scim", c); code != http.StatusForbidden {
		t.Fatalf("an editor opens the SCIM page = %d", code)
	}
}
