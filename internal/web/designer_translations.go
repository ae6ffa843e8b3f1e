package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/survey"
)

// The translations editor: /{tenant}/surveys/{slug}/translations?lang=fr
// lists each of the survey's texts (its title, description, thank-you
// message, sections, questions, choices, rows, scale labels) with a field
// for its translation into the language chosen, and the language of the
// survey's own texts. A text left empty shows in the original.

// maxTranslationForm bounds a posted translation: every text at its
// longest, in characters of four UTF-8 bytes each sent as twelve.
const maxTranslationForm = 8 << 20

// translationsPage is the editor of one language's translation.
type translationsPage struct {
	Tenant string
	Survey *survey.Survey
	// Lang is the language edited; Language, the survey's own.
	Lang, Language string
	Languages      []translationLang
	Groups         []translationGroup
	Errors         map[string]string
	Saved          bool
}

// translationLang is a language to translate into.
type translationLang struct {
	i18n.Info
	Current, Has bool
}

// translationGroup is the texts of the survey, of a section or of a
// question.
type translationGroup struct {
	Title string
	Items []translationItem
}

// translationItem is one text and its translation: Key names its field
// (survey.TranslationProblems' keys).
type translationItem struct {
	Key, Label, Original, Value string
	Long                        bool
	Max                         int
}

// ID is the item's field's ID.
func (it translationItem) ID() string { return "tr-" + strings.NewReplacer(".", "-").Replace(it.Key) }

// LangName is the name of the language edited.
func (p translationsPage) LangName() string { return i18n.For(p.Lang).Name() }

