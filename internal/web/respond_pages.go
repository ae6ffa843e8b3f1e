package web

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// The respondent's path through a survey of several sections: one section
// per page, "Page 2 of 4", Back and Next, each page checked as it is left
// (422 beside the question), the answers of the other pages sealed in the
// form (respond_pagestate.go), and only the last page's submit stored, once, under
// the form token's ID. A survey of one section is one page, as it always
// was. "Save and finish later" stores the sealed state as one blob and
// gives a link back (resumeSurvey).

// ResumeStore keeps the progress respondents saved to finish later
// (store.ResumeStore).
type ResumeStore interface {
	Save(ctx context.Context, tenant, slug, key string, data []byte) error
	Get(ctx context.Context, tenant, slug, key string) ([]byte, error)
	Delete(ctx context.Context, tenant, slug, key string) error
}

// surveySection is a section as a page shows it: its questions in the
// order shown, numbered from First+1; Live are those it shows or hides as
// the respondent answers (respond_path.go), by question ID.
type surveySection struct {
	Section   survey.Section
	Questions []survey.Question
	First     int
	Live      map[string]*liveQuestion
}

// Num is the number of the section's question i (from 0) in the survey.
func (s surveySection) Num(i int) int { return s.First + i + 1 }

// DescriptionParagraphs is the section's description in paragraphs.
func (s surveySection) DescriptionParagraphs() []string { return paragraphs(s.Section.Description) }

// The buttons of a page (the form's "action").
const (
	actionNext   = "next"
	actionBack   = "back"
	actionSave   = "save"
	actionSubmit = "submit"
)

// Why a page of answers is refused whole.
const stateRefused = "The answers of the earlier pages could not be read (the form was changed, or belongs to another survey). Please open the survey again."

// pageView fills p to show page i (from 0) of the survey's pages to the
// respondent of token on path rt: its section, the questions the path
// shows (in a respondent's own order when the section shuffles), and
// where it is on the path.
func pageView(p *surveyPage, pages []survey.Page, rt route, i int, token string) {
	pg := pages[i]
	qs := pg.Questions
	if pg.Section.Shuffle && token != "" && token != tokenMark {
		qs = shuffleFor(qs, token, pg.Section.ID)
	}
	qs, live := rt.shows(p.Survey, qs)
	// Questions are numbered along the path: after a jump or a skipped
	// question the next one shown is the next number.
	first := pg.First
	if rt.kept != nil {
		first = 0
		for _, k := range rt.path {
			if k == i {
				break
			}
			shown, _ := rt.shows(p.Survey, pages[k].Questions)
			first += len(shown)
		}
	}
	p.Shown = []surveySection{{Section: pg.Section, Questions: qs, First: first, Live: live}}
	p.Live = live != nil
	p.Page, p.Pages = max(rt.at(i), 0)+1, len(rt.path)
}

// shuffleFor is the questions in the order one respondent (their form
// token) sees them: the same on every page view of that form, another for
// another respondent.
func shuffleFor(qs []survey.Question, token, section string) []survey.Question {
	h := fnv.New64a()
	h.Write([]byte(token))
	h.Write([]byte{0})
	h.Write([]byte(section))
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], h.Sum64())
	out := slices.Clone(qs)
	r := rand.New(rand.NewChaCha8(seed))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// pageCacheable reports whether the first page of the survey is the same
// for every respondent but for its token, so that it is rendered once
// (respond_forms.go): no section or choice shuffle on it.
func pageCacheable(pages []survey.Page) bool {
	return !pages[0].Section.Shuffle && !shuffled(&survey.Survey{Questions: pages[0].Questions})
}

// renderPage renders page st.Page of the survey (or, when the path of
// st.Values no longer goes through it, the page of the path before it)
// with the state of the other pages sealed in the form: the answers of
// every question the page does not show.
func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, status int, p surveyPage, pages []survey.Page, st pageState) error {
	return s.renderPageOn(w, r, status, p, pages, st, routeOf(p.Survey, pages, st.Values, st.Hidden, st.Screened))
}

