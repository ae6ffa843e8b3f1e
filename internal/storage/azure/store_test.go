package azure_test

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/azure"
)

// These tests cover what the contract suite leaves to the implementation:
// the encoding details of the Azure one.

// uniq returns a fresh table, container or queue name.
func uniq(prefix string) string { return prefix + strings.ToLower(rand.Text()[:16]) }

func newTable(t *testing.T) (storage.Storage, string) {
	t.Helper()
	s := newStore(t)
	name := uniq("t")
	if err := s.CreateTable(context.Background(), name); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	return s, name
}

// Keys with single quotes must survive every operation, including those of
// transactions, whose URLs the SDK does not escape.
func TestQuotedKeys(t *testing.T) {
	ctx := context.Background()
	s, tbl := newTable(t)
	const pk, rk = "O'Brien's", "it's 'quoted'"
	if _, err := s.InsertEntity(ctx, tbl, storage.Entity{PartitionKey: pk, RowKey: rk, Properties: map[string]any{"V": "insert"}}); err != nil {
		t.Fatalf("InsertEntity: %v", err)
	}
	e, err := s.GetEntity(ctx, tbl, pk, rk)
	if err != nil || e.PartitionKey != pk || e.RowKey != rk {
		t.Fatalf("GetEntity = %+v, %v", e, err)
	}
	ops := []storage.TableOp{
		{Kind: storage.OpUpdate, Entity: storage.Entity{PartitionKey: pk, RowKey: rk, Properties: map[string]any{"V": "update"}}, IfMatch: e.ETag},
		{Kind: storage.OpUpsert, Entity: storage.Entity{PartitionKey: pk, RowKey: "up'sert", Properties: map[string]any{"V": "upsert"}}},
		{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: pk, RowKey: "in'sert", Properties: map[string]any{"V": "insert"}}},
	}
	if err := s.Transact(ctx, tbl, pk, ops); err != nil {
		t.Fatalf("Transact: %v", err)
	}
	page, err := s.QueryPartition(ctx, tbl, pk, storage.Query{RowKeyFrom: "in'", RowKeyTo: "up'z"})
	if err != nil {
		t.Fatalf("QueryPartition: %v", err)
	}
	got := map[string]string{}
	for _, e := range page.Entities {
		if e.PartitionKey != pk {
			t.Errorf("PartitionKey = %q", e.PartitionKey)
		}
		got[e.RowKey] = e.String("V")
	}
	want := map[string]string{rk: "update", "up'sert": "upsert", "in'sert": "insert"}
	if len(got) != len(want) {
		t.Fatalf("query gave %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("row %q: V = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	del := []storage.TableOp{
		{Kind: storage.OpDelete, Entity: storage.Entity{PartitionKey: pk, RowKey: rk}},
		{Kind: storage.OpDelete, Entity: storage.Entity{PartitionKey: pk, RowKey: "up'sert"}},
	}
	if err := s.Transact(ctx, tbl, pk, del); err != nil {
		t.Fatalf("Transact deletes: %v", err)
	}
	if _, err := s.GetEntity(ctx, tbl, pk, rk); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("GetEntity after delete: %v", err)
	}
	if err := s.DeleteEntity(ctx, tbl, pk, "in'sert", ""); err != nil {
		t.Errorf("DeleteEntity: %v", err)
	}
}

// Times keep 100 ns; the failed operation of a transaction is named.
func TestTimesAndTransactionErrors(t *testing.T) {
	ctx := context.Background()
	s, tbl := newTable(t)
	when := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.FixedZone("x", 3600))
	if _, err := s.InsertEntity(ctx, tbl, storage.Entity{PartitionKey: "p", RowKey: "r", Properties: map[string]any{"T": when}}); err != nil {
		t.Fatalf("InsertEntity: %v", err)
	}
	e, err := s.GetEntity(ctx, tbl, "p", "r")
	if err != nil {
		t.Fatalf("GetEntity: %v", err)
	}
	if got, want := e.Time("T"), when.UTC().Truncate(100*time.Nanosecond); !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("T = %v, want %v in UTC", got, want)
	}
	err = s.Transact(ctx, tbl, "p", []storage.TableOp{
		{Kind: storage.OpUpsert, Entity: storage.Entity{PartitionKey: "p", RowKey: "a"}},
		{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: "p", RowKey: "r"}},
	})
	if !errors.Is(err, storage.ErrExists) || !strings.Contains(err.Error(), "operation 1 (row r)") {
		t.Errorf("Transact error = %v, want ErrExists naming operation 1", err)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.ErrorCode != "EntityAlreadyExists" {
		t.Errorf("Transact error has no EntityAlreadyExists response error: %v", err)
	}
	err = s.Transact(ctx, uniq("t"), "p", []storage.TableOp{{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: "p", RowKey: "a"}}})
	if !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Transact on a missing table: %v, want ErrNotFound", err)
	}
}

