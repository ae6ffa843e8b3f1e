package survey

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// Contact is the type of a question of contact details: a name, an e-mail
// address, a phone number and a postal address, each part asked or not.
const Contact QuestionType = "Contact"

// How a contact question asks for one of its parts (Question.Parts);
// a part it does not name is not asked.
const (
	PartOptional = "optional"
	PartRequired = "required"
)

// ContactPart is one part of a contact question's answer.
type ContactPart struct {
	// Key names the part in Question.Parts, in the stored answer and in
	// the form (q-<ID>-<Key>).
	Key string
	// Label is the part's name for people (and a key of the respondent
	// pages' catalogs), and its export column.
	Label string
	// Max bounds its length, in characters.
	Max int
}

// ContactParts are the parts a contact question may ask, in the order it
// asks them.
var ContactParts = []ContactPart{
	{"name", "Name", 100},
	{"email", "E-mail address", 254},
	{"phone", "Phone number", 30},
	{"street", "Street address", 200},
	{"city", "Town or city", 100},
	{"postcode", "Postcode", 20},
	{"country", "Country", 100},
}

// DefaultParts are the parts of a contact question that names none: a
// name and an e-mail address, both required.
func DefaultParts() map[string]string {
	return map[string]string{"name": PartRequired, "email": PartRequired}
}

func contactPart(key string) (ContactPart, bool) {
	for _, p := range ContactParts {
		if p.Key == key {
			return p, true
		}
	}
	return ContactPart{}, false
}

// AskedParts are the parts q asks, in order, each with whether it is
// required.
func AskedParts(q Question) []AskedPart {
	var out []AskedPart
	for _, p := range ContactParts {
		if how, ok := q.Parts[p.Key]; ok {
			out = append(out, AskedPart{ContactPart: p, Required: how == PartRequired})
		}
	}
	return out
}

// AskedPart is a part a contact question asks.
type AskedPart struct {
	ContactPart
	Required bool
}

// contact is the parts of Parts the respondent gave, each a line: stored
// canonically as a JSON object of part → text, keys sorted:
// {"email":"ana@example.com","name":"Ana"}. A part "required" must be
// given whenever the question is answered (an optional question left
// wholly empty is no answer); each is checked (an e-mail address, a
// phone number of digits, a postcode, lengths). Its answers are what
// people write about themselves (Settings.Text): listed on the analysis
// page as written answers are, never on the public results page, and
// exported one column per part asked. Its summary
// counts the answers that gave each part (Choices, by part key).
type contact struct{}

func (contact) Type() QuestionType { return Contact }
func (contact) Key() string        { return "contact" }
func (contact) Label() string      { return "Contact details" }
func (contact) Settings() Settings { return Settings{Parts: true, Text: true} }

// normalize writes the parts and how they are asked in lower case and
// drops those not asked (""); validate refuses the rest it does not know.
// A question that names no parts (nil: an API client leaving them out)
// asks the DefaultParts; one whose parts are all "not asked" asks none,
// which validate refuses.
func (contact) normalize(q *Question) {
	if q.Parts == nil {
		q.Parts = DefaultParts()
		return
	}
	parts := map[string]string{}
	for k, v := range q.Parts {
		k, v = strings.ToLower(strings.TrimSpace(CleanLine(k))), strings.ToLower(strings.TrimSpace(CleanLine(v)))
		if v != "" {
			parts[k] = v
		}
	}
	q.Parts = parts
}

func (contact) validate(q Question, key string, f fieldErrors) {
	keys := make([]string, 0, len(q.Parts))
	for k := range q.Parts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p, ok := contactPart(k)
		switch how := q.Parts[k]; {
		case !ok:
			f.add(key+".parts", "A contact question has no part %q: the parts are name, email, phone, street, city, postcode and country.", k)
		case how != PartOptional && how != PartRequired:
			f.add(key+".parts", "Ask for the %s as optional or required (not %q).", strings.ToLower(p.Label), how)
		}
	}
	if len(q.Parts) == 0 {
		f.add(key+".parts", "Ask for at least one part of the contact details.")
	}
}

func (contact) required() Msg { return M("Please give your contact details.") }

func (contact) answer(q Question, f Form) (string, Msg) {
	given := map[string]string{}
	var missing []string
	for _, p := range ContactParts { // AskedParts, without making them
		how, asked := q.Parts[p.Key]
		if !asked {
			continue
		}
		v := oneSpaced(CleanLine(f.Get(p.Key)))
		if v == "" {
			if how == PartRequired {
				missing = append(missing, p.Label)
			}
			continue
		}
		if problem := checkPart(p, v); !problem.IsZero() {
			return "", problem
		}
		given[p.Key] = v
	}
	switch {
	case len(given) == 0:
		return "", Msg{}
	case len(missing) > 0:
		return "", M("Please also give: %s.", M(missing[0]))
	}
	return encodeJSON(given), Msg{}
}

