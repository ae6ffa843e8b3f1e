package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/surveys-dev/surveys/internal/i18n"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/templates"
	"github.com/surveys-dev/surveys/web"
)

// views holds the parsed pages and the content hashes of the static assets.
type views struct {
	pages map[string]*template.Template
	// kinds holds each kind of question's partials (templates/kinds):
	// <key>.input.html and <key>.chart.html, which the pages reach through
	// kindInput and kindChart.
	kinds *template.Template
	// inputs are the questions' inputs kept rendered (render_inputs.go),
	// menus the respondent pages' language menus (render_langmenu.go).
	inputs inputs
	menus  menus
	// parts are the partials executed alone to be kept:
	// partials/langmenu.html and partials/question.html.
	parts  *template.Template
	hashes map[string]string // asset name → short content hash
	static fs.FS
}

// loadViews parses the templates once a process: views are never changed
// once made, and every server of the process (the tests make many) shares
// them.
var loadViews = sync.OnceValues(newViews)

func newViews() (*views, error) {
	static, err := fs.Sub(web.Static, "static")
	if err != nil {
		return nil, fmt.Errorf("web: static assets: %w", err)
	}
	v := &views{pages: map[string]*template.Template{}, inputs: newInputs(), hashes: map[string]string{}, static: static}
	err = fs.WalkDir(static, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(static, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		v.hashes[p] = hex.EncodeToString(sum[:])[:12]
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: hash assets: %w", err)
	}
	funcs := template.FuncMap{"asset": v.assetURL, "inc": inc, "dec": func(i int) int { return i - 1 },
		"homeList": homeListOf,
		"plural":   pluralCount, "noun": pluralNoun, "surveyNav": surveyNav, "eventLabel": eventLabel, "shortDuration": shortDuration,
		"kindInput": v.kindInput, "kindChart": v.kindChart, "kindDisplay": v.kindDisplay, "stars": stars, "longDate": longDate, "chosen": chosen, "languages": i18n.Languages, "themeField": themeField,
		"langMenu": v.langMenu, "langButtons": v.langButtons, "questionHead": v.questionHead}
	if v.kinds, err = template.New("kinds").Funcs(funcs).ParseFS(templates.FS, "kinds/*.html"); err != nil {
		return nil, fmt.Errorf("web: parse templates/kinds: %w", err)
	}
	if err := checkKindPartials(v.kinds, survey.Kinds()); err != nil {
		return nil, err
	}
	// The partials kept rendered (render_langmenu.go, render_inputs.go)
	// are executed alone, as the kinds' are.
	if v.parts, err = template.New("parts").Funcs(funcs).ParseFS(templates.FS, "partials/langmenu.html", "partials/question.html"); err != nil {
		return nil, fmt.Errorf("web: parse templates/partials/langmenu.html and question.html: %w", err)
	}
	v.menus = newMenus(v.parts)
	pages, err := fs.Glob(templates.FS, "pages/*.html")
	if err != nil {
		return nil, err
	}
	// The layout and partials are parsed once; each page gets a copy of
	// them (Clone: before any is executed) with its own file added.
	common, err := template.New("").Funcs(funcs).ParseFS(templates.FS, "base.html", "partials/*.html")
	if err != nil {
		return nil, fmt.Errorf("web: parse templates/base.html and partials: %w", err)
	}
	for _, p := range pages {
		name := strings.TrimSuffix(path.Base(p), ".html")
		t, err := common.Clone()
		if err == nil {
			t, err = t.New(name).ParseFS(templates.FS, p)
		}
		if err != nil {
			return nil, fmt.Errorf("web: parse template %s: %w", p, err)
		}
		v.pages[name] = t
	}
	for _, required := range []string{
		"home",
		"error",
		"survey",
		"crosstab",
		"thankyou",
		"closed",
		"quotafull",
		"login",
		"dashboard",
		"password",
		"designer",
		"analyze",
		"written",
		"answer",
		"answers",
		"share",
		"onboarding",
		"settings",
		"identity",
		"database",
		"pick",
		"forgot",
		"reset",
		"welcome",
		"members",
		"member_remove",
		"invite",
		"tokens",
		"confirmedit",
		"import",
		"results",
		"notifications",
		"unsubscribe",
		"translations",
		"deleteanswer",
		"theme",
		"scim",
		"saml",
	} {
		if v.pages[required] == nil {
			return nil, fmt.Errorf("web: template pages/%s.html is missing", required)
		}
	}
	return v, nil
}

// checkKindPartials fails when one of the kinds lacks its input or its
// chart partial, so that the server does not start without them.
func checkKindPartials(t *template.Template, kinds []survey.Kind) error {
	for _, k := range kinds {
		for _, part := range []string{".input.html", ".chart.html", ".display.html"} {
			if t.Lookup(k.Key()+part) == nil {
				return fmt.Errorf("web: kind %s has no template kinds/%s%s", k.Type(), k.Key(), part)
			}
		}
	}
	return nil
}

// kindInput is the input of a question of the respondent's page for its
// kind: the partial kinds/<key>.input.html, given the question, what the
// respondent sent and the problem shown beside it, in the respondent's
// language and with the question's translation. An input that reads the
// same for every respondent is rendered once and kept (render_inputs.go).
func (v *views) kindInput(it questionItem) (template.HTML, error) {
	key, keep := it.inputKey()
	if !keep {
		return v.renderInput(it, shownChoices(*it.Q))
	}
	in, ok := v.inputs.cache.Get(key)
	if !ok {
		var err error
		if in, err = v.keepInput(it); err != nil {
			return "", err
		}
		v.inputs.cache.Add(key, in)
	}
	if in.perRequest {
		return v.renderInput(it, shownChoices(*it.Q))
	}
	return in.html(), nil
}

// shownChoices are q's choices in the order to show them: shuffled for
// each respondent when the question asks.
func shownChoices(q survey.Question) []string {
	if !q.Shuffle {
		return q.PossibleAnswers
	}
	c := append([]string(nil), q.PossibleAnswers...)
	rand.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
	return c
}

// renderInput executes the question's input partial, its choices in the
// order given.
func (v *views) renderInput(it questionItem, choices []string) (template.HTML, error) {
	q, form, problem := *it.Q, it.Value, it.Err
	k, ok := survey.KindOf(q.Type)
	if !ok {
		return "", fmt.Errorf("web: question %s has no kind %q", q.ID, q.Type)
	}
	d := kindInputData{Question: q, ID: q.ID, Form: form, Value: form.Get(""), Choices: choices, Invalid: problem != "", Required: !q.Optional, words: it.words}
	if len(d.Choices) > 0 {
		sent := form[""]
		d.Options = make([]option, len(d.Choices))
		for i, c := range d.Choices {
			d.Options[i] = option{Value: c, Label: d.words.choice(c), Chosen: slices.Contains(sent, c)}
		}
	}
	var ids []string
	if q.Help != "" {
		ids = append(ids, "help-"+q.ID)
	}
	if problem != "" {
		ids = append(ids, "err-"+q.ID)
	}
	d.DescribedBy = strings.Join(ids, " ")
	return v.kindPartial(k.Key()+".input.html", d)
}

// kindInputData is what a kind's input partial sees. The question's own
// field is named q-<ID>, its others q-<ID>-<suffix> (survey.Form); the
// partial's elements have IDs f-<ID>…, never those of the page.
type kindInputData struct {
	Question survey.Question
	ID       string // the question's ID, which names its fields
	// Form is what the respondent sent; Value its own field's first value.
	Form  survey.Form
	Value string
	// Choices are the question's choices in the order to show them:
	// shuffled for each respondent when the question asks; Options the
	// same as the partial shows them (label, chosen).
	Choices []string
	Options []option
	// Invalid marks the inputs aria-invalid; DescribedBy is the IDs of
	// the question's help and problem, for their aria-describedby.
	Invalid     bool
	DescribedBy string
	// Required: the question must be answered.
	Required bool
	// words are the respondent's language and the question's translation.
	words inputWords
}

// option is one choice of an input as its partial shows it: what it
// sends, how it reads, whether the respondent chose it. Worked out in Go
// once per question, so that a partial's loop over its choices reads
// fields rather than calling functions (each call from a template costs
// a reflected call and its allocations).
type option struct {
	Value, Label string
	Chosen       bool
	// N is a scale point's number; First and Last mark a scale's ends.
	N           int
	First, Last bool
}

// Points are the points from to to of a scale, each sending its number.
func (d kindInputData) Points(from, to int) []option {
	out := make([]option, 0, max(0, to-from+1))
	for n := from; n <= to; n++ {
		v := strconv.Itoa(n)
		out = append(out, option{Value: v, Label: v, Chosen: d.Value == v, N: n, First: n == from, Last: n == to})
	}
	return out
}

// Counted are the points from to to, each labelled with the words of one
// (for 1) or many (with the number), in the respondent's language: "1
// star", "%d stars".
func (d kindInputData) Counted(from, to int, one, many string) []option {
	out := d.Points(from, to)
	for i := range out {
		if out[i].N == 1 {
			out[i].Label = d.words.L.T(one)
		} else {
			out[i].Label = d.words.L.T(many, out[i].N)
		}
	}
	return out
}

// grid is a matrix as its partial shows it: the columns (its choices, or
// the points 1 to its scale), and each row with a cell per column.
type grid struct {
	Cols []option
	Rows []gridRow
}

type gridRow struct {
	Index int // the row's field is q-<ID>-<Index>
	Label string
	Cells []option
}

// Grid is the question's matrix, with the respondent's choice in each row.
func (d kindInputData) Grid() grid {
	var g grid
	if len(d.Question.PossibleAnswers) > 0 {
		for _, c := range d.Question.PossibleAnswers {
			g.Cols = append(g.Cols, option{Value: c, Label: d.words.choice(c)})
		}
	} else {
		g.Cols = d.Points(1, d.Question.Scale)
	}
	g.Rows = make([]gridRow, len(d.Question.Rows))
	for r, row := range d.Question.Rows {
		got := d.Form.Get(strconv.Itoa(r))
		cells := make([]option, len(g.Cols))
		for i, c := range g.Cols {
			cells[i] = option{Value: c.Value, Label: c.Label, Chosen: got == c.Value}
		}
		g.Rows[r] = gridRow{Index: r, Label: d.words.row(row), Cells: cells}
	}
	return g
}

// rankItem is an item of a ranking as its partial shows it: its field is
// q-<ID>-<Index> (its place among the question's choices), its options
// the positions 1 to the number of items.
type rankItem struct {
	Index     int
	Label     string
	Positions []option
}

// Ranks are the items in the order to show them, each with the position
// the respondent gave it.
func (d kindInputData) Ranks() []rankItem {
	items := d.Question.PossibleAnswers
	out := make([]rankItem, 0, len(d.Choices))
	for _, c := range d.Choices {
		i := slices.Index(items, c)
		if i < 0 {
			continue
		}
		got := d.Form.Get(strconv.Itoa(i))
		pos := make([]option, len(items))
		for p := range items {
			v := strconv.Itoa(p + 1)
			pos[p] = option{Value: v, Label: v, Chosen: got == v, N: p + 1}
		}
		out = append(out, rankItem{Index: i, Label: d.words.choice(c), Positions: pos})
	}
	return out
}

// T is the words of key in the respondent's language.
func (d kindInputData) T(key string, args ...any) string { return d.words.L.T(key, args...) }

// Text is the question's text as the respondent reads it.
func (d kindInputData) Text() string { return or(d.words.QT.Text, d.Question.Text) }

// Label is how choice c (a choice, column or item, by its original text,
// which the input sends) reads in the respondent's language, with what
// it recalls in place; RowLabel the same of a row.
func (d kindInputData) Label(c string) string    { return d.words.choice(c) }
func (d kindInputData) RowLabel(r string) string { return d.words.row(r) }

// LowLabel and HighLabel are the scale's ends as the respondent reads
// them.
func (d kindInputData) LowLabel() string  { return or(d.words.QT.LowLabel, d.Question.LowLabel) }
func (d kindInputData) HighLabel() string { return or(d.words.QT.HighLabel, d.Question.HighLabel) }

// sliderState is where a slider's partial puts its range and whether its
// box "I have set the slider" is ticked.
type sliderState struct {
	Value string
	Set   bool
}

// Slider is the slider's position: the answer given (stored, or sent by
// the page that came back with a problem), else the middle position
// (rounded down to a step), unticked: the range always holds a value, the
// box says whether it is an answer.
func (d kindInputData) Slider() sliderState {
	if d.Value != "" {
		return sliderState{Value: d.Value, Set: true}
	}
	if v := d.Form.Get("slider"); v != "" {
		return sliderState{Value: v, Set: d.Form.Get("set") != ""}
	}
	lo, _ := strconv.Atoi(d.Question.Min)
	hi, _ := strconv.Atoi(d.Question.Max)
	step, _ := strconv.Atoi(d.Question.Step)
	mid := lo
	if step > 0 && hi > lo {
		mid = lo + (hi-lo)/2/step*step
	}
	return sliderState{Value: strconv.Itoa(mid)}
}

// contactInput is a part of a contact question as its partial shows it.
type contactInput struct {
	Key, Label, Value string
	// Type and Autocomplete are the input's (the browser's autofill of
	// the respondent's own details).
	Type, Autocomplete string
	// Required: the part must be given (the question being answered);
	// Optional marks it "Optional" beside its label.
	Required, Optional bool
	Max                int
}

// contactAutofill is each part's input type and autocomplete token.
var contactAutofill = map[string][2]string{
	"name": {"text", "name"}, "email": {"email", "email"}, "phone": {"tel", "tel"}, "street": {"text", "street-address"},
	"city": {"text", "address-level2"}, "postcode": {"text", "postal-code"}, "country": {"text", "country-name"},
}

// Contact is the parts a contact question asks, in the respondent's
// language, with what they sent. A part is required in the browser only
// when the question is (an optional question may be left wholly empty).
func (d kindInputData) Contact() []contactInput {
	parts := survey.AskedParts(d.Question)
	out := make([]contactInput, len(parts))
	for i, p := range parts {
		af := contactAutofill[p.Key]
		out[i] = contactInput{Key: p.Key, Label: d.words.L.T(p.Label), Value: d.Form.Get(p.Key), Type: af[0], Autocomplete: af[1],
			Required: p.Required && d.Required, Optional: !p.Required, Max: p.Max}
	}
	return out
}

// PatternMessage is a short text's message for an answer not fitting its
// pattern, as the respondent reads it (shown as the field's hint).
func (d kindInputData) PatternMessage() string {
	return or(d.words.QT.PatternMessage, d.Question.PatternMessage)
}

// pictureOption is a choice of a picture choice question as its partial
// shows it: the option, the image's URL and its alt text in the
// respondent's language.
type pictureOption struct {
	option
	Src, Alt string
}

// Pictures are a picture choice question's choices in the order to show
// them (Options: shuffled when the question asks), each with its picture.
func (d kindInputData) Pictures() []pictureOption {
	out := make([]pictureOption, len(d.Options))
	for i, o := range d.Options {
		p, _ := survey.PictureOf(d.Question, o.Value)
		out[i] = pictureOption{option: o, Src: "/logos/" + p.Image, Alt: d.words.QT.Alt(p.Label, p.Alt)}
	}
	return out
}

// Statement is a consent question's statement as the respondent reads it.
func (d kindInputData) Statement() string { return or(d.words.QT.Statement, d.Question.Statement) }

// kindChart is the chart of a question on the analysis page: the partial
// kinds/<key>.chart.html, given the question's view.
func (v *views) kindChart(q questionView) (template.HTML, error) {
	k, ok := survey.KindOf(q.Type)
	if !ok {
		return "", fmt.Errorf("web: question %d has no kind %q", q.N, q.Type)
	}
	return v.kindPartial(k.Key()+".chart.html", q)
}

// kindPartial executes one of the kinds' partials. It is escaped in its
// own right, for the text of an element, where the pages call it.
func (v *views) kindPartial(name string, data any) (template.HTML, error) {
	return executeHTML(v.kinds, name, data)
}

// executeHTML executes the template name of t with data into a pooled
// buffer (renderBufs) and returns what it wrote.
func executeHTML(t *template.Template, name string, data any) (template.HTML, error) {
	buf := renderBufs.Get().(*bytes.Buffer)
	defer putRenderBuf(buf)
	if err := t.ExecuteTemplate(buf, name, data); err != nil {
		return "", err
	}
	return template.HTML(buf.String()), nil
}

// assetURL is the content-hashed URL of a static asset.
func (v *views) assetURL(name string) (string, error) {
	h, ok := v.hashes[name]
	if !ok {
		return "", fmt.Errorf("web: no static asset %q", name)
	}
	return "/static/" + name + "?v=" + h, nil
}

// assets serves the static folder's files, never a listing of a folder;
// hashed URLs are cached for a year.
func (v *views) assets() http.Handler {
	files := http.StripPrefix("/static/", http.FileServer(http.FS(filesOnly{v.static})))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("v") != "" {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		}
		files.ServeHTTP(w, r)
	})
}