// translationItems lists sv's texts with their translations in t.
func translationItems(sv *survey.Survey, t survey.Translation) []translationGroup {
	g := translationGroup{Title: "The survey", Items: []translationItem{
		{Key: "title", Label: "Title", Original: sv.Title, Value: t.Title, Max: survey.MaxTitleLength},
	}}
	if sv.Description != "" {
		g.Items = append(g.Items, translationItem{Key: "description", Label: "Description", Original: sv.Description, Value: t.Description, Long: true, Max: survey.MaxDescriptionLength})
	}
	if sv.ThankYou != "" {
		g.Items = append(g.Items, translationItem{Key: "thankYou", Label: "Thank-you message", Original: sv.ThankYou, Value: t.ThankYou, Long: true, Max: survey.MaxDescriptionLength})
	}
	for i, o := range sv.Outcomes {
		v := ""
		if i < len(t.Outcomes) {
			v = t.Outcomes[i]
		}
		g.Items = append(g.Items, translationItem{Key: "outcomes." + strconv.Itoa(i), Label: "Outcome " + strconv.Itoa(i+1) + " (" + o.Var + " ≥ " + survey.FormatValue(o.Min) + ")",
			Original: o.Message, Value: v, Long: true, Max: survey.MaxOutcomeLength})
	}
	for i, q := range sv.Quotas {
		if q.Message == "" {
			continue
		}
		v := ""
		if i < len(t.Quotas) {
			v = t.Quotas[i]
		}
		g.Items = append(g.Items, translationItem{Key: "quotas." + strconv.Itoa(i), Label: "Quota “" + q.Name + "”: message when full",
			Original: q.Message, Value: v, Long: true, Max: survey.MaxQuotaMessage})
	}
	out := []translationGroup{g}
	for i, pg := range sv.Visible().Pages() {
		sc := pg.Section
		if sc.ID != "" && (sc.Title != "" || sc.Description != "") {
			g := translationGroup{Title: "Section " + strconv.Itoa(i+1)}
			st := t.Sections[sc.ID]
			if sc.Title != "" {
				g.Items = append(g.Items, translationItem{Key: "sections." + sc.ID + ".title", Label: "Title", Original: sc.Title, Value: st.Title, Max: survey.MaxTitleLength})
			}
			if sc.Description != "" {
				g.Items = append(g.Items, translationItem{Key: "sections." + sc.ID + ".description", Label: "Description", Original: sc.Description, Value: st.Description, Long: true, Max: survey.MaxDescriptionLength})
			}
			out = append(out, g)
		}
		for j, q := range pg.Questions {
			qt := t.Questions[q.ID]
			key := "questions." + q.ID
			g := translationGroup{Title: "Question " + strconv.Itoa(pg.First+j+1)}
			g.Items = append(g.Items, translationItem{Key: key + ".text", Label: "Question", Original: q.Text, Value: qt.Text, Max: survey.MaxQuestionLength})
			if q.Help != "" {
				g.Items = append(g.Items, translationItem{Key: key + ".help", Label: "Help", Original: q.Help, Value: qt.Help, Max: survey.MaxHelpLength})
			}
			for n, c := range q.PossibleAnswers {
				g.Items = append(g.Items, translationItem{Key: key + ".choices." + strconv.Itoa(n), Label: "Choice " + strconv.Itoa(n+1), Original: c, Value: qt.Choices[c], Max: survey.MaxChoiceLength})
			}
			for n, p := range q.Pictures {
				g.Items = append(g.Items, translationItem{Key: key + ".alts." + strconv.Itoa(n), Label: "Alt text of picture " + strconv.Itoa(n+1) + " (" + p.Label + ")", Original: p.Alt, Value: qt.Alts[p.Label], Max: survey.MaxAltLength})
			}
			for n, row := range q.Rows {
				g.Items = append(g.Items, translationItem{Key: key + ".rows." + strconv.Itoa(n), Label: "Row " + strconv.Itoa(n+1), Original: row, Value: qt.Rows[row], Max: survey.MaxChoiceLength})
			}
			if q.LowLabel != "" {
				g.Items = append(g.Items, translationItem{Key: key + ".lowLabel", Label: "Low end of the scale", Original: q.LowLabel, Value: qt.LowLabel, Max: survey.MaxScaleLabelSize})
			}
			if q.HighLabel != "" {
				g.Items = append(g.Items, translationItem{Key: key + ".highLabel", Label: "High end of the scale", Original: q.HighLabel, Value: qt.HighLabel, Max: survey.MaxScaleLabelSize})
			}
			if q.PatternMessage != "" {
				g.Items = append(g.Items, translationItem{Key: key + ".patternMessage", Label: "Message for an answer not fitting the pattern", Original: q.PatternMessage, Value: qt.PatternMessage, Max: survey.MaxPatternMessageLength})
			}
			if q.Feedback != "" {
				g.Items = append(g.Items, translationItem{Key: key + ".feedback", Label: "Feedback after the answer", Original: q.Feedback, Value: qt.Feedback, Max: survey.MaxFeedback})
			}
			if q.Statement != "" {
				g.Items = append(g.Items, translationItem{Key: key + ".statement", Label: "Consent statement", Original: q.Statement, Value: qt.Statement, Long: true, Max: survey.MaxStatementLength})
			}
			out = append(out, g)
		}
	}
	return out
}

// translationFrom reads the translation of sv's texts from a posted form
// (the fields named by translationItems' keys).
func translationFrom(sv *survey.Survey, form url.Values) survey.Translation {
	t := survey.Translation{Title: form.Get("title"), Description: form.Get("description"), ThankYou: form.Get("thankYou"),
		Sections: map[string]survey.SectionText{}, Questions: map[string]survey.QuestionText{}}
	for i := range sv.Outcomes {
		t.Outcomes = append(t.Outcomes, form.Get("outcomes."+strconv.Itoa(i)))
	}
	for i := range sv.Quotas {
		t.Quotas = append(t.Quotas, form.Get("quotas."+strconv.Itoa(i)))
	}
	for _, sc := range sv.Sections {
		t.Sections[sc.ID] = survey.SectionText{Title: form.Get("sections." + sc.ID + ".title"), Description: form.Get("sections." + sc.ID + ".description")}
	}
	for _, q := range sv.Questions {
		key := "questions." + q.ID
		qt := survey.QuestionText{Text: form.Get(key + ".text"), Help: form.Get(key + ".help"), LowLabel: form.Get(key + ".lowLabel"), HighLabel: form.Get(key + ".highLabel"), Statement: form.Get(key + ".statement"), PatternMessage: form.Get(key + ".patternMessage"), Feedback: form.Get(key + ".feedback"),
			Choices: map[string]string{}, Rows: map[string]string{}, Alts: map[string]string{}}
		for n, c := range q.PossibleAnswers {
			qt.Choices[c] = form.Get(key + ".choices." + strconv.Itoa(n))
		}
		for n, p := range q.Pictures {
			qt.Alts[p.Label] = form.Get(key + ".alts." + strconv.Itoa(n))
		}
		for n, r := range q.Rows {
			qt.Rows[r] = form.Get(key + ".rows." + strconv.Itoa(n))
		}
		t.Questions[q.ID] = qt
	}
	return t
}

