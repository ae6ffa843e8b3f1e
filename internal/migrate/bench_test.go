package migrate_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/migrate"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/azure"
	"github.com/surveys-dev/surveys/internal/storage/azure/azuritetest"
	"github.com/surveys-dev/surveys/internal/storage/local"
)

// BenchmarkCopyToAzurite copies an embedded store of 5,000 entities in 10
// partitions, 2,000 blobs of 800 bytes and 500 queued messages to Azurite,
// then verifies the counts and runs the copy again (everything already
// recorded in the checkpoint). It reports each step's seconds.
func BenchmarkCopyToAzurite(b *testing.B) {
	ctx := context.Background()
	dst, err := azure.New(azure.Config{ConnectionString: azuritetest.ConnectionString()})
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Close()
	var copyS, verifyS, againS float64
	for range b.N {
		b.StopTimer()
		path := benchSource(b)
		snap, err := local.OpenSnapshot(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		o := migrate.Options{Checkpoint: path + ".checkpoint", Destination: "azurite"}
		b.StartTimer()

		start := time.Now()
		if _, err := migrate.Copy(ctx, snap, dst, o); err != nil {
			b.Fatal(err)
		}
		copyS += time.Since(start).Seconds()
		start = time.Now()
		report, err := migrate.Verify(ctx, snap, dst, nil)
		if err != nil || !report.OK() {
			b.Fatalf("Verify = %+v, %v", report, err)
		}
		verifyS += time.Since(start).Seconds()
		start = time.Now()
		again, err := migrate.Copy(ctx, snap, dst, o)
		if err != nil || again.Entities+again.Blobs+again.Messages != 0 {
			b.Fatalf("second Copy = %+v, %v; want nothing copied again", again, err)
		}
		againS += time.Since(start).Seconds()
		snap.Close()
	}
	n := float64(b.N)
	b.ReportMetric(copyS/n, "copy-s")
	b.ReportMetric(verifyS/n, "verify-s")
	b.ReportMetric(againS/n, "rerun-s")
	b.ReportMetric(7500*n/copyS, "items/s")
}

// benchSource writes the benchmark's store, under names of its own, and
// returns its path.
func benchSource(b *testing.B) string {
	b.Helper()
	ctx := context.Background()
	p := "b" + strings.ToLower(rand.Text()[:8])
	path := filepath.Join(b.TempDir(), "surveys.db")
	s, err := local.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	table, container, queue := p+"rows", p+"-blobs", p+"-work"
	if err := s.CreateTable(ctx, table); err != nil {
		b.Fatal(err)
	}
	for part := range 10 {
		pk := fmt.Sprint("part", part)
		for batch := range 5 {
			ops := make([]storage.TableOp, 0, 100)
			for i := range 100 {
				ops = append(ops, storage.TableOp{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: pk,
					RowKey: fmt.Sprintf("row%05d", batch*100+i), Properties: map[string]any{"Title": "a survey's title", "N": int64(i)}}})
			}
			if err := s.Transact(ctx, table, pk, ops); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := s.CreateContainer(ctx, container, false); err != nil {
		b.Fatal(err)
	}
	body := bytes.Repeat([]byte("x"), 800)
	for i := range 2000 {
		if _, err := s.PutBlob(ctx, container, fmt.Sprintf("answer-%05d", i), body, storage.PutOptions{ContentType: "application/json"}); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.CreateQueue(ctx, queue); err != nil {
		b.Fatal(err)
	}
	for i := range 500 {
		if _, err := s.Enqueue(ctx, queue, []byte(fmt.Sprint("message ", i)), storage.EnqueueOptions{TTL: time.Hour}); err != nil {
			b.Fatal(err)
		}
	}
	return path
}
