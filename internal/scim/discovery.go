package scim

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// The discovery endpoints (RFC 7644 §4): what this service does, the
// resource types it serves and their schemas. The same for every tenant.

func (s *server) serviceProviderConfig(*http.Request) (int, any, error) {
	no := map[string]any{"supported": false}
	return http.StatusOK, map[string]any{
		"schemas":          []string{schemaSPConfig},
		"documentationUri": "https://github.com/surveys-dev/surveys/blob/main/docs/security.md#scim-provisioning",
		"patch":            map[string]any{"supported": true},
		"bulk":             map[string]any{"supported": false, "maxOperations": 0, "maxPayloadSize": 0},
		"filter":           map[string]any{"supported": true, "maxResults": maxCount},
		"changePassword":   no,
		"sort":             no,
		"etag":             no,
		"authenticationSchemes": []map[string]any{{"type": "oauthbearertoken", "name": "SCIM token",
			"description": "The SCIM token a tenant's admin makes on its SCIM settings page, as Authorization: Bearer <token>.", "primary": true}},
		"meta": map[string]any{"resourceType": "ServiceProviderConfig", "location": s.BaseURL + "/ServiceProviderConfig"},
	}, nil
}

func (s *server) resourceTypeOf(name string) map[string]any {
	schema, endpoint := schemaUser, "/Users"
	if name == "Group" {
		schema, endpoint = schemaGroup, "/Groups"
	}
	return map[string]any{"schemas": []string{schemaResourceType}, "id": name, "name": name, "endpoint": endpoint, "schema": schema,
		"meta": map[string]any{"resourceType": "ResourceType", "location": s.BaseURL + "/ResourceTypes/" + name}}
}

func (s *server) resourceTypes(r *http.Request) (int, any, error) {
	all := []map[string]any{s.resourceTypeOf("User"), s.resourceTypeOf("Group")}
	return http.StatusOK, listResponse(all, 1, len(all)), nil
}

func (s *server) resourceType(r *http.Request) (int, any, error) {
	name := chi.URLParam(r, "name")
	if name != "User" && name != "Group" {
		return 0, nil, &Error{Status: http.StatusNotFound, Detail: "The resource types are User and Group."}
	}
	return http.StatusOK, s.resourceTypeOf(name), nil
}

// attr describes an attribute of a schema.
func attr(name, typ string, required bool, mutability, uniqueness string, sub ...map[string]any) map[string]any {
	a := map[string]any{"name": name, "type": typ, "multiValued": false, "required": required, "caseExact": false,
		"mutability": mutability, "returned": "default", "uniqueness": uniqueness}
	if len(sub) > 0 {
		a["subAttributes"] = sub
	}
	return a
}

func multi(a map[string]any) map[string]any {
	a["multiValued"] = true
	return a
}

func (s *server) schemaOf(id string) map[string]any {
	var name, desc string
	var attrs []map[string]any
	switch id {
	case schemaUser:
		name, desc = "User", "A member of the tenant: userName is their e-mail address and account; active false deactivates them."
		attrs = []map[string]any{
			attr("userName", "string", true, "readWrite", "server"),
			attr("externalId", "string", false, "readWrite", "none"),
			attr("displayName", "string", false, "readWrite", "none"),
			attr("name", "complex", false, "readWrite", "none",
				attr("givenName", "string", false, "readWrite", "none"), attr("familyName", "string", false, "readWrite", "none"),
				attr("formatted", "string", false, "readOnly", "none")),
			attr("active", "boolean", false, "readWrite", "none"),
			multi(attr("emails", "complex", false, "readOnly", "none", attr("value", "string", false, "readOnly", "none"),
				attr("type", "string", false, "readOnly", "none"), attr("primary", "boolean", false, "readOnly", "none"))),
			multi(attr("groups", "complex", false, "readOnly", "none", attr("value", "string", false, "readOnly", "none"),
				attr("display", "string", false, "readOnly", "none"))),
		}
	case schemaGroup:
		name, desc = "Group", "A group of the identity provider; the groups the tenant's admin names give their members a role."
		attrs = []map[string]any{
			attr("displayName", "string", true, "readWrite", "server"),
			attr("externalId", "string", false, "readWrite", "none"),
			multi(attr("members", "complex", false, "readWrite", "none", attr("value", "string", false, "immutable", "none"),
				attr("display", "string", false, "readOnly", "none"))),
		}
	default:
		return nil
	}
	return map[string]any{"schemas": []string{schemaSchema}, "id": id, "name": name, "description": desc, "attributes": attrs,
		"meta": map[string]any{"resourceType": "Schema", "location": s.BaseURL + "/Schemas/" + id}}
}

func (s *server) schemas(r *http.Request) (int, any, error) {
	all := []map[string]any{s.schemaOf(schemaUser), s.schemaOf(schemaGroup)}
	return http.StatusOK, listResponse(all, 1, len(all)), nil
}

func (s *server) schema(r *http.Request) (int, any, error) {
	sc := s.schemaOf(chi.URLParam(r, "id"))
	if sc == nil {
		return 0, nil, &Error{Status: http.StatusNotFound, Detail: "The schemas are " + schemaUser + " and " + schemaGroup + "."}
	}
	return http.StatusOK, sc, nil
}
