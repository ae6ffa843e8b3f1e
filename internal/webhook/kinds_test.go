package webhook_test

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
	"github.com/surveys-dev/surveys/internal/webhook"
)

// slackBody and teamsBody are the shapes the chat services take, as
// their documentation writes them (not as the code makes them).
type slackBody struct {
	Text   string `json:"text"`
	Blocks []struct {
		Type string `json:"type"`
		Text *struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"text"`
		Elements []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"elements"`
	} `json:"blocks"`
}

type teamsBody struct {
	Type        string `json:"type"`
	Attachments []struct {
		ContentType string `json:"contentType"`
		Content     struct {
			Type    string           `json:"type"`
			Version string           `json:"version"`
			Body    []map[string]any `json:"body"`
			Actions []struct {
				Type  string `json:"type"`
				Title string `json:"title"`
				URL   string `json:"url"`
			} `json:"actions"`
		} `json:"content"`
	} `json:"attachments"`
}

func decodeSlack(t *testing.T, b []byte) slackBody {
	t.Helper()
	var s slackBody
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	if s.Text == "" || len(s.Blocks) == 0 || len(s.Blocks) > 50 {
		t.Fatalf("a Slack message has a text and 1 to 50 blocks: %s", b)
	}
	for _, bl := range s.Blocks {
		switch bl.Type {
		case "header":
			if bl.Text == nil || bl.Text.Type != "plain_text" || utf8.RuneCountInString(bl.Text.Text) > 150 {
				t.Errorf("header block %+v", bl.Text)
			}
		case "section":
			if bl.Text == nil || bl.Text.Type != "mrkdwn" || utf8.RuneCountInString(bl.Text.Text) > 3000 {
				t.Errorf("section of %d characters (at most 3000)", utf8.RuneCountInString(bl.Text.Text))
			}
		case "context":
			if len(bl.Elements) == 0 {
				t.Error("empty context block")
			}
		default:
			t.Errorf("block type %q", bl.Type)
		}
	}
	return s
}

// sections is the text of the Slack message's sections, one a line.
func (s slackBody) sections() string {
	var out []string
	for _, bl := range s.Blocks {
		if bl.Type == "section" {
			out = append(out, bl.Text.Text)
		}
	}
	return strings.Join(out, "\n")
}

func decodeTeams(t *testing.T, b []byte) teamsBody {
	t.Helper()
	var c teamsBody
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	if c.Type != "message" || len(c.Attachments) != 1 || c.Attachments[0].ContentType != "application/vnd.microsoft.card.adaptive" ||
		c.Attachments[0].Content.Type != "AdaptiveCard" || c.Attachments[0].Content.Version != "1.4" || len(c.Attachments[0].Content.Body) == 0 {
		t.Fatalf("not an Adaptive Card message: %s", b)
	}
	if len(b) > 28_000 {
		t.Errorf("a Teams message is at most 28 KB; this is %d bytes", len(b))
	}
	return c
}

