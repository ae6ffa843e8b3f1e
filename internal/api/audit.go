package api

import (
	"net/http"
	"strconv"
	"time"
)

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
