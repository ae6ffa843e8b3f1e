package survey

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Contacts: a tenant keeps lists of people to invite to its surveys. A
// contact is an address, a name and attributes (department, region …):
// the attributes whose names are a survey's hidden fields travel in the
// contact's personal link (?department=Sales), so that the answer carries
// them and the survey's piping can show them.

// Limits of contact lists.
const (
	MaxContactListName = 100
	MaxContactName     = 200
	MaxContactAttrs    = MaxHiddenFields
	MaxContactAttrName = MaxHiddenFieldName
	MaxContactAttr     = MaxHiddenFieldValue
	// MaxContactsImport is the most rows one CSV import may hold.
	MaxContactsImport = 20000
)

// Recipient is one contact of a contact list.
type Recipient struct {
	Email string
	Name  string
	Attrs map[string]string
}

// ValidateContactListName checks a list's name (trimmed, on one line).
func ValidateContactListName(name string) (string, error) {
	name = strings.TrimSpace(CleanLine(name))
	switch {
	case name == "":
		return "", &Error{Code: EINVALID, Message: "Name the list.", Fields: map[string]string{"name": "Name the list, such as “Customers 2026”."}}
	case utf8.RuneCountInString(name) > MaxContactListName:
		return "", &Error{Code: EINVALID, Message: "The name is too long.", Fields: map[string]string{"name": fmt.Sprintf("Keep the name to %d characters.", MaxContactListName)}}
	}
	return name, nil
}

// ValidContactAttrName reports whether name can name an attribute: as a
// hidden field's name (lower-case letters, digits, - and _, starting with
// a letter), which is what lets it travel in a link.
func ValidContactAttrName(name string) bool {
	return ValidHiddenFieldName(name) && name != "email" && name != "name"
}

// NormalizeContact trims the contact's fields, lower-cases its address
// and checks it: a *Error whose Fields say what to fix ("email", "name",
// "attrs").
func NormalizeContact(c Recipient) (Recipient, error) {
	c.Email = NormalizeEmail(c.Email)
	c.Name = strings.TrimSpace(CleanLine(c.Name))
	f := fieldErrors{}
	if !ValidEmail(c.Email) {
		f.add("email", "%q is not an e-mail address: give one such as ana@example.com.", CleanLine(c.Email))
	}
	if utf8.RuneCountInString(c.Name) > MaxContactName {
		f.add("name", "Keep the name to %d characters.", MaxContactName)
	}
	attrs := map[string]string{}
	for k, v := range c.Attrs {
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(CleanLine(v))
		switch {
		case !ValidContactAttrName(k):
			f.add("attrs", "The attribute name %q is not allowed: use lower-case letters, digits, - and _, starting with a letter.", CleanLine(k))
		case utf8.RuneCountInString(v) > MaxContactAttr:
			f.add("attrs", "Keep the value of %s to %d characters.", k, MaxContactAttr)
		case v != "":
			attrs[k] = v
		}
	}
	if len(attrs) > MaxContactAttrs {
		f.add("attrs", "A contact has at most %d attributes.", MaxContactAttrs)
	}
	if len(attrs) == 0 {
		attrs = nil
	}
	c.Attrs = attrs
	if len(f) > 0 {
		return c, &Error{Code: EINVALID, Message: "The contact has errors.", Fields: f}
	}
	return c, nil
}

// ParseContactAttrs reads attributes written one a line as name=value.
func ParseContactAttrs(s string) (map[string]string, error) {
	out := map[string]string{}
	for i, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, &Error{Code: EINVALID, Message: "The attributes have errors.", Fields: map[string]string{"attrs": fmt.Sprintf("Line %d has no “=”: write one attribute a line, as department=Sales.", i+1)}}
		}
		out[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	return out, nil
}

// ContactRow is one data row of an imported CSV file: its line, the
// contact it reads as, and what is wrong with it ("" when nothing).
type ContactRow struct {
	Line      int
	Recipient Recipient
	Problem   string
}

// ContactImport is what a CSV file of contacts holds: its attribute
// columns and its rows, good and bad.
type ContactImport struct {
	Attrs []string
	Rows  []ContactRow
}

// Good counts the rows without a problem.
func (im *ContactImport) Good() int {
	n := 0
	for _, r := range im.Rows {
		if r.Problem == "" {
			n++
		}
	}
	return n
}

// Contacts are the rows without a problem.
func (im *ContactImport) Contacts() []Recipient {
	var out []Recipient
	for _, r := range im.Rows {
		if r.Problem == "" {
			out = append(out, r.Recipient)
		}
	}
	return out
}

