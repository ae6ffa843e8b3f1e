package web_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/theme"
)

// routeActions says, for every route of the tenant's pages and of the API,
// which roles may use it (below). It is written out here, apart from
// routes.go and from survey's table of rights, so that the test checks
// the router against it: a route missing from it fails the test the day
// it is added.
var routeActions = map[string][]survey.Role{
	"GET /{tenant}/welcome":                                              ReadResults,
	"GET /{tenant}/surveys":                                              ReadResults,
	"GET /{tenant}/surveys/{slug}/analyze":                               ReadResults,
	"GET /{tenant}/surveys/{slug}/analyze/live":                          ReadResults,
	"GET /{tenant}/surveys/{slug}/analyze/{question}":                    ReadResults,
	"GET /{tenant}/surveys/{slug}/analyze/{question}/chart.svg":          ReadResults,
	"GET /{tenant}/surveys/{slug}/analyze/{question}/chart.png":          ReadResults,
	"GET /{tenant}/surveys/{slug}/crosstab":                              ReadResults,
	"GET /{tenant}/surveys/{slug}/crosstab.csv":                          ReadResults,
	"GET /{tenant}/surveys/{slug}/report.pdf":                            ReadResults,
	"GET /{tenant}/surveys/{slug}/share":                                 ReadResults,
	"GET /{tenant}/surveys/{slug}/preview":                               ReadResults,
	"GET /{tenant}/surveys/{slug}/qr.{format}":                           ReadResults,
	"GET /{tenant}/surveys/{slug}/answers":                               ReadResults,
	"GET /{tenant}/surveys/{slug}/answers/table":                         ReadResults,
	"GET /{tenant}/surveys/{slug}/compare":                               ReadResults,
	"POST /{tenant}/surveys/{slug}/segments":                             EditSurveys,
	"POST /{tenant}/surveys/{slug}/segments/{id}/delete":                 EditSurveys,
	"GET /{tenant}/surveys/{slug}/answers/{answer}":                      ReadResults,
	"GET /{tenant}/surveys/{slug}/answers/{answer}/files/{question}/{n}": ReadResults,
	"GET /{tenant}/surveys/{slug}/files.zip":                             ReadResults,
	"GET /{tenant}/surveys/{slug}/export.{format}":                       ReadResults,
	"GET /{tenant}/surveys/{slug}/definition.json":                       ReadResults,
	"GET /{tenant}/surveys/{slug}/translations":                          EditSurveys,
	"POST /{tenant}/surveys/{slug}/translations":                         EditSurveys,
	"GET /{tenant}/surveys/{slug}/theme":                                 EditSurveys,
	"POST /{tenant}/surveys/{slug}/theme":                                EditSurveys,
	"GET /{tenant}/account/password":                                     ReadResults,
	"POST /{tenant}/account/password":                                    ReadResults,
	"POST /{tenant}/account/alerts":                                      ReadResults,
	"POST /{tenant}/account/verify":                                      ReadResults,
	"GET /{tenant}/account/two-factor":                                   ReadResults,
	"POST /{tenant}/account/two-factor":                                  ReadResults,
	"POST /{tenant}/account/two-factor/disable":                          ReadResults,
	"POST /{tenant}/account/passkeys/begin":                              ReadResults,
	"POST /{tenant}/account/passkeys":                                    ReadResults,
	"GET /{tenant}/account/passkeys/remove":                              ReadResults,
	"POST /{tenant}/account/passkeys/remove":                             ReadResults,
	"GET /{tenant}/account/sessions":                                     ReadResults,
	"POST /{tenant}/account/sessions/end":                                ReadResults,
	"POST /{tenant}/account/sessions/end-others":                         ReadResults,
	"GET /{tenant}/surveys/{slug}/notifications":                         ReadResults,
	"POST /{tenant}/surveys/{slug}/notifications":                        ReadResults,
	"GET /{tenant}/surveys/new":                                          EditSurveys,
	"POST /{tenant}/surveys/new":                                         EditSurveys,
	"GET /{tenant}/surveys/import":                                       EditSurveys,
	"POST /{tenant}/surveys/import":                                      EditSurveys,
	"GET /{tenant}/surveys/{slug}/edit":                                  EditSurveys,
	"POST /{tenant}/surveys/{slug}/edit":                                 EditSurveys,
	"GET /{tenant}/surveys/{slug}/delete-forever":                        EditSurveys,
	"GET /{tenant}/surveys/{slug}/links":                                 EditSurveys,
	"POST /{tenant}/surveys/{slug}/links":                                EditSurveys,
	"GET /{tenant}/surveys/{slug}/links.csv":                             EditSurveys,
	"GET /{tenant}/surveys/{slug}/campaigns":                             EditSurveys,
	"POST /{tenant}/surveys/{slug}/campaigns":                            EditSurveys,
	"GET /{tenant}/surveys/{slug}/campaigns/{id}":                        EditSurveys,
	"POST /{tenant}/surveys/{slug}/campaigns/{id}/remind":                EditSurveys,
	"GET /{tenant}/contacts":                                             EditSurveys,
	"POST /{tenant}/contacts":                                            EditSurveys,
	"GET /{tenant}/contacts/{list}":                                      EditSurveys,
	"POST /{tenant}/contacts/{list}":                                     EditSurveys,
	"POST /{tenant}/contacts/{list}/import":                              EditSurveys,
	"GET /{tenant}/contacts/{list}/delete":                               EditSurveys,
	"POST /{tenant}/contacts/{list}/delete":                              EditSurveys,
	"GET /{tenant}/contacts/{list}/{contact}":                            EditSurveys,
	"POST /{tenant}/contacts/{list}/{contact}":                           EditSurveys,
	"POST /{tenant}/contacts/{list}/{contact}/remove":                    EditSurveys,
	"POST /{tenant}/surveys/{slug}/{action}":                             EditSurveys,
	"GET /{tenant}/surveys/{slug}/answers/{answer}/delete":               DeleteAnswers,
	"POST /{tenant}/surveys/{slug}/answers/{answer}/delete":              DeleteAnswers,
	"GET /{tenant}/surveys/{slug}/privacy":                               DeleteAnswers,
	"POST /{tenant}/surveys/{slug}/privacy":                              DeleteAnswers,
	"POST /{tenant}/surveys/{slug}/transfer":                             TransferAnswers,
	"GET /{tenant}/settings":                                             ManageTenant,
	"POST /{tenant}/settings":                                            ManageTenant,
	"GET /{tenant}/settings/theme":                                       ManageTenant,
	"POST /{tenant}/settings/theme":                                      ManageTenant,
	"GET /{tenant}/settings/identity":                                    ManageTenant,
	"POST /{tenant}/settings/identity":                                   ManageTenant,
	"GET /{tenant}/settings/saml":                                        ManageTenant,
	"POST /{tenant}/settings/saml":                                       ManageTenant,
	"GET /{tenant}/settings/database":                                    ManageTenant,
	"POST /{tenant}/settings/database":                                   ManageTenant,
	"GET /{tenant}/settings/webhooks":                                    ManageTenant,
	"POST /{tenant}/settings/webhooks":                                   ManageTenant,
	"GET /{tenant}/settings/webhooks/{id}/delete":                        ManageTenant,
	"GET /{tenant}/settings/audit":                                       ManageTenant,
	"GET /{tenant}/settings/audit.csv":                                   ManageTenant,
	"POST /{tenant}/settings/webhooks/{id}/{action}":                     ManageTenant,
	"GET /{tenant}/settings/domain":                                      ManageTenant,
	"POST /{tenant}/settings/domain":                                     ManageTenant,
	"GET /{tenant}/settings/domain/remove":                               ManageTenant,
	"GET /{tenant}/settings/members":                                     ManageMembers,
	"POST /{tenant}/settings/members":                                    ManageMembers,
	"POST /{tenant}/settings/members/role":                               ManageMembers,
	"GET /{tenant}/settings/members/remove":                              ManageMembers,
	"POST /{tenant}/settings/members/remove":                             ManageMembers,
	"GET /{tenant}/settings/members/two-factor":                          ManageMembers,
	"POST /{tenant}/settings/members/two-factor":                         ManageMembers,
	"GET /{tenant}/settings/members/sessions":                            ManageMembers,
	"POST /{tenant}/settings/members/sessions":                           ManageMembers,
	"POST /{tenant}/settings/invitations/{id}/revoke":                    ManageMembers,
	"GET /{tenant}/settings/scim":                                        ManageMembers,
	"POST /{tenant}/settings/scim":                                       ManageMembers,
	"POST /{tenant}/settings/scim/groups":                                ManageMembers,
	"POST /{tenant}/settings/scim/tokens/{id}/revoke":                    ManageMembers,
	"GET /{tenant}/settings/tokens":                                      ManageTokens,
	"POST /{tenant}/settings/tokens":                                     ManageTokens,
	"POST /{tenant}/settings/tokens/{id}/revoke":                         ManageTokens,

	"GET /api/v1/surveys":                         ReadResults,
	"GET /api/v1/surveys/{slug}":                  ReadResults,
	"GET /api/v1/surveys/{slug}/summary":          ReadResults,
	"GET /api/v1/surveys/{slug}/answers":          ReadResults,
	"GET /api/v1/surveys/{slug}/segments":         ReadResults,
	"GET /api/v1/surveys/{slug}/crosstab":         ReadResults,
	"GET /api/v1/surveys/{slug}/export":           ReadResults,
	"GET /api/v1/surveys/{slug}/report.pdf":       ReadResults,
	"GET /api/v1/surveys/{slug}/definition":       ReadResults,
	"POST /api/v1/surveys/import":                 EditSurveys,
	"POST /api/v1/surveys":                        EditSurveys,
	"DELETE /api/v1/surveys/{slug}":               EditSurveys,
	"POST /api/v1/surveys/{slug}/restore":         EditSurveys,
	"POST /api/v1/surveys/{slug}/publish":         EditSurveys,
	"POST /api/v1/surveys/{slug}/close":           EditSurveys,
	"POST /api/v1/surveys/{slug}/duplicate":       EditSurveys,
	"POST /api/v1/pictures":                       EditSurveys,
	"GET /api/v1/contacts/lists":                  EditSurveys,
	"POST /api/v1/contacts/lists":                 EditSurveys,
	"POST /api/v1/contacts/lists/{list}/contacts": EditSurveys,
	"GET /api/v1/surveys/{slug}/campaigns":        EditSurveys,
	"GET /api/v1/surveys/{slug}/campaigns/{id}":   EditSurveys,
	"GET /api/v1/webhooks":                        ManageTenant,
	"POST /api/v1/webhooks":                       ManageTenant,
	"GET /api/v1/webhooks/{id}":                   ManageTenant,
	"DELETE /api/v1/webhooks/{id}":                ManageTenant,
	"POST /api/v1/webhooks/{id}/rotate":           ManageTenant,
	"POST /api/v1/webhooks/{id}/test":             ManageTenant,
	"POST /api/v1/webhooks/{id}/enable":           ManageTenant,
	"GET /api/v1/audit":                           ManageTenant,
	"GET /api/v1/hooks":                           ManageTenant,
	"POST /api/v1/hooks":                          ManageTenant,
	"DELETE /api/v1/hooks/{id}":                   ManageTenant,
	"GET /api/v1/theme":                           ManageTenant,
	"PUT /api/v1/theme":                           ManageTenant,
}

