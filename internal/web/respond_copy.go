package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/surveys-dev/surveys/internal/mail"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// A respondent's copy of their answers (Survey.SendCopy): the thank-you
// page of a survey that offers it carries a form whose token, sealed like
// the page states (respond_pagestate.go), names the answer, the address to
// prefill and the time it expires. Its POST (sendCopy) reads the filed
// answer, renders the mail in the respondent's language, counts it
// against the tenant's quotas (store.MailQuotaStore.TakeCopy: once per
// address, at most three addresses per answer) and queues it for the
// mail worker. Nothing else than the token's answer can be mailed, and
// the mail holds only the survey's title, the organisation's name, the
// questions the respondent was shown and their answers (file names, no
// files; no hidden fields, scores or IDs), and the survey's link on the
// configured public URL.

// copyTokenLife is how long after answering a copy may be asked for.
const copyTokenLife = time.Hour

// maxSealedCopy bounds the copy token a form may bring; maxCopyBody its
// whole POST (the token, the thank-you page's sealed recall, an address).
const (
	maxSealedCopy = 1 << 10
	maxCopyBody   = maxSealedRecalled + 4<<10
)

// copyClaim is what a copy token holds.
type copyClaim struct {
	ID    string `json:"i"`           // the answer's
	Email string `json:"e,omitempty"` // to prefill: the answer's own
	Until int64  `json:"u"`           // Unix seconds
}

func copyAD(tenant, slug string) string { return "copy\x00" + tenant + "\x00" + slug }

// sealCopy seals the copy token of answer id of tenant/slug; "" when it
// cannot.
func (p *pageSealer) sealCopy(tenant, slug string, c copyClaim) string {
	raw, err := json.Marshal(c)
	if err != nil {
		return ""
	}
	sealed, err := p.box.Seal(string(raw), copyAD(tenant, slug))
	if err != nil || len(sealed) > maxSealedCopy {
		return ""
	}
	return sealed
}

// openCopy opens a copy token of tenant/slug not expired at now; false
// for anything else (forged, of another survey, expired).
func (p *pageSealer) openCopy(tenant, slug, sealed string, now time.Time) (copyClaim, bool) {
	var c copyClaim
	if sealed == "" || len(sealed) > maxSealedCopy {
		return c, false
	}
	raw, err := p.box.Open(sealed, copyAD(tenant, slug))
	if err != nil || json.Unmarshal([]byte(raw), &c) != nil || !store.ValidAnswerID(c.ID) || now.Unix() > c.Until {
		return copyClaim{}, false
	}
	return c, true
}

// copyToken is the copy token of answer a: its address to prefill is the
// answer to the survey's first short text of format "email" answered.
func copyToken(sealer *pageSealer, sv *survey.Survey, a *survey.SurveyAnswer, now time.Time) string {
	c := copyClaim{ID: a.ID, Until: now.Add(copyTokenLife).Unix()}
	for _, qa := range a.Answers {
		q, ok := sv.Question(qa.QuestionID)
		if ok && q.Type == survey.ShortText && q.Format == "email" && survey.ValidEmail(strings.TrimSpace(qa.Answer)) {
			c.Email = strings.TrimSpace(qa.Answer)
			break
		}
	}
	return sealer.sealCopy(sv.Tenant, sv.Slug, c)
}

// copyForm is the thank-you page's form that asks for a copy.
type copyForm struct {
	// Token is the copy token ("" once it is refused: no form then);
	// Recalled the thank-you page's sealed recall, kept for the page
	// after.
	Token, Recalled string
	Email           string
	// Err is the problem of the address, beside its field; Problem why
	// no copy was sent; Sent, that one was.
	Err, Problem string
	Sent         bool
}

// offerCopy sets the thank-you page's copy form from its address's
// token c; nothing when the survey offers no copies, e-mail is off, or c
// is not a good token.
func (s *Server) offerCopy(p *surveyPage, q url.Values) {
	if !p.Survey.SendCopy || !s.mailOn() {
		return
	}
	c, ok := s.pageStates.openCopy(p.Tenant.Key, p.Survey.Slug, q.Get("c"), time.Now())
	if !ok {
		return
	}
	p.Copy = &copyForm{Token: q.Get("c"), Recalled: q.Get("r"), Email: c.Email, Sent: q.Get("sent") == "1"}
	if p.Copy.Sent {
		p.Copy.Email = ""
	}
}

// CopyAction is where the copy form is sent.
func (p surveyPage) CopyAction() string {
	return "/survey/" + p.Tenant.Key + "/" + p.Survey.Slug + "/copy" + p.LangQuery()
}

