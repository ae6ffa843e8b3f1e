package survey

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A survey is written in one language (Survey.Language) and may carry its
// texts in others (Survey.Translations, by language): its title,
// description, thank-you message, sections, questions, choices, rows and
// scale labels. A respondent reads each text in their language when it has
// a translation and in the original when not; answers keep the original
// choices, so that summaries and exports are the same whatever language
// the respondents read.

// languages are the languages a survey's texts may be in: those of the
// respondent pages' own words (internal/i18n), English first.
var languages = []string{"en", "fr", "de", "es", "nl", "ar"}

// Languages lists the languages a survey's texts may be in.
func Languages() []string { return slices.Clone(languages) }

// ValidLanguage reports whether tag is one of Languages.
func ValidLanguage(tag string) bool { return slices.Contains(languages, tag) }

// MaxTranslationsLength bounds the characters of all of a survey's
// translations together, so that its row stays well within a table
// entity (1 MiB) beside its own texts.
const MaxTranslationsLength = 150000

// Translation is a survey's texts in another language; a text left empty
// (or absent) is shown in the original.
type Translation struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	ThankYou    string `json:"thankYou,omitempty"`
	// Outcomes are the outcomes' messages, in the survey's order.
	Outcomes []string `json:"outcomes,omitempty"`
	// Quotas are the quotas' messages, in the survey's order.
	Quotas []string `json:"quotas,omitempty"`
	// Sections are by section ID, Questions by question ID.
	Sections  map[string]SectionText  `json:"sections,omitempty"`
	Questions map[string]QuestionText `json:"questions,omitempty"`
}

// SectionText is a section's texts in another language.
type SectionText struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
}

// QuestionText is a question's texts in another language. Choices (the
// possible answers: choices, a matrix's columns, a ranking's items) and
// Rows are by their original text.
type QuestionText struct {
	Text    string            `json:"text,omitempty"`
	Help    string            `json:"help,omitempty"`
	Choices map[string]string `json:"choices,omitempty"`
	Rows    map[string]string `json:"rows,omitempty"`
	// Alts are a picture choice's alt texts, by the original label of
	// their picture.
	Alts      map[string]string `json:"alts,omitempty"`
	LowLabel  string            `json:"lowLabel,omitempty"`
	HighLabel string            `json:"highLabel,omitempty"`
	// Statement is a consent question's statement; PatternMessage a
	// short text's message for an answer not matching its pattern.
	Statement      string `json:"statement,omitempty"`
	PatternMessage string `json:"patternMessage,omitempty"`
	// Feedback is a quiz question's feedback.
	Feedback string `json:"feedback,omitempty"`
}

// Lang is the language of the survey's own texts ("en" when unset).
func (s *Survey) Lang() string {
	if s.Language == "" {
		return "en"
	}
	return s.Language
}

// Translated is the survey's translation into lang, and whether it has
// one (its own language has none).
func (s *Survey) Translated(lang string) (Translation, bool) {
	if lang == s.Lang() {
		return Translation{}, false
	}
	t, ok := s.Translations[lang]
	return t, ok
}

// Empty reports whether t translates nothing.
func (t Translation) Empty() bool {
	return t.Title == "" && t.Description == "" && t.ThankYou == "" && len(t.Sections) == 0 && len(t.Questions) == 0 && len(t.Outcomes) == 0 && len(t.Quotas) == 0
}

// Choice is the translation of choice c, or c.
func (qt QuestionText) Choice(c string) string {
	if v := qt.Choices[c]; v != "" {
		return v
	}
	return c
}

// Alt is the translation of the alt text of the picture labelled label,
// or alt.
func (qt QuestionText) Alt(label, alt string) string {
	if v := qt.Alts[label]; v != "" {
		return v
	}
	return alt
}

// Row is the translation of row r, or r.
func (qt QuestionText) Row(r string) string {
	if v := qt.Rows[r]; v != "" {
		return v
	}
	return r
}