// renderPageOn is renderPage on rt, the path of st.Values.
func (s *Server) renderPageOn(w http.ResponseWriter, r *http.Request, status int, p surveyPage, pages []survey.Page, st pageState, rt route) error {
	st.Page = rt.onPath(st.Page)
	if p.Survey.HasPiping() {
		// What the page's texts recall: the answers so far on the path.
		p.pipeAnswers, p.pipeHidden = st.kept(p.Survey), st.Hidden
	}
	pageView(&p, pages, rt, st.Page, p.Token)
	if len(pages) > 1 || st.Resume != "" || len(st.Hidden) > 0 || hasFiles(p.Survey, st.Values) {
		other := map[string]survey.Form{}
		for id, f := range st.Values {
			// Files received ride in the state on their own page too: a
			// file input cannot show them again.
			q, _ := p.Survey.Question(id)
			if (survey.TakesFiles(q) || !slices.ContainsFunc(p.Shown[0].Questions, func(q survey.Question) bool { return q.ID == id })) && len(f) > 0 {
				other[id] = f
			}
		}
		st.Values = other
		sealed, err := s.pageStates.seal(p.Tenant.Key, p.Survey.Slug, p.Token, st)
		if err != nil {
			return err
		}
		p.State = sealed
	}
	if p.State != "" && p.PreviewDef == "" {
		// (A preview of unsaved edits has no address of its own: its
		// definition rides in its form.)
		p.PageURL = s.pageURL(p, st)
	}
	p.CanSave = s.resume != nil && p.Paged() && p.Preview == ""
	if p.Survey.Challenge && p.Preview == "" {
		p.Challenge, p.ChallengeMax = s.signer.challenge(p.Token), powMaxNumber
	}
	w.Header().Set("Cache-Control", "no-store")
	s.render(w, r, status, "survey", p)
	return nil
}

// maxPageURL bounds the address of a page shown again (pageURL): one
// longer is not offered, and going back to that page asks the browser to
// send its form again, as any page made by a POST does.
const maxPageURL = 8000

// pageURL is the address that shows page p again as it was rendered, for
// the browser's history (pages.js puts it in place of the POST that made
// the page, so that Back and Forward show pages rather than "Confirm Form
// Resubmission"): the form's token and the state of every page, this
// one's answers included, sealed as the form's state is. "" when too
// long. The sealed answers stay in the browser's history, as a page of
// answers does in its cache; the form they go with expires in a day.
func (s *Server) pageURL(p surveyPage, st pageState) string {
	all := pageState{Page: st.Page, Left: st.Left, Reached: st.Reached, Resume: st.Resume, Personal: p.Personal, Hidden: st.Hidden, Screened: st.Screened, Values: map[string]survey.Form{}}
	for id, f := range p.Values {
		if len(f) > 0 {
			all.Values[id] = f
		}
	}
	sealed, err := s.pageStates.seal(p.Tenant.Key, p.Survey.Slug, p.Token, all)
	if err != nil {
		return ""
	}
	q := url.Values{"t": {p.Token}, "s": {sealed}}
	if p.chosen {
		q.Set("lang", p.L.Tag())
	}
	u := "/survey/" + p.Tenant.Key + "/" + p.Survey.Slug + "?" + q.Encode()
	if p.Preview != "" {
		u = "/preview/" + p.Preview + "?" + q.Encode()
	}
	if len(u) > maxPageURL {
		return ""
	}
	return u
}

// showPageAgain shows the page of a paged survey that the browser's
// history holds (pageURL): its answers, on the respondent's path, with the
// form's token (a new one when it expired, the answers kept). No view is
// counted: it is a page of a respondent already counted. A state that does
// not open is refused (422).
func (s *Server) showPageAgain(w http.ResponseWriter, r *http.Request, t *survey.Tenant, sv *survey.Survey, token, sealed string) error {
	st, err := s.openPageURL(t, sv, token, sealed)
	if err != nil {
		return err
	}
	once, done, err := s.answerOnce(w, r, t, sv, st.Personal)
	if err != nil || done {
		return err
	}
	page := surveyPage{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Values: st.Values, Token: token, Personal: once.Token, Changing: once.Changing}
	if _, ok := s.signer.check(t.Key, sv.Slug, token); !ok {
		page.Token = s.signer.issue(t.Key, sv.Slug)
	}
	return s.renderPage(w, r, http.StatusOK, page, sv.Pages(), st)
}