// routeFormats are the values of {format} (of ?format= for the API's
// export) each route that takes one is asked with, written out here:
// every export's format, so that each is checked across tenants and
// roles (a route that takes a format and is not listed is asked with
// "csv").
var routeFormats = map[string][]string{
	"GET /{tenant}/surveys/{slug}/export.{format}": {"csv", "json", "xlsx", "spss", "r"},
	"GET /{tenant}/surveys/{slug}/qr.{format}":     {"png", "svg"},
	"GET /api/v1/surveys/{slug}/export":            {"json", "csv", "xlsx", "spss", "r"},
}

// formatted are the paths of route (already filled in) to ask, one per
// format of routeFormats[key], or route itself.
func formatted(key, route string) []string {
	formats, ok := routeFormats[key]
	if !ok {
		return []string{strings.ReplaceAll(route, "{format}", "csv")}
	}
	var out []string
	for _, f := range formats {
		if strings.Contains(route, "{format}") {
			out = append(out, strings.ReplaceAll(route, "{format}", f))
		} else {
			out = append(out, route+"?format="+f)
		}
	}
	return out
}

// linkRoutes are the routes outside the tenant's pages that a link with
// a secret in its path opens, with no sign-in: the status of a link this
// server did not make, asked signed out and by a signed-in admin of
// another tenant (never a tenant's data).
var linkRoutes = map[string]int{
	"GET /preview/{link}":                      http.StatusNotFound,
	"POST /preview/{link}":                     http.StatusNotFound,
	"POST /preview/{link}/path":                http.StatusNotFound,
	"GET /unsubscribe/{token}":                 http.StatusNotFound,
	"POST /unsubscribe/{token}":                http.StatusNotFound,
	"GET /invite/{token}":                      http.StatusGone,
	"POST /invite/{token}":                     http.StatusGone,
	"GET /verify/{token}":                      http.StatusNotFound,
	"GET /login/reset/{token}":                 http.StatusGone,
	"POST /login/reset/{token}":                http.StatusGone,
	"GET /survey/{tenant}/{slug}/resume/{key}": http.StatusNotFound,
}