func TestQueryContinuation(t *testing.T) {
	s, tbl := newTable(t)
	_, err := s.QueryPartition(context.Background(), tbl, "p", storage.Query{Continuation: "not a token"})
	if !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("QueryPartition with a bad continuation: %v, want ErrInvalid", err)
	}
	_, err = s.QueryPartition(context.Background(), tbl, "p", storage.Query{Top: -1})
	if !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("QueryPartition with Top -1: %v, want ErrInvalid", err)
	}
}

// If-None-Match "*" over an existing blob is both a failed condition and an
// existing blob.
func TestPutBlobIfNoneMatch(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	c := uniq("c")
	if err := s.CreateContainer(ctx, c, true); err != nil {
		t.Fatalf("CreateContainer: %v", err)
	}
	if _, err := s.PutBlob(ctx, c, "b", []byte("1"), storage.PutOptions{}); err != nil {
		t.Fatalf("PutBlob: %v", err)
	}
	_, err := s.PutBlob(ctx, c, "b", []byte("2"), storage.PutOptions{IfNoneMatch: storage.ETagAny})
	if !errors.Is(err, storage.ErrPrecondition) || !errors.Is(err, storage.ErrExists) {
		t.Errorf("PutBlob if none match: %v, want ErrPrecondition and ErrExists", err)
	}
	page, err := s.ListBlobs(ctx, c, storage.ListOptions{MaxResults: -1})
	if !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("ListBlobs with MaxResults -1 = %v, %v; want ErrInvalid", page, err)
	}
}

// UpdateVisibility must not touch the body; Enqueue checks its options.
func TestQueueDetails(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	q := uniq("q")
	if err := s.CreateQueue(ctx, q); err != nil {
		t.Fatalf("CreateQueue: %v", err)
	}
	body := []byte{0, 1, 2, 0xff, '<', '&'}
	if _, err := s.Enqueue(ctx, q, body, storage.EnqueueOptions{}); err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	msgs, err := s.Dequeue(ctx, q, 1, time.Minute)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("Dequeue = %v, %v", msgs, err)
	}
	for i := 0; i < 2; i++ {
		r, err := s.UpdateVisibility(ctx, q, msgs[0].ID, msgs[0].PopReceipt, 0)
		if err != nil {
			t.Fatalf("UpdateVisibility: %v", err)
		}
		msgs, err = s.Dequeue(ctx, q, 1, time.Minute)
		if err != nil || len(msgs) != 1 || string(msgs[0].Data) != string(body) {
			t.Fatalf("Dequeue after UpdateVisibility (receipt %s) = %+v, %v; want body %q", r, msgs, err, body)
		}
	}
	for _, o := range []storage.EnqueueOptions{{Delay: -time.Second}, {Delay: 8 * 24 * time.Hour}, {TTL: time.Second, Delay: 2 * time.Second}} {
		if _, err := s.Enqueue(ctx, q, body, o); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("Enqueue with %+v: %v, want ErrInvalid", o, err)
		}
	}
	if _, err := s.UpdateVisibility(ctx, q, msgs[0].ID, msgs[0].PopReceipt, -time.Second); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("UpdateVisibility -1s: %v, want ErrInvalid", err)
	}
}

func TestConfig(t *testing.T) {
	for _, cfg := range []azure.Config{{}, {ConnectionString: "x", AccountName: "y"}} {
		if _, err := azure.New(cfg); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("New(%+v): %v, want ErrInvalid", cfg, err)
		}
	}
	if _, err := azure.New(azure.Config{ConnectionString: "garbage"}); err == nil {
		t.Error("New with a malformed connection string succeeded")
	}
}
