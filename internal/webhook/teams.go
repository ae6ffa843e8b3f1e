package webhook

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Teams' limits: an incoming webhook's (or a Workflows webhook's) message
// is at most 28 KB. We keep the body under teamsMaxBytes, each answer
// under teamsFieldMax characters, and at most teamsFields answers.
const (
	teamsMaxBytes = 24_000
	teamsFieldMax = 2000
	teamsFields   = 40
)

// teams is the Microsoft Teams kind: the Adaptive Card envelope that
// Teams' incoming webhooks and Workflows take. What a respondent (or a
// subscriber) wrote is in TextRuns, which Teams shows as plain text (no
// markdown: no link or markup can be slipped in).
type teams struct{}

func (teams) Name() string  { return KindTeams }
func (teams) Label() string { return "Microsoft Teams (a card in a channel)" }
func (teams) Signed() bool  { return false }
func (teams) URLProblem(u *url.URL) string {
	return httpsOnly(u, "Microsoft Teams", "https://example.webhook.office.com/webhookb2/…")
}

func (teams) Header(h http.Header, _ string, _ time.Time, _ []byte, _ []string) error {
	chatHeader(h)
	return nil
}

type cardElement map[string]any

type teamsAttachment struct {
	ContentType string `json:"contentType"`
	ContentURL  any    `json:"contentUrl"`
	Content     any    `json:"content"`
}

func (teams) Body(n Notice) ([]byte, error) {
	fields := min(len(n.Message.Fields), teamsFields)
	for {
		b, err := encode(teamsCard(n.Message, fields))
		size := escapedSize(b)
		if err != nil || size <= teamsMaxBytes || fields == 0 {
			return b, err
		}
		// Too large for Teams: fewer answers, and a line that says so.
		fields = min(fields-1, fields*teamsMaxBytes/size)
	}
}

// teamsCard is the message with its first n fields.
func teamsCard(m Message, n int) any {
	w := wordsOf(m)
	body := []cardElement{run(cut(m.Title, 300, plain, "…"), cardElement{"size": "Large", "weight": "Bolder"})}
	if !m.When.IsZero() {
		// Teams writes DATE and TIME in the reader's time zone.
		ts := m.When.UTC().Format("2006-01-02T15:04:05Z")
		date := "{{DATE(" + ts + ", SHORT)}} {{TIME(" + ts + ")}}"
		if m.Answered {
			date = w.answered(date)
		}
		body = append(body, cardElement{"type": "TextBlock", "text": date, "isSubtle": true, "wrap": true, "spacing": "None"})
	}
	if m.Text != "" {
		body = append(body, run(cut(m.Text, teamsFieldMax, plain, w.cutShort()), nil))
	}
	for _, f := range m.Fields[:n] {
		items := []cardElement{run(cut(f.Label, 300, plain, "…"), cardElement{"weight": "Bolder"})}
		lines := strings.Split(cut(strings.Join(f.Lines, "\n"), teamsFieldMax, plain, w.cutShort()), "\n")
		for _, l := range lines {
			e := run(l, nil)
			e["spacing"] = "None"
			items = append(items, e)
		}
		body = append(body, cardElement{"type": "Container", "items": items, "spacing": "Medium"})
	}
	if left := len(m.Fields) - n; left > 0 {
		body = append(body, run(w.more(left), cardElement{"italic": true}))
	}
	card := cardElement{
		"$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
		"type":    "AdaptiveCard", "version": "1.4", "body": body,
		"msteams": map[string]string{"width": "Full"},
	}
	if m.Link != "" {
		card["actions"] = []cardElement{{"type": "Action.OpenUrl", "title": m.LinkText, "url": m.Link}}
	}
	return struct {
		Type        string            `json:"type"`
		Attachments []teamsAttachment `json:"attachments"`
	}{"message", []teamsAttachment{{ContentType: "application/vnd.microsoft.card.adaptive", Content: card}}}
}

// run is a RichTextBlock of one TextRun: plain text, wrapped, with the
// run's style.
func run(text string, style cardElement) cardElement {
	r := cardElement{"type": "TextRun", "text": text}
	for k, v := range style {
		r[k] = v
	}
	return cardElement{"type": "RichTextBlock", "inlines": []cardElement{r}}
}

// escapedSize is the size of JSON b once <, > and & are escaped as
// \u003c (as encoding/json writes them when the queue's message carries
// the body): what Teams may receive.
func escapedSize(b []byte) int {
	n := len(b)
	for _, c := range b {
		if c == '<' || c == '>' || c == '&' {
			n += 5
		}
	}
	return n + 3*(strings.Count(string(b), "\u2028")+strings.Count(string(b), "\u2029"))
}
