// Package formfill reads a survey page's form as a browser would submit it
// and fills it with a valid, varied answer: what the load run (cmd/loadgen)
// and the crash test send, for a survey of any kinds of question, knowing
// only the page. It reads the controls the kinds' input partials write
// (templates/kinds): radio buttons, checkboxes, selects, text areas and
// text, e-mail, web address, phone, date, number and range inputs.
package formfill

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Kind is what a control asks for.
type Kind int

const (
	Text     Kind = iota // a textarea or a line of text
	Email                // <input type="email">
	URL                  // <input type="url">
	Number               // a text input of class number-input
	Date                 // <input type="date">, between Min and Max
	Radio                // one of Values
	Checkbox             // any of Values
	Select               // one of Values (the empty option left out)
	Range                // <input type="range">: Min, Max and Step
	Phone                // <input type="tel">
)

// Field is one named control of the form (all the radio buttons or
// checkboxes of one name are one Field).
type Field struct {
	Name           string
	Kind           Kind
	Values         []string
	Min, Max, Step string
	// Other is the text box of an "Other (please specify)" choice
	// (q-<ID>-other), left empty.
	Other bool
}

// Form is a survey page's form: its token and its fields in page order.
type Form struct {
	Token  string
	Fields []Field
}

// Questions counts the questions the form asks (q-<ID> and q-<ID>-… are
// one question).
func (f Form) Questions() int {
	seen := map[string]bool{}
	for _, fl := range f.Fields {
		seen[questionOf(fl.Name)] = true
	}
	return len(seen)
}

// questionOf is the question a field's name belongs to: "q-<ID>".
func questionOf(name string) string {
	rest := strings.TrimPrefix(name, "q-")
	id, _, _ := strings.Cut(rest, "-")
	return "q-" + id
}

// Parse reads the form of a survey page.
func Parse(page []byte) (Form, error) {
	var f Form
	index := map[string]int{}
	field := func(name string, kind Kind) *Field {
		n, ok := index[name]
		if !ok {
			n = len(f.Fields)
			index[name] = n
			f.Fields = append(f.Fields, Field{Name: name, Kind: kind})
		}
		return &f.Fields[n]
	}
	var sel *Field // the select whose options are being read
	for off := 0; ; {
		i := bytes.IndexByte(page[off:], '<')
		if i < 0 {
			break
		}
		start := off + i
		end := bytes.IndexByte(page[start:], '>')
		if end < 0 {
			break
		}
		tag := page[start+1 : start+end]
		off = start + end + 1
		name, attrs := splitTag(tag)
		switch name {
		case "input":
			a := parseAttrs(attrs)
			n := a["name"]
			switch {
			case n == "token":
				f.Token = a["value"]
			case !strings.HasPrefix(n, "q-"):
			case a["type"] == "radio":
				if v := a["value"]; v != "" && !strings.HasSuffix(a["id"], "-otherchoice") { // "Other": its text box says what
					fl := field(n, Radio)
					fl.Values = append(fl.Values, v)
				}
			case a["type"] == "checkbox":
				fl := field(n, Checkbox)
				fl.Values = append(fl.Values, a["value"])
			case strings.HasSuffix(n, "-other"):
				field(n, Text).Other = true
			case a["type"] == "email":
				field(n, Email)
			case a["type"] == "url":
				field(n, URL)
			case a["type"] == "tel":
				field(n, Phone)
			case a["type"] == "range":
				fl := field(n, Range)
				fl.Min, fl.Max, fl.Step = a["min"], a["max"], a["step"]
			case a["type"] == "date":
				fl := field(n, Date)
				fl.Min, fl.Max = a["min"], a["max"]
			case strings.Contains(" "+a["class"]+" ", " number-input "):
				field(n, Number)
			default:
				field(n, Text)
			}
		case "textarea":
			if n := parseAttrs(attrs)["name"]; strings.HasPrefix(n, "q-") {
				field(n, Text)
			}
		case "select":
			sel = nil
			if n := parseAttrs(attrs)["name"]; strings.HasPrefix(n, "q-") {
				sel = field(n, Select)
			}
		case "option":
			if v := parseAttrs(attrs)["value"]; sel != nil && v != "" {
				sel.Values = append(sel.Values, v)
			}
		case "/select":
			sel = nil
		}
	}
	switch {
	case f.Token == "":
		return f, errors.New("formfill: the page has no form token")
	case len(f.Fields) == 0:
		return f, errors.New("formfill: the page has no questions")
	}
	for _, fl := range f.Fields {
		if (fl.Kind == Radio || fl.Kind == Checkbox || fl.Kind == Select) && len(fl.Values) == 0 {
			return f, fmt.Errorf("formfill: %s offers no choice", fl.Name)
		}
	}
	return f, nil
}