// signInSteps are the sign-in's own routes that carry a sealed token in
// their form rather than their path: the status of a made-up token,
// asked signed out and by a signed-in admin of another tenant (never a
// session, never a tenant's data).
var signInSteps = map[string]int{
	"POST /login/code":         http.StatusBadRequest,
	"POST /login/code/passkey": http.StatusBadRequest,
}

// tenantSignIns are the sign-in routes of a tenant's own identity
// provider (OpenID Connect, SAML): the status when they name Adatum,
// which has none, asked signed out and by a signed-in admin of another
// tenant (no session, no cookie, never a tenant's data). Every route
// under /login/{tenant}/ must be listed.
var tenantSignIns = map[string]int{
	"GET /login/{tenant}/oidc":          http.StatusNotFound,
	"GET /login/{tenant}/oidc/callback": http.StatusNotFound,
	"GET /login/{tenant}/saml":          http.StatusNotFound,
	"GET /login/{tenant}/saml/metadata": http.StatusNotFound,
	"POST /login/{tenant}/saml/acs":     http.StatusNotFound,
}

// respondentTokenRoutes are the respondent's routes whose form carries a
// sealed token naming an answer (respond_copy.go), or a receipt code
// (respond_receipt.go): the status of a made-up token or code for Adatum's
// survey, asked signed out and by a signed-in admin of another tenant (no
// copy, no answer, never a tenant's data). The demo survey offers no
// copies and gives no receipts, and this server sends no mail and has no
// receipt key: 404 before the token is looked at (copy_test.go and
// receipt_test.go check made-up ones where copies and receipts are on).
var respondentTokenRoutes = map[string]int{
	"POST /survey/{tenant}/{slug}/copy":           http.StatusNotFound,
	"GET /survey/{tenant}/{slug}/receipt":         http.StatusNotFound,
	"POST /survey/{tenant}/{slug}/receipt":        http.StatusNotFound,
	"POST /survey/{tenant}/{slug}/receipt/delete": http.StatusNotFound,
}

// proxyRoutes are the routes the front proxy asks, with no sign-in: the
// status of a question about Adatum's name (no verified domain here),
// asked signed out and by a signed-in admin of another tenant.
var proxyRoutes = map[string]int{
	"GET /tls/ask": http.StatusNotFound,
}

