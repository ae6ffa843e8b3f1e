package local

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/surveys-dev/surveys/internal/storage"
)

// defaultContentType is the content type of blobs put without one.
const defaultContentType = "application/octet-stream"

// CreateContainer creates a container; it succeeds if it already exists,
// and then leaves its public flag unchanged (as Azure does).
func (s *Store) CreateContainer(ctx context.Context, container string, public bool) error {
	if err := storage.ValidateContainerName(container); err != nil {
		return fmt.Errorf("local: create container: %w", err)
	}
	err := s.write(ctx, func(tx *wtx) error {
		_, err := tx.Exec("INSERT INTO containers (name, public) VALUES (?, ?) ON CONFLICT DO NOTHING",
			container, public)
		return err
	})
	if err != nil {
		return fmt.Errorf("local: create container %s: %w", container, err)
	}
	return nil
}

// DeleteContainer deletes a container and its blobs (ErrContainerNotFound,
// which is an ErrNotFound, if absent).
func (s *Store) DeleteContainer(ctx context.Context, container string) error {
	if err := storage.ValidateContainerName(container); err != nil {
		return fmt.Errorf("local: delete container: %w", err)
	}
	err := s.write(ctx, func(tx *wtx) error {
		res, err := tx.Exec("DELETE FROM containers WHERE name = ?", container)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return storage.ErrContainerNotFound
		}
		_, err = tx.Exec("DELETE FROM blobs WHERE container = ?", container)
		return err
	})
	if err != nil {
		return fmt.Errorf("local: delete container %s: %w", container, err)
	}
	return nil
}

// ContainerIsPublic reports whether the container's blobs may be read
// anonymously (ErrContainerNotFound if it does not exist).
func (s *Store) ContainerIsPublic(ctx context.Context, container string) (bool, error) {
	if err := storage.ValidateContainerName(container); err != nil {
		return false, fmt.Errorf("local: container is public: %w", err)
	}
	if err := s.checkOpen(); err != nil {
		return false, err
	}
	var public bool
	err := s.rdb.QueryRowContext(ctx, "SELECT public FROM containers WHERE name = ?", container).Scan(&public)
	if errors.Is(err, sql.ErrNoRows) {
		err = storage.ErrContainerNotFound
	}
	if err != nil {
		return false, fmt.Errorf("local: container is public %s: %w", container, err)
	}
	return public, nil
}

