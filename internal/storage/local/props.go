package local

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Entity properties are stored as one JSON object mapping each name to a
// tagged value, so that every Go type comes back as itself:
//
//	{"Name": {"t": "s", "v": "Ada"}, "Age": {"t": "i", "v": "36"}}
//
// Tags: s string, i int64 (a decimal string, exact beyond 2^53), b bool,
// d time.Time (RFC 3339 in UTC with nanoseconds), x []byte (base64).
type jsonProp struct {
	T string          `json:"t"`
	V json.RawMessage `json:"v"`
}

// encodeProps encodes validated properties.
func encodeProps(props map[string]any) (string, error) {
	out := make(map[string]jsonProp, len(props))
	for name, v := range props {
		var (
			p   jsonProp
			err error
		)
		switch v := v.(type) {
		case string:
			p.T = "s"
			p.V, err = json.Marshal(v)
		case int64:
			p.T = "i"
			p.V, err = json.Marshal(strconv.FormatInt(v, 10))
		case bool:
			p.T = "b"
			p.V, err = json.Marshal(v)
		case time.Time:
			p.T = "d"
			p.V, err = json.Marshal(v.UTC().Format(time.RFC3339Nano))
		case []byte:
			if v == nil {
				v = []byte{}
			}
			p.T = "x"
			p.V, err = json.Marshal(v)
		default:
			return "", fmt.Errorf("property %s has unsupported type %T", name, v)
		}
		if err != nil {
			return "", fmt.Errorf("encode property %s: %w", name, err)
		}
		out[name] = p
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", fmt.Errorf("encode properties: %w", err)
	}
	return string(b), nil
}

// decodeProps decodes what encodeProps wrote. The map is never nil.
func decodeProps(s string) (map[string]any, error) {
	var in map[string]jsonProp
	if err := json.Unmarshal([]byte(s), &in); err != nil {
		return nil, fmt.Errorf("decode properties: %w", err)
	}
	props := make(map[string]any, len(in))
	for name, p := range in {
		v, err := decodeProp(p)
		if err != nil {
			return nil, fmt.Errorf("decode property %s: %w", name, err)
		}
		props[name] = v
	}
	return props, nil
}

func decodeProp(p jsonProp) (any, error) {
	switch p.T {
	case "s":
		var v string
		err := json.Unmarshal(p.V, &v)
		return v, err
	case "i":
		var s string
		if err := json.Unmarshal(p.V, &s); err != nil {
			return nil, err
		}
		return strconv.ParseInt(s, 10, 64)
	case "b":
		var v bool
		err := json.Unmarshal(p.V, &v)
		return v, err
	case "d":
		var s string
		if err := json.Unmarshal(p.V, &s); err != nil {
			return nil, err
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		return t.UTC(), err
	case "x":
		v := []byte{}
		err := json.Unmarshal(p.V, &v)
		if v == nil {
			v = []byte{}
		}
		return v, err
	}
	return nil, fmt.Errorf("unknown type tag %q", p.T)
}
