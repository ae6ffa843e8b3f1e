package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// A respondent's receipt (Survey.Receipts): the thank-you page of a survey
// that gives them shows a code with which its holder may see the answer
// (/survey/{tenant}/{slug}/receipt) and delete it, while the survey still
// gives receipts. Nothing about receipts is stored: the code is the
// answer's ID (11 bytes) and a MAC of it, the tenant and the survey
// (HMAC-SHA-256 with a key derived from the server's secret key, cut to
// 128 bits), in base32 by groups of four. A code is checked by computing
// its MAC again and comparing in constant time; a wrong code and the code
// of an answer that is not there (not filed yet, deleted, expired) get the
// same page. Without a secret key (Deps.ReceiptKey nil) a survey cannot
// give receipts. The routes that read a code are rate limited per client
// address (Limits.Receipts).

// receiptMACLen is the MAC's bytes in a code: 128 bits.
const receiptMACLen = 16

// receiptEncoding writes codes: upper-case base32, no padding.
var receiptEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// maxReceiptInput bounds a code as typed (spaces and dashes included).
const maxReceiptInput = 100

// receiptTokenLife is how long after answering the thank-you page shows
// the code (its address carries the answer, sealed, for that long).
const receiptTokenLife = time.Hour

func (s *Server) receiptMAC(tenant, slug string, id []byte) []byte {
	m := hmac.New(sha256.New, s.receiptKey)
	m.Write([]byte("receipt\x00" + tenant + "\x00" + slug + "\x00"))
	m.Write(id)
	return m.Sum(nil)[:receiptMACLen]
}

// answerIDBytes packs an answer ID (store.NewAnswerID: 19 digits, a dash,
// 6 hex digits) in 11 bytes.
func answerIDBytes(id string) ([]byte, bool) {
	if !store.ValidAnswerID(id) {
		return nil, false
	}
	n, err := strconv.ParseUint(id[:19], 10, 64)
	if err != nil {
		return nil, false
	}
	tail, err := hex.DecodeString(id[20:])
	if err != nil {
		return nil, false
	}
	return append(binary.BigEndian.AppendUint64(nil, n), tail...), true
}

// receiptCode is the receipt code of answer id of tenant/slug; "" when
// the server gives no receipts.
func (s *Server) receiptCode(tenant, slug, id string) string {
	b, ok := answerIDBytes(id)
	if !ok || len(s.receiptKey) == 0 {
		return ""
	}
	raw := receiptEncoding.EncodeToString(append(b, s.receiptMAC(tenant, slug, b)...))
	var out strings.Builder
	for i := 0; i < len(raw); i += 4 {
		if i > 0 {
			out.WriteByte('-')
		}
		out.WriteString(raw[i:min(i+4, len(raw))])
	}
	return out.String()
}

// openReceipt returns the answer ID a receipt code of tenant/slug names;
// false for anything else (mistyped, forged, of another survey).
func (s *Server) openReceipt(tenant, slug, code string) (string, bool) {
	if len(s.receiptKey) == 0 || len(code) > maxReceiptInput {
		return "", false
	}
	clean := strings.ToUpper(strings.NewReplacer("-", "", " ", "", "\t", "").Replace(strings.TrimSpace(code)))
	raw, err := receiptEncoding.DecodeString(clean)
	if err != nil || len(raw) != 11+receiptMACLen || receiptEncoding.EncodeToString(raw) != clean {
		// (The last character's spare bits must be zero: one code, one
		// spelling.)
		return "", false
	}
	b, mac := raw[:11], raw[11:]
	if !hmac.Equal(mac, s.receiptMAC(tenant, slug, b)) {
		return "", false
	}
	id := fmt.Sprintf("%019d-%s", binary.BigEndian.Uint64(b[:8]), hex.EncodeToString(b[8:]))
	return id, store.ValidAnswerID(id)
}

// receiptClaim is what the thank-you page's address carries, sealed, to
// show the code: the answer and until when.
type receiptClaim struct {
	ID    string `json:"i"`
	Until int64  `json:"u"` // Unix seconds
}

func receiptAD(tenant, slug string) string { return "receipt\x00" + tenant + "\x00" + slug }

// sealReceipt seals the thank-you page's claim to answer id's code.
func (p *pageSealer) sealReceipt(tenant, slug, id string, now time.Time) string {
	raw, _ := json.Marshal(receiptClaim{ID: id, Until: now.Add(receiptTokenLife).Unix()})
	sealed, err := p.box.Seal(string(raw), receiptAD(tenant, slug))
	if err != nil || len(sealed) > maxSealedCopy {
		return ""
	}
	return sealed
}

// openReceiptClaim opens what sealReceipt sealed, not expired at now.
func (p *pageSealer) openReceiptClaim(tenant, slug, sealed string, now time.Time) (string, bool) {
	var c receiptClaim
	if sealed == "" || len(sealed) > maxSealedCopy {
		return "", false
	}
	raw, err := p.box.Open(sealed, receiptAD(tenant, slug))
	if err != nil || json.Unmarshal([]byte(raw), &c) != nil || !store.ValidAnswerID(c.ID) || now.Unix() > c.Until {
		return "", false
	}
	return c.ID, true
}

// givesReceipts reports whether sv's respondents get receipts here.
func (s *Server) givesReceipts(sv *survey.Survey) bool {
	return sv.Receipts && len(s.receiptKey) > 0 && s.remover != nil
}