// PutBlob writes a whole blob under o's conditions and returns its ETag.
func (s *Store) PutBlob(ctx context.Context, container, name string, data []byte, o storage.PutOptions) (string, error) {
	if err := validateBlob(container, name); err != nil {
		return "", fmt.Errorf("local: put blob: %w", err)
	}
	contentType := o.ContentType
	if contentType == "" {
		contentType = defaultContentType
	}
	if data == nil {
		data = []byte{}
	}
	var etag string
	err := s.write(ctx, func(tx *wtx) error {
		if o.IfMatch == "" && o.IfNoneMatch == storage.ETagAny {
			// A new blob (every answer filed): the insert is the
			// check, one statement where the checks and the write were
			// two. It inserts nothing when the container is missing or
			// the blob exists; the checks below then say which.
			etag = newETag()
			res, err := tx.Exec(`INSERT INTO blobs (container, name, etag, modified, content_type, size, data)
				SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 WHERE EXISTS (SELECT 1 FROM containers WHERE name = ?1)
				ON CONFLICT (container, name) DO NOTHING`,
				container, name, etag, s.nowNanos(), contentType, len(data), data)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 1 {
				return err
			}
		}
		if o.IfMatch == "" && o.IfNoneMatch == "" {
			ok, err := exists(context.Background(), tx, "SELECT 1 FROM containers WHERE name = ?", container)
			if err != nil {
				return err
			}
			if !ok {
				return storage.ErrContainerNotFound
			}
		} else {
			// The container and the blob's ETag in one statement: a
			// conditional put (every answer filed) runs two, not three.
			var (
				ok      bool
				current sql.NullString
			)
			err := tx.QueryRow("SELECT EXISTS (SELECT 1 FROM containers WHERE name = ?1), (SELECT etag FROM blobs WHERE container = ?1 AND name = ?2)",
				container, name).Scan(&ok, &current)
			if err != nil {
				return err
			}
			if !ok {
				return storage.ErrContainerNotFound
			}
			if err := checkPutConditions(o, current.Valid, current.String); err != nil {
				return err
			}
		}
		etag = newETag()
		_, err := tx.Exec(`INSERT INTO blobs (container, name, etag, modified, content_type, size, data)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (container, name) DO UPDATE SET etag = excluded.etag, modified = excluded.modified,
				content_type = excluded.content_type, size = excluded.size, data = excluded.data`,
			container, name, etag, s.nowNanos(), contentType, len(data), data)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("local: put blob %s/%s: %w", container, name, err)
	}
	return etag, nil
}

// checkPutConditions applies PutBlob's If-Match and If-None-Match to the
// blob's current state.
func checkPutConditions(o storage.PutOptions, found bool, current string) error {
	if o.IfMatch != "" {
		if !found {
			return fmt.Errorf("if-match %s: no such blob: %w", o.IfMatch, storage.ErrPrecondition)
		}
		if !etagMatches(o.IfMatch, current) {
			return fmt.Errorf("if-match %s: etag is %s: %w", o.IfMatch, current, storage.ErrPrecondition)
		}
	}
	if o.IfNoneMatch != "" && found && (o.IfNoneMatch == storage.ETagAny || o.IfNoneMatch == current) {
		return fmt.Errorf("if-none-match %s: blob exists: %w", o.IfNoneMatch, storage.ErrPrecondition)
	}
	return nil
}

// GetBlob reads a blob (ErrNotFound, or ErrContainerNotFound).
func (s *Store) GetBlob(ctx context.Context, container, name string) (storage.Blob, error) {
	if err := validateBlob(container, name); err != nil {
		return storage.Blob{}, fmt.Errorf("local: get blob: %w", err)
	}
	if err := s.checkOpen(); err != nil {
		return storage.Blob{}, err
	}
	var (
		b        storage.Blob
		modified int64
	)
	err := s.rdb.QueryRowContext(ctx,
		"SELECT data, content_type, etag, modified FROM blobs WHERE container = ? AND name = ?",
		container, name).Scan(&b.Data, &b.ContentType, &b.ETag, &modified)
	if errors.Is(err, sql.ErrNoRows) {
		err = s.missingBlob(ctx, container)
	}
	if err != nil {
		return storage.Blob{}, fmt.Errorf("local: get blob %s/%s: %w", container, name, err)
	}
	if b.Data == nil {
		b.Data = []byte{}
	}
	b.LastModified = fromNanos(modified)
	return b, nil
}

// GetBlobInto is GetBlob with the blob's data copied into buf
// (storage.BlobIntoReader): the driver's copy is the only new memory
// (GetBlob's database/sql makes a second).
func (s *Store) GetBlobInto(ctx context.Context, container, name string, buf []byte) (storage.Blob, error) {
	if err := validateBlob(container, name); err != nil {
		return storage.Blob{}, fmt.Errorf("local: get blob: %w", err)
	}
	if err := s.checkOpen(); err != nil {
		return storage.Blob{}, err
	}
	b, err := s.getBlobInto(ctx, container, name, buf)
	if err != nil {
		return storage.Blob{}, fmt.Errorf("local: get blob %s/%s: %w", container, name, err)
	}
	return b, nil
}

func (s *Store) getBlobInto(ctx context.Context, container, name string, buf []byte) (storage.Blob, error) {
	rows, err := s.rdb.QueryContext(ctx,
		"SELECT data, content_type, etag, modified FROM blobs WHERE container = ? AND name = ?",
		container, name)
	if err != nil {
		return storage.Blob{}, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return storage.Blob{}, err
		}
		rows.Close() // its connection back before the next query
		return storage.Blob{}, s.missingBlob(ctx, container)
	}
	var (
		b        storage.Blob
		data     sql.RawBytes // valid until rows.Close: copied now
		modified int64
	)
	if err := rows.Scan(&data, &b.ContentType, &b.ETag, &modified); err != nil {
		return storage.Blob{}, err
	}
	b.Data = append(buf[:0], data...)
	if b.Data == nil {
		b.Data = []byte{}
	}
	b.LastModified = fromNanos(modified)
	return b, rows.Close()
}

// missingBlob explains why a blob of container was not found.
func (s *Store) missingBlob(ctx context.Context, container string) error {
	ok, err := exists(ctx, s.rdb, "SELECT 1 FROM containers WHERE name = ?", container)
	switch {
	case err != nil:
		return err
	case !ok:
		return storage.ErrContainerNotFound
	}
	return fmt.Errorf("no such blob: %w", storage.ErrNotFound)
}

