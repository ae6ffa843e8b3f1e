package web

import (
	"context"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/survey"
)

// PublicSurveys serves the definitions respondents see (cached).
type PublicSurveys interface {
	Survey(ctx context.Context, tenant, slug string) (*survey.Survey, error)
	Tenant(ctx context.Context, key string) (*survey.Tenant, error)
}

// AnswerNotifier makes an answer durable on the answers queue; the worker
// files and counts it.
type AnswerNotifier interface {
	Notify(ctx context.Context, a survey.SurveyAnswer, p survey.Plan) error
}

// maxAnswerBody bounds a respondent's POST: every question answered to
// its limit fits, even in characters of four UTF-8 bytes, each sent as
// twelve (%XX%XX%XX%XX), with room for the names and the token.
const maxAnswerBody = survey.MaxQuestions*(survey.MaxTextAnswerLength*12+64) + 4096

type surveyPage struct {
	// respondent: the reader's language and the survey's translation.
	respondent
	Tenant  *survey.Tenant
	Survey  *survey.Survey
	LogoURL string
	Token   string
	// Challenge is the proof-of-work challenge of a survey that asks for
	// one, with the largest number its solution may be.
	Challenge    string
	ChallengeMax int
	// Message says why a form came back whole (its token, or its
	// challenge).
	Message string
	// Values are what the respondent sent, by question ID.
	Values map[string]survey.Form
	Errors map[string]string
	// Preview is the preview link (designer_preview.go) a preview's form is sent
	// to, storing nothing; "" for a respondent. PreviewDef is the sealed
	// definition of a preview of unsaved edits, which its form carries.
	Preview, PreviewDef string
	// PastCloseOn says on the closed page that the survey's last day to
	// answer has passed.
	PastCloseOn bool
	// QuotaFull is the full quota whose message the quota-full page
	// shows (respond_quota.go).
	QuotaFull *survey.Quota
	// Personal is the personal link's token the form goes with;
	// Changing, that its holder is changing their answer
	// (share_personallinks.go).
	Personal string
	Changing bool

	// Shown are the sections the page shows: one for a respondent (its
	// page), every one for a preview. Page and Pages say where the page
	// is ("Page 2 of 4"); State is the sealed state of the other pages
	// (respond_pagestate.go); CanSave offers "Save and finish later", and
	// ResumeLink is the link back once saved.
	Shown       []surveySection
	Page, Pages int
	State       string
	CanSave     bool
	ResumeLink  string
	// Live: the page shows or hides questions as the respondent answers
	// (its script, logic.js).
	Live bool
	// PageURL is the address that shows the page again, for the
	// browser's history (pageURL; pages.js).
	PageURL string
	// pipeAnswers and pipeHidden are what the page's texts recall
	// (survey.Pipe): the answers the respondent's path keeps, and the
	// link's hidden values; nil on the cached first page, whose texts
	// recall nothing but the hidden fields (their fallbacks, there).
	pipeAnswers map[string]survey.QuestionAnswer
	pipeHidden  map[string]string
	// Copy is the thank-you page's form that mails the respondent a copy
	// of their answers (respond_copy.go); nil when none is offered.
	Copy *copyForm
	// Receipt is the answer's receipt code, shown on the thank-you page
	// (respond_receipt.go); "" when none.
	Receipt string
	// recalled is what the thank-you message recalls of the answer
	// (survey.Recalled), from the thank-you page's address.
	recalled map[string]string
}

// pipe is text with the answers and hidden values it recalls in place
// (survey.Pipe): text, for html/template to escape.
func (p surveyPage) pipe(text string) string {
	return p.Survey.Pipe(text, p.pipeAnswers, p.pipeHidden)
}

// SectionTitle and SectionParagraphs are section sc's title and
// description (in paragraphs), in the respondent's language, with what
// they recall in place.
func (p surveyPage) SectionTitle(sc survey.Section) string {
	return p.pipe(p.respondent.SectionTitle(sc))
}
func (p surveyPage) SectionParagraphs(sc survey.Section) []string {
	return paragraphs(p.pipe(or(p.Tr.Sections[sc.ID].Description, sc.Description)))
}