// sendCopy queues the copy of the answer its form's token names, to the
// address typed, and sends the respondent back to the thank-you page,
// which says it is on its way; or it shows the page again saying why
// not.
func (s *Server) sendCopy(w http.ResponseWriter, r *http.Request) error {
	t, sv, err := s.publicSurvey(r)
	if err != nil {
		return err
	}
	if !sv.SendCopy || !s.mailOn() || s.remover == nil {
		return notFound("Page not found.")
	}
	allowFraming(w, sv)
	r.Body = http.MaxBytesReader(w, r.Body, maxCopyBody)
	if err := r.ParseForm(); err != nil {
		return survey.Errorf(survey.EINVALID, "This form is too large.")
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	p := surveyPage{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, LogoURL: s.logoURL(t)}
	f := r.PostForm
	p.recalled = s.pageStates.openRecalled(t.Key, sv.Slug, f.Get("r"))
	claim, ok := s.pageStates.openCopy(t.Key, sv.Slug, f.Get("c"), time.Now())
	if !ok {
		p.Copy = &copyForm{Problem: p.T("This form has expired: a copy of your answers may be asked for within an hour of answering.")}
		s.render(w, r, http.StatusForbidden, "thankyou", p)
		return nil
	}
	email := strings.TrimSpace(f.Get("email"))
	p.Copy = &copyForm{Token: f.Get("c"), Recalled: f.Get("r"), Email: email}
	again := func(status int) error {
		s.render(w, r, status, "thankyou", p)
		return nil
	}
	if !survey.ValidEmail(email) {
		p.Copy.Err = p.T("Please give an e-mail address, like name@example.com.")
		return again(http.StatusUnprocessableEntity)
	}
	a, err := s.remover.Get(r.Context(), t.Key, sv.Slug, claim.ID)
	if survey.ErrorCode(err) == survey.ENOTFOUND {
		// Not filed yet (the worker files answers within seconds), or
		// deleted since.
		p.Copy.Problem = p.T("Your answers are still being recorded; please try again in a minute.")
		return again(http.StatusConflict)
	}
	if err != nil {
		return err
	}
	m, err := s.copyMessage(r.Context(), p, a, email)
	if err != nil {
		return err
	}
	// Only a copy about to be sent counts against the limits (not one
	// asked for before its answer was filed, nor a bad address).
	addr := survey.NormalizeEmail(email)
	if l := s.limit.copiesPerSurvey; l != nil && l.OnLimit(w, r, t.Key+"/"+sv.Slug) {
		p.Copy.Problem = p.T("Too many copies of answers have been asked for just now; please try again later.")
		return again(http.StatusTooManyRequests)
	}
	if l := s.limit.copiesPerAddress; l != nil && l.OnLimit(w, r, addressKey(addr)) {
		p.Copy.Problem = p.T("Too many copies of answers have been asked for just now; please try again later.")
		return again(http.StatusTooManyRequests)
	}
	if err := s.takeCopyQuota(r.Context(), t, claim.ID, addr); err != nil {
		var qe *store.QuotaError
		if !errors.As(err, &qe) {
			return err
		}
		p.Copy.Problem = copyRefusal(p, qe.Reason)
		status := http.StatusTooManyRequests
		if qe.Reason == store.CopySent || qe.Reason == store.CopyAddresses {
			status = http.StatusConflict
		}
		return again(status)
	}
	if err := s.mail.Enqueue(r.Context(), m); err != nil {
		return err
	}
	q := url.Values{"c": {f.Get("c")}, "sent": {"1"}}
	if p.chosen {
		q.Set("lang", p.L.Tag())
	}
	if f.Get("r") != "" && p.recalled != nil {
		q.Set("r", f.Get("r"))
	}
	http.Redirect(w, r, "/survey/"+t.Key+"/"+sv.Slug+"/thankyou?"+q.Encode(), http.StatusSeeOther)
	return nil
}

// addressKey names an address in the rate limiter's memory without
// keeping it.
func addressKey(addr string) string {
	sum := sha256.Sum256([]byte(addr))
	return hex.EncodeToString(sum[:16])
}

// takeCopyQuota counts the copy of answer id to addr (normalized)
// against the tenant's quotas; refusals are counted in /metrics.
func (s *Server) takeCopyQuota(ctx context.Context, t *survey.Tenant, id, addr string) error {
	if s.mailQuota == nil {
		return nil
	}
	err := s.mailQuota.TakeCopy(ctx, t.Key, t.Plan, id, addr)
	var qe *store.QuotaError
	if errors.As(err, &qe) {
		s.mailRefused.WithLabelValues(qe.Reason).Inc()
	}
	return err
}

// copyRefusal says, in the respondent's language, why a copy was not
// sent.
func copyRefusal(p surveyPage, reason string) string {
	switch reason {
	case store.CopySent:
		return p.T("A copy of these answers was sent to this address already.")
	case store.CopyAddresses:
		return p.T("A copy of these answers was sent to as many addresses as it may be.")
	case store.QuotaRecipient:
		return p.T("The copy could not be sent: this address has received as many e-mails from %s as it may today.", p.Tenant.Name)
	}
	return p.T("The copy could not be sent: %s has sent as many e-mails as it may for now. Please try again later.", p.Tenant.Name)
}

// copyPart is one question of a copy: its text and the answer's lines.
type copyPart struct {
	Question string
	Lines    []string
}

// copyMail is the copy's data for its templates (mail/templates/copy.*),
// every word in the respondent's language.
type copyMail struct {
	Lang, Dir                                 string
	Subject, Intro, NoAnswer, LinkLabel, Link string
	Footer                                    string
	Parts                                     []copyPart
}

// copyLineRunes are the lengths an answer's lines are cut to, longest
// first, until the copy fits a message (mail.MaxBody).
var copyLineRunes = []int{5000, 1000, 200, 60}

// copyMessage is the copy of answer a to the address to, as page p (the
// respondent's survey and language) says it: the questions of the
// survey the respondent could see, in its order, each with their answer
// as people read it; nothing of the answer else.
func (s *Server) copyMessage(ctx context.Context, p surveyPage, a *survey.SurveyAnswer, to string) (mail.Message, error) {
	sv := p.Survey
	answers := make(map[string]survey.QuestionAnswer, len(a.Answers))
	for _, qa := range a.Answers {
		answers[qa.QuestionID] = qa
	}
	title := p.SurveyTitle()
	data := copyMail{Lang: p.L.Tag(), Dir: p.L.Dir(),
		Subject:   p.T("Your answers to %s", title),
		Intro:     p.T("Here is a copy of the answers you gave to %[1]s, a survey by %[2]s.", title, p.Tenant.Name),
		NoAnswer:  p.T("No answer"),
		LinkLabel: p.T("The survey:"),
		Link:      s.surveyBase(ctx, sv.Tenant, s.publicURL) + "/survey/" + sv.Tenant + "/" + sv.Slug,
		Footer:    p.T("You receive this e-mail because this address was given on the survey's page to receive a copy of these answers. If it was not you, you can ignore it."),
	}
	for _, limit := range copyLineRunes {
		data.Parts = answerParts(p, a, limit)
		m, err := s.mailTemplates.Render("copy", to, data)
		if !errors.Is(err, mail.ErrInvalid) || len(m.Text)+len(m.HTML) <= mail.MaxBody {
			return m, err
		}
	}
	return mail.Message{}, survey.Errorf(survey.EINTERNAL, "a copy of answer %s does not fit a message", a.ID)
}

// answerParts are answer a as page p (the respondent's survey and
// language) says it: the questions of the survey respondents see
// (publicSurvey: no hidden question) that a answers, each with its
// answer's lines, cut to limit characters (0: whole). Questions the
// respondent's path skipped have no answer and are left out.
func answerParts(p surveyPage, a *survey.SurveyAnswer, limit int) []copyPart {
	sv := p.Survey
	answers := make(map[string]survey.QuestionAnswer, len(a.Answers))
	for _, qa := range a.Answers {
		answers[qa.QuestionID] = qa
	}
	cut := func(s string) string {
		if limit <= 0 {
			return s
		}
		return cutRunes(s, limit)
	}
	var parts []copyPart
	for _, q := range sv.Questions {
		qa, ok := answers[q.ID]
		if !ok || qa.Type != q.Type {
			continue
		}
		k, ok := survey.KindOf(q.Type)
		if !ok {
			continue
		}
		part := copyPart{Question: cut(sv.Pipe(p.QText(q), answers, nil))}
		qt := p.Tr.Questions[q.ID]
		for _, l := range survey.AnswerLines(k, q, qa) {
			part.Lines = append(part.Lines, cut(translatedChoices(qt, l)))
		}
		parts = append(parts, part)
	}
	return parts
}

// translatedChoices is an answer's line with its choices in the
// respondent's language: the line that is a choice, or a list of checked
// choices ("a, b"), each one the translation has; any other line as it
// is.
func translatedChoices(qt survey.QuestionText, line string) string {
	if len(qt.Choices) == 0 {
		return line
	}
	if _, ok := qt.Choices[line]; ok {
		return qt.Choice(line)
	}
	parts := strings.Split(line, ", ")
	for i, c := range parts {
		if _, ok := qt.Choices[c]; !ok {
			return line
		}
		parts[i] = qt.Choice(c)
	}
	return strings.Join(parts, ", ")
}

// cutRunes is s cut to n characters, with "…" when cut.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
