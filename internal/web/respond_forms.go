package web

import (
	"bytes"
	"fmt"
	"net/http"
	"time"

	"github.com/surveys-dev/surveys/internal/lrucache"
	"github.com/surveys-dev/surveys/internal/survey"
)

// tokenMark stands for the form token in a pre-rendered survey form (and
// challengeMark, respond_formtoken.go, for its proof-of-work challenge).
const tokenMark = "form-token-0000000000000000000"

// forms keeps each published survey's form rendered once, split around
// its token, so that a page view costs two copies instead of a template
// execution. The entry is keyed by the cached survey and tenant values, so
// a new version of either (an edit, after the cache's TTL) renders again. It is bounded in entries and bytes, and
// an entry lives formTTL at most.
type forms struct {
	cache *lrucache.Cache[formKey, *form]
}

// A form with a proof-of-work challenge is split around the challenge
// too: head, token, mid, challenge, tail.
type form struct {
	tenant          *survey.Tenant
	head, mid, tail []byte
	challenge       bool
}

// Bounds of the rendered forms kept.
const (
	maxForms     = 1000
	maxFormBytes = 32 << 20
	formTTL      = time.Minute
)

// formKey is a survey's form in one variant: its language, and whether
// it is shown in a frame ("fr", "fr/framed").
type formKey struct {
	survey  *survey.Survey
	variant string
}

func newForms() forms {
	return forms{cache: lrucache.New(maxForms, maxFormBytes, formTTL, func(_ formKey, f *form) int64 {
		return int64(len(f.head) + len(f.mid) + len(f.tail) + 256)
	})}
}

func (f *forms) get(t *survey.Tenant, s *survey.Survey, variant string, render func() ([]byte, error)) (*form, error) {
	key := formKey{s, variant}
	if e, ok := f.cache.Get(key); ok && e.tenant == t {
		return e, nil
	}
	page, err := render()
	if err != nil {
		return nil, err
	}
	head, tail, ok := bytes.Cut(page, []byte(tokenMark))
	if !ok {
		return nil, fmt.Errorf("web: the survey form has no token")
	}
	e := &form{tenant: t, head: head, tail: tail}
	if s.Challenge {
		if e.mid, e.tail, ok = bytes.Cut(tail, []byte(challengeMark)); !ok {
			return nil, fmt.Errorf("web: the survey form has no challenge")
		}
		e.challenge = true
	}
	f.cache.Add(key, e)
	return e, nil
}

// parseSmallForm reads a small urlencoded form (at most 64 KiB); one that
// cannot be read is an EINVALID error.
func parseSmallForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		return survey.Errorf(survey.EINVALID, "The form could not be read.")
	}
	return nil
}