// Sections are the sections the page shows: Shown, or, when it was not
// set, every page of the survey (a preview).
func (p surveyPage) Sections() []surveySection {
	if p.Shown != nil {
		return p.Shown
	}
	var out []surveySection
	for _, pg := range p.Survey.Pages() {
		out = append(out, surveySection{Section: pg.Section, Questions: pg.Questions, First: pg.First})
	}
	return out
}

// questionItem is a question as the respondent's page shows it, worked
// out in Go once per render: each function or method a template calls
// costs a reflected call and its allocations, so the page's loop over its
// questions reads fields.
type questionItem struct {
	Q          *survey.Question
	Num        int    // its number along the respondent's path
	Text, Help string // in the respondent's language
	Tag        string // "Required" or "Optional", in the same
	Err        string // the problem shown beside it
	Value      survey.Form
	// Live is the condition on answers of its own page that shows it
	// (logic.js), Hint the same in words; nil and "" for none.
	Live *liveQuestion
	Hint string
	// HeadKept: the question up to its input is kept rendered
	// (questionHead): it shows no problem, on a respondent's page. When
	// its texts recall answers (piped), what is kept is the head around
	// them, and each respondent's texts go in their places.
	HeadKept bool
	piped    bool
	words    inputWords
	// survey is the page's survey, whose inputs may be kept rendered
	// (render_inputs.go); zero on a preview, whose are not.
	survey weak.Pointer[survey.Survey]
}

// Items are section sec's questions as the page shows them.
func (p surveyPage) Items(sec surveySection) []questionItem {
	out := make([]questionItem, len(sec.Questions))
	optional, required := p.T("Optional"), p.T("Required")
	var pipe func(string) string
	if p.Survey.HasPiping() {
		pipe = p.pipe // choices that recall answers
	}
	var sv weak.Pointer[survey.Survey]
	if p.Preview == "" {
		sv = weak.Make(p.Survey)
	}
	for i := range sec.Questions {
		q := &sec.Questions[i]
		text, help := p.QText(*q), p.QHelp(*q)
		it := questionItem{Q: q, Num: sec.Num(i), Text: p.pipe(text), Help: p.pipe(help), Tag: required,
			Err: p.Errors[q.ID], Value: p.Values[q.ID], Live: sec.Live[q.ID], words: p.Input(*q), survey: sv}
		it.HeadKept = sv != (weak.Pointer[survey.Survey]{}) && it.Err == ""
		it.piped = strings.Contains(text, "{{") || strings.Contains(help, "{{")
		it.words.pipe = pipe
		if q.Optional {
			it.Tag = optional
		}
		if it.Live != nil {
			it.Hint = p.LiveHint(p.Survey, it.Live)
		}
		out[i] = it
	}
	return out
}

// T is the words of key in the respondent's language (question-head).
func (it questionItem) T(key string, args ...any) string { return it.words.L.T(key, args...) }

// MetaDescription is the survey's description in the respondent's
// language, cut to about 160 characters at a word, or else its title and
// its organisation's name.
func (p surveyPage) MetaDescription() string {
	d := strings.Join(strings.Fields(strings.Join(p.DescriptionParagraphs(), " ")), " ")
	if d == "" {
		if p.Tenant == nil {
			return p.SurveyTitle()
		}
		return p.SurveyTitle() + " — " + p.Tenant.Name
	}
	if r := []rune(d); len(r) > 160 {
		cut := string(r[:160])
		if i := strings.LastIndexByte(cut, ' '); i > 80 {
			cut = cut[:i]
		}
		d = cut + "…"
	}
	return d
}

// Paged reports whether the survey has several pages.
func (p surveyPage) Paged() bool { return p.Pages > 1 }

