package webhook

import (
	"slices"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/survey"
)

// AnswerLink is the address of an answer's page on this server, built
// from its configured public URL (never from a request).
func AnswerLink(publicURL, tenant, slug, id string) string {
	return strings.TrimRight(publicURL, "/") + "/" + tenant + "/surveys/" + slug + "/answers/" + id
}

// AnswerNotice is response.created of answer a to sv: the answer as the
// JSON export has it for machines, and for people its questions with
// their answers' lines (those answered, in the survey's order), its hidden
// fields, and a link to its page. A file is named, never linked: the link
// to the answer's page (behind a sign-in) is the way to it.
func AnswerNotice(sv *survey.Survey, a *survey.SurveyAnswer, publicURL string) Notice {
	l := i18n.For(sv.Language)
	m := Message{Lang: sv.Language, Title: l.T("New answer: %s", sv.Title), When: a.CreatedOn, Answered: true,
		Link: AnswerLink(publicURL, sv.Tenant, sv.Slug, a.ID), LinkText: l.T("Open the answer")}
	for _, qa := range a.Answers {
		if qa.Answer == "" {
			continue
		}
		q, ok := sv.Question(qa.QuestionID)
		if !ok || q.Type != qa.Type {
			q = survey.Question{ID: qa.QuestionID, Text: qa.QuestionText, Type: qa.Type}
		}
		lines := []string{qa.Answer}
		if k, ok := survey.KindOf(qa.Type); ok {
			lines = survey.AnswerLines(k, q, qa)
		}
		if len(lines) > 0 {
			m.Fields = append(m.Fields, Field{Label: qa.QuestionText, Lines: lines})
		}
	}
	hidden := make([]string, 0, len(a.Hidden))
	for name := range a.Hidden {
		hidden = append(hidden, name)
	}
	slices.Sort(hidden)
	for _, name := range hidden {
		if v := a.Hidden[name]; v != "" {
			m.Fields = append(m.Fields, Field{Label: l.T("%s (hidden field)", name), Lines: []string{v}})
		}
	}
	if len(m.Fields) == 0 {
		m.Text = l.T("No question was answered.")
	}
	return Notice{Event: Event{Type: ResponseCreated, Timestamp: a.CreatedOn, Data: survey.ExportAnswer(sv, a)}, Message: m}
}

// SurveyNotice is survey.published or survey.closed of sv at now, with
// the survey's public link.
func SurveyNotice(sv *survey.Survey, event string, now time.Time, publicURL string) Notice {
	link := strings.TrimRight(publicURL, "/") + "/survey/" + sv.Tenant + "/" + sv.Slug
	l := i18n.For(sv.Language)
	title := l.T("%s is published", sv.Title)
	if event == SurveyClosed {
		title = l.T("%s is closed", sv.Title)
	}
	return Notice{
		Event:   Event{Type: event, Timestamp: now, Data: Survey{Slug: sv.Slug, Title: sv.Title, State: string(sv.State), PublicURL: link}},
		Message: Message{Lang: sv.Language, Title: title, When: now, Link: link, LinkText: l.T("Open the survey")},
	}
}

// TestNotice is webhook.test at now.
func TestNotice(now time.Time) Notice {
	return Notice{
		Event:   Event{Type: Test, Timestamp: now, Data: TestData{Message: "A test event from Surveys."}},
		Message: Message{Title: "A test message from Surveys", When: now, Text: "This channel receives the events chosen for it: new answers, or surveys published or closed."},
	}
}
