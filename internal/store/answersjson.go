package store

import (
	"slices"
	"unicode/utf8"

	"github.com/surveys-dev/surveys/internal/survey"
)

// The answers queue's messages are written the direct way: each answer
// as it is queued, and the message around them, in the bytes encodeJSON
// (encoding/json, without HTML escaping) writes for them, without its
// reflection, and without its second pass over the answers it carries
// (encoding/json compacts each json.RawMessage it writes).
// TestAnswerMessageBytes and FuzzQueuedJSON hold them to it.

// queuedJSON is q as encodeJSON writes it.
func queuedJSON(q *QueuedAnswer) ([]byte, error) {
	created, err := q.CreatedOn.MarshalJSON()
	if err != nil {
		return encodeJSON(q) // a year JSON cannot write: encoding/json's error
	}
	n := 96 + len(q.ID) + len(q.Tenant) + len(q.Slug) + len(q.Title) + len(created) + len(q.Spill)
	for _, v := range q.Values {
		n += 16 + len(v.Question) + len(v.Answer)
	}
	b := make([]byte, 0, n+n/8)
	b = append(b, `{"id":`...)
	b = appendJSONString(b, q.ID)
	b = append(b, `,"tenant":`...)
	b = appendJSONString(b, q.Tenant)
	b = append(b, `,"slug":`...)
	b = appendJSONString(b, q.Slug)
	if q.Title != "" {
		b = append(b, `,"title":`...)
		b = appendJSONString(b, q.Title)
	}
	b = append(b, `,"createdOn":`...)
	b = append(b, created...)
	if len(q.Values) > 0 {
		b = append(b, `,"values":[`...)
		for i, v := range q.Values {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"q":`...)
			b = appendJSONString(b, v.Question)
			b = append(b, `,"a":`...)
			b = appendJSONString(b, v.Answer)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(q.Hidden) > 0 {
		b = appendJSONObject(append(b, `,"hidden":`...), q.Hidden)
	}
	if len(q.Vars) > 0 {
		b = appendJSONObject(append(b, `,"vars":`...), q.Vars)
	}
	if q.Spill != "" {
		b = append(b, `,"spill":`...)
		b = appendJSONString(b, q.Spill)
	}
	if q.Partial {
		b = append(b, `,"partial":true`...)
	}
	if len(q.Quotas) > 0 {
		b = appendJSONList(append(b, `,"quotas":`...), q.Quotas)
	}
	if len(q.OverQuota) > 0 {
		b = appendJSONList(append(b, `,"overQuota":`...), q.OverQuota)
	}
	return append(b, '}'), nil
}

// messageJSON is the message of the encoded answers parts for plan p, as
// encodeJSON writes it: the first format's place marked (formatMark), the
// answers, the plan.
func messageJSON(parts [][]byte, p survey.Plan) []byte {
	n := 64 + len(p)
	for _, part := range parts {
		n += len(part) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"answers":`...)
	b = append(b, formatMark...)
	b = append(b, `,"queued":[`...)
	for i, part := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, part...)
	}
	b = append(b, ']')
	if p != "" {
		b = append(b, `,"plan":`...)
		b = appendJSONString(b, string(p))
	}
	return append(b, '}')
}

// appendJSONList appends the JSON list of strings l.
func appendJSONList(b []byte, l []string) []byte {
	b = append(b, '[')
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendJSONObject appends the JSON object of strings m, its keys sorted
// (as encoding/json writes a map).
func appendJSONObject(b []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = appendJSONString(b, m[k])
	}
	return append(b, '}')
}

// appendJSONString appends s quoted as encoding/json writes a string
// without HTML escaping: " and \ escaped, the control characters as \b,
// \f, \n, \r, \t or \u00XX, a byte that is not UTF-8 as \ufffd, and
// U+2028 and U+2029 as \u2028 and \u2029; everything else as it is.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
