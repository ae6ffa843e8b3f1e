package store

import (
	"bytes"

	"github.com/surveys-dev/surveys/internal/survey"
)

// fast decodes a message of the answers queue in the current format as
// EnqueueEach writes it (the format mark, the queued answers' known keys,
// strings with or without escapes) the direct way, and reports whether it
// could: the worker decoded each message with encoding/json, which reads
// each value twice and allocates a string for every value and key of
// every answer. Anything else (the first format's answers, a key it does
// not know or spelt another way, a key twice, a null, a number, a lone
// surrogate, invalid UTF-8, bad JSON) is left to encoding/json (decode),
// so the result is always what encoding/json gives
// (FuzzDecodeAnswerMessage). It uses the segment lines' parser
// (segmentlines.go).
func (m *AnswerMessage) fast(b []byte) bool {
	var d lineDecoder
	p := lineParser{b: b, d: &d}
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
		var bit int
		switch string(key) {
		case "answers":
			bit = 1
			// Only the current format's mark, as EnqueueEach writes it.
			p.space()
			if ok = hasPrefix(p.b[p.i:], string(formatMark)); ok {
				p.i += len(formatMark)
			}
		case "queued":
			bit = 2
			ok = p.queued(&m.Queued)
		case "plan":
			bit = 4
			var plan string
			plan, ok = p.str(nil)
			m.Plan = survey.Plan(plan)
		}
		if bit == 0 || seen&bit != 0 || !ok {
			return false // unknown, twice (encoding/json's rules), or not read
		}
		seen |= bit
		if p.byte('}') {
			return p.end()
		}
		if !p.byte(',') {
			return false
		}
	}
}

// queued reads the array of queued answers into *qs.
func (p *lineParser) queued(qs *[]QueuedAnswer) bool {
	if !p.byte('[') {
		return false
	}
	// Room for the answers at once: their number is about that of the
	// key every queued answer has (a text may hold it too: room only).
	*qs = make([]QueuedAnswer, 0, bytes.Count(p.b[p.i:], []byte(`"createdOn":`)))
	if p.byte(']') {
		return true
	}
	for {
		*qs = append(*qs, QueuedAnswer{})
		if !p.queuedAnswer(&(*qs)[len(*qs)-1]) {
			return false
		}
		if p.byte(']') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// Keys of a queued answer.
const (
	qkID = 1 << iota
	qkTenant
	qkSlug
	qkTitle
	qkCreatedOn
	qkValues
	qkHidden
	qkVars
	qkSpill
	qkPartial
	qkQuotas
	qkOverQuota
)

func queuedKey(key []byte) int {
	switch string(key) {
	case "id":
		return qkID
	case "tenant":
		return qkTenant
	case "slug":
		return qkSlug
	case "title":
		return qkTitle
	case "createdOn":
		return qkCreatedOn
	case "values":
		return qkValues
	case "hidden":
		return qkHidden
	case "vars":
		return qkVars
	case "spill":
		return qkSpill
	case "partial":
		return qkPartial
	case "quotas":
		return qkQuotas
	case "overQuota":
		return qkOverQuota
	}
	return 0
}

// queuedAnswer reads one queued answer into q.
func (p *lineParser) queuedAnswer(q *QueuedAnswer) bool {
	if !p.byte('{') {
		return false
	}
	if p.byte('}') {
		return true
	}
	seen := 0
	for {
		key, ok := p.key()
		if !ok {
			return false
		}
		bit := queuedKey(key)
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case qkID:
			q.ID, ok = p.str(nil)
		case qkTenant:
			q.Tenant, ok = p.str(&p.d.last[0])
		case qkSlug:
			q.Slug, ok = p.str(&p.d.last[1])
		case qkTitle:
			q.Title, ok = p.str(&p.d.last[2])
		case qkCreatedOn:
			var raw []byte
			if raw, ok = p.rawString(); ok {
				ok = q.CreatedOn.UnmarshalJSON(raw) == nil
			}
		case qkValues:
			ok = p.queuedValues(&q.Values)
		case qkHidden:
			ok = p.strMap(&q.Hidden)
		case qkVars:
			ok = p.strMap(&q.Vars)
		case qkSpill:
			q.Spill, ok = p.str(nil)
		case qkPartial:
			q.Partial, ok = p.boolean()
		case qkQuotas:
			ok = p.strList(&q.Quotas)
		case qkOverQuota:
			ok = p.strList(&q.OverQuota)
		}
		if !ok {
			return false
		}
		if p.byte('}') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// queuedValues reads an answer's values into *vs: the question IDs
// shared from answer to answer (by position), the values one string for
// the answer, cut into each value's.
func (p *lineParser) queuedValues(vs *[]QueuedValue) bool {
	if !p.byte('[') {
		return false
	}
	// Room for as many values as the answer before had.
	*vs = make([]QueuedValue, 0, max(len(p.d.spans), 1))
	if p.byte(']') {
		return true
	}
	p.d.vals, p.d.spans = p.d.vals[:0], p.d.spans[:0]
	for i := 0; ; i++ {
		for len(p.d.qs) <= i {
			p.d.qs = append(p.d.qs, [3]string{})
		}
		var v QueuedValue
		if !p.byte('{') {
			return false
		}
		if !p.byte('}') {
			seen := 0
			for {
				key, ok := p.key()
				if !ok {
					return false
				}
				switch string(key) {
				case "q":
					if seen&1 != 0 {
						return false
					}
					seen |= 1
					v.Question, ok = p.str(&p.d.qs[i][0])
				case "a":
					if seen&2 != 0 {
						return false
					}
					seen |= 2
					var s []byte
					if s, ok = p.unescaped(); ok {
						start := len(p.d.vals)
						p.d.vals = append(p.d.vals, s...)
						p.d.spans = append(p.d.spans, valueSpan{i, start, len(p.d.vals)})
					}
				default:
					return false
				}
				if !ok {
					return false
				}
				if p.byte('}') {
					break
				}
				if !p.byte(',') {
					return false
				}
			}
		}
		*vs = append(*vs, v)
		if p.byte(']') {
			vals := string(p.d.vals)
			for _, sp := range p.d.spans {
				(*vs)[sp.i].Answer = vals[sp.start:sp.end]
			}
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// strList reads an array of strings into *l.
func (p *lineParser) strList(l *[]string) bool {
	if !p.byte('[') {
		return false
	}
	*l = []string{}
	if p.byte(']') {
		return true
	}
	for {
		s, ok := p.str(nil)
		if !ok {
			return false
		}
		*l = append(*l, s)
		if p.byte(']') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}