// DeleteBlob deletes a blob that matches ifMatch.
func (s *Store) DeleteBlob(ctx context.Context, container, name, ifMatch string) error {
	if err := validateBlob(container, name); err != nil {
		return fmt.Errorf("local: delete blob: %w", err)
	}
	err := s.write(ctx, func(tx *wtx) error {
		var current string
		err := tx.QueryRow("SELECT etag FROM blobs WHERE container = ? AND name = ?", container, name).Scan(&current)
		if errors.Is(err, sql.ErrNoRows) {
			ok, err := exists(context.Background(), tx, "SELECT 1 FROM containers WHERE name = ?", container)
			switch {
			case err != nil:
				return err
			case !ok:
				return storage.ErrContainerNotFound
			}
			return fmt.Errorf("no such blob: %w", storage.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if !etagMatches(ifMatch, current) {
			return fmt.Errorf("if-match %s: etag is %s: %w", ifMatch, current, storage.ErrPrecondition)
		}
		_, err = tx.Exec("DELETE FROM blobs WHERE container = ? AND name = ?", container, name)
		return err
	})
	if err != nil {
		return fmt.Errorf("local: delete blob %s/%s: %w", container, name, err)
	}
	return nil
}

// ListBlobs lists a container's blobs in byte-wise name order.
func (s *Store) ListBlobs(ctx context.Context, container string, o storage.ListOptions) (storage.BlobPage, error) {
	if err := storage.ValidateContainerName(container); err != nil {
		return storage.BlobPage{}, fmt.Errorf("local: list blobs: %w", err)
	}
	if o.MaxResults < 0 {
		return storage.BlobPage{}, fmt.Errorf("local: list blobs %s: max results %d is negative: %w",
			container, o.MaxResults, storage.ErrInvalid)
	}
	limit := o.MaxResults
	if limit == 0 || limit > storage.MaxListResults {
		limit = storage.MaxListResults
	}
	from := o.Prefix
	if o.Marker != "" {
		next, err := decodeToken("marker", o.Marker)
		if err != nil {
			return storage.BlobPage{}, fmt.Errorf("local: list blobs %s: %w", container, err)
		}
		from = max(from, next)
	}
	if err := s.checkOpen(); err != nil {
		return storage.BlobPage{}, err
	}

	// The container check and the listing share one snapshot.
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return storage.BlobPage{}, fmt.Errorf("local: list blobs %s: %w", container, err)
	}
	defer tx.Rollback()
	page, err := listBlobs(ctx, tx, container, o.Prefix, from, limit)
	if err != nil {
		return storage.BlobPage{}, fmt.Errorf("local: list blobs %s: %w", container, err)
	}
	return page, nil
}

func listBlobs(ctx context.Context, tx *sql.Tx, container, prefix, from string, limit int) (storage.BlobPage, error) {
	ok, err := exists(ctx, tx, "SELECT 1 FROM containers WHERE name = ?", container)
	if err != nil {
		return storage.BlobPage{}, err
	}
	if !ok {
		return storage.BlobPage{}, storage.ErrContainerNotFound
	}
	// Names are compared as bytes (SQLite's BINARY collation), so the
	// names with the prefix are a contiguous run starting at the prefix.
	rows, err := tx.QueryContext(ctx,
		"SELECT name, size, etag, modified FROM blobs WHERE container = ? AND name >= ? ORDER BY name LIMIT ?",
		container, from, limit+1)
	if err != nil {
		return storage.BlobPage{}, err
	}
	defer rows.Close()
	var page storage.BlobPage
	for rows.Next() {
		var (
			it       storage.BlobItem
			modified int64
		)
		if err := rows.Scan(&it.Name, &it.Size, &it.ETag, &modified); err != nil {
			return storage.BlobPage{}, err
		}
		if !strings.HasPrefix(it.Name, prefix) {
			break
		}
		if len(page.Items) == limit {
			page.NextMarker = encodeToken(it.Name)
			break
		}
		it.LastModified = fromNanos(modified)
		page.Items = append(page.Items, it)
	}
	if err := rows.Err(); err != nil {
		return storage.BlobPage{}, err
	}
	return page, nil
}

func validateBlob(container, name string) error {
	if err := storage.ValidateContainerName(container); err != nil {
		return err
	}
	return storage.ValidateBlobName(name)
}
