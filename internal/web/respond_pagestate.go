package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"slices"
	"unicode/utf8"

	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

// A respondent of a multi-page survey carries what they answered on the
// pages they are not on in a hidden field, "state", sealed with AES-GCM
// (secret.Box) under a key derived from the form key, and bound by its
// associated data to the tenant, the survey and the form's token. So a
// page costs no storage write, the respondent cannot read or alter it,
// and a state of another survey, tenant or form does not open: the answer
// is refused (4xx) and nothing is stored. The token stays the same from
// page to page (it is the answer's ID), so the state of an earlier page
// sent again is the same answer still.

// pageState is what travels between pages.
type pageState struct {
	// Page is the page the respondent is on (from 0).
	Page int `json:"p"`
	// Left is how many pages the respondent had left forward (Next) in a
	// state sealed before Reached: pages 1 to Left were counted.
	Left int `json:"l,omitempty"`
	// Reached are the pages (from 0, past the first) the respondent has
	// reached by Next, so that the funnel counts each page once per
	// respondent, whatever Back, Next and jumps (respond_path.go) they take.
	Reached []int `json:"s,omitempty"`
	// Values are the answers of the other pages, by question ID.
	Values map[string]survey.Form `json:"v,omitempty"`
	// Resume is the key of the progress the respondent saved to finish
	// later (resume.go), deleted when they submit.
	Resume string `json:"r,omitempty"`
	// Personal is the personal link the form goes with, kept in saved
	// progress (the form carries it as "k").
	Personal string `json:"k,omitempty"`
	// Hidden are the values of the survey's hidden fields the
	// respondent's link carried (survey.HiddenValues), by name: kept from
	// page to page and stored with the answer.
	Hidden map[string]string `json:"h,omitempty"`
	// Screened are the full quota cells the respondent was screened out
	// of on their way, with the section they were leaving (respond_quota.go).
	Screened survey.Screened `json:"q,omitempty"`
}

// Bounds of a state: sealed, its characters; open, the questions it may
// name and the values of each.
const (
	maxSealedState = 3 << 20
	maxStatePages  = survey.MaxQuestions
	maxStateValues = 1000
	// maxStatePersonal bounds a personal link's token.
	maxStatePersonal = 100
)

var errPageState = errors.New("web: the page state does not open")

// pageSealer seals and opens page states.
type pageSealer struct{ box *secret.Box }

// newPageSealer derives the page-state key from the form key (the same on
// every instance that shares it; a process-random one otherwise, as form
// tokens are).
func newPageSealer(formKey []byte) *pageSealer {
	m := hmac.New(sha256.New, formKey)
	m.Write([]byte("surveys/page state"))
	box, err := secret.New(m.Sum(nil))
	if err != nil {
		panic(err) // a SHA-256 is always secret.KeySize bytes
	}
	return &pageSealer{box: box}
}

func pageStateAD(tenant, slug, token string) string {
	return "page-state\x00" + tenant + "\x00" + slug + "\x00" + token
}

func (p *pageSealer) seal(tenant, slug, token string, st pageState) (string, error) {
	raw, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	return p.box.Seal(string(raw), pageStateAD(tenant, slug, token))
}

// open returns the state sealed for tenant/slug and token; errPageState
// for anything else (altered, of another survey or form, too large).
func (p *pageSealer) open(tenant, slug, token, sealed string) (pageState, error) {
	if len(sealed) > maxSealedState {
		return pageState{}, errPageState
	}
	raw, err := p.box.Open(sealed, pageStateAD(tenant, slug, token))
	if err != nil {
		return pageState{}, errPageState
	}
	return decodePageState([]byte(raw))
}

// decodePageState reads an opened state, within its bounds.
func decodePageState(raw []byte) (pageState, error) {
	var st pageState
	if err := json.Unmarshal(raw, &st); err != nil {
		return pageState{}, errPageState
	}
	if st.Page < 0 || st.Page >= maxStatePages || st.Left < 0 || len(st.Reached) > maxStatePages || len(st.Values) > survey.MaxQuestions || (st.Resume != "" && !store.ValidResumeKey(st.Resume)) || len(st.Personal) > maxStatePersonal {
		return pageState{}, errPageState
	}
	if len(st.Hidden) > survey.MaxHiddenFields {
		return pageState{}, errPageState
	}
	for name, v := range st.Hidden {
		if len(name) > survey.MaxHiddenFieldName || utf8.RuneCountInString(v) > survey.MaxHiddenFieldValue {
			return pageState{}, errPageState
		}
	}
	if len(st.Screened) > survey.MaxQuotas {
		return pageState{}, errPageState
	}
	for name, from := range st.Screened {
		if utf8.RuneCountInString(name) > survey.MaxQuotaName || len(from) > survey.MaxSectionIDLength {
			return pageState{}, errPageState
		}
	}
	n := 0
	for _, f := range st.Values {
		for _, vs := range f {
			n += len(vs)
		}
	}
	if n > maxStateValues {
		return pageState{}, errPageState
	}
	return st, nil
}

// kept are the answers so far that the respondent's path keeps, with
// their hidden fields and the cells they were screened out of, as the
// logic reads them.
func (st pageState) kept(sv *survey.Survey) map[string]survey.QuestionAnswer {
	return sv.DropHidden(sv.WithScreened(sv.GivenWith(st.Values, st.Hidden), st.Screened))
}

// screen records that the respondent, leaving the section of ID from, was
// screened out of the full cells of quotas, and reports whether one was
// new (a cell screened before keeps the section it was screened at).
func (st *pageState) screen(quotas []string, from string) bool {
	changed := false
	for _, n := range quotas {
		if _, ok := st.Screened[n]; ok {
			continue
		}
		if st.Screened == nil {
			st.Screened = survey.Screened{}
		}
		st.Screened[n], changed = from, true
	}
	return changed
}

// reach records that the respondent reached page i (from 0) by Next, and
// reports whether it is the first time.
func (st *pageState) reach(i int) bool {
	if i <= st.Left || slices.Contains(st.Reached, i) {
		return false
	}
	st.Reached = append(st.Reached, i)
	return true
}

// maxSealedRecalled bounds the sealed answers a thank-you page's address
// carries (survey.Recalled).
const maxSealedRecalled = 16 << 10

func recalledAD(tenant, slug string) string { return "thank-you\x00" + tenant + "\x00" + slug }

// sealRecalled seals what the thank-you message of tenant/slug recalls of
// an answer, for the thank-you page's address: the respondent cannot read
// or alter it, nor take it to another survey. "" when there is nothing,
// or too much.
func (p *pageSealer) sealRecalled(tenant, slug string, recalled map[string]string) string {
	if len(recalled) == 0 {
		return ""
	}
	raw, err := json.Marshal(recalled)
	if err != nil {
		return ""
	}
	sealed, err := p.box.Seal(string(raw), recalledAD(tenant, slug))
	if err != nil || len(sealed) > maxSealedRecalled {
		return ""
	}
	return sealed
}

// openRecalled opens what sealRecalled sealed for tenant/slug; nil for
// anything else.
func (p *pageSealer) openRecalled(tenant, slug, sealed string) map[string]string {
	if sealed == "" || len(sealed) > maxSealedRecalled {
		return nil
	}
	raw, err := p.box.Open(sealed, recalledAD(tenant, slug))
	if err != nil {
		return nil
	}
	var out map[string]string
	if json.Unmarshal([]byte(raw), &out) != nil || len(out) > 2*survey.MaxQuestions {
		return nil
	}
	return out
}