// layout is what base.html renders: the page's own data, which each
// page's "title" and "content" see as ".", and the signed-in account the
// header shows (nil on the public pages, which read no session).
type layout struct {
	Page    any
	Account *store.Session
	// Framed is a page shown in a frame of another site (an embedded
	// survey): without the site's header and footer.
	Framed bool
	// home is the site's home page on a custom domain (Server.homeOf).
	home string
}

// Home is where the "Powered by" link goes: the page's respondent's
// (respondent.Home), else the request's (on a custom domain, the public
// URL's home page), else "/".
func (l layout) Home() string {
	if p, ok := l.Page.(interface{ Home() string }); ok {
		return p.Home()
	}
	return or(l.home, "/")
}

// framed reports whether the browser asks for r to show it in a frame
// (Sec-Fetch-Dest, sent by current browsers on every navigation, a form's
// too): an embedded survey's pages are shown without the site's header
// and footer. Responses that differ by it say so in Vary.
func framed(r *http.Request) bool { return r.Header.Get("Sec-Fetch-Dest") == "iframe" }

// Lang is the page's language: a respondent page's (respondent), else
// English.
func (l layout) Lang() i18n.Lang {
	if p, ok := l.Page.(interface{ Language() i18n.Lang }); ok {
		return p.Language()
	}
	return i18n.Lang{}
}

