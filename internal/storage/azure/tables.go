package azure

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/surveys-dev/surveys/internal/storage"
)

// CreateTable creates the table; it succeeds if the table exists.
func (s *Store) CreateTable(ctx context.Context, table string) error {
	if err := storage.ValidateTableName(table); err != nil {
		return err
	}
	_, err := s.tables.CreateTable(ctx, table, nil)
	if err != nil && !hasCode(err, string(aztables.TableAlreadyExists)) {
		return wrap(err, "create table %s", table)
	}
	return nil
}

// DeleteTable deletes the table and its entities.
func (s *Store) DeleteTable(ctx context.Context, table string) error {
	if err := storage.ValidateTableName(table); err != nil {
		return err
	}
	_, err := s.tables.DeleteTable(ctx, table, nil)
	return wrap(err, "delete table %s", table)
}

// GetEntity reads one entity.
func (s *Store) GetEntity(ctx context.Context, table, pk, rk string) (storage.Entity, error) {
	if err := validateRow(table, pk, rk); err != nil {
		return storage.Entity{}, err
	}
	resp, err := s.tables.NewClient(table).GetEntity(ctx, pk, rk, nil)
	if err != nil {
		return storage.Entity{}, wrap(err, "get entity %s/%s/%s", table, pk, rk)
	}
	e, err := unmarshalEntity(resp.Value, string(resp.ETag))
	if err != nil {
		return storage.Entity{}, fmt.Errorf("azure: get entity %s/%s/%s: %w", table, pk, rk, err)
	}
	return e, nil
}

// InsertEntity adds an entity that must not exist yet.
func (s *Store) InsertEntity(ctx context.Context, table string, e storage.Entity) (string, error) {
	body, err := entityBody(table, e)
	if err != nil {
		return "", err
	}
	resp, err := s.tables.NewClient(table).AddEntity(ctx, body, nil)
	if err != nil {
		return "", wrap(err, "insert entity %s/%s/%s", table, e.PartitionKey, e.RowKey)
	}
	return string(resp.ETag), nil
}

// UpsertEntity inserts or replaces an entity.
func (s *Store) UpsertEntity(ctx context.Context, table string, e storage.Entity) (string, error) {
	body, err := entityBody(table, e)
	if err != nil {
		return "", err
	}
	resp, err := s.tables.NewClient(table).UpsertEntity(ctx, body, &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeReplace})
	if err != nil {
		return "", wrap(err, "upsert entity %s/%s/%s", table, e.PartitionKey, e.RowKey)
	}
	return string(resp.ETag), nil
}

// UpdateEntity replaces an existing entity whose ETag matches ifMatch.
func (s *Store) UpdateEntity(ctx context.Context, table string, e storage.Entity, ifMatch string) (string, error) {
	body, err := entityBody(table, e)
	if err != nil {
		return "", err
	}
	resp, err := s.tables.NewClient(table).UpdateEntity(ctx, body, &aztables.UpdateEntityOptions{
		UpdateMode: aztables.UpdateModeReplace,
		IfMatch:    etagOrAny(ifMatch),
	})
	if err != nil {
		return "", wrap(err, "update entity %s/%s/%s", table, e.PartitionKey, e.RowKey)
	}
	return string(resp.ETag), nil
}

// DeleteEntity deletes an existing entity whose ETag matches ifMatch.
func (s *Store) DeleteEntity(ctx context.Context, table, pk, rk, ifMatch string) error {
	if err := validateRow(table, pk, rk); err != nil {
		return err
	}
	_, err := s.tables.NewClient(table).DeleteEntity(ctx, pk, rk, &aztables.DeleteEntityOptions{IfMatch: etagOrAny(ifMatch)})
	return wrap(err, "delete entity %s/%s/%s", table, pk, rk)
}

