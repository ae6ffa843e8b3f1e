package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/surveys-dev/surveys/internal/survey"
)

// lineDecoder decodes the lines of answer segments (one JSON answer each,
// as encodeJSON writes them) into an answer it reuses, for Scan: an export
// of a large survey spends most of its time here. The lines the worker
// writes (the answer's fields, known keys, strings with or without
// escapes) take a direct path, several times faster than encoding/json,
// which reads each value twice and allocates a string for every field of
// every answer; anything else (an unknown or differently spelt key, a
// null, a lone surrogate, invalid UTF-8, bad JSON) goes to json.Unmarshal,
// so the result is always what encoding/json gives.
//
// The texts that repeat from one answer to the next (tenant, slug, title,
// question IDs, texts and kinds) are kept and shared, not allocated again.
type lineDecoder struct {
	texts map[string]string
	last  [3]string   // the last tenant, slug and title
	qs    [][3]string // by answer: the last question ID, text and kind
	buf   []byte      // an unescaped string
	// vals holds one answer's answers to its questions, one after the
	// other, and spans where each is: they become one string, not one
	// each (a string per value was most of a scan's allocations).
	vals  []byte
	spans []valueSpan
	id    []byte // the answer's ID, for peek
	// heads are, by position in an answers array, the head of the answer
	// to a question that peek last read there (its bytes up to its
	// value): from one line to the next, an answer's question, text and
	// kind are the same bytes, compared at once rather than read again.
	heads []answerHead
}

// answerHead is the start of an answer to a question as encodeJSON
// writes it, `{"questionId":…,"questionText":…,"type":…,"answer":`, up
// to its value: its bytes, read once, and the strings they hold.
type answerHead struct {
	raw      []byte
	id, text string
	typ      survey.QuestionType
}

// Bounds of the heads a lineDecoder keeps: a survey of more questions,
// or a head longer than that (a long question), is read key by key.
const (
	maxHeads     = 256
	maxHeadBytes = 1024
)

// valueSpan is where the answer to question i (in Answers) is in vals.
type valueSpan struct{ i, start, end int }

// maxSharedTexts bounds the texts a lineDecoder keeps.
const maxSharedTexts = 4096

// decode sets a to the answer line holds, with an Answers array of its own.
func (d *lineDecoder) decode(line []byte, a *survey.SurveyAnswer) error {
	// A new Answers array each time (of the last one's size): an answer
	// kept by a shallow copy stays whole.
	answers := make([]survey.QuestionAnswer, 0, len(a.Answers))
	*a = survey.SurveyAnswer{Answers: answers}
	if d.fast(line, a) {
		return nil
	}
	*a = survey.SurveyAnswer{}
	return json.Unmarshal(line, a)
}

// fast decodes line the direct way, and reports whether it could.
func (d *lineDecoder) fast(line []byte, a *survey.SurveyAnswer) bool {
	p := lineParser{b: line, d: d}
	if !p.byte('{') {
		return false
	}
	seen := 0
	defer func() {
		if seen&keyAnswers == 0 {
			a.Answers = nil // as encoding/json leaves it
		}
	}()
	if p.byte('}') {
		return p.end()
	}
	for {
		key, ok := p.key()
		if !ok {
			return false
		}
		bit := answerKey(key)
		if bit == 0 || seen&bit != 0 {
			return false // unknown, or twice: encoding/json's rules
		}
		seen |= bit
		switch bit {
		case keyID:
			a.ID, ok = p.str(nil)
		case keyTenant:
			a.Tenant, ok = p.str(&p.d.last[0])
		case keySlug:
			a.Slug, ok = p.str(&p.d.last[1])
		case keyTitle:
			a.Title, ok = p.str(&p.d.last[2])
		case keyCreatedOn:
			var raw []byte
			if raw, ok = p.rawString(); ok {
				ok = a.CreatedOn.UnmarshalJSON(raw) == nil
			}
		case keyAnswers:
			ok = p.answers(a)
		case keyHidden:
			ok = p.strMap(&a.Hidden)
		case keyValues:
			ok = p.strMap(&a.Values)
		}
		if !ok {
			return false
		}
		if p.byte('}') {
			return p.end()
		}
		if !p.byte(',') {
			return false
		}
	}
}