// normalizeTranslations cleans the translations' texts as the originals
// are cleaned, and drops what translates nothing: empty texts, texts of
// sections, questions, choices and rows the survey no longer has, the
// translation into the survey's own language, and a translation left
// empty.
func (s *Survey) normalizeTranslations() {
	s.Language = strings.TrimSpace(s.Language)
	if s.Language == "en" {
		s.Language = "" // the default; another unknown one is refused
	}
	line := func(v string) string { return strings.TrimSpace(CleanLine(v)) }
	text := func(v string) string { return strings.TrimSpace(CleanText(strings.ReplaceAll(v, "\r\n", "\n"))) }
	out := map[string]Translation{}
	for lang, t := range s.Translations {
		if lang == s.Lang() {
			continue
		}
		n := Translation{Title: line(t.Title), Description: text(t.Description), ThankYou: text(t.ThankYou)}
		// One message per outcome, and per quota ("" for one in the
		// original), none when none is translated.
		n.Outcomes = keptMessages(t.Outcomes, len(s.Outcomes), text)
		n.Quotas = keptMessages(t.Quotas, len(s.Quotas), text)
		for _, sc := range s.Sections {
			st, ok := t.Sections[sc.ID]
			if !ok {
				continue
			}
			st = SectionText{Title: line(st.Title), Description: text(st.Description)}
			if st != (SectionText{}) {
				if n.Sections == nil {
					n.Sections = map[string]SectionText{}
				}
				n.Sections[sc.ID] = st
			}
		}
		for _, q := range s.Questions {
			qt, ok := t.Questions[q.ID]
			if !ok {
				continue
			}
			c := QuestionText{Text: line(qt.Text), Help: line(qt.Help), LowLabel: line(qt.LowLabel), HighLabel: line(qt.HighLabel)}
			if q.LowLabel == "" {
				c.LowLabel = ""
			}
			if q.HighLabel == "" {
				c.HighLabel = ""
			}
			if q.Statement != "" {
				c.Statement = text(qt.Statement)
			}
			if q.PatternMessage != "" {
				c.PatternMessage = line(qt.PatternMessage)
			}
			if q.Feedback != "" {
				c.Feedback = line(qt.Feedback)
			}
			c.Choices = keptLines(qt.Choices, q.PossibleAnswers, line)
			c.Rows = keptLines(qt.Rows, q.Rows, line)
			c.Alts = keptLines(qt.Alts, pictureLabels(q), line)
			if c.Text != "" || c.Help != "" || c.LowLabel != "" || c.HighLabel != "" || c.Statement != "" || c.PatternMessage != "" || c.Feedback != "" || c.Choices != nil || c.Rows != nil || c.Alts != nil {
				if n.Questions == nil {
					n.Questions = map[string]QuestionText{}
				}
				n.Questions[q.ID] = c
			}
		}
		if !n.Empty() {
			out[lang] = n
		}
	}
	s.Translations = nil
	if len(out) > 0 {
		s.Translations = out
	}
}

// keptMessages is the first n of messages, cleaned, one per place ("" for
// none); nil when none is left.
func keptMessages(messages []string, n int, clean func(string) string) []string {
	for i := range n {
		if i < len(messages) && clean(messages[i]) != "" {
			out := make([]string, n)
			for j := range out {
				if j < len(messages) {
					out[j] = clean(messages[j])
				}
			}
			return out
		}
	}
	return nil
}

// pictureLabels are the labels of q's pictures (none but a picture
// choice's).
func pictureLabels(q Question) []string {
	out := make([]string, len(q.Pictures))
	for i, p := range q.Pictures {
		out[i] = p.Label
	}
	return out
}

// keptLines is the translations in m of the lines of originals, cleaned,
// without the empty ones; nil for none.
func keptLines(m map[string]string, originals []string, clean func(string) string) map[string]string {
	var out map[string]string
	for _, o := range originals {
		if v := clean(m[o]); v != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[o] = v
		}
	}
	return out
}

// validateTranslations adds the translations' problems to f, under
// "language" and "translations.<lang>.<key>", the key being that of
// TranslationProblems.
func (s *Survey) validateTranslations(f fieldErrors) {
	if s.Language != "" && !ValidLanguage(s.Language) {
		f.add("language", "Choose one of the languages %s.", strings.Join(languages, ", "))
	}
	total := 0
	for _, lang := range slices.Sorted(maps.Keys(s.Translations)) {
		t := s.Translations[lang]
		if !ValidLanguage(lang) {
			f.add("translations."+lang, "Unknown language %q: the languages are %s.", lang, strings.Join(languages, ", "))
			continue
		}
		for k, v := range s.TranslationProblems(t) {
			f.add("translations."+lang+"."+k, "%s", v)
		}
		total += t.length()
	}
	if total > MaxTranslationsLength {
		f.add("translations", "A survey's translations hold at most %d characters in all (these hold %d).", MaxTranslationsLength, total)
	}
}

// length counts t's characters.
func (t Translation) length() int {
	n := utf8.RuneCountInString(t.Title) + utf8.RuneCountInString(t.Description) + utf8.RuneCountInString(t.ThankYou)
	for _, o := range slices.Concat(t.Outcomes, t.Quotas) {
		n += utf8.RuneCountInString(o)
	}
	for _, st := range t.Sections {
		n += utf8.RuneCountInString(st.Title) + utf8.RuneCountInString(st.Description)
	}
	for _, qt := range t.Questions {
		n += utf8.RuneCountInString(qt.Text) + utf8.RuneCountInString(qt.Help) + utf8.RuneCountInString(qt.LowLabel) + utf8.RuneCountInString(qt.HighLabel) + utf8.RuneCountInString(qt.Statement) + utf8.RuneCountInString(qt.PatternMessage) + utf8.RuneCountInString(qt.Feedback)
		for _, v := range qt.Choices {
			n += utf8.RuneCountInString(v)
		}
		for _, v := range qt.Rows {
			n += utf8.RuneCountInString(v)
		}
		for _, v := range qt.Alts {
			n += utf8.RuneCountInString(v)
		}
	}
	return n
}