// scimRoutes are the routes of the SCIM service: a SCIM token of the
// tenant reaches them, and nothing else does (no token, an API token of
// any role, a signed-in admin's cookie: 401); another tenant's SCIM token
// finds none of the tenant's users and groups (404). The value is the
// body a write sends.
var scimRoutes = map[string]string{
	"GET /scim/v2/ServiceProviderConfig": "",
	"GET /scim/v2/ResourceTypes":         "",
	"GET /scim/v2/ResourceTypes/{name}":  "",
	"GET /scim/v2/Schemas":               "",
	"GET /scim/v2/Schemas/{id}":          "",
	"GET /scim/v2/Users":                 "",
	"POST /scim/v2/Users":                `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"new@fabrikam.example","active":true}`,
	"GET /scim/v2/Users/{id}":            "",
	"PUT /scim/v2/Users/{id}":            `{"userName":"scim-secret@adatum.example","active":false}`,
	"PATCH /scim/v2/Users/{id}":          `{"Operations":[{"op":"replace","path":"active","value":false}]}`,
	"DELETE /scim/v2/Users/{id}":         "",
	"GET /scim/v2/Groups":                "",
	"POST /scim/v2/Groups":               `{"displayName":"Fabrikam group"}`,
	"GET /scim/v2/Groups/{id}":           "",
	"PUT /scim/v2/Groups/{id}":           `{"displayName":"Taken over"}`,
	"PATCH /scim/v2/Groups/{id}":         `{"Operations":[{"op":"replace","path":"displayName","value":"Taken over"}]}`,
	"DELETE /scim/v2/Groups/{id}":        "",
}

// publicAPI are the routes under /api/v1 that need no token: the same
// answer for everyone, with no tenant's data.
var publicAPI = map[string]bool{"GET /api/v1/openapi.json": true}

// Who may do what: the roles each kind of route lets through, written out
// here rather than asked of survey.Role.May, the code under test (a
// change of the roles' rights there, say "viewers may delete answers",
// fails this test).
var (
	ReadResults     = []survey.Role{survey.Admin, survey.Editor, survey.Viewer}
	EditSurveys     = []survey.Role{survey.Admin, survey.Editor}
	DeleteAnswers   = []survey.Role{survey.Admin, survey.Editor}
	TransferAnswers = []survey.Role{survey.Admin, survey.Editor}
	ManageTenant    = []survey.Role{survey.Admin}
	ManageMembers   = []survey.Role{survey.Admin}
	ManageTokens    = []survey.Role{survey.Admin}
)