// texts are the texts of the card's TextRuns and TextBlocks, one a line.
func (c teamsBody) texts() string {
	var out []string
	var walk func(e any)
	walk = func(e any) {
		switch v := e.(type) {
		case map[string]any:
			if s, ok := v["text"].(string); ok {
				out = append(out, s)
			}
			for _, k := range []string{"inlines", "items"} {
				walk(v[k])
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, e := range c.Attachments[0].Content.Body {
		walk(e)
	}
	return strings.Join(out, "\n")
}

func kind(t *testing.T, name string) webhook.Kind {
	t.Helper()
	k, ok := webhook.KindOf(name)
	if !ok {
		t.Fatalf("no kind %q", name)
	}
	return k
}

func message(fields ...webhook.Field) webhook.Notice {
	return webhook.Notice{Event: webhook.Event{Type: webhook.ResponseCreated, Data: map[string]string{}}, Message: webhook.Message{
		Title: "New answer: Café <Feedback> & more", When: time.Date(2026, 12, 6, 11, 30, 0, 0, time.UTC), Answered: true,
		Fields: fields, Link: "https://surveys.example/adatum/surveys/csat/answers/063-ab", LinkText: "Open the answer"}}
}

// TestChatFormats: what a respondent wrote reaches Slack escaped (&, <,
// > as entities: no link, mention or markup of theirs) and Teams as plain
// TextRuns; long answers are cut short under each service's limits,
// marked so; too many answers end with how many are left out.
func TestChatFormats(t *testing.T) {
	long := strings.Repeat("word ", 2000) // 10,000 characters
	many := make([]webhook.Field, 120)
	for i := range many {
		many[i] = webhook.Field{Label: "Question " + strings.Repeat("x", 50), Lines: []string{strings.Repeat("ü", 900)}}
	}
	for _, tc := range []struct {
		name        string
		n           webhook.Notice
		slack, not  []string // in the Slack sections, and never there
		teams       []string // in the Teams texts
		slackBlocks int      // at least
	}{
		{name: "escaping", n: message(webhook.Field{Label: "Why <b>?", Lines: []string{"<!channel> & <https://evil.example|click here>", "a > b"}}),
			slack: []string{"*Why &lt;b&gt;?*", "&lt;!channel&gt; &amp; &lt;https://evil.example|click here&gt;", "a &gt; b",
				"<https://surveys.example/adatum/surveys/csat/answers/063-ab|Open the answer>"},
			not:   []string{"<!channel>", "<https://evil.example"},
			teams: []string{"<!channel> & <https://evil.example|click here>", "Why <b>?", "New answer: Café <Feedback> & more"}},
		{name: "a long answer", n: message(webhook.Field{Label: "Tell us more", Lines: []string{long}}),
			slack: []string{"word word", "(cut short)"}, teams: []string{"word word", "(cut short)"}},
		{name: "many answers", n: message(many...),
			slack: []string{"more answers: see the answer page."}, teams: []string{"more answers: see the answer page."}, slackBlocks: 10},
		{name: "no answers", n: webhook.TestNotice(time.Now()), slack: []string{"This channel receives"}, teams: []string{"This channel receives"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := kind(t, webhook.KindSlack).Body(tc.n)
			if err != nil {
				t.Fatal(err)
			}
			s := decodeSlack(t, b)
			got := s.sections()
			for _, want := range tc.slack {
				if !strings.Contains(got, want) {
					t.Errorf("Slack sections lack %q:\n%s", want, got)
				}
			}
			for _, bad := range tc.not {
				if strings.Contains(string(b), bad) {
					t.Errorf("Slack body has %q unescaped", bad)
				}
			}
			if len(s.Blocks) < tc.slackBlocks {
				t.Errorf("%d Slack blocks, want at least %d", len(s.Blocks), tc.slackBlocks)
			}
			if strings.Contains(s.Text, "<Feedback>") {
				t.Errorf("Slack fallback text unescaped: %q", s.Text)
			}

			b, err = kind(t, webhook.KindTeams).Body(tc.n)
			if err != nil {
				t.Fatal(err)
			}
			c := decodeTeams(t, b)
			got = c.texts()
			for _, want := range tc.teams {
				if !strings.Contains(got, want) {
					t.Errorf("Teams texts lack %q:\n%.2000s", want, got)
				}
			}
			if tc.n.Message.Link != "" {
				if a := c.Attachments[0].Content.Actions; len(a) != 1 || a[0].Type != "Action.OpenUrl" || a[0].URL != tc.n.Message.Link {
					t.Errorf("Teams actions %+v, want an Action.OpenUrl to %s", a, tc.n.Message.Link)
				}
			}
			// What anyone wrote is in TextRuns (never markdown); TextBlocks
			// hold our own words only (the date).
			for _, e := range c.Attachments[0].Content.Body {
				if e["type"] == "TextBlock" && !strings.Contains(e["text"].(string), "{{DATE(") {
					t.Errorf("a TextBlock with text of its own: %v", e)
				}
			}
		})
	}
}

// TestEveryKindReadable: an answer to a question of every kind reads as
// people read it in Slack and Teams: the question's text, its answer's
// words (a comma list for checkboxes, "row: column" lines for a grid),
// never JSON, and a file by its name, never its stored key.
func TestEveryKindReadable(t *testing.T) {
	sv, forms := surveytest.ExampleSurvey("adatum", "every")
	r := rand.New(rand.NewPCG(1, 2))
	a, err := survey.NewAnswer(sv, forms(r))
	if err != nil {
		t.Fatal(err)
	}
	a.ID, a.CreatedOn = "0639319281967095294-57ffb6", time.Date(2026, 12, 6, 11, 30, 0, 0, time.UTC)
	n := webhook.AnswerNotice(sv, &a, "https://surveys.example/")
	if n.Message.Link != "https://surveys.example/adatum/surveys/every/answers/0639319281967095294-57ffb6" {
		t.Errorf("link %q", n.Message.Link)
	}
	byText := map[string][]string{}
	for _, f := range n.Message.Fields {
		byText[f.Label] = f.Lines
	}
	for _, q := range sv.Questions {
		qa, _ := a.Answer(q.ID)
		lines, ok := byText[q.Text]
		if qa.Answer == "" {
			continue
		}
		if !ok || len(lines) == 0 {
			t.Errorf("%s: no lines for %q", q.Type, q.Text)
			continue
		}
		joined := strings.Join(lines, "\n")
		if strings.ContainsAny(joined, "{}[]\"") {
			t.Errorf("%s reads as JSON: %q", q.Type, joined)
		}
		switch q.Type {
		case survey.Checkboxes:
			if strings.Contains(lines[0], ";") || (len(lines) > 1 && !strings.HasPrefix(lines[1], "Other: ")) {
				t.Errorf("checkboxes: %q, want a comma list (and Other: text)", lines)
			}
		case survey.Matrix:
			for _, l := range lines {
				if row, _, ok := strings.Cut(l, ": "); !ok || !containsTrimmed(q.Rows, row) {
					t.Errorf("grid line %q is not row: column", l)
				}
			}
		case survey.Ranking:
			if !strings.HasPrefix(lines[0], "1. ") {
				t.Errorf("ranking: %q, want numbered lines", lines)
			}
		case survey.FileUpload:
			for _, f := range survey.DecodeFiles(qa.Answer) {
				if !strings.Contains(joined, f.Name) || strings.Contains(joined, f.Key) {
					t.Errorf("file lines %q: want the name %q, never the key", joined, f.Name)
				}
			}
		}
	}
	for _, name := range []string{webhook.KindSlack, webhook.KindTeams} {
		b, err := kind(t, name).Body(n)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "/files/") {
			t.Errorf("%s links a file", name)
		}
		for _, q := range sv.Questions {
			if !strings.Contains(string(b), q.Text) {
				t.Errorf("%s lacks the question %q", name, q.Text)
			}
		}
	}
	decodeSlack(t, mustBody(t, webhook.KindSlack, n))
	decodeTeams(t, mustBody(t, webhook.KindTeams, n))
}

func containsTrimmed(ss []string, s string) bool {
	for _, x := range ss {
		if strings.TrimSpace(x) == s {
			return true
		}
	}
	return false
}

func mustBody(t *testing.T, k string, n webhook.Notice) []byte {
	t.Helper()
	b, err := kind(t, k).Body(n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKindsLanguage: the chat message's own words are in the survey's
// language.
func TestKindsLanguage(t *testing.T) {
	sv := &survey.Survey{Tenant: "adatum", Slug: "csat", Title: "Zufriedenheit", Language: "de", Questions: []survey.Question{{ID: "q1", Text: "Warum?", Type: survey.SimpleText}}}
	a := &survey.SurveyAnswer{ID: "x", CreatedOn: time.Now(), Answers: []survey.QuestionAnswer{{QuestionID: "q1", QuestionText: "Warum?", Type: survey.SimpleText, Answer: "Darum"}}}
	n := webhook.AnswerNotice(sv, a, "https://surveys.example")
	if n.Message.Title != "Neue Antwort: Zufriedenheit" || n.Message.LinkText != "Antwort öffnen" {
		t.Errorf("title %q, link %q", n.Message.Title, n.Message.LinkText)
	}
	if !strings.Contains(string(mustBody(t, webhook.KindSlack, n)), "Beantwortet am") {
		t.Error("Slack's date line is not in German")
	}
}

// TestKindHeaders: the standard kind signs (the Standard Webhooks
// headers, verifiable); the chat kinds send JSON unsigned. The chat kinds
// take https URLs only.
func TestKindHeaders(t *testing.T) {
	secret := webhook.NewSecret()
	now := time.Now()
	for _, tc := range []struct {
		kind   string
		signed bool
	}{{webhook.KindStandard, true}, {webhook.KindSlack, false}, {webhook.KindTeams, false}, {"", true}} {
		k := kind(t, tc.kind)
		body := mustBody(t, k.Name(), message())
		h := http.Header{}
		if err := k.Header(h, "msg_1", now, body, []string{secret}); err != nil {
			t.Fatal(err)
		}
		if err := webhook.Verify(secret, h, body, now); (err == nil) != tc.signed {
			t.Errorf("%q: Verify = %v, want signed %v", tc.kind, err, tc.signed)
		}
		if !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
			t.Errorf("%q: Content-Type %q", tc.kind, h.Get("Content-Type"))
		}
		plain, _ := url.Parse("http://hooks.slack.com/services/x")
		if got := k.URLProblem(plain) != ""; got == tc.signed {
			t.Errorf("%q: URLProblem(http) = %v", tc.kind, k.URLProblem(plain))
		}
	}
	if _, ok := webhook.KindOf("discord"); ok {
		t.Error("KindOf(discord) found a kind")
	}
}
