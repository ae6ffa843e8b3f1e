package migrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/local"
)

// Row compares one table, container or queue of the source and the
// destination. Dest is -1 when the destination has no such table,
// container or queue.
type Row struct {
	Kind         string // "table", "container" or "queue"
	Name         string
	Source, Dest int64 // entities, blobs or messages
	// SourceBytes and DestBytes are the bytes of a container's blobs.
	SourceBytes, DestBytes int64
	// Duplicates is how many of a queue's messages a crash between an
	// enqueue and its checkpoint may have copied twice.
	Duplicates int64
}

// OK reports whether the destination holds what the source holds: the
// same counts, or for a queue at most Duplicates more.
func (r Row) OK() bool {
	if r.Kind == "queue" {
		return r.Dest >= r.Source && r.Dest-r.Source <= r.Duplicates
	}
	return r.Source == r.Dest && r.SourceBytes == r.DestBytes
}

// Report is the comparison of a source and a destination.
type Report []Row

// OK reports whether every row matches.
func (r Report) OK() bool {
	for _, row := range r {
		if !row.OK() {
			return false
		}
	}
	return true
}

// Print writes the report as a table.
func (r Report) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "KIND\tNAME\tSOURCE\tDESTINATION\tSOURCE BYTES\tDESTINATION BYTES\t\t")
	for _, row := range r {
		dest, destBytes := fmt.Sprint(row.Dest), fmt.Sprint(row.DestBytes)
		if row.Dest < 0 {
			dest, destBytes = "missing", "-"
		}
		srcBytes := fmt.Sprint(row.SourceBytes)
		if row.Kind != "container" {
			srcBytes, destBytes = "", ""
		}
		mark := "ok"
		switch {
		case !row.OK():
			mark = "DIFFERENT"
		case row.Dest > row.Source:
			mark = fmt.Sprintf("ok (%d copied twice by a crash)", row.Dest-row.Source)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t\n", row.Kind, row.Name, row.Source, dest, srcBytes, destBytes, mark)
	}
	return tw.Flush()
}

// Verify counts the entities of each table, the blobs and bytes of each
// container and the messages of each queue of src, and the same in dst.
// Queue counts at the destination are Azure's approximate counts, which
// are exact while nothing else uses the queue; dups (from
// PossibleDuplicates, or nil) allows a queue the messages a crash may have
// copied twice.
func Verify(ctx context.Context, src *local.Snapshot, dst storage.Storage, dups map[string]int64) (Report, error) {
	counts, err := src.Counts(ctx)
	if err != nil {
		return nil, err
	}
	var r Report
	tables, err := src.Tables(ctx)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		n, err := countEntities(ctx, dst, t)
		if err != nil {
			return nil, err
		}
		r = append(r, Row{Kind: "table", Name: t, Source: counts.Entities[t], Dest: n})
	}
	containers, err := src.Containers(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range containers {
		n, bytes, err := countBlobs(ctx, dst, c.Name)
		if err != nil {
			return nil, err
		}
		r = append(r, Row{Kind: "container", Name: c.Name, Source: counts.Blobs[c.Name], SourceBytes: counts.BlobBytes[c.Name], Dest: n, DestBytes: bytes})
	}
	queues, err := src.Queues(ctx)
	if err != nil {
		return nil, err
	}
	for _, q := range queues {
		n, err := dst.ApproximateCount(ctx, q)
		switch {
		case errors.Is(err, storage.ErrNotFound):
			n = -1
		case err != nil:
			return nil, fmt.Errorf("migrate: count queue %s: %w", q, err)
		}
		r = append(r, Row{Kind: "queue", Name: q, Source: counts.Messages[q], Dest: int64(n), Duplicates: dups[q]})
	}
	return r, nil
}

func countEntities(ctx context.Context, dst storage.Storage, table string) (int64, error) {
	var n int64
	q := storage.TableQuery{}
	for {
		page, err := dst.QueryTable(ctx, table, q)
		if errors.Is(err, storage.ErrNotFound) {
			return -1, nil
		}
		if err != nil {
			return 0, fmt.Errorf("migrate: count table %s: %w", table, err)
		}
		n += int64(len(page.Entities))
		if page.Continuation == "" {
			return n, nil
		}
		q.Continuation = page.Continuation
	}
}

func countBlobs(ctx context.Context, dst storage.Storage, container string) (n, bytes int64, err error) {
	o := storage.ListOptions{}
	for {
		page, err := dst.ListBlobs(ctx, container, o)
		if errors.Is(err, storage.ErrNotFound) {
			return -1, -1, nil
		}
		if err != nil {
			return 0, 0, fmt.Errorf("migrate: count container %s: %w", container, err)
		}
		for _, b := range page.Items {
			n++
			bytes += b.Size
		}
		if page.NextMarker == "" {
			return n, bytes, nil
		}
		o.Marker = page.NextMarker
	}
}