// TestIsolationEveryRoute walks every route of the router and asks each as
// an admin, an editor and a viewer of Fabrikam and of Adatum, signed in
// and with an API token of that role: a table of route × role × tenant.
//
// Across tenants: each subscriber route of Adatum, asked by a signed-in
// Fabrikam member of any role, is 403; each API route, asked with a
// Fabrikam token for Adatum's survey, is 404 (403 when the token's role may
// not do it at all); each API route without a survey (the list, a new
// survey) answers for Fabrikam alone. No body carries Adatum's data (its
// name, its surveys' titles and slugs, its answers), and afterwards none
// of Adatum's API answers carries Fabrikam's.
//
// Within a tenant: each route lets through exactly the roles routeActions
// says (the others get 403), for sessions and for tokens alike. These
// requests name a survey that does not exist, so that letting one through
// changes nothing. A new route is covered the day it is added.
func TestIsolationEveryRoute(t *testing.T) {
	app := newTestApp(t)
	ctx := context.Background()
	users, tokens := store.NewUserStore(app.st), store.NewTokenStore(app.st)
	type member struct {
		cookie, token string
	}
	// members[tenant][role]: a signed-in member and an API token.
	members := map[string]map[survey.Role]member{}
	for _, tenant := range []string{"adatum", "fabrikam"} {
		members[tenant] = map[survey.Role]member{}
		for _, role := range survey.Roles {
			email := string(role) + "@" + tenant + ".example"
			if _, err := users.AddMember(ctx, tenant, email, "another long password", role); err != nil {
				t.Fatal(err)
			}
			u, err := users.Authenticate(ctx, tenant, email, "another long password")
			if err != nil || u.Role != role {
				t.Fatalf("%s: %+v, %v", email, u, err)
			}
			session, err := users.NewSession(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			token, err := tokens.CreateWithRole(ctx, tenant, "test "+string(role), role, 0)
			if err != nil {
				t.Fatal(err)
			}
			members[tenant][role] = member{cookie: "surveys_session=" + session, token: token}
		}
	}
	// Adatum has an answer, so that there is data to leak.
	if code, _, _ := app.do(t, "POST", app.path(), app.complete(app.token(t, app.path())), nil); code != 303 {
		t.Fatal("answer refused")
	}
	app.stored(t)
	// And a draft, not listed anywhere, whose title and slug must not leak.
	draft := &survey.Survey{Tenant: "adatum", Title: "Adatum secret roadmap", Questions: []survey.Question{{Text: "Which launch first?", Type: survey.SimpleText}}}
	if err := app.surveys.Create(ctx, draft); err != nil {
		t.Fatal(err)
	}
	// leaks says which of a tenant's data a body holds.
	leaks := func(body string, markers ...string) []string {
		var found []string
		for _, m := range markers {
			if strings.Contains(strings.ToLower(body), strings.ToLower(m)) {
				found = append(found, m)
			}
		}
		return found
	}
	// Each tenant has a webhook endpoint.
	hooks := store.NewWebhookStore(app.st).WithSecrets(testBox)
	adatumHook, err := hooks.Add(ctx, "adatum", store.NewWebhook{URL: "https://hooks.adatum.example/in", Events: []string{"response.created"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hooks.Add(ctx, "fabrikam", store.NewWebhook{URL: "https://hooks.fabrikam.example/in", Events: []string{"response.created"}}, nil); err != nil {
		t.Fatal(err)
	}
	// And a REST-hook subscription (POST /api/v1/hooks).
	adatumSub, err := hooks.Add(ctx, "adatum", store.NewWebhook{URL: "https://hooks.adatum.example/zap", Events: []string{"response.created"}, Hook: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hooks.Add(ctx, "fabrikam", store.NewWebhook{URL: "https://hooks.fabrikam.example/in/zap", Events: []string{"response.created"}, Hook: true}, nil); err != nil {
		t.Fatal(err)
	}
	// And an audit log.
	audit := store.NewAuditStore(app.st)
	for _, e := range []survey.AuditEvent{{Tenant: "adatum", Actor: "ana@adatum.example", Action: survey.AuditExport, Target: "adatum-audited-target"},
		{Tenant: "fabrikam", Actor: "fred@fabrikam.example", Action: survey.AuditExport, Target: "fabrikam-audited-target"}} {
		if err := audit.Append(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	// And a theme each (GET and PUT /api/v1/theme), Adatum's colours its
	// own.
	tenantStore := store.NewTenantStore(app.st)
	for tenant, primary := range map[string]string{"adatum": "#6b2d8f", "fabrikam": "#0b5e3c"} {
		tn, err := tenantStore.Get(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		tn.Theme = &theme.Theme{Primary: primary, Background: "#ffffff", Text: "#1d2330", Font: "system", Corners: "soft", Logo: "start"}
		if err := tenantStore.Update(ctx, tn); err != nil {
			t.Fatal(err)
		}
	}
	// And a SCIM directory: a user in a group, and a SCIM token each.
	scimDir := store.NewSCIMStore(app.st)
	adatumUser, err := scimDir.CreateUser(ctx, "adatum", store.SCIMUser{Email: "scim-secret@adatum.example", Active: true})
	if err != nil {
		t.Fatal(err)
	}
	adatumGroup, _, err := scimDir.CreateGroup(ctx, "adatum", store.SCIMGroup{DisplayName: "Adatum secret group", Members: []string{adatumUser.ID}})
	if err != nil {
		t.Fatal(err)
	}
	scimTokens := map[string]string{}
	for _, tenant := range []string{"adatum", "fabrikam"} {
		if scimTokens[tenant], err = store.NewSCIMTokenStore(app.st).Create(ctx, tenant, "Entra ID"); err != nil {
			t.Fatal(err)
		}
	}
	// And a contact list.
	contacts := store.NewContactStore(app.st)
	vip, err := contacts.CreateList(ctx, "adatum", "Adatum VIP customers")
	if err != nil {
		t.Fatal(err)
	}
	vipContact, err := contacts.Add(ctx, "adatum", vip.ID, survey.Recipient{Email: "vip@adatum-customer.example", Name: "Vera Important"})
	if err != nil {
		t.Fatal(err)
	}
	// Fabrikam's own list, which its API calls list.
	if _, err := contacts.CreateList(ctx, "fabrikam", "Fabrikam panel"); err != nil {
		t.Fatal(err)
	}
	adatumData := []string{"adatum", app.adatum.Title, app.adatum.Slug, draft.Title, draft.Slug, "Faster pages, please", "Which launch first?", adatumHook.ID, adatumSub.ID, "adatum-audited-target",
		adatumUser.ID, adatumGroup.ID, "Adatum secret group",
		vip.Name, vipContact.Email, "#6b2d8f"}

	fill := func(tenant, slug string) *strings.Replacer {
		return strings.NewReplacer("{tenant}", tenant, "{slug}", slug, "{action}", "delete", "{question}", app.adatum.Questions[3].ID,
			"{answer}", "0639319281967095294-57ffb6", "{id}", "0123456789abcdef", "{n}", "0", "{list}", vip.ID, "{contact}", vipContact.ID)
	}
	// Adatum's real survey, asked across tenants; a survey that does not
	// exist, asked within one.
	across, within := fill("adatum", app.adatum.Slug), fill("adatum", "no-such-survey")
	// A form that would change something if a route let it through with
	// a real survey, and that here fails after the role check.
	form := url.Values{"email": {"nobody@adatum.example"}}

	walked := map[string]bool{}
	subscriber, api, apiOwn, scimPaths := 0, 0, 0, 0
	err = chi.Walk(app.web.Routes(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		key := method + " " + strings.TrimSuffix(route, "/*")
		isSubscriber, isAPI := strings.HasPrefix(route, "/{tenant}/"), strings.HasPrefix(route, "/api/v1/")
		if want, ok := linkRoutes[key]; ok {
			walked[key] = true
			path := strings.NewReplacer("{link}", "eyJ0IjoiYWRhdHVtIn0.AAAAAAAAAAAAAAAAAAAAAAAA", "{token}", "lnk_0123456789abcdef0123456789abcdef",
				"{key}", "0123456789abcdef0123456789abcdef").Replace(across.Replace(route))
			for _, cookie := range []string{"", members["fabrikam"][survey.Admin].cookie} {
				code, _, body := app.do(t, method, path, url.Values{"token": {"preview-x"}, "password": {"another long password"}}, map[string]string{"Cookie": cookie})
				if leaked := leaks(body, adatumData[1:]...); code != want || len(leaked) > 0 {
					t.Errorf("%s %s (signed in: %v) = %d (want %d), with Adatum's %q", method, path, cookie != "", code, want, leaked)
				}
			}
			return nil
		}
		if want, ok := signInSteps[key]; ok {
			walked[key] = true
			for _, cookie := range []string{"", members["fabrikam"][survey.Admin].cookie} {
				forged := url.Values{"token": {"v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, "code": {"123456"}, "email": {"admin@adatum.example"}, "tenant": {"adatum"}}
				code, header, body := app.do(t, method, strings.TrimSuffix(route, "/*"), forged, map[string]string{"Cookie": cookie})
				if leaked := leaks(body, adatumData[1:]...); code != want || len(leaked) > 0 || header.Get("Set-Cookie") != "" {
					t.Errorf("%s (signed in: %v) = %d (want %d), cookie %q, with Adatum's %q", key, cookie != "", code, want, header.Get("Set-Cookie"), leaked)
				}
			}
			return nil
		}
		if want, ok := tenantSignIns[key]; ok {
			walked[key] = true
			for _, cookie := range []string{"", members["fabrikam"][survey.Admin].cookie} {
				forged := url.Values{"SAMLResponse": {"PHNhbWxwOlJlc3BvbnNlLz4="}, "RelayState": {"x"}, "state": {"x"}, "code": {"x"}}
				code, header, body := app.do(t, method, across.Replace(route), forged, map[string]string{"Cookie": cookie})
				if leaked := leaks(body, adatumData[1:]...); code != want || len(leaked) > 0 || header.Get("Set-Cookie") != "" {
					t.Errorf("%s (signed in: %v) = %d (want %d), cookie %q, with Adatum's %q", key, cookie != "", code, want, header.Get("Set-Cookie"), leaked)
				}
			}
			return nil
		}
		if strings.HasPrefix(route, "/login/{tenant}/") {
			t.Errorf("%s signs in to a tenant: say in tenantSignIns what it answers", key)
			return nil
		}
		if want, ok := respondentTokenRoutes[key]; ok {
			walked[key] = true
			for _, cookie := range []string{"", members["fabrikam"][survey.Admin].cookie} {
				forged := url.Values{"c": {"v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, "email": {"admin@fabrikam.example"}, "code": {"AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA"}, "confirm": {"1"}}
				code, _, body := app.do(t, method, across.Replace(route), forged, map[string]string{"Cookie": cookie})
				if leaked := leaks(body, adatumData[1:]...); code != want || len(leaked) > 0 {
					t.Errorf("%s (signed in: %v) = %d (want %d), with Adatum's %q", key, cookie != "", code, want, leaked)
				}
			}
			return nil
		}
		if want, ok := proxyRoutes[key]; ok {
			walked[key] = true
			for _, cookie := range []string{"", members["fabrikam"][survey.Admin].cookie} {
				code, _, body := app.do(t, method, route+"?domain=surveys.adatum.example", nil, map[string]string{"Cookie": cookie})
				if leaked := leaks(body, adatumData[1:]...); code != want || len(leaked) > 0 {
					t.Errorf("%s (signed in: %v) = %d (want %d), with Adatum's %q", key, cookie != "", code, want, leaked)
				}
			}
			return nil
		}
		if strings.HasPrefix(route, "/scim/") {
			body, ok := scimRoutes[key]
			if !ok {
				t.Errorf("%s is not in scimRoutes: say what it does", key)
				return nil
			}
			walked[key] = true
			scimPaths++
			id := adatumUser.ID
			if strings.HasPrefix(route, "/scim/v2/Groups/") {
				id = adatumGroup.ID
			}
			if strings.HasPrefix(route, "/scim/v2/Schemas/") {
				id = "urn:ietf:params:scim:schemas:core:2.0:User"
			}
			path := strings.NewReplacer("{id}", id, "{name}", "User").Replace(route)
			// Nothing but a SCIM token gets in.
			for _, h := range []map[string]string{{}, {"Authorization": "Bearer " + members["adatum"][survey.Admin].token},
				{"Cookie": members["adatum"][survey.Admin].cookie}, {"Authorization": "Bearer scim_forged"}} {
				code, _, raw := app.scim(t, method, path, h, body)
				if code != http.StatusUnauthorized || len(leaks(raw, adatumData[10:]...)) > 0 || !strings.Contains(raw, "urn:ietf:params:scim:api:messages:2.0:Error") {
					t.Errorf("%s %s with %v = %d; want a SCIM 401: %s", method, path, h, code, raw)
				}
			}
			// Fabrikam's token: none of Adatum's users or groups.
			fred := map[string]string{"Authorization": "Bearer " + scimTokens["fabrikam"]}
			code, _, raw := app.scim(t, method, path, fred, body)
			want := http.StatusOK
			switch {
			case strings.Contains(route, "{id}") && !strings.Contains(route, "/Schemas/"):
				want = http.StatusNotFound
			case method == http.MethodPost:
				want = http.StatusCreated
			}
			if leaked := leaks(raw, adatumData...); code != want || len(leaked) > 0 {
				t.Errorf("%s %s with Fabrikam's SCIM token = %d (want %d), with Adatum's %q: %s", method, path, code, want, leaked, raw)
			}
			// Adatum's own token on an id it does not have: 404, not 401 or 403.
			if strings.Contains(route, "{id}") && !strings.Contains(route, "/Schemas/") {
				path = strings.NewReplacer("{id}", "0123456789abcdef0123456789abcdef").Replace(route)
				if code, _, raw := app.scim(t, method, path, map[string]string{"Authorization": "Bearer " + scimTokens["adatum"]}, body); code != http.StatusNotFound {
					t.Errorf("%s %s with Adatum's SCIM token = %d; want 404: %s", method, path, code, raw)
				}
			}
			return nil
		}
		if !isSubscriber && !isAPI {
			if strings.Contains(route, "{token}") || strings.Contains(route, "{link}") || strings.Contains(route, "{key}") {
				t.Errorf("%s opens with a link: say in linkRoutes what a made-up one gets", key)
			}
			return nil
		}
		if publicAPI[key] {
			walked[key] = true
			for _, tok := range []string{"", members["fabrikam"][survey.Admin].token, members["adatum"][survey.Viewer].token} {
				code, _, body := app.api(t, method, route, tok, "")
				if leaked := leaks(body, adatumData...); code != http.StatusOK || len(leaked) > 0 || strings.Contains(body, "fabrikam") {
					t.Errorf("%s (public) = %d, with a tenant's data %q", key, code, leaked)
				}
			}
			return nil
		}
		action, ok := routeActions[key]
		if !ok {
			t.Errorf("%s is not in routeActions: say what it does, and so who may", key)
			return nil
		}
		walked[key] = true
		for _, role := range survey.Roles {
			fred, own := members["fabrikam"][role], members["adatum"][role]
			allowed := slices.Contains(action, role)
			switch {
			case isSubscriber:
				subscriber++
				// Across tenants: 403, whatever the role.
				for _, path := range formatted(key, across.Replace(route)) {
					code, _, body := app.do(t, method, path, form, map[string]string{"Cookie": fred.cookie})
					if leaked := leaks(body, adatumData...); code != http.StatusForbidden || len(leaked) > 0 {
						t.Errorf("%s %s as Fabrikam's %s = %d, with Adatum's %q", method, path, role, code, leaked)
					}
				}
				// Within the tenant: the role decides.
				for _, path := range formatted(key, within.Replace(route)) {
					code, header, _ := app.do(t, method, path, form, map[string]string{"Cookie": own.cookie})
					if (code != http.StatusForbidden) != allowed || strings.HasPrefix(header.Get("Location"), "/login") {
						t.Errorf("%s %s as Adatum's %s = %d (to %q); want allowed %v", method, path, role, code, header.Get("Location"), allowed)
					}
				}
			case strings.HasPrefix(route, "/api/v1/webhooks/{id}"), strings.HasPrefix(route, "/api/v1/hooks/{id}"):
				// Adatum's endpoint (or subscription) with Fabrikam's
				// token: not found (or forbidden to the role); within
				// Adatum, one that does not exist.
				api++
				id := adatumHook.ID
				if strings.HasPrefix(route, "/api/v1/hooks/") {
					id = adatumSub.ID
				}
				path := strings.NewReplacer("{id}", id).Replace(route)
				code, _, body := app.api(t, method, path, fred.token, "")
				want := http.StatusNotFound
				if !allowed {
					want = http.StatusForbidden
				}
				if leaked := leaks(body, adatumData...); code != want || len(leaked) > 0 {
					t.Errorf("%s %s with Fabrikam's %s token = %d (want %d), with Adatum's %q: %s", method, path, role, code, want, leaked, body)
				}
				path = strings.NewReplacer("{id}", "ep00000000deadbeef").Replace(route)
				code, _, body = app.api(t, method, path, own.token, "")
				if (code != http.StatusForbidden) != allowed || code == http.StatusUnauthorized {
					t.Errorf("%s %s with Adatum's %s token = %d; want allowed %v: %s", method, path, role, code, allowed, body)
				}
			case strings.HasPrefix(route, "/api/v1/contacts/lists/{list}"):
				// Adatum's list with Fabrikam's token: not found (or
				// forbidden to the role); within Adatum, a list that
				// does not exist.
				api++
				body := `{"contacts":[{"email":"new@fabrikam.example"}]}`
				path := strings.NewReplacer("{list}", vip.ID).Replace(route)
				code, _, raw := app.api(t, method, path, fred.token, body)
				want := http.StatusNotFound
				if !allowed {
					want = http.StatusForbidden
				}
				if leaked := leaks(raw, adatumData...); code != want || len(leaked) > 0 {
					t.Errorf("%s %s with Fabrikam's %s token = %d (want %d), with Adatum's %q: %s", method, path, role, code, want, leaked, raw)
				}
				path = strings.NewReplacer("{list}", "00000000dead").Replace(route)
				code, _, raw = app.api(t, method, path, own.token, body)
				if (code != http.StatusForbidden) != allowed || code == http.StatusUnauthorized {
					t.Errorf("%s %s with Adatum's %s token = %d; want allowed %v: %s", method, path, role, code, allowed, raw)
				}
			case strings.Contains(route, "{slug}"):
				api++
				want := http.StatusNotFound
				if !allowed {
					want = http.StatusForbidden
				}
				for _, path := range formatted(key, across.Replace(route)) {
					code, _, body := app.api(t, method, path, fred.token, "")
					if leaked := leaks(body, adatumData...); code != want || len(leaked) > 0 {
						t.Errorf("%s %s with Fabrikam's %s token = %d (want %d), with Adatum's %q: %s", method, path, role, code, want, leaked, body)
					}
				}
				for _, path := range formatted(key, within.Replace(route)) {
					code, _, body := app.api(t, method, path, own.token, "")
					if (code != http.StatusForbidden) != allowed || code == http.StatusUnauthorized {
						t.Errorf("%s %s with Adatum's %s token = %d; want allowed %v: %s", method, path, role, code, allowed, body)
					}
				}
			default:
				// The routes of the token's own tenant: Fabrikam's answers only.
				apiOwn++
				body := ""
				switch {
				case route == "/api/v1/webhooks" && method == http.MethodPost:
					body = `{"url":"https://hooks.fabrikam.example/new","events":["response.created"]}`
				case route == "/api/v1/pictures":
					body = string(testPNG(t))
				case route == "/api/v1/hooks" && method == http.MethodPost:
					body = `{"target_url":"https://hooks.fabrikam.example/zap","event":"response.created"}`
				case route == "/api/v1/contacts/lists" && method == http.MethodPost:
					body = `{"name":"Fabrikam new panel"}`
				case route == "/api/v1/theme" && method == http.MethodPut:
					body = `{"theme":{"primary":"#0b5e3c","background":"#ffffff","text":"#1d2330","font":"system","corners":"soft","logo":"start"}}`
				case route == "/api/v1/surveys/import":
					body = `{"format":"surveys.definition/1","title":"Fabrikam private plan","questions":[{"text":"Why now?","type":"SimpleText"}]}`
				case method == http.MethodPost:
					body = `{"title":"Fabrikam private plan","questions":[{"text":"Why now?","type":"SimpleText"}]}`
				}
				code, _, raw := app.api(t, method, route, fred.token, body)
				if leaked := leaks(raw, adatumData...); (code/100 == 2) != allowed || !allowed && code != http.StatusForbidden || len(leaked) > 0 {
					t.Errorf("%s %s with Fabrikam's %s token = %d (allowed %v), with Adatum's %q: %s", method, route, role, code, allowed, leaked, raw)
				}
				own := "Fabrikam product feedback"
				if strings.HasPrefix(route, "/api/v1/webhooks") || strings.HasPrefix(route, "/api/v1/hooks") {
					own = "hooks.fabrikam.example/in"
				}
				if route == "/api/v1/audit" {
					own = "fabrikam-audited-target"
				}
				if strings.HasPrefix(route, "/api/v1/contacts") {
					own = "Fabrikam "
				}
				if route == "/api/v1/theme" {
					own = "#0b5e3c"
				}
				if method == http.MethodGet && allowed && !strings.Contains(raw, own) {
					t.Errorf("%s %s with Fabrikam's %s token lacks Fabrikam's own survey: %s", method, route, role, raw)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range linkRoutes {
		if !walked[key] {
			t.Errorf("linkRoutes names %s, which the router does not have", key)
		}
	}
	for key := range proxyRoutes {
		if !walked[key] {
			t.Errorf("proxyRoutes names %s, which the router does not have", key)
		}
	}
	for key := range respondentTokenRoutes {
		if !walked[key] {
			t.Errorf("respondentTokenRoutes names %s, which the router does not have", key)
		}
	}
	for key := range tenantSignIns {
		if !walked[key] {
			t.Errorf("tenantSignIns names %s, which the router does not have", key)
		}
	}
	for key := range signInSteps {
		if !walked[key] {
			t.Errorf("signInSteps names %s, which the router does not have", key)
		}
	}
	for key := range scimRoutes {
		if !walked[key] {
			t.Errorf("scimRoutes names %s, which the router does not have", key)
		}
	}
	// Adatum's SCIM user and group are intact after Fabrikam's writes.
	if u, err := scimDir.User(ctx, "adatum", adatumUser.ID); err != nil || !u.Active {
		t.Errorf("Adatum's SCIM user after Fabrikam's requests: %+v, %v", u, err)
	}
	if g, err := scimDir.Group(ctx, "adatum", adatumGroup.ID); err != nil || g.DisplayName != "Adatum secret group" {
		t.Errorf("Adatum's SCIM group after Fabrikam's requests: %+v, %v", g, err)
	}
	if scimPaths != len(scimRoutes) {
		t.Errorf("walked %d SCIM routes; want %d", scimPaths, len(scimRoutes))
	}
	for key := range routeActions {
		if !walked[key] {
			t.Errorf("routeActions names %s, which the router does not have", key)
		}
	}
	if subscriber < 30*3 || api < 7*3 || apiOwn < 2*3 {
		t.Fatalf("walked %d subscriber, %d API survey and %d API tenant requests: the walk missed routes", subscriber, api, apiOwn)
	}
	t.Logf("asked %d subscriber routes, %d API survey routes and %d API tenant routes, each as 3 roles of 2 tenants", subscriber/3, api/3, apiOwn/3)

	// The other way round: Adatum's list shows none of Fabrikam's surveys,
	// the one its editors' tokens just made included.
	code, _, raw := app.api(t, "GET", "/api/v1/surveys", members["adatum"][survey.Viewer].token, "")
	if leaked := leaks(raw, "fabrikam", "Fabrikam product feedback", "Fabrikam private plan", "Why now?"); code != http.StatusOK || len(leaked) > 0 || !strings.Contains(raw, draft.Slug) {
		t.Errorf("GET /api/v1/surveys with Adatum's token = %d, with Fabrikam's %q: %s", code, leaked, raw)
	}
	// Fabrikam's admin and editor tokens made one survey each by create
	// and one each by import; the viewer's were refused.
	if list, err := app.surveys.List(ctx, "fabrikam"); err != nil || len(list) != 5 {
		t.Errorf("Fabrikam's surveys after its POSTs: %d, %v; want 5", len(list), err)
	}
	// Adatum's endpoint and subscription are intact after Fabrikam's
	// DELETEs.
	for _, id := range []string{adatumHook.ID, adatumSub.ID} {
		if _, err := hooks.Get(ctx, "adatum", id); err != nil {
			t.Errorf("Adatum's endpoint %s after Fabrikam's requests: %v", id, err)
		}
	}
	// Adatum's survey is intact after all of Fabrikam's attempts.
	if _, err := app.surveys.Get(ctx, "adatum", app.adatum.Slug); err != nil {
		t.Fatalf("Adatum's survey after Fabrikam's requests: %v", err)
	}
}