// LangInForm reports whether the page's language menu is in its form:
// when the form carries the answers of other pages (its sealed state),
// which a link to the page in another language would lose.
func (p surveyPage) LangInForm() bool { return p.State != "" || p.PreviewDef != "" }

// PathURL is where path.js asks, as the respondent answers, where their
// answers lead (pathProbe): on a page of a survey whose logic may change
// the path, a respondent's or a preview's; "" elsewhere.
func (p surveyPage) PathURL() string {
	switch {
	case !p.Paged() || !p.Survey.HasLogic():
		return ""
	case p.Preview != "":
		return "/preview/" + p.Preview + "/path" + p.LangQuery()
	}
	return "/survey/" + p.Survey.Tenant + "/" + p.Survey.Slug + "/path" + p.LangQuery()
}

// FormAction is where the page's form is sent: the survey's address, or
// the preview's.
func (p surveyPage) FormAction() string {
	if p.Preview != "" {
		return "/preview/" + p.Preview + p.LangQuery()
	}
	return "/survey/" + p.Survey.Tenant + "/" + p.Survey.Slug + p.LangQuery()
}

// Last reports whether the page is the survey's last.
func (p surveyPage) Last() bool { return p.Page >= p.Pages }

// Percent is how far the page is through the survey.
func (p surveyPage) Percent() int {
	if p.Pages == 0 {
		return 100
	}
	return p.Page * 100 / p.Pages
}

// publicSurvey finds a survey respondents may see: published or closed, of
// a tenant that is not suspended.
func (s *Server) publicSurvey(r *http.Request) (*survey.Tenant, *survey.Survey, error) {
	tenant, slug := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug")
	if survey.ValidateTenantKey(tenant) != nil || !survey.ValidSlug(slug) {
		// Not a name a survey can have: no lookup, nothing cached.
		return nil, nil, notFound("Survey not found.")
	}
	t, err := s.public.Tenant(r.Context(), tenant)
	if err != nil {
		return nil, nil, err
	}
	sv, err := s.public.Survey(r.Context(), tenant, slug)
	if err != nil {
		return nil, nil, err
	}
	if t.Suspended || sv.State == survey.Draft || sv.Trashed() {
		return nil, nil, notFound("Survey not found.")
	}
	// Respondents never see, nor answer, a hidden question (the public
	// cache keeps the visible survey: this is the same value).
	return t, sv.Visible(), nil
}

// openSurvey is publicSurvey for a survey taking answers: a closed one gets
// the closed page (410) here, and a nil survey back.
func (s *Server) openSurvey(w http.ResponseWriter, r *http.Request) (*survey.Tenant, *survey.Survey, error) {
	t, sv, err := s.publicSurvey(r)
	if err != nil {
		return nil, nil, err
	}
	allowFraming(w, sv)
	now := time.Now()
	if sv.State == survey.Closed || !sv.Open(now) || t.CheckActive(now) != nil {
		// Closed, past its close date, or of a tenant whose trial ended.
		past := sv.State == survey.Published && !sv.CloseOn.IsZero() && !now.Before(sv.ClosesAt())
		s.render(w, r, http.StatusGone, "closed", surveyPage{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, PastCloseOn: past})
		return nil, nil, nil
	}
	return t, sv, nil
}

func (s *Server) logoURL(t *survey.Tenant) string {
	if t.Logo == "" {
		return ""
	}
	return "/logos/" + t.Logo
}

