package scim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	filter "github.com/scim2/filter-parser/v2"

	"github.com/surveys-dev/surveys/internal/store"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// The ops of a PATCH (RFC 7644 §3.5.2), as lower case: Entra ID writes
// "Replace", Okta "replace".
const (
	opAdd     = "add"
	opReplace = "replace"
	opRemove  = "remove"
)

// attrName is an attribute's name as compared: lower case (SCIM names are
// not case-sensitive), without the core schema's URN; ext reports an
// extension's attribute (which this service does not keep).
func attrName(key string) (name string, ext bool) {
	k := strings.ToLower(strings.TrimSpace(key))
	for _, urn := range []string{schemaUser, schemaGroup} {
		if rest, ok := strings.CutPrefix(k, strings.ToLower(urn)+":"); ok {
			return rest, false
		}
	}
	return k, strings.HasPrefix(k, "urn:")
}

// stringOf reads a text attribute's value (null: "").
func stringOf(attr string, v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return strings.TrimSpace(x), nil
	case json.Number:
		return x.String(), nil
	}
	return "", badRequest("invalidValue", "%s must be a string.", attr)
}

// boolOf reads a boolean, also as Entra ID's "True" and "False".
func boolOf(attr string, v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, badRequest("invalidValue", "%s must be true or false.", attr)
}

// setter changes one attribute (sub: its sub-attribute, "" for the whole)
// by op; remove has no value.
type setter func(op, name, sub string, v any) error

// applyObject applies op to each attribute of obj (a PATCH without a
// path, or the body of a POST or PUT). Dotted keys ("name.givenName")
// name a sub-attribute; extensions' attributes are left.
func applyObject(op string, obj map[string]any, set setter) error {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same result whatever the map's order
	for _, k := range keys {
		name, ext := attrName(k)
		if ext {
			continue
		}
		sub := ""
		if n, s, ok := strings.Cut(name, "."); ok {
			name, sub = n, s
		}
		if err := set(op, name, sub, obj[k]); err != nil {
			return err
		}
	}
	return nil
}

