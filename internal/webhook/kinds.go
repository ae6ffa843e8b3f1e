package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/surveys-dev/surveys/internal/i18n"
)

// Kind is what an endpoint receives: how the body of an event is made
// and which headers its requests carry. Standard (signed JSON, for
// machines), Slack and Microsoft Teams (a message for people, in the shape
// their incoming webhooks take) are the kinds; nothing else switches on
// an endpoint's kind.
type Kind interface {
	// Name is the kind as an endpoint stores it and the API names it.
	Name() string
	// Label is the kind's name for people.
	Label() string
	// Signed reports whether its requests carry the Standard Webhooks
	// signature: only then has the endpoint's secret a use (and a page
	// shows it).
	Signed() bool
	// URLProblem says what is wrong with u for this kind ("": nothing),
	// beyond what every endpoint's URL must be.
	URLProblem(u *url.URL) string
	// Body is the request body of an event: made once, when it happens.
	Body(n Notice) ([]byte, error)
	// Header sets the headers of one attempt to send body (made by Body)
	// with the webhook-id id at ts, signed with secrets when the kind is.
	Header(h http.Header, id string, ts time.Time, body []byte, secrets []string) error
}

// The kinds' names.
const (
	KindStandard = "standard"
	KindSlack    = "slack"
	KindTeams    = "teams"
)

// Kinds are the kinds of endpoint, in the order a page lists them.
var Kinds = []Kind{standard{}, slack{}, teams{}}

// KindOf returns the kind named name; "" is Standard (the endpoints made
// before there were kinds).
func KindOf(name string) (Kind, bool) {
	if name == "" {
		name = KindStandard
	}
	for _, k := range Kinds {
		if k.Name() == name {
			return k, true
		}
	}
	return nil, false
}

// Notice is one event both ways: Event, the payload for machines, and
// Message, the same for people. A kind makes its body from one of them.
type Notice struct {
	Event   Event
	Message Message
}

// Message is an event as people read it: a title, when it happened, the
// answers (question and answer lines) and a link. Its words are in the
// language Lang (the survey's), its dates written by each kind.
type Message struct {
	Lang  string
	Title string
	// When is when it happened; Answered says it is an answer's time.
	When     time.Time
	Answered bool
	// Text is a sentence under the title (a survey's change, a test).
	Text   string
	Fields []Field
	// Link goes to the answer (or the survey) on this server, built from
	// its configured public URL; LinkText names it.
	Link, LinkText string
}

// Field is one question and its answer's lines (survey.AnswerLines).
type Field struct {
	Label string
	Lines []string
}

// standard is the Standard Webhooks kind: the event as JSON, signed.
type standard struct{}

func (standard) Name() string               { return KindStandard }
func (standard) Label() string              { return "Standard Webhooks (signed JSON, for your own code)" }
func (standard) URLProblem(*url.URL) string { return "" }
func (standard) Signed() bool               { return true }
func (standard) Body(n Notice) ([]byte, error) {
	return Body(n.Event)
}
func (standard) Header(h http.Header, id string, ts time.Time, body []byte, secrets []string) error {
	h.Set("Content-Type", "application/json")
	return Headers(h, id, ts, body, secrets...)
}

// chatHeader is the header of a chat kind's request: JSON, unsigned (the
// incoming webhook's URL is its secret; a signature would mean nothing to
// Slack or Teams).
func chatHeader(h http.Header) {
	h.Set("Content-Type", "application/json; charset=utf-8")
}

// httpsOnly is the URL problem of the chat kinds: their incoming webhooks
// are https, and a message for people is not sent in the clear.
func httpsOnly(u *url.URL, kind, example string) string {
	if u.Scheme != "https" {
		return "A " + kind + " endpoint takes an https URL only: the one " + kind + " gives for its incoming webhook, such as " + example + "."
	}
	return ""
}

// encode writes v as JSON without escaping <, > and & (the chat services
// read UTF-8 JSON; escaped they take more of their size limits).
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// cut shortens s to at most limit characters once esc is applied, ending
// it with mark when it had to be cut; it never cuts an escape in two.
func cut(s string, limit int, esc func(string) string, mark string) string {
	if e := esc(s); utf8.RuneCountInString(e) <= limit {
		return e
	}
	n := min(utf8.RuneCountInString(s), limit) - utf8.RuneCountInString(mark)
	for n > 0 {
		e := esc(strings.TrimRightFunc(firstRunes(s, n), isSpace)) + mark
		over := utf8.RuneCountInString(e) - limit
		if over <= 0 {
			return e
		}
		n -= over
	}
	return firstRunes(mark, limit)
}

func isSpace(r rune) bool { return r == ' ' || r == '\n' || r == '\t' }

func firstRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

func plain(s string) string { return s }

// words are a message's own words in its language.
type words struct{ l i18n.Lang }

func wordsOf(m Message) words { return words{i18n.For(m.Lang)} }

func (w words) answered(date string) string { return w.l.T("Answered on %s", date) }
func (w words) cutShort() string            { return " " + w.l.T("(cut short)") }
func (w words) more(n int) string {
	if n == 1 {
		return w.l.T("And 1 more answer: see the answer page.")
	}
	return w.l.T("And %d more answers: see the answer page.", n)
}
