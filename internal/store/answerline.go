package store

import (
	"slices"
	"unicode/utf8"

	"github.com/surveys-dev/surveys/internal/survey"
)

// appendAnswerLine appends a's segment line, encodeJSON's encoding of it
// and a newline, and reports whether it could. It writes the answer's
// fields directly, in the struct's order and with its omitempty rules,
// where encoding/json walks them by reflection (the worker encodes every
// answer it files). A string that holds a control character other than
// newline, return and tab, invalid UTF-8 or U+2028/9 (which encoding/json
// escapes in ways not repeated here), or a time encoding/json cannot write,
// makes it report false: the caller then encodes with encoding/json. What
// it writes is encodeJSON's, byte for byte (FuzzAnswerBlob).
func appendAnswerLine(dst []byte, a *survey.SurveyAnswer) ([]byte, bool) {
	ok := true
	str := func(key, s string) {
		if ok {
			dst = append(dst, key...)
			dst, ok = appendJSONString(dst, s)
		}
	}
	str(`{"id":`, a.ID)
	str(`,"tenant":`, a.Tenant)
	str(`,"slug":`, a.Slug)
	str(`,"title":`, a.Title)
	t, err := a.CreatedOn.MarshalJSON()
	if err != nil || !ok {
		return dst, false
	}
	dst = append(dst, `,"createdOn":`...)
	dst = append(dst, t...)
	dst = append(dst, `,"answers":`...)
	if a.Answers == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i := range a.Answers {
			qa := &a.Answers[i]
			if i == 0 {
				str(`{"questionId":`, qa.QuestionID)
			} else {
				str(`,{"questionId":`, qa.QuestionID)
			}
			str(`,"questionText":`, qa.QuestionText)
			str(`,"type":`, string(qa.Type))
			str(`,"answer":`, qa.Answer)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	strMap := func(key string, m map[string]string) {
		if !ok || len(m) == 0 {
			return
		}
		dst = append(dst, key...)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys) // encoding/json's order of a map's keys
		for i, k := range keys {
			if i == 0 {
				str(`{`, k)
			} else {
				str(`,`, k)
			}
			str(`:`, m[k])
		}
		dst = append(dst, '}')
	}
	strMap(`,"hidden":`, a.Hidden)
	strMap(`,"values":`, a.Values)
	if a.Partial {
		dst = append(dst, `,"partial":true`...)
	}
	strList := func(key string, l []string) {
		if !ok || len(l) == 0 {
			return
		}
		for i, s := range l {
			if i == 0 {
				str(key+`[`, s)
			} else {
				str(`,`, s)
			}
		}
		dst = append(dst, ']')
	}
	strList(`,"quotas":`, a.Quotas)
	strList(`,"overQuota":`, a.OverQuota)
	dst = append(dst, '}', '\n')
	return dst, ok
}

// appendJSONString appends s as encoding/json writes a string without
// HTML escaping, and reports whether it could (see appendAnswerLine).
func appendJSONString(dst []byte, s string) ([]byte, bool) {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				return dst, false
			}
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			return dst, false
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), true
}