// Respondent reports whether the page is a respondent's (a survey, its
// thank-you page, its results, an error on the /survey/ routes): it
// carries the subscriber's brand (their logo and name, on the page
// itself), not the site's sign-in header, and a small "Powered by" line
// at its foot.
func (l layout) Respondent() bool {
	p, ok := l.Page.(interface{ respondentPage() bool })
	return ok && p.respondentPage()
}

// Description is the page's meta description (the survey's description,
// for search engines and link previews), "" for none.
func (l layout) Description() string {
	if p, ok := l.Page.(interface{ MetaDescription() string }); ok {
		return p.MetaDescription()
	}
	return ""
}

// renderBytes executes page with data, for no one signed in, framed or
// not.
func (s *Server) renderBytes(page string, data any, framed bool) ([]byte, error) {
	t, ok := s.views.pages[page]
	if !ok {
		return nil, fmt.Errorf("web: no page %q", page)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "base", layout{Page: data, Framed: framed}); err != nil {
		return nil, fmt.Errorf("web: render %s: %w", page, err)
	}
	return buf.Bytes(), nil
}

// render executes page with data into a buffer, then writes the status and
// the body; a template error becomes a plain 500.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, page string, data any) {
	t, ok := s.views.pages[page]
	if !ok {
		s.log.Error("render: no such page", "page", page)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	buf := renderBufs.Get().(*bytes.Buffer)
	defer putRenderBuf(buf)
	if err := t.ExecuteTemplate(buf, "base", layout{Page: data, Account: sessionFrom(r.Context()), Framed: framed(r), home: s.homeOf(r)}); err != nil {
		s.log.Error("render failed", "page", page, "path", r.URL.Path, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// renderBufs holds the buffers render executes pages into, so that a page
// is not written into a buffer grown again from nothing each time.
var renderBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putRenderBuf gives buf back to renderBufs, emptied, unless it grew past
// 1 MiB (a rare page: it is left to the garbage collector).
func putRenderBuf(buf *bytes.Buffer) {
	if buf.Cap() > 1<<20 {
		return
	}
	buf.Reset()
	renderBufs.Put(buf)
}

// renderBlock executes one block of page (a part of it the page's script
// puts in place) with data, alone: status and the HTML fragment.
func (s *Server) renderBlock(w http.ResponseWriter, r *http.Request, status int, page, block string, data any) {
	t, ok := s.views.pages[page]
	var buf bytes.Buffer
	if !ok || t.Lookup(block) == nil {
		s.log.Error("render: no such block", "page", page, "block", block)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	if err := t.ExecuteTemplate(&buf, block, data); err != nil {
		s.log.Error("render failed", "page", page, "block", block, "path", r.URL.Path, "err", err)
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}
