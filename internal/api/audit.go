package api

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/surveys-dev/surveys/internal/survey"
)

// audit notes that the request's token did action to target (Deps.Note).
func (s *server) audit(r *http.Request, action, target, detail string) {
	if s.Note == nil {
		return
	}
	a := authOf(r)
	s.Note(r, a.Tenant, survey.AuditTokenActor(a.Name), action, target, detail)
}

// auditExport notes an export of survey slug as format, unless it was
// refused before anything was read (as the pages' exports).
func (s *server) auditExport(r *http.Request, slug, format string, err error) {
	switch survey.ErrorCode(err) {
	case survey.ENOTFOUND, survey.EINVALID, survey.EFORBIDDEN:
		return
	}
	detail := strings.ToUpper(format) + " (API)"
	if q := r.URL.Query(); len(q) > 0 {
		q.Del("format")
		if len(q) > 0 {
			detail += ", filtered: " + q.Encode()
		}
	}
	s.audit(r, survey.AuditExport, slug, detail)
}

// jsonAuditEvent is an audit event as the API writes it.
type jsonAuditEvent struct {
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
	Action string    `json:"action"`
	Target string    `json:"target"`
	IP     string    `json:"ip"`
	Detail string    `json:"detail"`
}

// listAudit is a page of the token's tenant's audit log, newest first,
// through the filter of the query (action, actor, from, to), from cursor;
// "next" is the cursor of the next page ("" on the last).
func (s *server) listAudit(w http.ResponseWriter, r *http.Request) (int, any, error) {
	if s.Audit == nil {
		return 0, nil, notFound("No such API endpoint.")
	}
	q := r.URL.Query()
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit <= 0 {
		limit = 100
	}
	limit = min(limit, 1000)
	events, next, err := s.Audit(r.Context(), tenantOf(r), q, q.Get("cursor"), limit)
	if err != nil {
		return 0, nil, err
	}
	out := make([]jsonAuditEvent, 0, len(events))
	for _, e := range events {
		out = append(out, jsonAuditEvent{At: e.At.UTC(), Actor: e.Actor, Action: e.Action, Target: e.Target, IP: e.IP, Detail: e.Detail})
	}
	return http.StatusOK, map[string]any{"events": out, "next": next}, nil
}