// QueryPartition returns one page of the entities of partition pk.
func (s *Store) QueryPartition(ctx context.Context, table, pk string, q storage.Query) (storage.EntityPage, error) {
	if err := storage.ValidateTableName(table); err != nil {
		return storage.EntityPage{}, err
	}
	if err := storage.ValidateKey("PartitionKey", pk); err != nil {
		return storage.EntityPage{}, err
	}
	top := q.Top
	switch {
	case top < 0:
		return storage.EntityPage{}, fmt.Errorf("query top %d: %w", top, storage.ErrInvalid)
	case top == 0 || top > storage.MaxPageSize:
		top = storage.MaxPageSize
	}
	filter := "PartitionKey eq " + odataString(pk)
	if q.RowKeyFrom != "" {
		filter += " and RowKey ge " + odataString(q.RowKeyFrom)
	}
	if q.RowKeyTo != "" {
		filter += " and RowKey lt " + odataString(q.RowKeyTo)
	}
	opts := &aztables.ListEntitiesOptions{Filter: &filter, Top: to.Ptr(int32(top))}
	if q.Continuation != "" {
		npk, nrk, err := decodeContinuation(q.Continuation)
		if err != nil {
			return storage.EntityPage{}, err
		}
		opts.NextPartitionKey, opts.NextRowKey = npk, nrk
	}
	resp, err := s.tables.NewClient(table).NewListEntitiesPager(opts).NextPage(ctx)
	if err != nil {
		return storage.EntityPage{}, wrap(err, "query partition %s/%s", table, pk)
	}
	page := storage.EntityPage{
		Entities:     make([]storage.Entity, 0, len(resp.Entities)),
		Continuation: encodeContinuation(resp.NextPartitionKey, resp.NextRowKey),
	}
	for _, data := range resp.Entities {
		e, err := unmarshalEntity(data, "")
		if err != nil {
			return storage.EntityPage{}, fmt.Errorf("azure: query partition %s/%s: %w", table, pk, err)
		}
		page.Entities = append(page.Entities, e)
	}
	return page, nil
}

// QueryTable returns one page of the entities of the partitions in q's
// range, in (PartitionKey, RowKey) order.
func (s *Store) QueryTable(ctx context.Context, table string, q storage.TableQuery) (storage.EntityPage, error) {
	if err := storage.ValidateTableName(table); err != nil {
		return storage.EntityPage{}, err
	}
	top := q.Top
	switch {
	case top < 0:
		return storage.EntityPage{}, fmt.Errorf("query top %d: %w", top, storage.ErrInvalid)
	case top == 0 || top > storage.MaxPageSize:
		top = storage.MaxPageSize
	}
	var filters []string
	if q.PartitionFrom != "" {
		filters = append(filters, "PartitionKey ge "+odataString(q.PartitionFrom))
	}
	if q.PartitionTo != "" {
		filters = append(filters, "PartitionKey lt "+odataString(q.PartitionTo))
	}
	opts := &aztables.ListEntitiesOptions{Top: to.Ptr(int32(top))}
	if len(filters) > 0 {
		opts.Filter = to.Ptr(strings.Join(filters, " and "))
	}
	if q.Continuation != "" {
		npk, nrk, err := decodeContinuation(q.Continuation)
		if err != nil {
			return storage.EntityPage{}, err
		}
		opts.NextPartitionKey, opts.NextRowKey = npk, nrk
	}
	resp, err := s.tables.NewClient(table).NewListEntitiesPager(opts).NextPage(ctx)
	if err != nil {
		return storage.EntityPage{}, wrap(err, "scan %s", table)
	}
	page := storage.EntityPage{
		Entities:     make([]storage.Entity, 0, len(resp.Entities)),
		Continuation: encodeContinuation(resp.NextPartitionKey, resp.NextRowKey),
	}
	for _, data := range resp.Entities {
		e, err := unmarshalEntity(data, "")
		if err != nil {
			return storage.EntityPage{}, fmt.Errorf("azure: scan %s: %w", table, err)
		}
		page.Entities = append(page.Entities, e)
	}
	return page, nil
}