// showSurvey renders the survey form, with a fresh one-time token that
// becomes the answer's ID.
func (s *Server) showSurvey(w http.ResponseWriter, r *http.Request) error {
	t, sv, err := s.openSurvey(w, r)
	if err != nil || sv == nil {
		return err
	}
	if q := r.URL.Query(); q.Has("s") {
		// A page of the survey again, from the browser's history.
		return s.showPageAgain(w, r, t, sv, q.Get("t"), q.Get("s"))
	}
	once, done, err := s.answerOnce(w, r, t, sv, r.URL.Query().Get("k"))
	if err != nil || done {
		return err
	}
	pages := sv.Pages()
	// The link's values of the survey's hidden fields, and its answers to
	// prefill (only those the survey declares or allows: anything else in
	// the query is ignored).
	var hidden map[string]string
	var prefill map[string]survey.Form
	if len(sv.HiddenFields) > 0 || sv.Prefill {
		q := r.URL.Query()
		hidden, prefill = sv.HiddenValues(q), sv.PrefillForms(q)
	}
	if !pageCacheable(pages) || once.perRequest() || hidden != nil || prefill != nil {
		// Each respondent sees the choices or questions of the first page
		// in an order of their own, or their own personal link's form, or
		// their own link's values: it is rendered for the request, never
		// kept (the cached form below never sees the query).
		p := surveyPage{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Token: s.signer.issue(t.Key, sv.Slug)}
		if earlier := s.fillOnce(r.Context(), once, &p); hidden == nil {
			// A changed answer keeps the hidden values of the one it
			// replaces, unless its link carries its own.
			hidden = earlier
		}
		if p.Values == nil && prefill != nil {
			p.Values = prefill
		}
		if err := s.renderPage(w, r, http.StatusOK, p, pages, pageState{Values: p.Values, Hidden: hidden}); err != nil {
			return err
		}
		s.countView(t, sv)
		return nil
	}
	// The first page, the same for everyone but its token (and, on a
	// single page, no state: the answers of no other page).
	who := s.respondentOf(w, r, sv).shared()
	inFrame := framed(r)
	w.Header().Add("Vary", "Sec-Fetch-Dest")
	variant := who.cacheKey()
	if inFrame {
		variant += "/framed"
	}
	form, err := s.forms.get(t, sv, variant, func() ([]byte, error) {
		p := surveyPage{respondent: who, Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Token: tokenMark}
		pageView(&p, pages, routeOf(sv, pages, nil, nil, nil), 0, tokenMark)
		p.CanSave = s.resume != nil && p.Paged()
		if sv.Challenge {
			p.Challenge, p.ChallengeMax = challengeMark, powMaxNumber
		}
		return s.renderBytes("survey", p, inFrame)
	})
	if err != nil {
		return err
	}
	token := s.signer.issue(t.Key, sv.Slug)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	writePage(w, form, token, s.signer.challenge)
	s.countView(t, sv)
	return nil
}

// pageBufs holds the buffers writePage fills.
var pageBufs = sync.Pool{New: func() any { return new([]byte) }}

// writePage writes the pre-rendered form with its token (and its challenge,
// if it has one) in one piece with its length: one or two writes to the
// connection, where a response written in parts goes out chunked in as
// many as five.
func writePage(w http.ResponseWriter, f *form, token string, challenge func(string) string) {
	bp := pageBufs.Get().(*[]byte)
	b := append((*bp)[:0], f.head...)
	b = append(b, token...)
	if f.challenge {
		b = append(b, f.mid...)
		b = append(b, challenge(token)...)
	}
	b = append(b, f.tail...)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	if cap(b) <= 1<<20 {
		*bp = b
		pageBufs.Put(bp)
	}
}

// countView counts a view of the survey's form.
func (s *Server) countView(t *survey.Tenant, sv *survey.Survey) {
	if s.viewCounter != nil {
		s.viewCounter.Add(t.Key, sv.Slug) // in memory; flushed to a queue
	}
}

// shuffled reports whether one of the survey's questions shows its
// choices in a new order to each respondent, which a form rendered once
// for all (respond_forms.go) cannot.
func shuffled(sv *survey.Survey) bool {
	for _, q := range sv.Questions {
		if q.Shuffle {
			return true
		}
	}
	return false
}

// Why a form comes back whole (422), its answers kept, with a fresh token.
const (
	formExpired  = "This form has expired; your answers are kept, please submit again."
	powNeedsJS   = "This survey asks your browser to show it is not a robot by solving a small puzzle, which needs JavaScript. Turn JavaScript on for this site, then submit again; your answers are kept."
	powFailed    = "The check that you are not a robot did not pass; your answers are kept, please submit again."
	powSentTwice = "This form was already sent and its answers received; there is no need to send them again."
)