// splitTag splits "input type=…" into its lower-case name and the rest.
func splitTag(tag []byte) (string, []byte) {
	i := bytes.IndexAny(tag, " \t\n\r/")
	if i == 0 && len(tag) > 0 && tag[0] == '/' { // a closing tag
		j := bytes.IndexAny(tag[1:], " \t\n\r")
		if j < 0 {
			return strings.ToLower(string(tag)), nil
		}
		return strings.ToLower(string(tag[:j+1])), tag[j+1:]
	}
	if i < 0 {
		return strings.ToLower(string(tag)), nil
	}
	return strings.ToLower(string(tag[:i])), tag[i:]
}

// parseAttrs reads the attributes of a tag, name="value" (quoted with ")
// or bare, values unescaped.
func parseAttrs(b []byte) map[string]string {
	a := map[string]string{}
	s := string(b)
	for {
		s = strings.TrimLeft(s, " \t\n\r/")
		if s == "" {
			return a
		}
		i := strings.IndexAny(s, "= \t\n\r")
		if i < 0 {
			a[strings.ToLower(s)] = ""
			return a
		}
		name := strings.ToLower(s[:i])
		s = s[i:]
		if !strings.HasPrefix(s, "=") {
			a[name] = ""
			continue
		}
		s = s[1:]
		var v string
		if strings.HasPrefix(s, `"`) {
			j := strings.IndexByte(s[1:], '"')
			if j < 0 {
				return a
			}
			v, s = s[1:j+1], s[j+2:]
		} else {
			j := strings.IndexAny(s, " \t\n\r")
			if j < 0 {
				j = len(s)
			}
			v, s = s[:j], s[j:]
		}
		a[name] = html.UnescapeString(v)
	}
}

// Answer fills the form with a complete, valid, varied answer: text from
// text(r), one checkbox, an e-mail address, a web address, a small whole
// number, a date near the date's least, a range's position, any choice; the selects of one
// question (a ranking) get the positions 1 to N once each.
func (f Form) Answer(r *rand.Rand, text func(*rand.Rand) string) url.Values {
	v := make(url.Values, len(f.Fields)+1)
	v.Set("token", f.Token)
	selects := map[string][]int{} // a question's selects, by field index
	for i, fl := range f.Fields {
		if fl.Kind == Select {
			q := questionOf(fl.Name)
			selects[q] = append(selects[q], i)
		}
	}
	for i, fl := range f.Fields {
		switch fl.Kind {
		case Text:
			if !fl.Other {
				v.Set(fl.Name, text(r))
			}
		case Email:
			v.Set(fl.Name, "respondent"+strconv.Itoa(r.IntN(100000))+"@example.com")
		case Phone:
			v.Set(fl.Name, "+44 20 7946 "+strconv.Itoa(1000+r.IntN(9000)))
		case URL:
			v.Set(fl.Name, "https://example.com/"+strconv.Itoa(r.IntN(100000)))
		case Number:
			v.Set(fl.Name, strconv.Itoa(1+r.IntN(50)))
		case Date:
			v.Set(fl.Name, date(r, fl.Min, fl.Max))
		case Range:
			v.Set(fl.Name, position(r, fl.Min, fl.Max, fl.Step))
		case Radio, Checkbox:
			v.Set(fl.Name, fl.Values[r.IntN(len(fl.Values))])
		case Select:
			group := selects[questionOf(fl.Name)]
			if len(group) == 1 {
				v.Set(fl.Name, fl.Values[r.IntN(len(fl.Values))])
				continue
			}
			if group[0] == i { // the first of a ranking: every position once
				perm := r.Perm(len(group))
				for j, at := range group {
					v.Set(f.Fields[at].Name, strconv.Itoa(perm[j]+1))
				}
			}
		}
	}
	return v
}

// date is a day between min and max (YYYY-MM-DD), within a year of min.
func date(r *rand.Rand, least, most string) string {
	lo, err := time.Parse(time.DateOnly, least)
	if err != nil {
		lo = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	hi, err := time.Parse(time.DateOnly, most)
	if err != nil || hi.Sub(lo) > 365*24*time.Hour {
		hi = lo.AddDate(1, 0, 0)
	}
	days := int(hi.Sub(lo).Hours()/24) + 1
	return lo.AddDate(0, 0, r.IntN(max(days, 1))).Format(time.DateOnly)
}

// position is a position of a range from min to max in steps of step
// (whole numbers; 0 to 100 in steps of 1 when they are not).
func position(r *rand.Rand, least, most, step string) string {
	lo, err1 := strconv.Atoi(least)
	hi, err2 := strconv.Atoi(most)
	st, err3 := strconv.Atoi(step)
	if err1 != nil || err2 != nil || hi < lo {
		lo, hi = 0, 100
	}
	if err3 != nil || st < 1 {
		st = 1
	}
	return strconv.Itoa(lo + st*r.IntN((hi-lo)/st+1))
}