// ParseContactsCSV reads a CSV file of contacts: a header row naming an
// "email" column (required), a "name" column (optional) and attribute
// columns, then one contact a row. A file it cannot use at all (no
// header, no email column, a bad column name, too many rows) is a *Error
// for the field "csv"; a row it cannot use gets its Problem (a bad
// address, a duplicate of an earlier row or of an address in known, a
// missing column) and the others are kept. known holds the normalized
// addresses the list has already.
func ParseContactsCSV(r io.Reader, known map[string]bool) (*ContactImport, error) {
	bad := func(format string, args ...any) error {
		return &Error{Code: EINVALID, Message: "The file cannot be imported.", Fields: map[string]string{"csv": fmt.Sprintf(format, args...)}}
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, bad("The file is empty: give a header row (email, name, and any attributes), then one contact a row.")
	}
	if err != nil {
		return nil, bad("The file is not CSV: %s.", csvProblem(err))
	}
	emailCol, nameCol := -1, -1
	im := &ContactImport{}
	attrCols := map[int]string{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		switch {
		case h == "email" || h == "e-mail":
			emailCol = i
		case h == "name":
			nameCol = i
		case ValidContactAttrName(h) && !slices.Contains(im.Attrs, h):
			attrCols[i] = h
			im.Attrs = append(im.Attrs, h)
		default:
			return nil, bad("The column %q cannot be an attribute: name columns with lower-case letters, digits, - and _, starting with a letter, each once.", CleanLine(h))
		}
	}
	if emailCol < 0 {
		return nil, bad("The header row names no “email” column: the first row must name the columns, such as email,name,department.")
	}
	if len(im.Attrs) > MaxContactAttrs {
		return nil, bad("The file has %d attribute columns; a contact has at most %d.", len(im.Attrs), MaxContactAttrs)
	}
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			line := 0
			if errors.As(err, &pe) {
				line = pe.Line
			}
			return nil, bad("Line %d is not CSV: %s.", line, csvProblem(err))
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line
		}
		if len(im.Rows) >= MaxContactsImport {
			return nil, bad("The file has more than %d contacts: split it.", MaxContactsImport)
		}
		row := ContactRow{Line: line}
		if len(rec) < len(header) {
			row.Problem = fmt.Sprintf("It has %d columns where the header has %d: a column is missing.", len(rec), len(header))
			row.Recipient.Email = strings.TrimSpace(CleanLine(rec[min(emailCol, len(rec)-1)]))
			im.Rows = append(im.Rows, row)
			continue
		}
		c := Recipient{Email: rec[emailCol], Attrs: map[string]string{}}
		if nameCol >= 0 {
			c.Name = rec[nameCol]
		}
		for i, a := range attrCols {
			c.Attrs[a] = rec[i]
		}
		n, err := NormalizeContact(c)
		row.Recipient = n
		var e *Error
		switch {
		case errors.As(err, &e):
			for _, k := range []string{"email", "name", "attrs"} {
				if m := e.Fields[k]; m != "" {
					row.Problem = m
					break
				}
			}
		case known[n.Email]:
			row.Problem = "This address is in the list already."
		case seen[n.Email] > 0:
			row.Problem = fmt.Sprintf("This address is on line %d too.", seen[n.Email])
		default:
			seen[n.Email] = line
		}
		im.Rows = append(im.Rows, row)
	}
	if len(im.Rows) == 0 {
		return nil, bad("The file has a header row but no contacts.")
	}
	return im, nil
}

func csvProblem(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// SegmentCondition is one condition of a campaign's segment: the contact's
// attribute Attr equals Value.
type SegmentCondition struct {
	Attr  string `json:"attr"`
	Value string `json:"value"`
}

// MaxSegmentConditions is the most conditions a segment has.
const MaxSegmentConditions = 3

// MatchSegment reports whether a contact with attrs is in the segment of
// conds: every condition holds, comparing the trimmed values without
// regard to case ("sales" matches "Sales "). No conditions: everyone.
func MatchSegment(attrs map[string]string, conds []SegmentCondition) bool {
	for _, c := range conds {
		if !strings.EqualFold(strings.TrimSpace(attrs[c.Attr]), strings.TrimSpace(c.Value)) {
			return false
		}
	}
	return true
}

// SegmentText says who the segment holds, for people: "contacts whose
// dept is Sales and region is North" ("" for no conditions).
func SegmentText(conds []SegmentCondition) string {
	parts := make([]string, len(conds))
	for i, c := range conds {
		parts[i] = c.Attr + " is " + c.Value
	}
	if len(parts) == 0 {
		return ""
	}
	return "contacts whose " + strings.Join(parts, " and ")
}
