// Package i18n holds the respondent pages' own words in each language the
// service speaks (a catalog per language, kept in Go: catalog_<tag>.go),
// prints them through golang.org/x/text/message, and picks a respondent's
// language: ?lang= > the cookie that remembers it > Accept-Language > the
// survey's language > English. A key is the English text, a format whose
// arguments the translations keep; survey.Msg (the domain's problems for
// respondents) is printed the same way. Subscriber pages stay English.
package i18n

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"

	"github.com/surveys-dev/surveys/internal/survey"
)

// Info names a language: its tag, its name in itself, its direction.
type Info struct {
	Tag  string
	Name string
	RTL  bool
}

// languages are those of the catalogs, English first; survey.Languages
// lists the same tags.
var languages = []Info{
	{Tag: "en", Name: "English"},
	{Tag: "fr", Name: "Français"},
	{Tag: "de", Name: "Deutsch"},
	{Tag: "es", Name: "Español"},
	{Tag: "nl", Name: "Nederlands"},
	{Tag: "ar", Name: "العربية", RTL: true},
}

// translations are the catalogs but English's (whose words are the keys).
var translations = map[string]map[string]string{"fr": fr, "de": de, "es": es, "nl": nl, "ar": ar}

var (
	cat     = catalog.NewBuilder(catalog.Fallback(language.English))
	matcher language.Matcher
	langs   = map[string]Lang{}
)

func init() {
	var tags []language.Tag
	for _, info := range languages {
		tag := language.MustParse(info.Tag)
		tags = append(tags, tag)
		for key, msg := range translations[info.Tag] {
			if err := cat.SetString(tag, key, msg); err != nil {
				panic("i18n: " + info.Tag + ": " + err.Error())
			}
		}
	}
	matcher = language.NewMatcher(tags)
	for _, info := range languages {
		langs[info.Tag] = Lang{info: info, p: message.NewPrinter(language.MustParse(info.Tag), message.Catalog(cat))}
	}
}

// Languages lists the languages the respondent pages speak.
func Languages() []Info { return slices.Clone(languages) }

// Supported reports whether tag is one of Languages.
func Supported(tag string) bool {
	_, ok := langs[tag]
	return ok
}

// Lang prints the words of one language; the zero Lang is English.
type Lang struct {
	info Info
	p    *message.Printer
}

// For is the language of tag, English when it is not supported.
func For(tag string) Lang {
	if l, ok := langs[tag]; ok {
		return l
	}
	return langs["en"]
}

// Tag is the language's tag ("en" for the zero Lang).
func (l Lang) Tag() string {
	if l.info.Tag == "" {
		return "en"
	}
	return l.info.Tag
}

// Name is the language's name in itself.
func (l Lang) Name() string { return For(l.Tag()).info.Name }

// Dir is the direction of its script: "rtl" or "ltr".
func (l Lang) Dir() string {
	if l.info.RTL {
		return "rtl"
	}
	return "ltr"
}

// T is the words of key (an English format) with args, in the language.
// An argument that is a survey.Msg is put in the language too, and a
// survey.Quantity is written in digits (but in English).
func (l Lang) T(key string, args ...any) string {
	if l.p == nil || l.info.Tag == "en" {
		return survey.M(key, args...).String()
	}
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case survey.Msg:
			out[i] = l.Msg(v)
		case survey.Quantity:
			out[i] = strconv.Itoa(int(v))
		default:
			out[i] = a
		}
	}
	return l.p.Sprintf(key, out...)
}

// Msg is m in the language.
func (l Lang) Msg(m survey.Msg) string { return l.T(m.Format, m.Args...) }

// Option is a language of the language menu.
type Option struct {
	Info
	Current bool
}

// Menu is the languages to choose from, the current one marked.
func (l Lang) Menu() []Option {
	out := make([]Option, len(languages))
	for i, info := range languages {
		out[i] = Option{Info: info, Current: info.Tag == l.Tag()}
	}
	return out
}

// Negotiate picks a respondent's language: the one they chose (?lang=,
// then the cookie that remembers it) when supported, else the best of
// their browser's (Accept-Language), else the survey's own (fallback),
// else English.
func Negotiate(query, cookie, acceptLanguage, fallback string) Lang {
	for _, tag := range []string{query, cookie} {
		if Supported(tag) {
			return langs[tag]
		}
	}
	if acceptLanguage != "" {
		if tags, _, err := language.ParseAcceptLanguage(acceptLanguage); err == nil && len(tags) > 0 {
			if _, i, conf := matcher.Match(tags...); conf != language.No {
				return langs[languages[i].Tag]
			}
		}
	}
	return For(fallback)
}

// String is for debugging.
func (l Lang) String() string { return fmt.Sprintf("i18n.Lang(%s)", l.Tag()) }

// fixed are the keys without arguments.
var fixed = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range Keys {
		if !strings.Contains(k, "%") {
			m[k] = true
		}
	}
	return m
}()

// Text is msg in the language when it is one of the Keys without
// arguments (a fixed text, such as an error page's), and msg as it is
// otherwise: a text the catalogs do not have stays English.
func (l Lang) Text(msg string) string {
	if !fixed[msg] {
		return msg
	}
	return l.T(msg)
}