// formValues sorts a posted form's fields by question: q-<ID> is the
// question's own field and q-<ID>-<suffix> its others (survey.Form).
// Fields of no question are ignored.
func formValues(sv *survey.Survey, posted url.Values) map[string]survey.Form {
	values := make(map[string]survey.Form, len(sv.Questions))
	for _, q := range sv.Questions {
		values[q.ID] = survey.Form{}
	}
	for name, vs := range posted {
		rest, ok := strings.CutPrefix(name, "q-")
		if !ok {
			continue
		}
		id, suffix, _ := strings.Cut(rest, "-")
		if f, ok := values[id]; ok {
			f[suffix] = vs
		}
	}
	return values
}

// thankYou is the page after a stored answer.
func (s *Server) thankYou(w http.ResponseWriter, r *http.Request) error {
	t, sv, err := s.publicSurvey(r)
	if err != nil {
		return err
	}
	allowFraming(w, sv)
	p := surveyPage{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, LogoURL: s.logoURL(t)}
	if sealed := r.URL.Query().Get("r"); sealed != "" {
		// What the message recalls of the answer: the respondent's own.
		p.recalled = s.pageStates.openRecalled(t.Key, sv.Slug, sealed)
	}
	if q := r.URL.Query(); q.Has("r") || q.Has("c") || q.Has("rc") {
		// The respondent's own: kept out of caches and other sites.
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		s.offerCopy(&p, q)
		s.offerReceipt(&p, q)
	}
	s.render(w, r, http.StatusOK, "thankyou", p)
	return nil
}

// Required and Optionals count the survey's required and optional
// questions.
func (p surveyPage) Required() int {
	n := 0
	for _, q := range p.Survey.Questions {
		if !q.Optional {
			n++
		}
	}
	return n
}
func (p surveyPage) Optionals() int { return len(p.Survey.Questions) - p.Required() }

// DescriptionParagraphs and ThankYouParagraphs are the survey's
// description and thank-you message in paragraphs, for the page to show
// as text (their line breaks kept by CSS).
func (p surveyPage) DescriptionParagraphs() []string {
	return paragraphs(or(p.Tr.Description, p.Survey.Description))
}
func (p surveyPage) ThankYouParagraphs() []string {
	msg := or(p.Tr.ThankYou, p.Survey.ThankYou)
	if i, ok := p.Survey.Outcome(p.values()); ok {
		// The outcome the answer's values choose.
		msg = p.Survey.Outcomes[i].Message
		if i < len(p.Tr.Outcomes) && p.Tr.Outcomes[i] != "" {
			msg = p.Tr.Outcomes[i]
		}
	}
	return paragraphs(survey.PipeRecalled(msg, p.recalled))
}

// values are the answer's values the thank-you page's address carries
// (withScores), by variable name.
func (p surveyPage) values() map[string]string {
	var out map[string]string
	for k, v := range p.recalled {
		if n, ok := survey.VarName(k); ok {
			if out == nil {
				out = map[string]string{}
			}
			out[n] = v
		}
	}
	return out
}

// Score is the answer's score, for the thank-you page ("" for none).
func (p surveyPage) Score() string { return p.recalled[survey.VarRef(survey.ScoreName)] }

// quizResult is a quiz question's result on the thank-you page.
type quizResult struct {
	Text, Correct, Feedback string
	Right                   bool
}

