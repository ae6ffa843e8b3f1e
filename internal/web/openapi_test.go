package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// apiSpec is the OpenAPI document of /api/v1, loaded and validated once,
// with a router that finds each request's operation in it. The document
// is the api package's, read as a file: what the API is checked against.
var apiSpec = sync.OnceValues(func() (*openAPISpec, error) {
	raw, err := os.ReadFile("../api/openapi.json")
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, err
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	// An export as JSON lines is checked a line at a time, each line
	// against the response's schema (see validateAPI).
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.JSONBodyDecoder)
	return &openAPISpec{raw: raw, doc: doc, router: router}, nil
})

type openAPISpec struct {
	raw    []byte
	doc    *openapi3.T
	router routers.Router
}

// validateAPI checks one response of the API against the document: its
// operation is described, and its status, headers and body are one of
// that operation's responses (openapi3filter.ValidateResponse, statuses
// not described refused). A request the router has no operation for
// (an unknown endpoint) must be a 404 with the error shape. app.api calls
// it for every request of the API tests.
func validateAPI(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	spec, err := apiSpec()
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	ctx := context.Background()
	route, params, err := spec.router.FindRoute(req)
	if err != nil {
		if status != http.StatusNotFound {
			t.Errorf("%s %s (%d) is not described in openapi.json: %v", req.Method, req.URL.Path, status, err)
			return
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Errorf("%s %s: 404 body is not JSON: %s", req.Method, req.URL.Path, body)
			return
		}
		if err := spec.doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			t.Errorf("%s %s: 404 body is not an Error: %v", req.Method, req.URL.Path, err)
		}
		return
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route}
	// Each line of JSON lines is a response body of its own.
	bodies := [][]byte{body}
	if strings.HasPrefix(header.Get("Content-Type"), "application/x-ndjson") {
		bodies = bytes.Split(bytes.TrimSuffix(body, []byte("\n")), []byte("\n"))
	}
	for _, b := range bodies {
		out := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in, Status: status, Header: header,
			Body:    io.NopCloser(bytes.NewReader(b)),
			Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
		}
		if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
			t.Errorf("%s %s: the response (%d) does not match openapi.json: %v\n%.2000s", req.Method, req.URL, status, err, b)
		}
	}
}

// TestOpenAPIDocument: /api/v1/openapi.json is served without a token, the
// same for everyone (a token changes nothing; no tenant's name in it),
// cacheable, and is the OpenAPI 3.1 document that kin-openapi loads and
// validates. Its question types are the registered kinds, and each
// operation names (x-roles) the token roles that may call it, as
// survey.Role.May says for the route's action (routeActions, as the
// isolation test has them); every operation but the document's own
// describes 401, 403 and 500 with the error shape.
func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	token, err := store.NewTokenStore(app.st).CreateWithRole(context.Background(), "adatum", "test", survey.Viewer, 0)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := apiSpec()
	if err != nil {
		t.Fatalf("openapi.json does not load and validate: %v", err)
	}
	if spec.doc.OpenAPI != "3.1.0" || !spec.doc.IsOpenAPI31OrLater() {
		t.Errorf("openapi = %q, want 3.1.0", spec.doc.OpenAPI)
	}
	var etag string
	for _, tok := range []string{"", token, "svy_nope"} {
		code, v, raw := app.api(t, "GET", "/api/v1/openapi.json", tok, "")
		if code != 200 || raw != string(spec.raw) || v["openapi"] != "3.1.0" {
			t.Fatalf("with token %q: %d, not the document (%.100s)", tok, code, raw)
		}
		for _, tenant := range []string{"adatum", "fabrikam", app.adatum.Title} {
			if strings.Contains(strings.ToLower(raw), strings.ToLower(tenant)) {
				t.Errorf("the document names %q", tenant)
			}
		}
	}
	req, _ := http.NewRequest("GET", app.srv.URL+"/api/v1/openapi.json", nil)
	resp, err := app.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	etag = resp.Header.Get("ETag")
	if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "public") || etag == "" || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers: Cache-Control %q, ETag %q, Content-Type %q", cc, etag, resp.Header.Get("Content-Type"))
	}
	req.Header.Set("If-None-Match", etag)
	if resp, err = app.client.Do(req); err != nil || resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %v, %v", resp.StatusCode, err)
	}
	resp.Body.Close()

	var kinds []any
	for _, k := range survey.Kinds() {
		kinds = append(kinds, string(k.Type()))
	}
	if got := spec.doc.Components.Schemas["QuestionType"].Value.Enum; !slices.Equal(got, kinds) {
		t.Errorf("QuestionType's enum = %v, want the kinds %v", got, kinds)
	}

	for path, item := range spec.doc.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " /api/v1" + path
			var roles []string
			if b, err := json.Marshal(op.Extensions["x-roles"]); err != nil || json.Unmarshal(b, &roles) != nil {
				t.Errorf("%s: x-roles %v", key, op.Extensions["x-roles"])
			}
			action, ok := routeActions[key]
			if !ok {
				if path != "/openapi.json" || len(roles) != 0 || op.Security == nil || len(*op.Security) != 0 {
					t.Errorf("%s: an operation with no action in routeActions must be the document's own, open to all", key)
				}
				continue
			}
			var want []string
			for _, r := range action {
				want = append(want, string(r))
			}
			if !slices.Equal(roles, want) {
				t.Errorf("%s: x-roles %v, want %v", key, roles, want)
			}
			sentence := "Token roles: " + want[0]
			if len(want) > 1 {
				sentence = "Token roles: " + strings.Join(want[:len(want)-1], ", ") + " or " + want[len(want)-1]
			}
			if !strings.Contains(op.Description, sentence) {
				t.Errorf("%s: the description does not name the roles %v", key, want)
			}
			for _, status := range []int{401, 403, 500} {
				r := op.Responses.Status(status)
				if r == nil || r.Value.Content.Get("application/json") == nil || r.Value.Content.Get("application/json").Schema.Ref != "#/components/schemas/Error" {
					t.Errorf("%s: no %d response with the Error shape", key, status)
				}
			}
		}
	}
}

// TestOpenAPIEveryRoute walks the router: every /api/v1 route is an
// operation of openapi.json, and every operation of openapi.json is a
// route.
func TestOpenAPIEveryRoute(t *testing.T) {
	t.Parallel()
	app := newTestApp(t)
	spec, err := apiSpec()
	if err != nil {
		t.Fatal(err)
	}
	described := map[string]bool{}
	for path, item := range spec.doc.Paths.Map() {
		for method := range item.Operations() {
			described[method+" /api/v1"+path] = true
		}
	}
	routed := map[string]bool{}
	err = chi.Walk(app.web.Routes(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.TrimSuffix(route, "/*")
		if !strings.HasPrefix(route, "/api/v1/") || method == http.MethodHead {
			return nil
		}
		key := method + " " + route
		routed[key] = true
		if !described[key] {
			t.Errorf("%s is not described in openapi.json", key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key := range described {
		if !routed[key] {
			t.Errorf("openapi.json describes %s, which the router does not have", key)
		}
	}
	if len(routed) < 12 {
		t.Errorf("walked %d API routes: the walk missed some", len(routed))
	}
}
