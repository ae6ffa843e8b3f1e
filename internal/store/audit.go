package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
)

// The audit log: each survey.AuditEvent is a row of AuditTable,
// partitioned by tenant, keyed "<inverted ticks>_<random>": a
// partition's rows are newest first, so the newest page is one query,
// and a day range is a key range. The store appends; it has no update
// and no delete of one event: rows go only when they pass the retention
// period (DeleteOlder, the retention worker) or with their tenant
// (DeleteTenant).
const AuditTable = "AuditLog"

// AuditStore keeps the tenants' audit logs.
type AuditStore struct{ st storage.Storage }

// NewAuditStore returns an AuditStore over st.
func NewAuditStore(st storage.Storage) *AuditStore { return &AuditStore{st: st} }

// auditKeyTime is the key prefix of the events at t: later times sort
// first.
func auditKeyTime(t time.Time) string { return inverted(ticks(t)) }

// Append adds e to its tenant's log (At is now when zero).
func (as *AuditStore) Append(ctx context.Context, e survey.AuditEvent) error {
	if survey.ValidateTenantKey(e.Tenant) != nil || !survey.ValidAuditAction(e.Action) {
		return survey.Errorf(survey.EINVALID, "Not an audit event.")
	}
	if e.At.IsZero() {
		e.At = time.Now()
	}
	e.Clean()
	var b [5]byte
	_, _ = rand.Read(b[:])
	_, err := as.st.InsertEntity(ctx, AuditTable, storage.Entity{PartitionKey: e.Tenant, RowKey: auditKeyTime(e.At) + "_" + hex.EncodeToString(b[:]),
		Properties: map[string]any{"At": e.At.UTC(), "Actor": e.Actor, "Action": e.Action, "Target": e.Target, "IP": e.IP, "Detail": e.Detail}})
	return mapErr(err, "Audit event")
}

// auditScanLimit bounds the rows one List reads when a filter leaves
// most of them out: it then returns fewer events and a cursor to go on.
const auditScanLimit = 5000

// List returns up to limit of the tenant's events that pass f, newest
// first, from cursor ("" for the newest), and the cursor of the next
// page ("" when there is none).
func (as *AuditStore) List(ctx context.Context, tenant string, f survey.AuditFilter, cursor string, limit int) ([]survey.AuditEvent, string, error) {
	if survey.ValidateTenantKey(tenant) != nil {
		return nil, "", survey.Errorf(survey.ENOTFOUND, "No such tenant.")
	}
	limit = min(max(limit, 1), storage.MaxPageSize)
	q := storage.Query{}
	if !f.To.IsZero() {
		q.RowKeyFrom = auditKeyTime(f.To.AddDate(0, 0, 1))
	}
	if !f.From.IsZero() {
		q.RowKeyTo = auditKeyTime(f.From) + "`" // '`' follows '_'
	}
	if cursor != "" {
		if !validAuditKey(cursor) {
			return nil, "", survey.Errorf(survey.EINVALID, "That page of the audit log does not exist.")
		}
		// Every key is as long as the cursor: those after it follow
		// cursor+"!".
		if c := cursor + "!"; c > q.RowKeyFrom {
			q.RowKeyFrom = c
		}
	}
	q.Top = limit
	if f.Action != "" || f.Actor != "" {
		q.Top = storage.MaxPageSize
	}
	var out []survey.AuditEvent
	scanned := 0
	for {
		page, err := as.st.QueryPartition(ctx, AuditTable, tenant, q)
		if err != nil {
			return nil, "", mapErr(err, "Audit event")
		}
		for _, en := range page.Entities {
			scanned++
			e := auditEventOf(tenant, en)
			if f.Match(e) {
				out = append(out, e)
			}
			if len(out) == limit || scanned >= auditScanLimit {
				return out, en.RowKey, nil
			}
		}
		if page.Continuation == "" {
			return out, "", nil
		}
		q.Continuation = page.Continuation
	}
}

func auditEventOf(tenant string, e storage.Entity) survey.AuditEvent {
	return survey.AuditEvent{Tenant: tenant, At: e.Time("At"), Actor: e.String("Actor"), Action: e.String("Action"),
		Target: e.String("Target"), IP: e.String("IP"), Detail: e.String("Detail")}
}

// validAuditKey reports whether k has the form of an AuditTable RowKey.
func validAuditKey(k string) bool {
	if len(k) != 19+1+10 || k[19] != '_' {
		return false
	}
	for i, c := range []byte(k) {
		if i != 19 && (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// DeleteOlder deletes the tenant's events from before t (the retention
// period's start), in transactions of up to storage.MaxTransactionOps,
// and returns how many.
func (as *AuditStore) DeleteOlder(ctx context.Context, tenant string, t time.Time) (int, error) {
	if survey.ValidateTenantKey(tenant) != nil {
		return 0, survey.Errorf(survey.ENOTFOUND, "No such tenant.")
	}
	n := 0
	for {
		// Always the first page: the rows read are deleted.
		page, err := as.st.QueryPartition(ctx, AuditTable, tenant, storage.Query{RowKeyFrom: auditKeyTime(t) + "`", Top: storage.MaxTransactionOps})
		if err != nil {
			return n, mapErr(err, "Audit event")
		}
		if len(page.Entities) == 0 {
			return n, nil
		}
		ops := make([]storage.TableOp, 0, len(page.Entities))
		for _, e := range page.Entities {
			ops = append(ops, storage.TableOp{Kind: storage.OpDelete, Entity: storage.Entity{PartitionKey: tenant, RowKey: e.RowKey}})
		}
		if err := as.st.Transact(ctx, AuditTable, tenant, ops); isNotFound(err) {
			continue // another instance's pass deleted one: read again
		} else if err != nil {
			return n, mapErr(err, "Audit event")
		}
		n += len(ops)
	}
}