// checkPart checks one part's text (cleaned, on one line).
func checkPart(p ContactPart, v string) Msg {
	if n := utf8.RuneCountInString(v); n > p.Max {
		return M("%s: please keep it to %d characters (it has %d).", M(p.Label), p.Max, n)
	}
	switch p.Key {
	case "email":
		if !isEmail(v) {
			return M("Please give an e-mail address, like name@example.com.")
		}
	case "phone":
		digits := 0
		for _, r := range v {
			switch {
			case r >= '0' && r <= '9':
				digits++
			case strings.ContainsRune("+-(). /", r):
			default:
				return M("Please give a phone number in digits, like +44 20 7946 0000.")
			}
		}
		if digits < 5 || digits > 17 {
			return M("Please give a phone number in digits, like +44 20 7946 0000.")
		}
	case "postcode":
		for _, r := range v {
			if !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r == ' ' || r == '-') {
				return M("Please give a postcode of letters, digits, spaces and hyphens.")
			}
		}
	}
	return Msg{}
}

func (contact) form(_ Question, stored string) Form {
	f := Form{}
	for k, v := range decodeRows(stored) {
		f[k] = []string{v}
	}
	return f
}

// written is a contact answer as one line for the analysis page (a
// private page: never the public results): the parts given, in order,
// " · " between them.
func (contact) written(_ Question, stored string) string {
	m := decodeRows(stored)
	var out []string
	for _, p := range ContactParts {
		if v, ok := m[p.Key]; ok {
			out = append(out, v)
		}
	}
	return strings.Join(out, " · ")
}

// newSummary: a count per part asked, at zero, in the question's order.
func (contact) newSummary(q Question, qs *QuestionAnswersSummary) {
	for _, p := range AskedParts(q) {
		qs.Choices = append(qs.Choices, ChoiceCount{Answer: p.Key})
	}
}

// add counts the parts given, in the order of ContactParts.
func (contact) add(qs *QuestionAnswersSummary, answer string) {
	m := decodeRows(answer)
	for _, p := range ContactParts {
		if _, ok := m[p.Key]; ok {
			qs.Choices = addChoice(qs.Choices, p.Key)
		}
	}
}

// Chart: how many answers gave each part, never what they wrote.
func (contact) Chart(qs *QuestionAnswersSummary) Chart {
	c := Chart{Labels: []string{}, Counts: []int64{}}
	for _, p := range ContactParts {
		for _, cc := range qs.Choices {
			if cc.Answer == p.Key {
				c.Labels, c.Counts = append(c.Labels, p.Label), append(c.Counts, cc.Count)
			}
		}
	}
	return c
}

// Columns: one per part asked, named by it; one for a question whose
// parts are unknown.
func (contact) Columns(q Question) []string {
	parts := AskedParts(q)
	if len(parts) == 0 {
		return []string{""}
	}
	cols := make([]string, len(parts))
	for i, p := range parts {
		cols[i] = p.Label
	}
	return cols
}

func (k contact) CellTypes(q Question) []CellType { return cellTypes(len(k.Columns(q)), CellText) }

// Cells: each part asked, "" when not given. A question whose parts are
// unknown has one cell: "Name: Ana; E-mail address: …".
func (contact) Cells(q Question, qa QuestionAnswer) []string {
	m := decodeRows(qa.Answer)
	parts := AskedParts(q)
	if len(parts) == 0 {
		var out []string
		for _, p := range ContactParts {
			if v, ok := m[p.Key]; ok {
				out = append(out, p.Label+": "+v)
			}
		}
		return []string{strings.Join(out, "; ")}
	}
	cells := make([]string, len(parts))
	for i, p := range parts {
		cells[i] = m[p.Key]
	}
	return cells
}

// Value is an object of part → text: {"name": "Ana", "email": "…"}.
func (contact) Value(_ Question, qa QuestionAnswer) any {
	m := decodeRows(qa.Answer)
	if m == nil {
		return nil
	}
	return m
}

// SQLRows: one per part given (Item the part's name, Text the part).
func (contact) SQLRows(_ Question, qa QuestionAnswer) []SQLRow {
	m := decodeRows(qa.Answer)
	var rows []SQLRow
	for _, p := range ContactParts {
		if v, ok := m[p.Key]; ok {
			rows = append(rows, SQLRow{Item: p.Label, Text: v})
		}
	}
	return rows
}

// StatVars: those of the CSV export's columns, as they are.
func (k contact) StatVars(q Question) []StatVar { return plainVariables(k, q) }

// StatCells: the CSV export's cells.
func (k contact) StatCells(q Question, qa QuestionAnswer) []string { return k.Cells(q, qa) }
