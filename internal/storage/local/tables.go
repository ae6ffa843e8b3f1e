package local

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/surveys-dev/surveys/internal/storage"
)

// Table names are case-insensitive in Azure, so rows are keyed by the
// lower-cased name.
func tableKey(table string) string { return strings.ToLower(table) }

// CreateTable creates the table; it succeeds if the table exists.
func (s *Store) CreateTable(ctx context.Context, table string) error {
	if err := storage.ValidateTableName(table); err != nil {
		return fmt.Errorf("local: create table: %w", err)
	}
	err := s.write(ctx, func(tx *wtx) error {
		_, err := tx.Exec("INSERT INTO tables (name) VALUES (?) ON CONFLICT DO NOTHING", tableKey(table))
		return err
	})
	if err != nil {
		return fmt.Errorf("local: create table %s: %w", table, err)
	}
	return nil
}

// DeleteTable deletes the table and its entities (ErrNotFound if absent).
func (s *Store) DeleteTable(ctx context.Context, table string) error {
	if err := storage.ValidateTableName(table); err != nil {
		return fmt.Errorf("local: delete table: %w", err)
	}
	key := tableKey(table)
	err := s.write(ctx, func(tx *wtx) error {
		res, err := tx.Exec("DELETE FROM tables WHERE name = ?", key)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return storage.ErrNotFound
		}
		_, err = tx.Exec("DELETE FROM entities WHERE tbl = ?", key)
		return err
	})
	if err != nil {
		return fmt.Errorf("local: delete table %s: %w", table, err)
	}
	return nil
}

// GetEntity reads one entity (ErrNotFound if it or its table is absent).
func (s *Store) GetEntity(ctx context.Context, table, pk, rk string) (storage.Entity, error) {
	if err := validateEntityKeys(table, pk, rk); err != nil {
		return storage.Entity{}, fmt.Errorf("local: get entity: %w", err)
	}
	if err := s.checkOpen(); err != nil {
		return storage.Entity{}, err
	}
	key := tableKey(table)
	var (
		etag, props string
		ts          int64
	)
	err := s.rdb.QueryRowContext(ctx,
		"SELECT etag, ts, props FROM entities WHERE tbl = ? AND pk = ? AND rk = ?",
		key, pk, rk).Scan(&etag, &ts, &props)
	if errors.Is(err, sql.ErrNoRows) {
		err = s.missingEntity(ctx, key)
	}
	if err != nil {
		return storage.Entity{}, fmt.Errorf("local: get entity %s/%s/%s: %w", table, pk, rk, err)
	}
	e, err := makeEntity(pk, rk, etag, ts, props)
	if err != nil {
		return storage.Entity{}, fmt.Errorf("local: get entity %s/%s/%s: %w", table, pk, rk, err)
	}
	return e, nil
}

// missingEntity explains why an entity of table key was not found.
func (s *Store) missingEntity(ctx context.Context, key string) error {
	ok, err := exists(ctx, s.rdb, "SELECT 1 FROM tables WHERE name = ?", key)
	switch {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("no such table: %w", storage.ErrNotFound)
	}
	return fmt.Errorf("no such entity: %w", storage.ErrNotFound)
}

// InsertEntity fails with ErrExists if the row exists. It returns the ETag.
func (s *Store) InsertEntity(ctx context.Context, table string, e storage.Entity) (string, error) {
	return s.writeEntity(ctx, "insert", table, storage.OpInsert, e, "")
}

// UpsertEntity inserts or replaces the whole row. It returns the ETag.
func (s *Store) UpsertEntity(ctx context.Context, table string, e storage.Entity) (string, error) {
	return s.writeEntity(ctx, "upsert", table, storage.OpUpsert, e, "")
}

// UpdateEntity replaces an existing row that matches ifMatch.
func (s *Store) UpdateEntity(ctx context.Context, table string, e storage.Entity, ifMatch string) (string, error) {
	return s.writeEntity(ctx, "update", table, storage.OpUpdate, e, ifMatch)
}

