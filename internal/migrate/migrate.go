// Package migrate copies an embedded store (a local.Snapshot) to another
// storage account, through the storage.Storage interface only: every table
// with its entities, every container (public or not) with its blobs, every
// queue with its messages, invisible ones included. A migration is
// resumable: a checkpoint file records what was copied, so that a run
// interrupted at any point and run again completes without copying a blob
// or a message twice (entities are upserts, which are idempotent anyway).
//
// One case cannot be made exact: a crash after a message is enqueued and
// before the checkpoint records it. The next run enqueues the message
// again, so the destination holds it twice. Messages must therefore be
// idempotent for their consumers; the answers worker is (see
// store.MoveAnswerMessage and the tests).
package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/local"
)

// MovedFunc is told that the message fromID of queue is now the message
// toID of the destination, after the enqueue and before the checkpoint
// records it. It lets the application rename the references it keeps to
// message IDs (the answers worker's), and must be idempotent.
type MovedFunc func(ctx context.Context, dst storage.Storage, queue, fromID, toID string, data []byte) error

// Options configure Copy.
type Options struct {
	// Checkpoint is the path of the checkpoint file (created if missing).
	Checkpoint string
	// Destination names the destination (e.g. its account), recorded in
	// the checkpoint so that it is never used for another destination.
	Destination string
	// Moved, when set, is called for every message copied.
	Moved MovedFunc
	// Progress, when set, receives a line per table, container and queue.
	Progress io.Writer
	// Now is the clock for the messages' remaining time to live.
	Now func() time.Time
}

// Copied counts what one Copy wrote, and what it found already copied.
type Copied struct {
	Entities, Blobs, Messages                    int64
	SkippedTables, SkippedBlobs, SkippedMessages int64
}

// maxBatchBytes bounds the properties of one entity transaction, well
// under Azure's 4 MiB per batch request.
const maxBatchBytes = 2 << 20

// Copy copies src to dst. Run again after an error, with the same
// checkpoint, it carries on where the last run stopped. The containers,
// and the blobs in them, are copied before the queues, so that a message's
// consumer finds the blobs it refers to.
func Copy(ctx context.Context, src *local.Snapshot, dst storage.Storage, o Options) (Copied, error) {
	var c Copied
	if o.Now == nil {
		o.Now = time.Now
	}
	cp, err := openCheckpoint(o.Checkpoint, o.Destination)
	if err != nil {
		return c, err
	}
	defer cp.Close()
	progress := func(format string, args ...any) {
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, format+"\n", args...)
		}
	}

	tables, err := src.Tables(ctx)
	if err != nil {
		return c, err
	}
	for _, table := range tables {
		if cp.tables[table] {
			c.SkippedTables++
			continue
		}
		n, err := copyTable(ctx, src, dst, table)
		c.Entities += n
		if err != nil {
			return c, err
		}
		if err := cp.add("table", table); err != nil {
			return c, err
		}
		progress("table %s: %d entities", table, n)
	}

	containers, err := src.Containers(ctx)
	if err != nil {
		return c, err
	}
	for _, ct := range containers {
		if err := dst.CreateContainer(ctx, ct.Name, ct.Public); err != nil {
			return c, fmt.Errorf("migrate: create container %s: %w", ct.Name, err)
		}
		n, err := copyBlobs(ctx, src, dst, ct.Name, cp, &c)
		if err != nil {
			return c, err
		}
		progress("container %s: %d blobs copied", ct.Name, n)
	}

	queues, err := src.Queues(ctx)
	if err != nil {
		return c, err
	}
	for _, q := range queues {
		if err := dst.CreateQueue(ctx, q); err != nil {
			return c, fmt.Errorf("migrate: create queue %s: %w", q, err)
		}
		var n int64
		err := src.Messages(ctx, q, func(m local.QueuedMessage) error {
			if _, done := cp.messages[q+"/"+m.ID]; done {
				c.SkippedMessages++
				return nil
			}
			opts, ok := enqueueOptions(m, o.Now())
			if !ok {
				return nil // expired meanwhile
			}
			if err := cp.add("sending", q, m.ID); err != nil {
				return err
			}
			id, err := dst.Enqueue(ctx, q, m.Data, opts)
			if err != nil {
				return fmt.Errorf("migrate: enqueue message %s of %s: %w", m.ID, q, err)
			}
			// A crash here leaves the message unrecorded: the next run
			// enqueues it again (see the package comment).
			if o.Moved != nil {
				if err := o.Moved(ctx, dst, q, m.ID, id, m.Data); err != nil {
					return fmt.Errorf("migrate: message %s of %s: %w", m.ID, q, err)
				}
			}
			c.Messages++
			n++
			return cp.add("message", q, m.ID, id)
		})
		if err != nil {
			return c, err
		}
		progress("queue %s: %d messages copied", q, n)
	}
	return c, nil
}