// openPageURL opens the state a page's address carries (pageURL), made
// for the survey and the form's token; one that does not open is refused
// (422). The page it names is shown on the path its answers take
// (renderPage), even when the survey has lost pages since.
func (s *Server) openPageURL(t *survey.Tenant, sv *survey.Survey, token, sealed string) (pageState, error) {
	st, err := s.pageStates.open(t.Key, sv.Slug, token, sealed)
	if err != nil {
		return pageState{}, &survey.Error{Code: survey.EINVALID, Message: stateRefused}
	}
	return st, nil
}

// submitSurvey takes a page of answers: Back shows the page before (its
// answers kept, nothing checked), Next checks the page and shows the next,
// Save stores the progress for later, and the last page's submit checks
// the page and the whole answer and makes it durable on the answers queue,
// once per form token (its ID). The form's token must be one this server
// made for this survey within a day (respond_formtoken.go), else the page comes
// back (422) with its answers and a fresh token; a survey with a challenge
// needs its solution, once. A state that does not open is refused (422),
// nothing stored.
func (s *Server) submitSurvey(w http.ResponseWriter, r *http.Request) error {
	t, sv, err := s.openSurvey(w, r)
	if err != nil || sv == nil {
		return err
	}
	fileProblems, err := s.readPageForm(w, r, t, sv, true)
	if err != nil {
		return err
	}
	// One answer per browser or personal link (share_personallinks.go):
	// refused on any page once answered.
	once, done, err := s.answerOnce(w, r, t, sv, r.PostForm.Get("k"))
	if err != nil || done {
		return err
	}
	token := r.PostForm.Get("token")
	page := surveyPage{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Token: token, Personal: once.Token, Changing: once.Changing}
	tn, err := s.readTurn(r, page)
	if err != nil {
		return err
	}
	id, ok := s.signer.check(t.Key, sv.Slug, token)
	if !ok {
		tn.page.Token, tn.page.Message = s.signer.issue(t.Key, sv.Slug), page.T(formExpired)
		return s.renderPageOn(w, r, http.StatusUnprocessableEntity, tn.page, tn.pages, tn.st, tn.rt)
	}
	// Files stored under another ID (a renewed token) are not this
	// answer's: they are asked for again.
	ownFiles(sv, tn.st.Values, id)
	tn.id = id
	if len(fileProblems) > 0 && (tn.action == actionNext || tn.action == actionSubmit) {
		// A file refused: the page again, the files received kept.
		tn.page.Errors = map[string]string{}
		for qid, m := range fileProblems {
			tn.page.Errors[qid] = tn.page.L.Msg(m)
		}
		return s.renderPageOn(w, r, http.StatusUnprocessableEntity, tn.page, tn.pages, tn.st, tn.rt)
	}
	a, err := s.turn(w, r, &tn)
	if err != nil || a == nil {
		return err
	}
	if sv.Challenge {
		if done, err := s.checkChallenge(w, r, tn, token); err != nil || done {
			return err
		}
	}
	// The token's ID is the answer's ID: the same form submitted twice,
	// from any page, is one answer, filed and counted once by the worker.
	a.ID, a.CreatedOn = id, time.Now().UTC()
	return s.acceptAnswer(w, r, tn, once, token, a)
}

// checkChallenge checks the solution of the survey's challenge sent with
// the last page (pow) and claims the form's token for it, once: without a
// solution (no JavaScript), with a wrong one, or with one sent already,
// the page comes back (422) with a fresh token and says why, and done is
// true.
func (s *Server) checkChallenge(w http.ResponseWriter, r *http.Request, tn pageTurn, token string) (done bool, err error) {
	page, pages, st, rt := tn.page, tn.pages, tn.st, tn.rt
	t, sv := page.Tenant, page.Survey
	again := func(message string) (bool, error) {
		page.Token, page.Message = s.signer.issue(t.Key, sv.Slug), page.T(message)
		return true, s.renderPageOn(w, r, http.StatusUnprocessableEntity, page, pages, st, rt)
	}
	switch pow := r.PostForm.Get("pow"); {
	case pow == "":
		return again(powNeedsJS)
	case !s.signer.solved(token, pow):
		return again(powFailed)
	case !s.signer.claim(token):
		return again(powSentTwice)
	}
	return false, nil
}

