package webhook

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Slack's limits (https://api.slack.com/reference/block-kit/blocks): a
// message has at most 50 blocks, a section's text 3000 characters, a
// header's 150. We keep well under the 50 blocks, and under a total that
// reads in a channel.
const (
	slackSectionMax = 3000
	slackHeaderMax  = 150
	slackFields     = 40     // answer sections at most; one more says how many are left out
	slackBudget     = 12_000 // characters of answers in one message
)

// slack is the Slack incoming webhook kind: {"text", "blocks"} with the
// answers as mrkdwn sections, &, < and > escaped as Slack asks, so that
// nothing a respondent wrote becomes a link, a mention or markup.
type slack struct{}

func (slack) Name() string  { return KindSlack }
func (slack) Label() string { return "Slack (a message in a channel)" }
func (slack) Signed() bool  { return false }
func (slack) URLProblem(u *url.URL) string {
	return httpsOnly(u, "Slack", "https://hooks.slack.com/services/T000/B000/XXXX")
}

func (slack) Header(h http.Header, _ string, _ time.Time, _ []byte, _ []string) error {
	chatHeader(h)
	return nil
}

// SlackEscape escapes text for Slack's mrkdwn: &, < and > as entities.
func SlackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// slackURL keeps a URL inside <url|text>: the characters that would end
// it are percent-escaped.
func slackURL(s string) string {
	return strings.NewReplacer("|", "%7C", ">", "%3E", "<", "%3C", " ", "%20").Replace(s)
}

type slackText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type slackBlock struct {
	Type     string      `json:"type"`
	Text     *slackText  `json:"text,omitempty"`
	Elements []slackText `json:"elements,omitempty"`
}

func (slack) Body(n Notice) ([]byte, error) {
	m, w := n.Message, wordsOf(n.Message)
	title := cut(m.Title, slackHeaderMax, plain, "…")
	blocks := []slackBlock{{Type: "header", Text: &slackText{Type: "plain_text", Text: title}}}
	var context []string
	if !m.When.IsZero() {
		// Slack writes the date in the reader's time zone; the fallback
		// is UTC.
		date := fmt.Sprintf("<!date^%d^{date_short_pretty} {time}|%s>", m.When.Unix(), m.When.UTC().Format("2 Jan 2006 15:04 UTC"))
		if m.Answered {
			date = w.answered(date)
		}
		context = append(context, date)
	}
	if len(context) > 0 {
		blocks = append(blocks, slackBlock{Type: "context", Elements: []slackText{{Type: "mrkdwn", Text: strings.Join(context, " · ")}}})
	}
	if m.Text != "" {
		blocks = append(blocks, section(cut(m.Text, slackSectionMax, SlackEscape, w.cutShort())))
	}
	used := 0
	for i, f := range m.Fields {
		if i >= slackFields || used >= slackBudget {
			blocks = append(blocks, section("_"+SlackEscape(w.more(len(m.Fields)-i))+"_"))
			break
		}
		label := "*" + cut(f.Label, 300, SlackEscape, "…") + "*\n"
		text := label + cut(strings.Join(f.Lines, "\n"), min(slackSectionMax-len([]rune(label)), slackBudget-used+200), SlackEscape, w.cutShort())
		used += len([]rune(text))
		blocks = append(blocks, section(text))
	}
	fallback := SlackEscape(m.Title)
	if m.Link != "" {
		link := "<" + slackURL(m.Link) + "|" + SlackEscape(m.LinkText) + ">"
		blocks = append(blocks, section(link))
		fallback += " " + link
	}
	return encode(struct {
		Text   string       `json:"text"`
		Blocks []slackBlock `json:"blocks"`
	}{fallback, blocks})
}

func section(mrkdwn string) slackBlock {
	return slackBlock{Type: "section", Text: &slackText{Type: "mrkdwn", Text: mrkdwn}}
}