// translationsOf is the page of sv's translation into lang ("" for the
// first language the survey is not written in).
func translationsOf(tenant string, sv *survey.Survey, lang string) translationsPage {
	if lang == "" {
		for _, l := range survey.Languages() {
			if l != sv.Lang() {
				lang = l
				break
			}
		}
	}
	p := translationsPage{Tenant: tenant, Survey: sv, Lang: lang, Language: sv.Lang()}
	for _, info := range i18n.Languages() {
		if info.Tag == sv.Lang() {
			continue
		}
		_, has := sv.Translations[info.Tag]
		p.Languages = append(p.Languages, translationLang{Info: info, Current: info.Tag == lang, Has: has})
	}
	t, _ := sv.Translated(lang)
	p.Groups = translationItems(sv, t)
	return p
}

func (s *Server) showTranslations(w http.ResponseWriter, r *http.Request) error {
	tenant := chi.URLParam(r, "tenant")
	sv, err := s.surveys.Get(r.Context(), tenant, chi.URLParam(r, "slug"))
	if err != nil {
		return err
	}
	lang := r.URL.Query().Get("lang")
	if lang != "" && (!survey.ValidLanguage(lang) || lang == sv.Lang()) {
		return notFound("No such language to translate into.")
	}
	p := translationsOf(tenant, sv, lang)
	p.Saved = r.URL.Query().Get("saved") != ""
	s.render(w, r, http.StatusOK, "translations", p)
	return nil
}

// saveTranslations saves the language of the survey's texts and its
// translation into the language edited: 303 back to the page; bad input
// is a 422 with the problem beside its field, and nothing saved.
func (s *Server) saveTranslations(w http.ResponseWriter, r *http.Request) error {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	r.Body = http.MaxBytesReader(w, r.Body, maxTranslationForm)
	if err := r.ParseForm(); err != nil {
		return survey.Errorf(survey.EINVALID, "The form could not be read (is it too long?).")
	}
	sv, err := s.surveys.Get(r.Context(), tenant, slug)
	if err != nil {
		return err
	}
	lang, language := r.PostForm.Get("lang"), strings.TrimSpace(r.PostForm.Get("language"))
	if language == "" {
		language = sv.Lang()
	}
	p := translationsOf(tenant, sv, lang)
	t := translationFrom(sv, r.PostForm)
	p.Groups = translationItems(sv, t)
	p.Errors = map[string]string{}
	switch {
	case !survey.ValidLanguage(language):
		p.Errors["language"] = "Choose one of the languages offered."
	case !survey.ValidLanguage(lang):
		p.Errors["lang"] = "Choose one of the languages offered to translate into."
	case lang == language:
		p.Errors["lang"] = "This is the language of the survey's own texts: choose another to translate into."
	}
	for k, v := range sv.TranslationProblems(t) {
		p.Errors[k] = v
	}
	if len(p.Errors) == 0 {
		all := map[string]survey.Translation{}
		for l, tr := range sv.Translations {
			all[l] = tr
		}
		all[lang] = t
		err := s.editor.SetTranslations(r.Context(), tenant, slug, language, all)
		var e *survey.Error
		if !errors.As(err, &e) || e.Code != survey.EINVALID {
			if err != nil {
				return err
			}
			s.audit(r, survey.AuditTranslations, slug, lang)
			http.Redirect(w, r, "/"+tenant+"/surveys/"+slug+"/translations?lang="+lang+"&saved=1", http.StatusSeeOther)
			return nil
		}
		for k, v := range e.Fields {
			if rest, ok := strings.CutPrefix(k, "translations."+lang+"."); ok {
				k = rest
			} else if k != "language" {
				k = "translations"
			}
			p.Errors[k] = v
		}
	}
	p.Language = language
	s.render(w, r, http.StatusUnprocessableEntity, "translations", p)
	return nil
}