// acceptAnswer makes answer a durable on the answers queue (the notifier)
// and sends the respondent to the thank-you page. A personal link is
// marked used before; it is released, and so is the challenge's claim on
// the form's token, when a is not accepted. Once it is, the browser gets
// its one-answer cookie and the saved progress a finished is deleted.
func (s *Server) acceptAnswer(w http.ResponseWriter, r *http.Request, tn pageTurn, once onceGate, token string, a *survey.SurveyAnswer) error {
	t, sv, id := tn.page.Tenant, tn.page.Survey, a.ID
	// A personal link is marked used before the answer is acknowledged.
	link, done, err := s.useOnce(w, r, t, sv, once, id)
	if err != nil || done {
		return err
	}
	// Its quota cells are taken before it is acknowledged (respond_quota.go).
	full, err := s.takeQuotas(r.Context(), t, sv, a, tn.st.Screened)
	if err != nil || full != nil {
		if sv.Challenge {
			s.signer.release(token)
		}
		s.releaseOnce(t, sv, once, id)
		if err != nil {
			return err
		}
		return s.quotaFull(w, r, tn.page, full)
	}
	if err := s.notifier.Notify(r.Context(), *a, t.Plan); err != nil {
		if sv.Challenge {
			s.signer.release(token) // not accepted: it may be sent again
		}
		s.releaseOnce(t, sv, once, id)
		if survey.ErrorCode(err) != survey.EINTERNAL {
			// Refused before anything was written: its cells go back.
			// A storage error may hide a message that was enqueued
			// (its reply lost): they stay taken, the safe side.
			s.giveQuotas(t, sv, a)
		}
		return err
	}
	s.accepted.Inc()
	s.acknowledgedOnce(w, r, t, sv, link)
	s.dropPartial(r, sv, id)
	if tn.st.Resume != "" && s.resume != nil {
		// Sent: the saved progress is no longer needed. A failure here
		// leaves a blob that the survey's deletion removes.
		if err := s.resume.Delete(r.Context(), t.Key, sv.Slug, tn.st.Resume); err != nil {
			s.log.Warn("delete saved progress", "tenant", t.Key, "survey", sv.Slug, "err", err)
		}
	}
	if u := sv.RedirectURL(a.Values, a.Hidden); u != "" {
		// The designer's own https address (validated), instead of the
		// thank-you page.
		http.Redirect(w, r, u, http.StatusSeeOther)
		return nil
	}
	http.Redirect(w, r, thankYouURL(s.pageStates, tn.page, a, s.givesReceipts(sv)), http.StatusSeeOther)
	return nil
}