// Transact submits ops as one entity group transaction.
func (s *Store) Transact(ctx context.Context, table, pk string, ops []storage.TableOp) error {
	if err := storage.ValidateTableName(table); err != nil {
		return err
	}
	if err := storage.ValidateTransaction(pk, ops); err != nil {
		return err
	}
	actions := make([]aztables.TransactionAction, len(ops))
	for i, op := range ops {
		a, err := transactionAction(op)
		if err != nil {
			return fmt.Errorf("azure: transaction on %s/%s: operation %d: %w", table, pk, i, err)
		}
		actions[i] = a
	}
	_, err := s.tables.NewClient(table).SubmitTransaction(ctx, actions, nil)
	if err == nil {
		return nil
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		if f, ok := parseBatchFailure(re); ok {
			if f.index >= 0 && f.index < len(ops) {
				return wrap(f.err, "transaction on %s/%s: operation %d (row %s)", table, pk, f.index, ops[f.index].Entity.RowKey)
			}
			return wrap(f.err, "transaction on %s/%s", table, pk)
		}
	}
	return wrap(err, "transaction on %s/%s", table, pk)
}

// transactionAction converts a validated op. (The SDK puts the keys of
// deletes and updates into their URLs without the OData escaping of single
// quotes; batchQuotePolicy adds it.)
func transactionAction(op storage.TableOp) (aztables.TransactionAction, error) {
	var (
		a   aztables.TransactionAction
		err error
	)
	switch op.Kind {
	case storage.OpInsert:
		a.ActionType = aztables.TransactionTypeAdd
		a.Entity, err = marshalEntity(op.Entity)
	case storage.OpUpsert:
		a.ActionType = aztables.TransactionTypeInsertReplace
		a.Entity, err = marshalEntity(op.Entity)
	case storage.OpUpdate:
		a.ActionType = aztables.TransactionTypeUpdateReplace
		a.Entity, err = marshalEntity(op.Entity)
		a.IfMatch = etagOrAny(op.IfMatch) // without If-Match the service would upsert
	case storage.OpDelete:
		a.ActionType = aztables.TransactionTypeDelete
		a.Entity, err = keysJSON(op.Entity.PartitionKey, op.Entity.RowKey)
		a.IfMatch = etagOrAny(op.IfMatch)
	default:
		err = fmt.Errorf("unknown operation kind %d: %w", op.Kind, storage.ErrInvalid)
	}
	return a, err
}

// entityBody validates the table name and e, and encodes e.
func entityBody(table string, e storage.Entity) ([]byte, error) {
	if err := storage.ValidateTableName(table); err != nil {
		return nil, err
	}
	if err := storage.ValidateEntity(e); err != nil {
		return nil, err
	}
	body, err := marshalEntity(e)
	if err != nil {
		return nil, fmt.Errorf("azure: encode entity %s/%s/%s: %w", table, e.PartitionKey, e.RowKey, err)
	}
	return body, nil
}

func validateRow(table, pk, rk string) error {
	if err := storage.ValidateTableName(table); err != nil {
		return err
	}
	if err := storage.ValidateKey("PartitionKey", pk); err != nil {
		return err
	}
	return storage.ValidateKey("RowKey", rk)
}

// etagOrAny is the If-Match value for ifMatch: "" means any entity.
func etagOrAny(ifMatch string) *azcore.ETag {
	if ifMatch == "" {
		ifMatch = storage.ETagAny
	}
	return to.Ptr(azcore.ETag(ifMatch))
}

// odataEscape doubles single quotes, the escaping of OData string literals.
func odataEscape(s string) string { return strings.ReplaceAll(s, "'", "''") }

// odataString is s as an OData string literal.
func odataString(s string) string { return "'" + odataEscape(s) + "'" }

// Continuation tokens are the service's NextPartitionKey and NextRowKey,
// each base64url-encoded, joined by a dot.

func encodeContinuation(npk, nrk *string) string {
	p, r := deref(npk), deref(nrk)
	if p == "" && r == "" {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString([]byte(p)) + "." + base64.RawURLEncoding.EncodeToString([]byte(r))
}

func decodeContinuation(token string) (npk, nrk *string, err error) {
	p, r, ok := strings.Cut(token, ".")
	bp, errP := base64.RawURLEncoding.DecodeString(p)
	br, errR := base64.RawURLEncoding.DecodeString(r)
	if !ok || errP != nil || errR != nil {
		return nil, nil, fmt.Errorf("query continuation %q is malformed: %w", token, storage.ErrInvalid)
	}
	if len(bp) > 0 {
		npk = to.Ptr(string(bp))
	}
	if len(br) > 0 {
		nrk = to.Ptr(string(br))
	}
	return npk, nrk, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
