package survey

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// OnePer is how a survey keeps to one answer per person.
type OnePer string

const (
	// OnePerNone takes any number of answers from anyone (as before this
	// setting).
	OnePerNone OnePer = ""
	// OnePerBrowser refuses a second answer from a browser that sent one
	// (a cookie): a courtesy against double answers, not a security.
	OnePerBrowser OnePer = "browser"
	// OnePerLink takes answers only through personal links, each used once.
	OnePerLink OnePer = "link"
)

// ParseOnePer reads the setting as a form or the API sends it ("none" is
// OnePerNone).
func ParseOnePer(s string) (OnePer, bool) {
	switch OnePer(s) {
	case OnePerNone, "none":
		return OnePerNone, true
	case OnePerBrowser, OnePerLink:
		return OnePer(s), true
	}
	return OnePerNone, false
}

// Name is the setting as the API shows it.
func (o OnePer) Name() string {
	if o == OnePerNone {
		return "none"
	}
	return string(o)
}

// PersonalTokenPrefix starts the token of a personal link to a survey; 43
// characters of URL-safe base64 (32 random bytes) follow.
const PersonalTokenPrefix = "plk_"

// ValidPersonalToken reports whether s has the form of a personal link's
// token, checked before any storage call.
func ValidPersonalToken(s string) bool {
	if len(s) != len(PersonalTokenPrefix)+43 || s[:len(PersonalTokenPrefix)] != PersonalTokenPrefix {
		return false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s[len(PersonalTokenPrefix):])
	return err == nil && len(b) == 32
}

// MaxPersonalLinks bounds the links made at once (the count, or the
// addresses pasted); MaxPersonalLinksPerSurvey, a survey's in all.
const (
	MaxPersonalLinks          = 1000
	MaxPersonalLinksPerSurvey = 20000
)

// ParsePersonalLinks reads the subscriber's request for personal links: a
// count (text, may be empty) or a list of e-mail addresses, one a line
// (blank lines skipped, each address once). The error's Fields are keyed
// "count" and "emails" and name the line of a bad address.
func ParsePersonalLinks(count, emails string) (n int, addrs []string, err error) {
	f := fieldErrors{}
	count = strings.TrimSpace(count)
	seen := map[string]bool{}
	for i, line := range strings.Split(strings.ReplaceAll(emails, "\r\n", "\n"), "\n") {
		a := strings.TrimSpace(line)
		if a == "" {
			continue
		}
		if !ValidEmail(a) {
			f.add("emails", "Line %d is not an email address (%q); write one address such as ana@example.com a line.", i+1, truncate(CleanLine(a), 60))
			break
		}
		if k := strings.ToLower(a); !seen[k] {
			seen[k] = true
			addrs = append(addrs, a)
		}
		if len(addrs) > MaxPersonalLinks {
			f.add("emails", "Paste at most %d addresses at a time.", MaxPersonalLinks)
			break
		}
	}
	switch {
	case count == "" && len(addrs) == 0 && len(f) == 0:
		f.add("count", "Say how many links to make, or paste e-mail addresses.")
	case count != "" && len(emails) > 0 && len(addrs) > 0:
		f.add("count", "Either make a number of links or paste addresses, not both.")
	case count != "":
		v, convErr := strconv.Atoi(count)
		if convErr != nil || v < 1 || v > MaxPersonalLinks {
			f.add("count", "Make from 1 to %d links at a time.", MaxPersonalLinks)
		}
		n = v
	}
	if err := f.err("The links"); err != nil {
		return 0, nil, err
	}
	if len(addrs) > 0 {
		n = len(addrs)
	}
	return n, addrs, nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// FormOf is what a respondent would send to give the answer a again, by
// question ID: the form of a personal link's earlier answer, shown to
// change it. Answers to questions sv no longer shows are left out.
func FormOf(sv *Survey, a *SurveyAnswer) map[string]Form {
	values := make(map[string]Form, len(sv.Questions))
	for _, q := range sv.Questions {
		values[q.ID] = Form{}
		qa, ok := a.Answer(q.ID)
		k, known := KindOf(q.Type)
		if !ok || !known || qa.Answer == "" {
			continue
		}
		values[q.ID] = k.form(q, qa.Answer)
	}
	return values
}