// offerReceipt sets the thank-you page's receipt code from its address's
// claim rc; nothing when the survey gives none or rc is not good.
func (s *Server) offerReceipt(p *surveyPage, q url.Values) {
	if !s.givesReceipts(p.Survey) {
		return
	}
	if id, ok := s.pageStates.openReceiptClaim(p.Tenant.Key, p.Survey.Slug, q.Get("rc"), s.now()); ok {
		p.Receipt = s.receiptCode(p.Tenant.Key, p.Survey.Slug, id)
	}
}

// ReceiptAction is the receipt page's address, in the reader's language.
func (p surveyPage) ReceiptAction() string {
	return "/survey/" + p.Tenant.Key + "/" + p.Survey.Slug + "/receipt" + p.LangQuery()
}

// receiptPage is the page where a respondent types their receipt code,
// sees their answer, and deletes it.
type receiptPage struct {
	surveyPage
	// Code is the code as typed (kept in the forms); Problem why nothing
	// is shown.
	Code, Problem string
	// Parts are the answer the code opened, as its respondent saw the
	// questions; On when it was given.
	Parts []copyPart
	On    time.Time
	// Confirm asks before deleting; Deleted says it is done.
	Confirm, Deleted bool
}

// DeleteAction is where the delete form is sent.
func (p receiptPage) DeleteAction() string {
	return "/survey/" + p.Tenant.Key + "/" + p.Survey.Slug + "/receipt/delete" + p.LangQuery()
}

// receiptFor is the receipt page of the request's survey; 404 when the
// survey gives no receipts.
func (s *Server) receiptFor(w http.ResponseWriter, r *http.Request) (*receiptPage, error) {
	t, sv, err := s.publicSurvey(r)
	if err != nil {
		return nil, err
	}
	if !s.givesReceipts(sv) {
		return nil, notFound("Page not found.")
	}
	allowFraming(w, sv)
	// The respondent's own: kept out of caches and other sites.
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	return &receiptPage{surveyPage: surveyPage{respondent: s.respondentOf(w, r, sv), Tenant: t, Survey: sv, LogoURL: s.logoURL(t)}}, nil
}

// showReceiptForm asks for a receipt code.
func (s *Server) showReceiptForm(w http.ResponseWriter, r *http.Request) error {
	p, err := s.receiptFor(w, r)
	if err != nil {
		return err
	}
	s.render(w, r, http.StatusOK, "receipt", p)
	return nil
}

// receiptAnswer reads the answer the form's code names: nil, with the
// page showing why (404, the same for a wrong code and for an answer not
// there), when there is none.
func (s *Server) receiptAnswer(w http.ResponseWriter, r *http.Request, p *receiptPage) (*survey.SurveyAnswer, error) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		return nil, survey.Errorf(survey.EINVALID, "This form is too large.")
	}
	p.Code = strings.TrimSpace(r.PostForm.Get("code"))
	if len(p.Code) > maxReceiptInput {
		p.Code = ""
	}
	id, ok := s.openReceipt(p.Tenant.Key, p.Survey.Slug, p.Code)
	var a *survey.SurveyAnswer
	if ok {
		var err error
		a, err = s.remover.Get(r.Context(), p.Tenant.Key, p.Survey.Slug, id)
		if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
			return nil, err
		}
	}
	if a == nil || a.Partial {
		p.Problem = p.T("No answer matches this receipt code. Check the code and try again; an answer sent a moment ago may take a minute to be recorded.")
		s.render(w, r, http.StatusNotFound, "receipt", p)
		return nil, nil
	}
	return a, nil
}

// showReceipt shows the answer a receipt code names, read only, with a
// button to delete it.
func (s *Server) showReceipt(w http.ResponseWriter, r *http.Request) error {
	p, err := s.receiptFor(w, r)
	if err != nil {
		return err
	}
	a, err := s.receiptAnswer(w, r, p)
	if err != nil || a == nil {
		return err
	}
	p.Parts, p.On = answerParts(p.surveyPage, a, 0), a.CreatedOn
	s.render(w, r, http.StatusOK, "receipt", p)
	return nil
}

// deleteReceipt deletes the answer a receipt code names, through the
// same path as a subscriber's deletion (exactly once, out of the summary,
// tables and exports), once its confirmation was shown (confirm=1; a form
// without it gets the confirmation and deletes nothing).
func (s *Server) deleteReceipt(w http.ResponseWriter, r *http.Request) error {
	p, err := s.receiptFor(w, r)
	if err != nil {
		return err
	}
	a, err := s.receiptAnswer(w, r, p)
	if err != nil || a == nil {
		return err
	}
	if r.PostForm.Get("confirm") != "1" {
		p.Confirm, p.On = true, a.CreatedOn
		s.render(w, r, http.StatusOK, "receipt", p)
		return nil
	}
	// The whole survey (hidden questions too): its summary is recounted.
	whole, err := s.surveys.Get(r.Context(), p.Tenant.Key, p.Survey.Slug)
	if err != nil {
		return err
	}
	err = s.remover.DeleteAnswer(r.Context(), whole, a.ID)
	s.forgetResults(p.Tenant.Key, p.Survey.Slug)
	if err != nil && survey.ErrorCode(err) != survey.ENOTFOUND {
		return err
	}
	if s.auditLog != nil {
		// No address of the respondent: answers are kept without one.
		e := survey.AuditEvent{Tenant: p.Tenant.Key, At: s.now(), Actor: "respondent", Action: survey.AuditAnswerErased, Target: p.Survey.Slug, Detail: "answer " + a.ID}
		if err := s.auditLog.Append(r.Context(), e); err != nil {
			s.log.Error("audit: the event was not written", "tenant", p.Tenant.Key, "action", e.Action, "err", err)
		}
	}
	p.Deleted, p.Code = true, ""
	s.render(w, r, http.StatusOK, "receipt", p)
	return nil
}
