package scim

import (
	"fmt"
	"strings"

	filter "github.com/scim2/filter-parser/v2"

	"github.com/surveys-dev/surveys/internal/store"
)

// attrs gives a resource's values of an attribute (sub: a sub-attribute,
// "" for none), and whether it knows the attribute; elems gives the
// elements of a multi-valued attribute, each as attrs, for a value path
// (members[value eq "…"]).
type attrs struct {
	get func(name, sub string) ([]string, bool)
	// exact: the attribute compares case-sensitively (ids).
	exact func(name string) bool
	elems func(name string) ([]attrs, bool)
}

func noElems(string) ([]attrs, bool) { return nil, false }

func userAttrs(u *store.SCIMUser) attrs {
	email := func(name, sub string) ([]string, bool) {
		switch sub {
		case "value", "":
			return []string{u.Email}, true
		case "type":
			return []string{"work"}, true
		case "primary":
			return []string{"true"}, true
		}
		return nil, false
	}
	return attrs{
		get: func(name, sub string) ([]string, bool) {
			switch name {
			case "id":
				return []string{u.ID}, true
			case "username":
				return []string{u.Email}, true
			case "externalid":
				return []string{u.ExternalID}, true
			case "displayname":
				return []string{u.DisplayName}, true
			case "active":
				return []string{fmt.Sprint(u.Active)}, true
			case "emails":
				return email(name, sub)
			case "name":
				switch sub {
				case "givenname":
					return []string{u.GivenName}, true
				case "familyname":
					return []string{u.FamilyName}, true
				}
			}
			return nil, false
		},
		exact: func(name string) bool { return name == "id" || name == "externalid" },
		elems: func(name string) ([]attrs, bool) {
			if name != "emails" {
				return nil, false
			}
			// Within emails[…], the sub-attributes are named alone.
			elem := func(name, _ string) ([]string, bool) { return email("emails", name) }
			return []attrs{{get: elem, exact: func(string) bool { return false }, elems: noElems}}, true
		},
	}
}

func memberAttrs(id string) attrs {
	return attrs{
		get: func(name, sub string) ([]string, bool) {
			if name == "value" {
				return []string{id}, true
			}
			if name == "type" {
				return []string{"User"}, true
			}
			return nil, false
		},
		exact: func(string) bool { return true },
		elems: noElems,
	}
}

func groupAttrs(g *store.SCIMGroup) attrs {
	return attrs{
		get: func(name, sub string) ([]string, bool) {
			switch name {
			case "id":
				return []string{g.ID}, true
			case "displayname":
				return []string{g.DisplayName}, true
			case "externalid":
				return []string{g.ExternalID}, true
			case "members":
				if sub == "value" || sub == "" {
					return g.Members, true
				}
			}
			return nil, false
		},
		exact: func(name string) bool { return name != "displayname" },
		elems: func(name string) ([]attrs, bool) {
			if name != "members" {
				return nil, false
			}
			out := make([]attrs, 0, len(g.Members))
			for _, id := range g.Members {
				out = append(out, memberAttrs(id))
			}
			return out, true
		},
	}
}

// parseFilter reads a filter parameter; a bad one is a 400 invalidFilter.
func parseFilter(raw string) (filter.Expression, error) {
	e, err := filter.ParseFilter([]byte(raw))
	if err != nil {
		return nil, badRequest("invalidFilter", "The filter %q is not a SCIM filter (such as userName eq \"ana@example.com\").", raw)
	}
	return e, nil
}

// matches evaluates a filter on a resource's attributes: eq, ne, co, sw,
// ew, gt, ge, lt, le, pr, and, or, not, and value paths.
func matches(e filter.Expression, a attrs) (bool, error) {
	switch x := e.(type) {
	case *filter.LogicalExpression:
		l, err := matches(x.Left, a)
		if err != nil {
			return false, err
		}
		r, err := matches(x.Right, a)
		if err != nil {
			return false, err
		}
		if x.Operator == filter.AND {
			return l && r, nil
		}
		return l || r, nil
	case *filter.NotExpression:
		m, err := matches(x.Expression, a)
		return !m, err
	case *filter.ValuePath:
		name, _ := attrName(x.AttributePath.AttributeName)
		elems, ok := a.elems(name)
		if !ok {
			return false, badRequest("invalidFilter", "The filter names %q, which has no values to filter.", x.AttributePath.AttributeName)
		}
		for _, el := range elems {
			m, err := matches(x.ValueFilter, el)
			if err != nil || m {
				return m, err
			}
		}
		return false, nil
	case *filter.AttributeExpression:
		return compare(x, a)
	}
	return false, badRequest("invalidFilter", "The filter is not one this service evaluates.")
}

func compare(x *filter.AttributeExpression, a attrs) (bool, error) {
	path := x.AttributePath
	name := strings.ToLower(path.AttributeName)
	if uri := path.URI(); uri != "" {
		if n, ext := attrName(uri + ":" + path.AttributeName); ext {
			return false, badRequest("invalidFilter", "The filter names an attribute this service does not keep: %s.", path)
		} else {
			name = n
		}
	}
	sub := strings.ToLower(path.SubAttributeName())
	values, ok := a.get(name, sub)
	if !ok {
		return false, badRequest("invalidFilter", "The filter names an attribute this service does not keep: %s.", path)
	}
	if x.Operator == filter.PR {
		for _, v := range values {
			if v != "" {
				return true, nil
			}
		}
		return false, nil
	}
	want := fmt.Sprint(x.CompareValue)
	exact := a.exact(name)
	for _, v := range values {
		if !exact {
			v, want = strings.ToLower(v), strings.ToLower(want)
		}
		var m bool
		switch x.Operator {
		case filter.EQ:
			m = v == want
		case filter.NE:
			m = v != want
		case filter.CO:
			m = strings.Contains(v, want)
		case filter.SW:
			m = strings.HasPrefix(v, want)
		case filter.EW:
			m = strings.HasSuffix(v, want)
		case filter.GT:
			m = v > want
		case filter.GE:
			m = v >= want
		case filter.LT:
			m = v < want
		case filter.LE:
			m = v <= want
		default:
			return false, badRequest("invalidFilter", "The operator %q is not a SCIM operator.", x.Operator)
		}
		if m {
			return true, nil
		}
	}
	return false, nil
}
