package survey

import "unicode/utf8"

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
