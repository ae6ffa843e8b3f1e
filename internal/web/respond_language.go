package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/survey"
)

// The respondent pages speak the respondent's language (internal/i18n):
// the one chosen from the language menu (?lang=, remembered by a cookie
// limited to /survey), else the best of Accept-Language, else the
// survey's own, else English; the survey's texts are shown in its
// translation into that language where it has one (survey.Translation),
// in the original elsewhere. Subscriber pages stay English.

// langCookie remembers the language a respondent chose.
const langCookie = "lang"

// respondent is what a respondent page knows of its reader: their
// language, the survey's translation into it, and where the page is (for
// the language menu's links).
type respondent struct {
	L  i18n.Lang
	Tr survey.Translation
	// here is the page's path and query, but ?lang.
	here url.URL
	// chosen: the language came with the request (?lang=), and the
	// form and the thank-you page keep it (LangQuery), for a browser that
	// keeps no cookie, or sends none to a survey framed in another site.
	chosen bool
	// home is the site's home page on a tenant's custom domain (the
	// public URL's, absolute: "/" there is no page); "" elsewhere.
	home string
}

// Home is where the page's "See other surveys" and "Powered by" links
// go: this server's home page, on the main address.
func (p respondent) Home() string { return or(p.home, "/") }

// LangQuery is the query that keeps a language chosen with ?lang on the
// pages that follow (the form's action, the thank-you page); "" when the
// language was not chosen so.
func (p respondent) LangQuery() string {
	if !p.chosen {
		return ""
	}
	return "?lang=" + url.QueryEscape(p.L.Tag())
}

// shared is the respondent of a page rendered once for all (respond_forms.go,
// respond_results.go): the menu's links keep none of the first request's query.
func (p respondent) shared() respondent {
	p.here.RawQuery = ""
	return p
}

// cacheKey names the page's language among the pages rendered once for
// all: its tag, and whether the form keeps it (LangQuery); a few per
// survey.
func (p respondent) cacheKey() string {
	k := p.L.Tag()
	if p.chosen {
		k += "?"
	}
	if p.home != "" {
		k += "@"
	}
	return k
}

// respondentOf picks the language of the request for survey sv (which may
// be nil), remembering a language chosen with ?lang= in the cookie.
func (s *Server) respondentOf(w http.ResponseWriter, r *http.Request, sv *survey.Survey) respondent {
	query := r.URL.Query().Get("lang")
	if chosen, ok := strings.CutPrefix(r.PostForm.Get("action"), langAction); ok && r.Method == http.MethodPost {
		query = chosen // the language menu inside a page's form
	}
	var cookie string
	if c, err := r.Cookie(langCookie); err == nil {
		cookie = c.Value
	}
	fallback := ""
	if sv != nil {
		fallback = sv.Lang()
	}
	l := i18n.Negotiate(query, cookie, r.Header.Get("Accept-Language"), fallback)
	if i18n.Supported(query) && query != cookie {
		http.SetCookie(w, &http.Cookie{Name: langCookie, Value: query, Path: "/survey", MaxAge: 365 * 24 * 60 * 60,
			HttpOnly: true, Secure: s.secureCookies(r), SameSite: http.SameSiteLaxMode})
	}
	w.Header().Add("Vary", "Accept-Language, Cookie")
	p := respondent{L: l, here: url.URL{Path: r.URL.Path}, chosen: i18n.Supported(query) && l.Tag() == query, home: s.homeOf(r)}
	q := r.URL.Query()
	q.Del("lang")
	p.here.RawQuery = q.Encode()
	if sv != nil {
		p.Tr, _ = sv.Translated(l.Tag())
	}
	return p
}

// langAction starts the action of a language button of a page's form:
// "lang.fr".
const langAction = "lang."

// LangInForm reports whether the language menu is in the page's form
// (surveyPage): not on this page.
func (respondent) LangInForm() bool { return false }

// Language is the page's language, for base.html.
func (p respondent) Language() i18n.Lang { return p.L }

// respondentPage marks the pages of respondents (layout.Respondent).
func (respondent) respondentPage() bool { return true }

// T is the words of key in the respondent's language.
func (p respondent) T(key string, args ...any) string { return p.L.T(key, args...) }

// menuItem is a language of the language menu. Its fields are its own,
// not an embedded i18n.Option's: a template finds a promoted field only
// by a search that allocates, at every use.
type menuItem struct {
	Tag, Name, Href string
	Current         bool
}

// Menu is the language menu: this page in each language.
func (p respondent) Menu() []menuItem {
	var out []menuItem
	for _, o := range p.L.Menu() {
		u := p.here
		q := u.Query()
		q.Set("lang", o.Tag)
		u.RawQuery = q.Encode()
		out = append(out, menuItem{Tag: o.Tag, Name: o.Name, Current: o.Current, Href: u.String()})
	}
	return out
}

// Title is the survey's title in the respondent's language.
func (p respondent) Title(sv *survey.Survey) string { return or(p.Tr.Title, sv.Title) }

// QText and QHelp are question q's text and help.
func (p respondent) QText(q survey.Question) string { return or(p.Tr.Questions[q.ID].Text, q.Text) }
func (p respondent) QHelp(q survey.Question) string { return or(p.Tr.Questions[q.ID].Help, q.Help) }

// SectionTitle and SectionParagraphs are section sc's title and
// description (in paragraphs).
func (p respondent) SectionTitle(sc survey.Section) string {
	return or(p.Tr.Sections[sc.ID].Title, sc.Title)
}
func (p respondent) SectionParagraphs(sc survey.Section) []string {
	return paragraphs(or(p.Tr.Sections[sc.ID].Description, sc.Description))
}

// Input is what question q's input needs to speak the language.
func (p respondent) Input(q survey.Question) inputWords {
	return inputWords{L: p.L, QT: p.Tr.Questions[q.ID]}
}

// inputWords are the language of a question's input and the question's
// translation: its choices are shown translated and sent as the original
// (kindInputData.Label).
type inputWords struct {
	L  i18n.Lang
	QT survey.QuestionText
	// pipe puts what a label recalls in place (surveyPage.pipe); nil for
	// a survey that recalls nothing.
	pipe func(string) string
}

// choice and row are how choice c and row r (by their original texts,
// which the input sends) read: translated, with what they recall in
// place.
func (w inputWords) choice(c string) string { return w.piped(w.QT.Choice(c)) }
func (w inputWords) row(r string) string    { return w.piped(w.QT.Row(r)) }

func (w inputWords) piped(text string) string {
	if w.pipe == nil {
		return text
	}
	return w.pipe(text)
}

// problems are the problems of a refused answer (survey.NewAnswer's
// *Error) in the respondent's language, by question ID.
func (p respondent) problems(e *survey.Error) map[string]string {
	out := make(map[string]string, len(e.Fields))
	for k, v := range e.Fields {
		if m, ok := e.Msgs[k]; ok {
			v = p.L.Msg(p.ownWords(k, m))
		}
		out[k] = v
	}
	return out
}

// ownWords is m with the words of question id's designer in the
// respondent's language: a pattern's message from the question's
// translation.
func (p respondent) ownWords(id string, m survey.Msg) survey.Msg {
	for i, a := range m.Args {
		if _, ok := a.(survey.PatternMessage); ok {
			if tr := p.Tr.Questions[id].PatternMessage; tr != "" {
				m.Args = append([]any(nil), m.Args...)
				m.Args[i] = tr
			}
		}
	}
	return m
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