// QuizResults are the quiz questions' results the thank-you page shows:
// their texts, whether the answer was right, the correct answers and
// the feedback, in the respondent's language.
func (p surveyPage) QuizResults() []quizResult {
	if !p.Survey.ShowCorrect || len(p.recalled) == 0 {
		return nil
	}
	var out []quizResult
	for _, q := range p.Survey.Questions {
		got, ok := p.recalled[quizKey+q.ID]
		if !ok {
			continue
		}
		qt := p.Tr.Questions[q.ID]
		var correct []string
		for _, c := range q.Correct {
			// A choice that recalls answers reads with its fallbacks.
			correct = append(correct, survey.PipeRecalled(qt.Choice(c), nil))
		}
		out = append(out, quizResult{Text: survey.PipeRecalled(or(qt.Text, q.Text), p.recalled), Right: got == "1",
			Correct: strings.Join(correct, ", "), Feedback: or(qt.Feedback, q.Feedback)})
	}
	return out
}

// QuotaParagraphs are the full quota's message in paragraphs, in the
// respondent's language.
func (p surveyPage) QuotaParagraphs() []string {
	if p.QuotaFull == nil {
		return nil
	}
	msg := p.QuotaFull.Message
	if i := slices.IndexFunc(p.Survey.Quotas, func(q survey.Quota) bool { return q.Name == p.QuotaFull.Name }); i >= 0 && i < len(p.Tr.Quotas) && p.Tr.Quotas[i] != "" {
		msg = p.Tr.Quotas[i]
	}
	return paragraphs(msg)
}

// Lead says how many questions the survey has, on how many pages, and
// which are required, in the respondent's language.
func (p surveyPage) Lead() string {
	n, req := len(p.Survey.Questions), p.Required()
	what := p.T("%d questions", n)
	if n == 1 {
		what = p.T("1 question")
	}
	if p.Paged() {
		what = p.T("%s on %d pages", what, p.Pages)
	}
	switch {
	case req == n && n > 1:
		return p.T("%s, all required.", what)
	case req == n:
		return p.T("%s, required.", what)
	case req == 0:
		return p.T("%s, all optional.", what)
	}
	return p.T("%s: %d required, %d optional.", what, req, p.Optionals())
}

// SurveyTitle is the survey's title in the respondent's language.
func (p surveyPage) SurveyTitle() string { return p.Title(p.Survey) }

// OpenUntil and ClosedOn say, in the respondent's language, until when
// the survey is open and that it closed, its last day marked up as a
// <time>.
func (p surveyPage) OpenUntil() template.HTML {
	return p.withDay("Open until %s: the last day to answer, until midnight UTC.", survey.Weekday(p.Survey.CloseOn), p.Survey.CloseOn)
}
func (p surveyPage) ClosedOn() template.HTML {
	return p.withDay("%s by %s no longer takes answers: the last day to answer was %s. Thank you for your interest.", survey.Day(p.Survey.CloseOn), p.Survey.CloseOn,
		p.SurveyTitle(), p.Tenant.Name)
}

// withDay is key in the respondent's language, its last argument the
// day (said as day says it) in a <time> element; args go before it.
func (p surveyPage) withDay(key string, day survey.Msg, t time.Time, args ...any) template.HTML {
	const mark = "\x00day\x00"
	text := template.HTMLEscapeString(p.T(key, append(args, mark)...))
	el := `<time datetime="` + t.Format(time.DateOnly) + `">` + template.HTMLEscapeString(p.L.Msg(day)) + `</time>`
	return template.HTML(strings.Replace(text, template.HTMLEscapeString(mark), el, 1))
}

// ErrorCount is the title of the list of problems.
func (p surveyPage) ErrorCount() string {
	if len(p.Errors) == 1 {
		return p.T("Please check 1 answer")
	}
	return p.T("Please check %d answers", len(p.Errors))
}

// paragraphs splits a text at its blank lines into paragraphs, each
// with its lines, without the blanks around them.
func paragraphs(text string) []string {
	var ps, lines []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
			continue
		}
		if len(lines) > 0 {
			ps, lines = append(ps, strings.Join(lines, "\n")), nil
		}
	}
	if len(lines) > 0 {
		ps = append(ps, strings.Join(lines, "\n"))
	}
	return ps
}

func inc(i int) int { return i + 1 }