// blobWriters is how many blobs are put at once: a put is a round trip,
// and an account takes many in parallel.
const blobWriters = 8

// copyBlobs puts the blobs of container not yet recorded in cp, several at
// a time, recording each once written.
func copyBlobs(ctx context.Context, src *local.Snapshot, dst storage.Storage, container string, cp *checkpoint, c *Copied) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex // guards n, c and first
		n     int64
		first error
		slots = make(chan struct{}, blobWriters)
	)
	fail := func(err error) {
		mu.Lock()
		if first == nil {
			first = err
			cancel()
		}
		mu.Unlock()
	}
	err := src.Blobs(ctx, container, func(b local.BlobInfo, data []byte) error {
		if err := ctx.Err(); err != nil {
			return err // a put failed
		}
		sum := sha256.Sum256(data)
		hash := hex.EncodeToString(sum[:])
		if cp.blob(b.Container, b.Name) == hash {
			mu.Lock()
			c.SkippedBlobs++
			mu.Unlock()
			return nil
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		wg.Go(func() {
			defer func() { <-slots }()
			if _, err := dst.PutBlob(ctx, b.Container, b.Name, data, storage.PutOptions{ContentType: b.ContentType}); err != nil {
				fail(fmt.Errorf("migrate: put blob %s/%s: %w", b.Container, b.Name, err))
				return
			}
			if err := cp.add("blob", b.Container, b.Name, hash); err != nil {
				fail(err)
				return
			}
			mu.Lock()
			c.Blobs++
			n++
			mu.Unlock()
		})
		return nil
	})
	wg.Wait()
	if first != nil {
		return n, first
	}
	return n, err
}

// enqueueOptions keeps a message's remaining time to live, and the
// remaining delay of a message enqueued with one. A message made invisible
// by a delivery (its DequeueCount is not 0) is visible at once at the
// destination: the process that took it is gone (the source is a stopped
// server or a backup), and the message is not done. ok is false when the
// message has expired.
func enqueueOptions(m local.QueuedMessage, now time.Time) (o storage.EnqueueOptions, ok bool) {
	o.TTL = -1 // never expires
	if !m.ExpiresAt.IsZero() {
		o.TTL = m.ExpiresAt.Sub(now).Truncate(time.Second)
		if o.TTL <= 0 {
			return o, false
		}
	}
	if m.DequeueCount == 0 && m.VisibleAt.After(now) {
		o.Delay = min(m.VisibleAt.Sub(now).Round(time.Second), storage.MaxVisibility)
		if o.TTL > 0 && o.Delay >= o.TTL {
			o.Delay = 0
		}
	}
	return o, true
}

// copyTable upserts every entity of table, a partition at a time in
// transactions of up to storage.MaxTransactionOps entities.
func copyTable(ctx context.Context, src *local.Snapshot, dst storage.Storage, table string) (int64, error) {
	if err := dst.CreateTable(ctx, table); err != nil {
		return 0, fmt.Errorf("migrate: create table %s: %w", table, err)
	}
	var (
		n     int64
		ops   []storage.TableOp
		bytes int
	)
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		pk := ops[0].Entity.PartitionKey
		if err := dst.Transact(ctx, table, pk, ops); err != nil {
			return fmt.Errorf("migrate: table %s, partition %q: %w", table, pk, err)
		}
		n += int64(len(ops))
		ops, bytes = ops[:0], 0
		return nil
	}
	err := src.Entities(ctx, table, func(e storage.Entity) error {
		size := entitySize(e)
		if len(ops) > 0 && (ops[0].Entity.PartitionKey != e.PartitionKey || len(ops) == storage.MaxTransactionOps || bytes+size > maxBatchBytes) {
			if err := flush(); err != nil {
				return err
			}
		}
		e.ETag, e.Timestamp = "", time.Time{}
		ops = append(ops, storage.TableOp{Kind: storage.OpUpsert, Entity: e})
		bytes += size
		return nil
	})
	if err != nil {
		return n, err
	}
	return n, flush()
}

// entitySize is about the size of an entity on the wire.
func entitySize(e storage.Entity) int {
	size := len(e.PartitionKey) + len(e.RowKey) + 64
	for name, v := range e.Properties {
		size += len(name) + 32
		switch v := v.(type) {
		case string:
			size += 2 * len(v)
		case []byte:
			size += 2 * len(v)
		}
	}
	return size
}