const (
	keyID = 1 << iota
	keyTenant
	keySlug
	keyTitle
	keyCreatedOn
	keyAnswers
	keyQuestionID
	keyQuestionText
	keyType
	keyAnswer
	keyHidden
	keyValues
)

// answerKey is the field of an answer key names; 0 for none.
func answerKey(key []byte) int {
	switch string(key) {
	case "id":
		return keyID
	case "tenant":
		return keyTenant
	case "slug":
		return keySlug
	case "title":
		return keyTitle
	case "createdOn":
		return keyCreatedOn
	case "answers":
		return keyAnswers
	case "hidden":
		return keyHidden
	case "values":
		return keyValues
	}
	return 0
}

// questionKey is the field of an answer to a question key names; 0 for
// none.
func questionKey(key []byte) int {
	switch string(key) {
	case "questionId":
		return keyQuestionID
	case "questionText":
		return keyQuestionText
	case "type":
		return keyType
	case "answer":
		return keyAnswer
	}
	return 0
}

// lineParser reads one line.
type lineParser struct {
	b []byte
	i int
	d *lineDecoder
}

func (p *lineParser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

// peek reports whether the next byte after space is c.
func (p *lineParser) peek(c byte) bool {
	p.space()
	return p.i < len(p.b) && p.b[p.i] == c
}

// byte takes c, the next byte after space, if it is there.
func (p *lineParser) byte(c byte) bool {
	if p.peek(c) {
		p.i++
		return true
	}
	return false
}

// end reports whether only space is left.
func (p *lineParser) end() bool {
	p.space()
	return p.i == len(p.b)
}

// key reads an object's key, plain (no escapes), and its colon.
func (p *lineParser) key() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) && p.b[p.i] != '"' {
		if c := p.b[p.i]; c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return nil, false
		}
		p.i++
	}
	if p.i == len(p.b) {
		return nil, false
	}
	key := p.b[start:p.i]
	p.i++
	return key, p.byte(':')
}

// rawString reads a string without escapes, quotes included.
func (p *lineParser) rawString() ([]byte, bool) {
	if !p.peek('"') {
		return nil, false
	}
	start := p.i
	p.i++
	for p.i < len(p.b) && p.b[p.i] != '"' {
		if c := p.b[p.i]; c == '\\' || c < 0x20 {
			return nil, false
		}
		p.i++
	}
	if p.i == len(p.b) {
		return nil, false
	}
	p.i++
	return p.b[start:p.i], true
}

// str reads a string value; shared says it is a text that repeats from
// answer to answer.
func (p *lineParser) str(slot *string) (string, bool) {
	b, ok := p.unescaped()
	if !ok {
		return "", false
	}
	return p.d.text(b, slot), true
}

// unescaped reads a string value, unescaped: the line's bytes, or the
// decoder's buffer, valid until the next string is read.
func (p *lineParser) unescaped() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.i
	ascii := true
	for p.i < len(p.b) {
		c := p.b[p.i]
		if !special[c] {
			p.i++
			continue
		}
		switch {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			return s, true
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		p.i++
	}
	return nil, false
}

// special marks the bytes a string's plain run stops at: a quote, a
// backslash, a control character (not allowed) and the bytes of runes
// beyond ASCII (to be checked for UTF-8).
var special = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf
	}
	return t
}()

// escaped reads the rest of a string with escapes, from start, into the
// decoder's buffer.
func (p *lineParser) escaped(start int) ([]byte, bool) {
	buf := append(p.d.buf[:0], p.b[start:p.i]...)
	defer func() { p.d.buf = buf[:0] }()
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			if !utf8.Valid(buf) {
				return nil, false
			}
			return buf, true
		case c < 0x20:
			return nil, false
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.b) {
			return nil, false
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return nil, false
			}
			if utf16.IsSurrogate(r) {
				// Only a whole pair; a lone half goes to encoding/json.
				if !(p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u') {
					return nil, false
				}
				p.i += 2
				r2, ok := p.hex4()
				if r = utf16.DecodeRune(r, r2); !ok || r == utf8.RuneError {
					return nil, false
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return nil, false
		}
	}
	return nil, false
}