// thankYouURL is the thank-you page's address for answer a, in the
// respondent's language (when chosen), with what its message recalls of
// the answer, sealed (survey.Recalled).
func thankYouURL(sealer *pageSealer, p surveyPage, a *survey.SurveyAnswer, receipt bool) string {
	t, sv := p.Tenant, p.Survey
	q := url.Values{}
	if p.chosen {
		q.Set("lang", p.L.Tag())
	}
	if sealed := sealer.sealRecalled(t.Key, sv.Slug, withScores(sv, sv.RecalledOf(a.Answers, a.Hidden), a)); sealed != "" {
		q.Set("r", sealed)
	}
	if sv.SendCopy {
		// The copy form's token (respond_copy.go): this answer's, for an hour.
		if c := copyToken(sealer, sv, a, time.Now()); c != "" {
			q.Set("c", c)
		}
	}
	if receipt {
		// The receipt code's claim (respond_receipt.go): this answer's, for an
		// hour.
		if c := sealer.sealReceipt(t.Key, sv.Slug, a.ID, time.Now()); c != "" {
			q.Set("rc", c)
		}
	}
	u := "/survey/" + t.Key + "/" + sv.Slug + "/thankyou"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// withScores is recalled with what the thank-you page shows of answer
// a's scoring: its values (var:<name>, which choose the outcome and show
// the score) and, when the survey shows them, whether each quiz question
// was answered correctly (quiz:<ID>, "1" or "0").
func withScores(sv *survey.Survey, recalled map[string]string, a *survey.SurveyAnswer) map[string]string {
	if len(a.Values) == 0 && !sv.ShowCorrect {
		return recalled
	}
	if recalled == nil {
		recalled = map[string]string{}
	}
	for n, v := range a.Values {
		recalled[survey.VarRef(n)] = v
	}
	if sv.ShowCorrect {
		for _, q := range sv.Questions {
			qa, _ := a.Answer(q.ID)
			if correct, ok := survey.Correctly(q, qa); ok && !q.Hidden {
				recalled[quizKey+q.ID] = map[bool]string{true: "1", false: "0"}[correct]
			}
		}
	}
	return recalled
}

// quizKey starts the keys of the recalled quiz results.
const quizKey = "quiz:"

// pathReply is where a respondent's answers so far lead, in their
// language: "Page 1 of 2", and the page's button.
type pathReply struct {
	Progress string `json:"progress"`
	Page     int    `json:"page"`
	Pages    int    `json:"pages"`
	Last     bool   `json:"last"`
	Button   string `json:"button"`
}

// pathProbe answers, for a page of answers as far as they are typed,
// where the respondent's path goes from it: the page count, and whether
// the page's button sends the answers (the path ends here: a jump to the
// end, or no later section on it) or goes on. path.js shows it as the
// respondent answers; without it the next render says the same. It
// checks, stores and counts nothing.
func (s *Server) pathProbe(w http.ResponseWriter, r *http.Request) error {
	t, sv, err := s.openSurvey(w, r)
	if err != nil || sv == nil {
		return err
	}
	if _, err := s.readPageForm(w, r, t, sv, false); err != nil {
		return err
	}
	return s.writePath(w, r, surveyPage{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, Token: r.PostForm.Get("token")})
}

// writePath answers pathReply for the page of answers r sent (its form
// parsed) for page.Survey.
func (s *Server) writePath(w http.ResponseWriter, r *http.Request, page surveyPage) error {
	tn, err := s.readTurn(r, page)
	if err != nil {
		return err
	}
	at := tn.rt.at(tn.st.Page)
	if at < 0 {
		return survey.Errorf(survey.EINVALID, "This page is no longer on the path of these answers.")
	}
	reply := pathReply{Page: at + 1, Pages: len(tn.rt.path), Last: tn.rt.last(tn.st.Page), Button: page.T("Next page")}
	reply.Progress = page.T("Page %d of %d", reply.Page, reply.Pages)
	if reply.Last {
		reply.Button = page.T("Submit answers")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	return json.NewEncoder(w).Encode(reply)
}

// formUnreadable says a page's form could not be read.
const formUnreadable = "The form could not be read; please reload the page and try again."

// pageTurn is a page of answers as sent: the page to show next (its
// values are every answer so far), the survey's pages, the state of the
// other pages, the respondent's path and the button pressed.
type pageTurn struct {
	page   surveyPage
	pages  []survey.Page
	st     pageState
	rt     route
	action string
	// id is the form's answer ID (its token's), once checked.
	id string
}

// readTurn reads the page of answers r sent for page.Survey (r's form
// parsed): the other pages' answers from the sealed state (refused, 422,
// when it does not open) and this page's from its fields.
func (s *Server) readTurn(r *http.Request, page surveyPage) (pageTurn, error) {
	sv := page.Survey
	pages := sv.Pages()
	var st pageState
	if sealed := r.PostForm.Get("state"); sealed != "" {
		var err error
		if st, err = s.pageStates.open(page.Tenant.Key, sv.Slug, page.Token, sealed); err != nil {
			return pageTurn{}, &survey.Error{Code: survey.EINVALID, Message: stateRefused}
		}
	}
	// The survey may have lost a page, or a hidden field, since the state
	// was sealed.
	st.Page = min(st.Page, len(pages)-1)
	st.Hidden = sv.KeepHidden(st.Hidden)
	// The page sent the questions the path showed on it; the state keeps
	// the answers of those it did not show (renderPage), and of no other.
	values := formValues(&survey.Survey{Questions: pages[st.Page].Questions}, r.PostForm)
	for id, f := range st.Values {
		if len(values[id]) > 0 {
			continue // sent again on this page
		}
		if _, ok := sv.Question(id); ok {
			values[id] = f
		}
	}
	st.Values, page.Values = values, values
	// Where the respondent goes from here follows every answer so far.
	st.Screened = sv.KeepScreened(st.Screened)
	rt := routeOf(sv, pages, values, st.Hidden, st.Screened)
	action := r.PostForm.Get("action")
	if (action == "" || action == actionSubmit) && !rt.last(st.Page) {
		// Sent from a page before the last: on to the next.
		action = actionNext
	}
	if action == "" {
		action = actionSubmit
	}
	return pageTurn{page: page, pages: pages, st: st, rt: rt, action: action}, nil
}

// turn does what the page's button asks: the language menu and Back show
// a page (answers kept, nothing checked), Save stores the progress, Next
// checks the page as it is left and shows the next. It returns the whole
// answer, checked, when the respondent submits it from the last page of
// their path; otherwise it has shown a page, and returns nil.
func (s *Server) turn(w http.ResponseWriter, r *http.Request, tn *pageTurn) (*survey.SurveyAnswer, error) {
	page, pages, rt, sv := tn.page, tn.pages, tn.rt, tn.page.Survey
	st := &tn.st
	show := func(status int) (*survey.SurveyAnswer, error) {
		return nil, s.renderPageOn(w, r, status, page, pages, *st, rt)
	}
	if rt.at(st.Page) < 0 || strings.HasPrefix(tn.action, langAction) {
		// Not on the path (the survey changed since the page was shown):
		// the page of the path before it, nothing checked. Or the
		// language menu of the page: the same page, its answers kept, in
		// the language chosen (respondentOf), nothing checked.
		return show(http.StatusOK)
	}
	switch tn.action {
	case actionBack:
		st.Page = rt.before(st.Page)
		return show(http.StatusOK)
	case actionSave:
		if page.Preview != "" {
			return nil, survey.Errorf(survey.EINVALID, "A preview stores nothing, so it cannot be saved to finish later.")
		}
		return nil, s.saveProgress(w, r, page, pages, *st, rt)
	case actionNext, actionSubmit:
	default:
		return nil, survey.Errorf(survey.EINVALID, "Unknown action %q.", tn.action)
	}
	// The page is checked as it is left: the whole answer so far, so that
	// a question's condition on an earlier page's answer holds as it will
	// at the end; only this page's problems count now.
	a, err := survey.NewAnswerScreened(sv, st.Values, st.Hidden, st.Screened)
	var e *survey.Error
	if err != nil && (!errors.As(err, &e) || e.Code != survey.EINVALID) {
		return nil, err
	}
	if err != nil {
		if errs := problemsOf(page.problems(e), pages[st.Page].Questions); len(errs) > 0 {
			page.Errors = errs
			return show(http.StatusUnprocessableEntity)
		}
	}
	if _, ok := rt.after(st.Page); tn.action == actionNext && ok && page.Preview == "" {
		// A full quota cell is said as soon as the answers so far fall
		// into it (respond_quota.go): the survey ends, or, for a quota that
		// skips, the respondent is screened out of the cell and goes to
		// its section from this page.
		full, skips, err := s.fullSoFar(r.Context(), page.Tenant, sv, st.kept(sv))
		if err != nil {
			return nil, err
		}
		if full != nil {
			return nil, s.quotaFull(w, r, page, full)
		}
		if st.screen(skips, pages[st.Page].Section.ID) {
			rt = routeOf(sv, pages, st.Values, st.Hidden, st.Screened)
			tn.rt = rt
		}
	}
	if next, ok := rt.after(st.Page); tn.action == actionNext && ok {
		st.Page = next
		if st.reach(next) && s.viewCounter != nil && page.Preview == "" {
			// The first time this respondent reaches this page: the
			// funnel (AddPage counts page n+1 reached as page n left).
			s.viewCounter.AddPage(page.Tenant.Key, sv.Slug, next)
		}
		s.savePartial(r, page, tn.id, *st)
		return show(http.StatusOK)
	}
	if err != nil {
		// An earlier page has a problem (the survey changed on the way):
		// back to the first such page of the path.
		for _, i := range rt.path {
			if slices.ContainsFunc(pages[i].Questions, func(q survey.Question) bool { return e.Fields[q.ID] != "" }) {
				st.Page = i
				break
			}
		}
		page.Errors = page.problems(e)
		return show(http.StatusUnprocessableEntity)
	}
	return &a, nil
}

// saveProgress stores the respondent's progress (their token and the
// sealed state of every page) as one blob under a random key, the same
// key on a later save, and shows the page again with the link back.
func (s *Server) saveProgress(w http.ResponseWriter, r *http.Request, page surveyPage, pages []survey.Page, st pageState, rt route) error {
	if s.resume == nil || len(pages) < 2 || len(rt.path) < 2 {
		return survey.Errorf(survey.EINVALID, "This survey cannot be saved to finish later.")
	}
	if st.Resume == "" {
		st.Resume = store.NewResumeKey()
	}
	st.Personal = page.Personal
	sealed, err := s.pageStates.seal(page.Tenant.Key, page.Survey.Slug, page.Token, st)
	if err != nil {
		return err
	}
	if err := s.resume.Save(r.Context(), page.Tenant.Key, page.Survey.Slug, st.Resume, []byte(page.Token+"\n"+sealed)); err != nil {
		return err
	}
	page.ResumeLink = "/survey/" + page.Tenant.Key + "/" + page.Survey.Slug + "/resume/" + st.Resume
	return s.renderPageOn(w, r, http.StatusOK, page, pages, st, rt)
}

// resumeSurvey brings a respondent back to the page they saved, with their
// answers and their form's token. A survey that closed since gets the
// closed page, and the saved progress is deleted.
func (s *Server) resumeSurvey(w http.ResponseWriter, r *http.Request) error {
	tenant, slug, key := chi.URLParam(r, "tenant"), chi.URLParam(r, "slug"), chi.URLParam(r, "key")
	if s.resume == nil || !store.ValidResumeKey(key) {
		return notFound("This link to finish the survey is not valid.")
	}
	t, sv, err := s.openSurvey(w, r)
	if err != nil {
		return err
	}
	if sv == nil {
		// Closed: what was saved will never be sent.
		_ = s.resume.Delete(r.Context(), tenant, slug, key)
		return nil
	}
	data, err := s.resume.Get(r.Context(), tenant, slug, key)
	if err != nil {
		return err
	}
	token, sealed, _ := strings.Cut(string(data), "\n")
	st, err := s.pageStates.open(t.Key, sv.Slug, token, sealed)
	if err != nil || st.Resume != key {
		return &survey.Error{Code: survey.EINVALID, Message: stateRefused}
	}
	pages := sv.Pages()
	st.Page = min(st.Page, len(pages)-1)
	page := surveyPage{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, LogoURL: s.logoURL(t), Values: st.Values, Token: token, Personal: st.Personal}
	if _, ok := s.signer.check(t.Key, sv.Slug, token); !ok {
		// Saved more than a day ago: a new form, the answers kept.
		page.Token = s.signer.issue(t.Key, sv.Slug)
	}
	return s.renderPage(w, r, http.StatusOK, page, pages, st)
}

// problemsOf keeps the problems of the questions qs (keyed by question ID).
func problemsOf(fields map[string]string, qs []survey.Question) map[string]string {
	out := map[string]string{}
	for _, q := range qs {
		if msg, ok := fields[q.ID]; ok {
			out[q.ID] = msg
		}
	}
	return out
}