// setUser is the setter of u's attributes. Those this service does not
// keep (phone numbers, addresses, titles, the enterprise extension …)
// are accepted and left, as are the read-only ones (id, meta, groups):
// an identity provider sends them all.
func setUser(u *store.SCIMUser) setter {
	var set setter
	set = func(op, name, sub string, v any) error {
		if op == opRemove {
			v = nil
		}
		text := func(dst *string) error {
			s, err := stringOf(name, v)
			if err == nil {
				*dst = s
			}
			return err
		}
		switch name {
		case "username":
			return text(&u.Email)
		case "externalid":
			return text(&u.ExternalID)
		case "displayname":
			return text(&u.DisplayName)
		case "active":
			if op == opRemove {
				return nil
			}
			b, err := boolOf("active", v)
			if err == nil {
				u.Active = b
			}
			return err
		case "name":
			switch sub {
			case "givenname":
				return text(&u.GivenName)
			case "familyname":
				return text(&u.FamilyName)
			case "":
				if v == nil {
					u.GivenName, u.FamilyName = "", ""
					return nil
				}
				obj, ok := v.(map[string]any)
				if !ok {
					return badRequest("invalidValue", "name must be an object.")
				}
				for k, sv := range obj {
					if err := set(op, "name", strings.ToLower(k), sv); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	return set
}

// memberIDs reads a members value: a list of {"value": id}, or one.
func memberIDs(v any) ([]string, error) {
	var list []any
	switch x := v.(type) {
	case []any:
		list = x
	case map[string]any:
		list = []any{x}
	case nil:
		return nil, nil
	default:
		return nil, badRequest("invalidValue", "members must be a list of {\"value\": \"<user id>\"}.")
	}
	var ids []string
	for _, m := range list {
		obj, ok := m.(map[string]any)
		id, _ := obj["value"].(string)
		if !ok || id == "" {
			return nil, badRequest("invalidValue", "Each member must be {\"value\": \"<user id>\"}.")
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// setGroup is the setter of g's attributes (others are left).
func setGroup(g *store.SCIMGroup) setter {
	return func(op, name, sub string, v any) error {
		if op == opRemove && name != "members" {
			v = nil
		}
		switch name {
		case "displayname":
			s, err := stringOf("displayName", v)
			if err == nil {
				if s == "" {
					return badRequest("invalidValue", "A group needs a displayName.")
				}
				g.DisplayName = s
			}
			return err
		case "externalid":
			s, err := stringOf("externalId", v)
			if err == nil {
				g.ExternalID = s
			}
			return err
		case "members":
			ids, err := memberIDs(v)
			if err != nil {
				return err
			}
			switch op {
			case opAdd:
				g.Members = append(g.Members, ids...)
			case opReplace:
				g.Members = ids
			case opRemove:
				if v == nil {
					g.Members = nil // all of them
				} else {
					g.Members = slices.DeleteFunc(g.Members, func(m string) bool { return slices.Contains(ids, m) })
				}
			}
		}
		return nil
	}
}

// patchOp is one operation of a PATCH request.
type patchOp struct {
	Op    string
	Path  string
	Value any
}

// readPatch reads a PATCH request's operations.
func readPatch(body map[string]any) ([]patchOp, error) {
	raw, ok := body["Operations"].([]any)
	if !ok {
		raw, ok = body["operations"].([]any)
	}
	if !ok || len(raw) == 0 {
		return nil, badRequest("invalidSyntax", "A PATCH needs Operations: a list of {\"op\", \"path\", \"value\"}.")
	}
	ops := make([]patchOp, 0, len(raw))
	for _, r := range raw {
		obj, ok := r.(map[string]any)
		if !ok {
			return nil, badRequest("invalidSyntax", "Each operation must be an object.")
		}
		op, _ := obj["op"].(string)
		path, _ := obj["path"].(string)
		o := patchOp{Op: strings.ToLower(op), Path: strings.TrimSpace(path), Value: obj["value"]}
		if o.Op != opAdd && o.Op != opReplace && o.Op != opRemove {
			return nil, badRequest("invalidSyntax", "An operation's op must be add, replace or remove, not %q.", op)
		}
		if o.Path == "" && o.Op == opRemove {
			return nil, badRequest("noTarget", "A remove operation needs a path.")
		}
		ops = append(ops, o)
	}
	return ops, nil
}

// applyPatch applies ops by set; members names the attribute whose
// elements a path's filter picks (a group's members), with the ids they
// hold.
func applyPatch(ops []patchOp, set setter, members *[]string) error {
	for _, o := range ops {
		if o.Path == "" {
			obj, ok := o.Value.(map[string]any)
			if !ok {
				return badRequest("invalidValue", "An operation without a path needs an object of attributes as its value.")
			}
			if err := applyObject(o.Op, obj, set); err != nil {
				return err
			}
			continue
		}
		p, err := filter.ParsePath([]byte(o.Path))
		if err != nil {
			return badRequest("invalidPath", "The path %q is not a SCIM attribute path.", o.Path)
		}
		if uri := p.AttributePath.URI(); uri != "" {
			if _, ext := attrName(uri + ":x"); ext {
				continue // an extension's attribute: not kept
			}
		}
		name := strings.ToLower(p.AttributePath.AttributeName)
		sub := strings.ToLower(p.AttributePath.SubAttributeName())
		if p.ValueExpression != nil {
			if name != "members" || members == nil {
				continue // emails[type eq "work"].value and the like: not kept
			}
			if o.Op != opRemove {
				return badRequest("invalidPath", "A filter in a path is taken by remove only (members[value eq \"<id>\"]).")
			}
			var keep []string
			for _, id := range *members {
				ok, err := matches(p.ValueExpression, memberAttrs(id))
				if err != nil {
					return err
				}
				if !ok {
					keep = append(keep, id)
				}
			}
			*members = keep
			continue
		}
		if err := set(o.Op, name, sub, o.Value); err != nil {
			return err
		}
	}
	return nil
}

// meta is a resource's meta attribute.
func meta(kind, location string, created, modified time.Time) map[string]any {
	return map[string]any{"resourceType": kind, "location": location, "created": created.UTC().Format(time.RFC3339),
		"lastModified": modified.UTC().Format(time.RFC3339), "version": fmt.Sprintf("W/\"%d\"", modified.UnixNano())}
}

// userResource is u as SCIM writes it, with the groups it is in.
func (s *server) userResource(u *store.SCIMUser, groups []*store.SCIMGroup) map[string]any {
	res := map[string]any{"schemas": []string{schemaUser}, "id": u.ID, "userName": u.Email, "active": u.Active,
		"emails": []map[string]any{{"value": u.Email, "type": "work", "primary": true}},
		"meta":   meta("User", s.BaseURL+"/Users/"+u.ID, u.Created, u.Modified)}
	if u.ExternalID != "" {
		res["externalId"] = u.ExternalID
	}
	if u.DisplayName != "" {
		res["displayName"] = u.DisplayName
	}
	if u.GivenName != "" || u.FamilyName != "" {
		name := map[string]any{"formatted": strings.TrimSpace(u.GivenName + " " + u.FamilyName)}
		if u.GivenName != "" {
			name["givenName"] = u.GivenName
		}
		if u.FamilyName != "" {
			name["familyName"] = u.FamilyName
		}
		res["name"] = name
	}
	var in []map[string]any
	for _, g := range groups {
		if slices.Contains(g.Members, u.ID) {
			in = append(in, map[string]any{"value": g.ID, "display": g.DisplayName, "$ref": s.BaseURL + "/Groups/" + g.ID, "type": "direct"})
		}
	}
	if len(in) > 0 {
		res["groups"] = in
	}
	return res
}

// groupResource is g as SCIM writes it; its members with their
// addresses (emails by id), unless withMembers is false.
func (s *server) groupResource(g *store.SCIMGroup, emails map[string]string, withMembers bool) map[string]any {
	res := map[string]any{"schemas": []string{schemaGroup}, "id": g.ID, "displayName": g.DisplayName,
		"meta": meta("Group", s.BaseURL+"/Groups/"+g.ID, g.Created, g.Modified)}
	if g.ExternalID != "" {
		res["externalId"] = g.ExternalID
	}
	if withMembers {
		members := make([]map[string]any, 0, len(g.Members))
		for _, id := range g.Members {
			members = append(members, map[string]any{"value": id, "display": emails[id], "$ref": s.BaseURL + "/Users/" + id, "type": "User"})
		}
		res["members"] = members
	}
	return res
}