// hex4 reads the four hex digits of a \u escape.
func (p *lineParser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	p.i += 4
	return r, true
}

// text is s as a string. A text that repeats from answer to answer has a
// slot, which holds the text of the same field of the answer before: when
// it is the same again, that string is shared; else one of the texts the
// decoder keeps, or a new one. Without a slot, a new one.
func (d *lineDecoder) text(s []byte, slot *string) string {
	if slot == nil {
		return string(s)
	}
	if *slot == string(s) {
		return *slot
	}
	t, ok := d.texts[string(s)]
	if !ok {
		t = string(s)
		if d.texts == nil {
			d.texts = map[string]string{}
		}
		if len(d.texts) < maxSharedTexts {
			d.texts[t] = t
		}
	}
	*slot = t
	return t
}

// answers reads the answers array into a.Answers.
func (p *lineParser) answers(a *survey.SurveyAnswer) bool {
	if !p.byte('[') {
		return false
	}
	if p.byte(']') {
		a.Answers = a.Answers[:0]
		if a.Answers == nil {
			a.Answers = []survey.QuestionAnswer{}
		}
		return true
	}
	p.d.vals, p.d.spans = p.d.vals[:0], p.d.spans[:0]
	for {
		qa, ok := p.knownHead(len(a.Answers))
		if !ok {
			qa, ok = p.questionAnswer(len(a.Answers))
		}
		if !ok {
			return false
		}
		a.Answers = append(a.Answers, qa)
		if p.byte(']') {
			vals := string(p.d.vals)
			for _, sp := range p.d.spans {
				a.Answers[sp.i].Answer = vals[sp.start:sp.end]
			}
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// knownHead reads answer i to a question when its head (head) is as
// encodeJSON writes it and it ends after its value: its question's ID,
// text and kind are then the head's strings, shared from line to line.
// Else it reports false, the parser where it was (for questionAnswer).
func (p *lineParser) knownHead(i int) (survey.QuestionAnswer, bool) {
	p.space()
	start, spans := p.i, len(p.d.spans)
	h := p.head(i)
	if h == nil {
		return survey.QuestionAnswer{}, false
	}
	if v, ok := p.unescaped(); ok && p.byte('}') {
		vs := len(p.d.vals)
		p.d.vals = append(p.d.vals, v...)
		p.d.spans = append(p.d.spans, valueSpan{i, vs, len(p.d.vals)})
		return survey.QuestionAnswer{QuestionID: h.id, QuestionText: h.text, Type: h.typ}, true
	}
	p.i, p.d.spans = start, p.d.spans[:spans]
	return survey.QuestionAnswer{}, false
}

// questionAnswer reads one answer to a question.
func (p *lineParser) questionAnswer(i int) (survey.QuestionAnswer, bool) {
	var qa survey.QuestionAnswer
	for len(p.d.qs) <= i {
		p.d.qs = append(p.d.qs, [3]string{})
	}
	slots := &p.d.qs[i]
	if !p.byte('{') {
		return qa, false
	}
	if p.byte('}') {
		return qa, true
	}
	seen := 0
	for {
		key, ok := p.key()
		if !ok {
			return qa, false
		}
		bit := questionKey(key)
		if bit == 0 || seen&bit != 0 {
			return qa, false
		}
		seen |= bit
		var typ string
		switch bit {
		case keyQuestionID:
			qa.QuestionID, ok = p.str(&slots[0])
		case keyQuestionText:
			qa.QuestionText, ok = p.str(&slots[1])
		case keyType:
			typ, ok = p.str(&slots[2])
			qa.Type = survey.QuestionType(typ)
		case keyAnswer:
			var v []byte
			if v, ok = p.unescaped(); ok {
				start := len(p.d.vals)
				p.d.vals = append(p.d.vals, v...)
				p.d.spans = append(p.d.spans, valueSpan{i, start, len(p.d.vals)})
			}
		}
		if !ok {
			return qa, false
		}
		if p.byte('}') {
			return qa, true
		}
		if !p.byte(',') {
			return qa, false
		}
	}
}

// strMap reads an object of plain keys and string values into *m: an
// answer's hidden fields' values or its variables' values (anything
// else, such as a null, goes to encoding/json).
func (p *lineParser) strMap(m *map[string]string) bool {
	if !p.byte('{') {
		return false
	}
	*m = map[string]string{}
	if p.byte('}') {
		return true
	}
	for {
		key, ok := p.key()
		if !ok {
			return false
		}
		name := p.d.text(key, nil)
		v, ok := p.str(nil)
		if !ok {
			return false
		}
		(*m)[name] = v
		if p.byte('}') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// peek sets a to the fields of line that a filter looks at (fields): the
// tenant, the day, the partial flag, the answers to fields.Questions (in
// their order in the line, the others left out) and, when fields asks
// for them, the hidden fields' and variables' values. The answer's ID is
// left in d.id (valid until the next line), not allocated. Every other
// value is skipped, checked as JSON but not decoded. It reports whether
// it could: a line of another shape (a key it does not know, or spelt
// another way; a key twice; a number; a tombstone) is for decode, whose
// answer the filter then looks at. a's Answers array is reused.
func (d *lineDecoder) peek(line []byte, fields *survey.AnswerFields, a *survey.SurveyAnswer) bool {
	answers := a.Answers[:0]
	*a = survey.SurveyAnswer{Answers: answers}
	d.id = d.id[:0]
	p := lineParser{b: line, d: d}
	if !p.byte('{') {
		return false
	}
	if p.byte('}') {
		return p.end()
	}
	seen := 0
	for {
		key, ok := p.key()
		if !ok {
			return false
		}
		bit := answerKey(key)
		if bit == 0 {
			bit = skippedKey(key)
		}
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case keyID:
			var v []byte
			if v, ok = p.unescaped(); ok {
				d.id = append(d.id, v...)
			}
		case keyTenant:
			a.Tenant, ok = p.str(&p.d.last[0])
		case keyCreatedOn:
			var raw []byte
			if raw, ok = p.rawString(); ok {
				ok = a.CreatedOn.UnmarshalJSON(raw) == nil
			}
		case keyPartial:
			a.Partial, ok = p.boolean()
		case keyAnswers:
			ok = p.someAnswers(a, fields.Questions)
		case keyHidden:
			if fields.Hidden {
				ok = p.strMap(&a.Hidden)
			} else {
				ok = p.skipStrings('{', '}')
			}
		case keyValues:
			if fields.Values {
				ok = p.strMap(&a.Values)
			} else {
				ok = p.skipStrings('{', '}')
			}
		case keyQuotas, keyOverQuota:
			ok = p.skipStrings('[', ']')
		default: // slug, title
			ok = p.skipString()
		}
		if !ok {
			return false
		}
		if p.byte('}') {
			return p.end()
		}
		if !p.byte(',') {
			return false
		}
	}
}

const (
	keyPartial = keyValues << (iota + 1)
	keyQuotas
	keyOverQuota
)

// skippedKey is the field of an answer, beyond answerKey's, that key
// names for peek; 0 for none.
func skippedKey(key []byte) int {
	switch string(key) {
	case "partial":
		return keyPartial
	case "quotas":
		return keyQuotas
	case "overQuota":
		return keyOverQuota
	}
	return 0
}

// someAnswers reads the answers array, keeping in a.Answers only the
// answers to the questions ids name: the others are skipped, undecoded,
// when their first key is their question's ID (as encodeJSON writes
// them).
func (p *lineParser) someAnswers(a *survey.SurveyAnswer, ids []string) bool {
	if !p.byte('[') {
		return false
	}
	a.Answers = a.Answers[:0]
	if p.byte(']') {
		return true
	}
	p.d.vals, p.d.spans = p.d.vals[:0], p.d.spans[:0]
	wanted := func(id []byte) bool {
		for _, w := range ids {
			if w == string(id) {
				return true
			}
		}
		return false
	}
	for k := 0; ; k++ {
		p.space()
		start := p.i
		if h := p.head(k); h != nil {
			// The head is known: the value, then the end.
			if slices.Contains(ids, h.id) {
				v, ok := p.unescaped()
				if !ok {
					return false
				}
				vs := len(p.d.vals)
				p.d.vals = append(p.d.vals, v...)
				p.d.spans = append(p.d.spans, valueSpan{len(a.Answers), vs, len(p.d.vals)})
				a.Answers = append(a.Answers, survey.QuestionAnswer{QuestionID: h.id, QuestionText: h.text, Type: h.typ})
			} else if !p.skipString() {
				return false
			}
			// Any key after these four is one of them again, or unknown:
			// not for peek.
			if !p.byte('}') {
				return false
			}
		} else if skipped, ok := p.skipAnswerUnless(wanted); !ok {
			return false
		} else if !skipped {
			p.i = start
			qa, ok := p.questionAnswer(len(a.Answers))
			if !ok {
				return false
			}
			if wanted([]byte(qa.QuestionID)) {
				a.Answers = append(a.Answers, qa)
			} else if n := len(p.d.spans); n > 0 && p.d.spans[n-1].i == len(a.Answers) {
				// Not kept: neither is its value.
				p.d.vals = p.d.vals[:p.d.spans[n-1].start]
				p.d.spans = p.d.spans[:n-1]
			}
		}
		if p.byte(']') {
			if len(p.d.spans) > 0 {
				vals := string(p.d.vals)
				for _, sp := range p.d.spans {
					a.Answers[sp.i].Answer = vals[sp.start:sp.end]
				}
			}
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// head reads the head of the answer to a question at position k of an
// answers array (the parser at its '{'), when it is written as
// encodeJSON writes it (its four keys in their order, plain; its
// question's ID, text and kind strings that encoding/json reads as they
// are): the same bytes as the head at k of the line before, compared at
// once, or else read and kept for the next line. The parser is then at
// the answer's value. It returns nil, the parser where it was, for a
// head of another shape: for skipAnswerUnless and questionAnswer, key by key.
//
// The head's bytes are read alone (an object's start, whatever is
// before it), so the same bytes always read the same: a head that
// matches needs no reading again.
func (p *lineParser) head(k int) *answerHead {
	d := p.d
	if k < len(d.heads) {
		if h := &d.heads[k]; len(h.raw) > 0 && bytes.HasPrefix(p.b[p.i:], h.raw) {
			p.i += len(h.raw)
			return h
		}
	}
	start := p.i
	var strs [3]string
	for i, lit := range headKeys {
		if !hasPrefix(p.b[p.i:], lit) {
			p.i = start
			return nil
		}
		p.i += len(lit)
		if i == len(headKeys)-1 {
			break
		}
		v, ok := p.unescaped()
		if !ok {
			p.i = start
			return nil
		}
		strs[i] = string(v)
	}
	raw := p.b[start:p.i]
	h := &answerHead{}
	if k < maxHeads && len(raw) <= maxHeadBytes {
		for len(d.heads) <= k {
			d.heads = append(d.heads, answerHead{})
		}
		h = &d.heads[k]
	}
	h.raw = append(h.raw[:0], raw...)
	h.id, h.text, h.typ = strs[0], strs[1], survey.QuestionType(strs[2])
	return h
}

// headKeys are the keys of an answer to a question as encodeJSON writes
// them, each with what is before it.
var headKeys = [...]string{`{"questionId":`, `,"questionText":`, `,"type":`, `,"answer":`}

// skipAnswerUnless skips an answer to a question whose first key is
// questionId and whose ID is not wanted, checking its other keys as
// questionAnswer would. It reports whether it skipped it (else the
// parser is anywhere in it) and whether the line is still readable.
func (p *lineParser) skipAnswerUnless(wanted func(id []byte) bool) (skipped, ok bool) {
	if !p.byte('{') {
		return false, false
	}
	if p.peek('}') {
		return false, true
	}
	key, ok := p.key()
	if !ok {
		return false, false
	}
	if questionKey(key) != keyQuestionID {
		return false, true
	}
	id, ok := p.unescaped()
	if !ok || wanted(id) {
		return false, ok
	}
	seen := keyQuestionID
	// The rest as encodeJSON writes it, each key compared at once; else
	// key by key.
	for _, k := range answerKeys {
		if !hasPrefix(p.b[p.i:], k.lit) {
			break
		}
		p.i += len(k.lit)
		if !p.skipString() {
			return false, false
		}
		seen |= k.bit
	}
	for {
		if p.byte('}') {
			return true, true
		}
		if !p.byte(',') {
			return false, false
		}
		key, ok := p.key()
		if !ok {
			return false, false
		}
		bit := questionKey(key)
		if bit == 0 || seen&bit != 0 {
			return false, false
		}
		seen |= bit
		if !p.skipString() {
			return false, false
		}
	}
}

// answerKeys are the keys after the first of an answer to a question as
// encodeJSON writes them, each with the comma before it.
var answerKeys = [...]struct {
	lit string
	bit int
}{{`,"questionText":`, keyQuestionText}, {`,"type":`, keyType}, {`,"answer":`, keyAnswer}}

// boolean reads true or false.
func (p *lineParser) boolean() (bool, bool) {
	p.space()
	switch {
	case hasPrefix(p.b[p.i:], "true"):
		p.i += 4
		return true, true
	case hasPrefix(p.b[p.i:], "false"):
		p.i += 5
		return false, true
	}
	return false, false
}

func hasPrefix(b []byte, s string) bool { return len(b) >= len(s) && string(b[:len(s)]) == s }

// skipStrings skips an array (open '[') or an object (open '{', its
// keys plain) of strings: the only values of an answer peek skips beside
// strings (anything else, null included, is not skipped: false).
func (p *lineParser) skipStrings(open, close byte) bool {
	if !p.byte(open) {
		return false
	}
	if p.byte(close) {
		return true
	}
	for {
		if open == '{' {
			if _, ok := p.key(); !ok {
				return false
			}
		}
		if !p.skipString() {
			return false
		}
		if p.byte(close) {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// skipString skips a string value, checking its escapes and that it has
// no control characters (as encoding/json would), not its UTF-8 (which
// encoding/json replaces, never refuses). Its plain runs are passed over
// eight bytes at a time.
func (p *lineParser) skipString() bool {
	if !p.byte('"') {
		return false
	}
	b, i := p.b, p.i
	for {
		for i+8 <= len(b) {
			if m := stopMask8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				goto stopped
			}
			i += 8
		}
		for i < len(b) && !stop[b[i]] {
			i++
		}
	stopped:
		switch {
		case i >= len(b) || b[i] < 0x20:
			return false
		case b[i] == '"':
			p.i = i + 1
			return true
		}
		// A backslash.
		if i+1 >= len(b) {
			return false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			p.i = i + 2
			if _, ok := p.hex4(); !ok {
				return false
			}
			i = p.i
		default:
			return false
		}
	}
}

// Eight bytes at once (in a uint64): a byte of ones in each, and the
// high bit of each.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// stops8 reports whether one of the eight bytes of v is a quote, a
// backslash or a control character (the bytes stop marks): x has a zero
// byte when (x-ones)&^x&highs is not 0, and a byte under n (n ≤ 128)
// when (x-n*ones)&^x&highs is not 0.
func stops8(v uint64) bool { return stopMask8(v) != 0 }

// stopMask8 has the high bit of a byte of v set where stops8 finds one:
// a borrow can mark a byte above the first (the lowest) that stops, but
// never one below it, so the lowest bit set is the first byte that
// stops (skipString goes there at once).
func stopMask8(v uint64) uint64 {
	q, bs := v^(ones*'"'), v^(ones*'\\')
	return ((q-ones)&^q | (bs-ones)&^bs | (v-ones*0x20)&^v) & highs
}

// stop marks the bytes a skipped string's plain run stops at: a quote, a
// backslash and a control character.
var stop = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c == '"' || c == '\\' || c < 0x20
	}
	return t
}()