// TranslationProblems checks a translation of s as its original texts are
// checked (their lengths; no control characters or direction overrides),
// and that no two choices or rows of a question read the same. The
// problems are keyed "title", "description", "thankYou",
// "outcomes.<N>", "quotas.<N>", "sections.<ID>.title", ".description",
// "questions.<ID>.text", ".help",
// ".lowLabel", ".highLabel", ".statement", ".patternMessage", "questions.<ID>.choices.<N>",
// "questions.<ID>.rows.<N>" and "questions.<ID>.alts.<N>" (N: the
// choice's, row's or picture's place, from 0).
func (s *Survey) TranslationProblems(t Translation) map[string]string {
	f := fieldErrors{}
	checkLine := func(key, v string, max int) {
		switch n := utf8.RuneCountInString(v); {
		case n > max:
			f.add(key, "Keep this to %d characters (it has %d).", max, n)
		case !IsCleanLine(v):
			f.add(key, "This may not contain control characters or direction overrides.")
		}
	}
	checkText := func(key, v string, max int) {
		switch n := utf8.RuneCountInString(v); {
		case n > max:
			f.add(key, "Keep this to %d characters (it has %d).", max, n)
		case !IsCleanText(v):
			f.add(key, "This may not contain control characters or direction overrides.")
		}
	}
	checkLine("title", t.Title, MaxTitleLength)
	checkText("description", t.Description, MaxDescriptionLength)
	checkText("thankYou", t.ThankYou, MaxDescriptionLength)
	for i, o := range t.Outcomes {
		checkText("outcomes."+strconv.Itoa(i), o, MaxOutcomeLength)
	}
	for i, m := range t.Quotas {
		checkText("quotas."+strconv.Itoa(i), m, MaxQuotaMessage)
	}
	for id, st := range t.Sections {
		checkLine("sections."+id+".title", st.Title, MaxTitleLength)
		checkText("sections."+id+".description", st.Description, MaxDescriptionLength)
	}
	for _, q := range s.Questions {
		qt, ok := t.Questions[q.ID]
		if !ok {
			continue
		}
		key := "questions." + q.ID
		checkLine(key+".text", qt.Text, MaxQuestionLength)
		checkLine(key+".help", qt.Help, MaxHelpLength)
		checkLine(key+".lowLabel", qt.LowLabel, MaxScaleLabelSize)
		checkLine(key+".highLabel", qt.HighLabel, MaxScaleLabelSize)
		checkText(key+".statement", qt.Statement, MaxStatementLength)
		checkLine(key+".patternMessage", qt.PatternMessage, MaxPatternMessageLength)
		checkLine(key+".feedback", qt.Feedback, MaxFeedback)
		for i, p := range q.Pictures {
			checkLine(key+".alts."+strconv.Itoa(i), qt.Alts[p.Label], MaxAltLength)
		}
		for _, l := range []struct {
			key       string
			originals []string
			m         map[string]string
		}{{key + ".choices.", q.PossibleAnswers, qt.Choices}, {key + ".rows.", q.Rows, qt.Rows}} {
			seen := map[string]bool{}
			for i, o := range l.originals {
				v := l.m[o]
				if v == "" {
					v = o // shown in the original
				}
				k := l.key + strconv.Itoa(i)
				checkLine(k, l.m[o], MaxChoiceLength)
				if seen[v] {
					f.add(k, "%q is there twice: give each its own words.", v)
				}
				seen[v] = true
			}
		}
	}
	if len(f) == 0 {
		return nil
	}
	return f
}

// cloneTranslations is a copy of the survey's translations that shares
// nothing with them.
func (s *Survey) cloneTranslations() map[string]Translation {
	if s.Translations == nil {
		return nil
	}
	out := make(map[string]Translation, len(s.Translations))
	for lang, t := range s.Translations {
		t.Sections = maps.Clone(t.Sections)
		t.Outcomes, t.Quotas = slices.Clone(t.Outcomes), slices.Clone(t.Quotas)
		qs := make(map[string]QuestionText, len(t.Questions))
		for id, qt := range t.Questions {
			qt.Choices, qt.Rows, qt.Alts = maps.Clone(qt.Choices), maps.Clone(qt.Rows), maps.Clone(qt.Alts)
			qs[id] = qt
		}
		t.Questions = qs
		out[lang] = t
	}
	return out
}
