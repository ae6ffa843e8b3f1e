package azure

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
)

// OData type annotations of the JSON payload format of the table service.
const (
	odataType    = "@odata.type"
	edmInt64     = "Edm.Int64"
	edmInt32     = "Edm.Int32"
	edmDouble    = "Edm.Double"
	edmDateTime  = "Edm.DateTime"
	edmBinary    = "Edm.Binary"
	edmGUID      = "Edm.Guid"
	edmString    = "Edm.String"
	edmBoolean   = "Edm.Boolean"
	odataEtag    = "odata.etag"
	odataPrefix  = "odata."
	timeLayout   = "2006-01-02T15:04:05.0000000Z07:00" // 100 ns ticks, as the service stores them
	keyPartition = "PartitionKey"
	keyRow       = "RowKey"
	keyTimestamp = "Timestamp"
)

// marshalEntity encodes e in the JSON payload format of the table service,
// with type annotations for the types JSON cannot tell apart. Times are
// sent in UTC, truncated to the service's 100 ns resolution.
func marshalEntity(e storage.Entity) ([]byte, error) {
	m := make(map[string]any, 2+2*len(e.Properties))
	m[keyPartition] = e.PartitionKey
	m[keyRow] = e.RowKey
	for name, v := range e.Properties {
		switch v := v.(type) {
		case string, bool:
			m[name] = v
		case int64:
			m[name] = strconv.FormatInt(v, 10)
			m[name+odataType] = edmInt64
		case time.Time:
			m[name] = v.UTC().Truncate(100 * time.Nanosecond).Format(timeLayout)
			m[name+odataType] = edmDateTime
		case []byte:
			m[name] = base64.StdEncoding.EncodeToString(v)
			m[name+odataType] = edmBinary
		default:
			return nil, fmt.Errorf("property %s has type %T: %w", name, v, storage.ErrInvalid)
		}
	}
	return json.Marshal(m)
}

// keysJSON encodes only the keys of an entity, as the SDK wants for deletes.
func keysJSON(pk, rk string) ([]byte, error) {
	return json.Marshal(map[string]string{keyPartition: pk, keyRow: rk})
}

// unmarshalEntity decodes an entity of the JSON payload format, giving each
// property the Go type of its annotation: Edm.Int64 and Edm.Int32 int64,
// Edm.DateTime time.Time (UTC), Edm.Binary []byte; unannotated strings and
// booleans keep their type, and unannotated integral numbers become int64.
// etag, when not empty, is the ETag of the response; otherwise the
// odata.etag of the payload is used.
func unmarshalEntity(data []byte, etag string) (storage.Entity, error) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return storage.Entity{}, fmt.Errorf("decode entity: %w", err)
	}
	e := storage.Entity{ETag: etag, Properties: make(map[string]any, len(raw))}
	for name, value := range raw {
		switch {
		case name == keyPartition:
			if err := json.Unmarshal(value, &e.PartitionKey); err != nil {
				return storage.Entity{}, fmt.Errorf("decode PartitionKey: %w", err)
			}
		case name == keyRow:
			if err := json.Unmarshal(value, &e.RowKey); err != nil {
				return storage.Entity{}, fmt.Errorf("decode RowKey: %w", err)
			}
		case name == keyTimestamp:
			v, err := decodeProperty(value, edmDateTime)
			if err != nil {
				return storage.Entity{}, fmt.Errorf("decode Timestamp: %w", err)
			}
			e.Timestamp, _ = v.(time.Time)
		case name == odataEtag:
			if e.ETag == "" {
				if err := json.Unmarshal(value, &e.ETag); err != nil {
					return storage.Entity{}, fmt.Errorf("decode odata.etag: %w", err)
				}
			}
		case strings.HasPrefix(name, odataPrefix), strings.HasSuffix(name, odataType):
			// Metadata and type annotations, read with their property.
		default:
			var typ string
			if a, ok := raw[name+odataType]; ok {
				if err := json.Unmarshal(a, &typ); err != nil {
					return storage.Entity{}, fmt.Errorf("decode type of property %s: %w", name, err)
				}
			}
			v, err := decodeProperty(value, typ)
			if err != nil {
				return storage.Entity{}, fmt.Errorf("decode property %s: %w", name, err)
			}
			if v != nil {
				e.Properties[name] = v
			}
		}
	}
	return e, nil
}

// decodeProperty decodes one property value of OData type typ ("" when it
// has no annotation). A JSON null gives nil.
func decodeProperty(value json.RawMessage, typ string) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(value))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	switch typ {
	case edmInt64, edmInt32:
		return toInt64(v)
	case edmDateTime:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s value is %T, not a string", typ, v)
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, err
		}
		return t.UTC(), nil
	case edmBinary:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s value is %T, not a string", typ, v)
		}
		return base64.StdEncoding.DecodeString(s)
	case edmDouble:
		switch v := v.(type) {
		case json.Number:
			return v.Float64()
		case string: // "NaN", "Infinity", "-Infinity"
			return strconv.ParseFloat(v, 64)
		}
		return nil, fmt.Errorf("%s value is %T", typ, v)
	case "", edmString, edmBoolean, edmGUID:
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				return i, nil
			}
			return n.Float64()
		}
		return v, nil
	}
	return nil, fmt.Errorf("unsupported type %s", typ)
}

// toInt64 converts an Edm.Int64 value (a string) or an Edm.Int32 one (a
// number) to int64.
func toInt64(v any) (int64, error) {
	switch v := v.(type) {
	case string:
		return strconv.ParseInt(v, 10, 64)
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i, nil
		}
		f, err := v.Float64()
		if err != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt64 {
			return 0, fmt.Errorf("integer value %s is out of range", v)
		}
		return int64(f), nil
	}
	return 0, fmt.Errorf("integer value is %T", v)
}