// DeleteEntity deletes an existing row that matches ifMatch.
func (s *Store) DeleteEntity(ctx context.Context, table, pk, rk, ifMatch string) error {
	if err := validateEntityKeys(table, pk, rk); err != nil {
		return fmt.Errorf("local: delete entity: %w", err)
	}
	key := tableKey(table)
	e := storage.Entity{PartitionKey: pk, RowKey: rk}
	err := s.write(ctx, func(tx *wtx) error {
		_, err := s.applyOp(tx, key, storage.OpDelete, e, ifMatch)
		return err
	})
	if err != nil {
		return fmt.Errorf("local: delete entity %s/%s/%s: %w", table, pk, rk, err)
	}
	return nil
}

func (s *Store) writeEntity(ctx context.Context, verb, table string, kind storage.OpKind, e storage.Entity, ifMatch string) (string, error) {
	if err := storage.ValidateTableName(table); err != nil {
		return "", fmt.Errorf("local: %s entity: %w", verb, err)
	}
	if err := storage.ValidateEntity(e); err != nil {
		return "", fmt.Errorf("local: %s entity: %w", verb, err)
	}
	key := tableKey(table)
	var etag string
	err := s.write(ctx, func(tx *wtx) error {
		var err error
		etag, err = s.applyOp(tx, key, kind, e, ifMatch)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("local: %s entity %s/%s/%s: %w", verb, table, e.PartitionKey, e.RowKey, err)
	}
	return etag, nil
}

// Transact applies ops atomically: the writer runs the whole transaction
// inside one savepoint, so any failure rolls all of it back.
func (s *Store) Transact(ctx context.Context, table, pk string, ops []storage.TableOp) error {
	if err := storage.ValidateTableName(table); err != nil {
		return fmt.Errorf("local: transact: %w", err)
	}
	if err := storage.ValidateTransaction(pk, ops); err != nil {
		return fmt.Errorf("local: transact %s/%s: %w", table, pk, err)
	}
	key := tableKey(table)
	err := s.write(ctx, func(tx *wtx) error {
		for i, op := range ops {
			if _, err := s.applyOp(tx, key, op.Kind, op.Entity, op.IfMatch); err != nil {
				return fmt.Errorf("operation %d (%s %s): %w", i, opName(op.Kind), op.Entity.RowKey, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("local: transact %s/%s: %w", table, pk, err)
	}
	return nil
}

func opName(k storage.OpKind) string {
	switch k {
	case storage.OpInsert:
		return "insert"
	case storage.OpUpsert:
		return "upsert"
	case storage.OpUpdate:
		return "update"
	case storage.OpDelete:
		return "delete"
	}
	return fmt.Sprintf("op%d", int(k))
}

// applyOp runs one entity write in the writer's transaction and returns the
// new ETag ("" for a delete). key is the table's key; e has been validated.
func (s *Store) applyOp(tx *wtx, key string, kind storage.OpKind, e storage.Entity, ifMatch string) (string, error) {
	ctx := context.Background()
	ok, err := exists(ctx, tx, "SELECT 1 FROM tables WHERE name = ?", key)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("no such table: %w", storage.ErrNotFound)
	}

	if kind != storage.OpUpsert {
		var current string
		err := tx.QueryRow(
			"SELECT etag FROM entities WHERE tbl = ? AND pk = ? AND rk = ?",
			key, e.PartitionKey, e.RowKey).Scan(&current)
		found := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return "", err
		}
		switch {
		case kind == storage.OpInsert && found:
			return "", fmt.Errorf("entity exists: %w", storage.ErrExists)
		case kind == storage.OpInsert:
		case !found:
			return "", fmt.Errorf("no such entity: %w", storage.ErrNotFound)
		case !etagMatches(ifMatch, current):
			return "", fmt.Errorf("etag %s does not match %s: %w", current, ifMatch, storage.ErrPrecondition)
		}
	}

	if kind == storage.OpDelete {
		_, err := tx.Exec("DELETE FROM entities WHERE tbl = ? AND pk = ? AND rk = ?",
			key, e.PartitionKey, e.RowKey)
		return "", err
	}
	props, err := encodeProps(e.Properties)
	if err != nil {
		return "", fmt.Errorf("%w: %w", err, storage.ErrInvalid)
	}
	etag := newETag()
	_, err = tx.Exec(`INSERT INTO entities (tbl, pk, rk, etag, ts, props) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (tbl, pk, rk) DO UPDATE SET etag = excluded.etag, ts = excluded.ts, props = excluded.props`,
		key, e.PartitionKey, e.RowKey, etag, s.nowNanos(), props)
	if err != nil {
		return "", err
	}
	return etag, nil
}

// QueryPartition returns a page of partition pk's rows in RowKey order.
func (s *Store) QueryPartition(ctx context.Context, table, pk string, q storage.Query) (storage.EntityPage, error) {
	if err := storage.ValidateTableName(table); err != nil {
		return storage.EntityPage{}, fmt.Errorf("local: query: %w", err)
	}
	if err := storage.ValidateKey("PartitionKey", pk); err != nil {
		return storage.EntityPage{}, fmt.Errorf("local: query: %w", err)
	}
	if q.Top < 0 {
		return storage.EntityPage{}, fmt.Errorf("local: query %s/%s: top %d is negative: %w", table, pk, q.Top, storage.ErrInvalid)
	}
	top := q.Top
	if top == 0 || top > storage.MaxPageSize {
		top = storage.MaxPageSize
	}
	from := q.RowKeyFrom
	if q.Continuation != "" {
		next, err := decodeToken("continuation", q.Continuation)
		if err != nil {
			return storage.EntityPage{}, fmt.Errorf("local: query %s/%s: %w", table, pk, err)
		}
		from = max(from, next)
	}
	if err := s.checkOpen(); err != nil {
		return storage.EntityPage{}, err
	}

	key := tableKey(table)
	query := "SELECT rk, etag, ts, props FROM entities WHERE tbl = ? AND pk = ? AND rk >= ?"
	args := []any{key, pk, from}
	if q.RowKeyTo != "" {
		query += " AND rk < ?"
		args = append(args, q.RowKeyTo)
	}
	query += " ORDER BY rk LIMIT ?"
	args = append(args, top+1)

	page, err := s.queryEntities(ctx, pk, top, query, args...)
	if err == nil && len(page.Entities) == 0 {
		// An empty page may be an unknown table.
		var ok bool
		ok, err = exists(ctx, s.rdb, "SELECT 1 FROM tables WHERE name = ?", key)
		if err == nil && !ok {
			err = fmt.Errorf("no such table: %w", storage.ErrNotFound)
		}
	}
	if err != nil {
		return storage.EntityPage{}, fmt.Errorf("local: query %s/%s: %w", table, pk, err)
	}
	return page, nil
}

// QueryTable returns a page of the rows of the partitions in q's range, in
// (PartitionKey, RowKey) order.
func (s *Store) QueryTable(ctx context.Context, table string, q storage.TableQuery) (storage.EntityPage, error) {
	if err := storage.ValidateTableName(table); err != nil {
		return storage.EntityPage{}, fmt.Errorf("local: scan: %w", err)
	}
	if q.Top < 0 {
		return storage.EntityPage{}, fmt.Errorf("local: scan %s: top %d is negative: %w", table, q.Top, storage.ErrInvalid)
	}
	top := q.Top
	if top == 0 || top > storage.MaxPageSize {
		top = storage.MaxPageSize
	}
	key := tableKey(table)
	query := "SELECT pk, rk, etag, ts, props FROM entities WHERE tbl = ? AND pk >= ?"
	args := []any{key, q.PartitionFrom}
	if q.Continuation != "" {
		next, err := decodeToken("continuation", q.Continuation)
		if err != nil {
			return storage.EntityPage{}, fmt.Errorf("local: scan %s: %w", table, err)
		}
		// Keys hold no control characters, so \x1f separates them.
		npk, nrk, ok := strings.Cut(next, "\x1f")
		if !ok {
			return storage.EntityPage{}, fmt.Errorf("local: scan %s: continuation is malformed: %w", table, storage.ErrInvalid)
		}
		query += " AND (pk > ? OR (pk = ? AND rk >= ?))"
		args = append(args, npk, npk, nrk)
	}
	if q.PartitionTo != "" {
		query += " AND pk < ?"
		args = append(args, q.PartitionTo)
	}
	query += " ORDER BY pk, rk LIMIT ?"
	args = append(args, top+1)
	if err := s.checkOpen(); err != nil {
		return storage.EntityPage{}, err
	}
	page, err := s.scanEntities(ctx, top, query, args...)
	if err == nil && len(page.Entities) == 0 {
		var ok bool
		ok, err = exists(ctx, s.rdb, "SELECT 1 FROM tables WHERE name = ?", key)
		if err == nil && !ok {
			err = fmt.Errorf("no such table: %w", storage.ErrNotFound)
		}
	}
	if err != nil {
		return storage.EntityPage{}, fmt.Errorf("local: scan %s: %w", table, err)
	}
	return page, nil
}

// scanEntities is queryEntities for rows of several partitions.
func (s *Store) scanEntities(ctx context.Context, top int, query string, args ...any) (storage.EntityPage, error) {
	rows, err := s.rdb.QueryContext(ctx, query, args...)
	if err != nil {
		return storage.EntityPage{}, err
	}
	defer rows.Close()
	var page storage.EntityPage
	for rows.Next() {
		var (
			pk, rk, etag, props string
			ts                  int64
		)
		if err := rows.Scan(&pk, &rk, &etag, &ts, &props); err != nil {
			return storage.EntityPage{}, err
		}
		if len(page.Entities) == top {
			page.Continuation = encodeToken(pk + "\x1f" + rk)
			break
		}
		e, err := makeEntity(pk, rk, etag, ts, props)
		if err != nil {
			return storage.EntityPage{}, fmt.Errorf("row %s/%s: %w", pk, rk, err)
		}
		page.Entities = append(page.Entities, e)
	}
	if err := rows.Err(); err != nil {
		return storage.EntityPage{}, err
	}
	return page, nil
}

// queryEntities runs a query selecting rk, etag, ts, props of up to top+1
// rows, and makes a page of the first top with a continuation at the last.
func (s *Store) queryEntities(ctx context.Context, pk string, top int, query string, args ...any) (storage.EntityPage, error) {
	rows, err := s.rdb.QueryContext(ctx, query, args...)
	if err != nil {
		return storage.EntityPage{}, err
	}
	defer rows.Close()
	var page storage.EntityPage
	for rows.Next() {
		var (
			rk, etag, props string
			ts              int64
		)
		if err := rows.Scan(&rk, &etag, &ts, &props); err != nil {
			return storage.EntityPage{}, err
		}
		if len(page.Entities) == top {
			page.Continuation = encodeToken(rk)
			break
		}
		e, err := makeEntity(pk, rk, etag, ts, props)
		if err != nil {
			return storage.EntityPage{}, fmt.Errorf("row %s: %w", rk, err)
		}
		page.Entities = append(page.Entities, e)
	}
	if err := rows.Err(); err != nil {
		return storage.EntityPage{}, err
	}
	return page, nil
}

func makeEntity(pk, rk, etag string, ts int64, props string) (storage.Entity, error) {
	p, err := decodeProps(props)
	if err != nil {
		return storage.Entity{}, err
	}
	return storage.Entity{
		PartitionKey: pk,
		RowKey:       rk,
		Properties:   p,
		ETag:         etag,
		Timestamp:    fromNanos(ts),
	}, nil
}

func validateEntityKeys(table, pk, rk string) error {
	if err := storage.ValidateTableName(table); err != nil {
		return err
	}
	if err := storage.ValidateKey("PartitionKey", pk); err != nil {
		return err
	}
	return storage.ValidateKey("RowKey", rk)
}
