package survey

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// plainStrings reads the stored JSON of a list of strings (["a","b"]) or
// of an object of strings ({"k":"v"}), as json.Marshal writes them, the
// direct way: each answer's list or rows are read once per answer counted,
// and encoding/json's reflection cost more than the counting. It gives
// the strings in order (keys and values alternating for an object), and
// ok false for anything but plain strings (an escape, a control
// character, invalid UTF-8, spaces, a null, a number): the caller then
// asks encoding/json, so the result is always what it gives.
func plainStrings(stored string, open, close byte, out []string) (_ []string, ok bool) {
	s := stored
	if len(s) < 2 || s[0] != open || s[len(s)-1] != close {
		return nil, false
	}
	s = s[1 : len(s)-1]
	if s == "" {
		return out, true
	}
	for n := 0; ; n++ {
		if len(s) == 0 || s[0] != '"' {
			return nil, false
		}
		end, ascii := 1, true
		for ; end < len(s) && s[end] != '"'; end++ {
			switch c := s[end]; {
			case c == '\\' || c < 0x20:
				return nil, false
			case c >= utf8.RuneSelf:
				ascii = false
			}
		}
		if end == len(s) {
			return nil, false
		}
		v := s[1:end]
		if !ascii && !utf8.ValidString(v) {
			return nil, false
		}
		out = append(out, v)
		s = s[end+1:]
		if len(s) == 0 {
			return out, open == '[' || n%2 == 1
		}
		sep := byte(',')
		if open == '{' && n%2 == 0 {
			sep = ':'
		}
		if s[0] != sep {
			return nil, false
		}
		s = s[1:]
	}
}

// plainFiles reads the stored JSON of a list of files as json.Marshal
// writes []UploadedFile of plain strings (its keys in order, the size a
// plain whole number), the direct way; ok is false for anything else,
// which the caller gives to encoding/json.
func plainFiles(stored string) (_ []UploadedFile, ok bool) {
	s := stored
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	s = s[1 : len(s)-1]
	out := []UploadedFile{}
	for s != "" {
		var f UploadedFile
		var size string
		for i, key := range []string{`{"name":`, `,"size":`, `,"type":`, `,"key":`} {
			rest, found := strings.CutPrefix(s, key)
			if !found {
				return nil, false
			}
			s = rest
			if i == 1 {
				n := 0
				for n < len(s) && '0' <= s[n] && s[n] <= '9' {
					n++
				}
				size, s = s[:n], s[n:]
				continue
			}
			v, rest, ok := plainString(s)
			if !ok {
				return nil, false
			}
			s = rest
			switch i {
			case 0:
				f.Name = v
			case 2:
				f.Type = v
			case 3:
				f.Key = v
			}
		}
		if len(size) == 0 || len(size) > 18 || len(size) > 1 && size[0] == '0' || s == "" || s[0] != '}' {
			return nil, false
		}
		f.Size, _ = strconv.ParseInt(size, 10, 64)
		out = append(out, f)
		s = s[1:]
		if s != "" {
			if s[0] != ',' || len(s) == 1 {
				return nil, false
			}
			s = s[1:]
		}
	}
	return out, true
}

// plainString reads a JSON string without escapes or control characters,
// of valid UTF-8, at the start of s, and what follows it.
func plainString(s string) (v, rest string, ok bool) {
	if s == "" || s[0] != '"' {
		return "", "", false
	}
	ascii := true
	for end := 1; end < len(s); end++ {
		switch c := s[end]; {
		case c == '"':
			v = s[1:end]
			if !ascii && !utf8.ValidString(v) {
				return "", "", false
			}
			return v, s[end+1:], true
		case c == '\\' || c < 0x20:
			return "", "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", "", false
}

// encodePlain writes a list of strings, or an object of strings (keys
// sorted), as json.Marshal does, the direct way, when every string is
// plain: valid UTF-8 with nothing json.Marshal escapes (a control
// character, " \ < > &, U+2028, U+2029). ok is false for anything else
// (and for a nil list or object, which json.Marshal writes as null): the
// caller then asks encoding/json, so the result is always what it gives.
// Each answer of a list, rows or parts is encoded as it is checked.
func encodePlain(v any) (_ string, ok bool) {
	var b strings.Builder
	switch v := v.(type) {
	case []string:
		if v == nil {
			return "", false
		}
		n := 2
		for _, s := range v {
			if !marshalsPlain(s) {
				return "", false
			}
			n += len(s) + 3
		}
		b.Grow(n)
		b.WriteByte('[')
		for i, s := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('"')
			b.WriteString(s)
			b.WriteByte('"')
		}
		b.WriteByte(']')
	case map[string]string:
		if v == nil {
			return "", false
		}
		keys := make([]string, 0, len(v))
		n := 2
		for k, s := range v {
			if !marshalsPlain(k) || !marshalsPlain(s) {
				return "", false
			}
			keys = append(keys, k)
			n += len(k) + len(s) + 6
		}
		slices.Sort(keys)
		b.Grow(n)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('"')
			b.WriteString(k)
			b.WriteString(`":"`)
			b.WriteString(v[k])
			b.WriteByte('"')
		}
		b.WriteByte('}')
	default:
		return "", false
	}
	return b.String(), true
}

// marshalsPlain reports whether json.Marshal writes s as it is, quoted.
func marshalsPlain(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}
