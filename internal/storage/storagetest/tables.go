package storagetest

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
)

// runTables is the contract of storage.Tables, a subtest per aspect, each
// on a table of its own.
func runTables(t *testing.T, newStorage func(t *testing.T) storage.Storage) {
	// onTable runs test on a storage and a fresh, created table.
	onTable := func(test func(t *testing.T, s storage.Tables, tbl string)) func(t *testing.T) {
		return func(t *testing.T) {
			s := newStorage(t)
			name := tableName()
			noErr(t, "CreateTable", s.CreateTable(ctx(t), name))
			test(t, s, name)
		}
	}
	// Entities, one at a time.
	t.Run("RoundTripTypes", onTable(tableRoundTripTypes))
	t.Run("NotFound", onTable(tableNotFound))
	t.Run("CreateTableTwice", onTable(tableCreateTwice))
	t.Run("InsertExisting", onTable(tableInsertExisting))
	t.Run("UpsertReplaces", onTable(tableUpsertReplaces))
	// Conditional writes.
	t.Run("ETags", onTable(tableETags))
	t.Run("ConcurrentWriters", onTable(tableConcurrentWriters))
	// Queries and their pages.
	t.Run("QueryPartition", onTable(tableQueryPartition))
	t.Run("QueryTable", onTable(tableQueryTable))
	// Transactions.
	t.Run("Transactions", onTable(tableTransactions))
	// What names, keys and properties are valid.
	t.Run("Names", func(t *testing.T) { tableNames(t, newStorage(t)) })
}

// tableRoundTripTypes checks that an inserted entity reads back with
// every property type (string, int64, bool, time, bytes, empty string)
// intact, its ETag and a timestamp, and that the typed accessors agree.
func tableRoundTripTypes(t *testing.T, s storage.Tables, tbl string) {
	when := time.Date(2026, 12, 2, 16, 54, 30, 123_000_000, time.UTC)
	in := storage.Entity{PartitionKey: "adatum", RowKey: "adatum_survey-1", Properties: map[string]any{
		"Title":   "Ünïcode — title ✓ 'quoted' \"double\"",
		"Count":   int64(1) << 53,
		"Neg":     int64(-42),
		"Open":    true,
		"Closed":  false,
		"Created": when,
		"Raw":     []byte{0, 1, 2, 255},
		"Empty":   "",
	}}
	etag, err := s.InsertEntity(ctx(t), tbl, in)
	noErr(t, "InsertEntity", err)
	if etag == "" {
		t.Fatal("InsertEntity returned an empty ETag")
	}
	got, err := s.GetEntity(ctx(t), tbl, "adatum", "adatum_survey-1")
	noErr(t, "GetEntity", err)
	if got.ETag != etag {
		t.Errorf("ETag = %q, want %q", got.ETag, etag)
	}
	if got.Timestamp.IsZero() {
		t.Error("Timestamp is zero")
	}
	for name, want := range in.Properties {
		v, ok := got.Properties[name]
		if !ok {
			t.Errorf("property %s missing", name)
			continue
		}
		switch want := want.(type) {
		case []byte:
			if b, ok := v.([]byte); !ok || !bytes.Equal(b, want) {
				t.Errorf("property %s = %#v, want %#v", name, v, want)
			}
		case time.Time:
			if tm, ok := v.(time.Time); !ok || !tm.Equal(want) {
				t.Errorf("property %s = %#v, want %v", name, v, want)
			}
		default:
			if v != want {
				t.Errorf("property %s = %#v (%T), want %#v (%T)", name, v, v, want, want)
			}
		}
	}
	if len(got.Properties) != len(in.Properties) {
		t.Errorf("got %d properties, want %d: %v", len(got.Properties), len(in.Properties), got.Properties)
	}
	if got.String("Title") != in.Properties["Title"] || got.Int("Count") != 1<<53 || !got.Bool("Open") {
		t.Error("typed accessors disagree with the properties")
	}
}

// tableNotFound checks that reads, writes and deletes of a missing row or
// in a missing table fail with storage.ErrNotFound.
func tableNotFound(t *testing.T, s storage.Tables, tbl string) {
	_, err := s.GetEntity(ctx(t), tbl, "p", "r")
	wantErr(t, "GetEntity of a missing row", err, storage.ErrNotFound)
	_, err = s.GetEntity(ctx(t), tableName(), "p", "r")
	wantErr(t, "GetEntity in a missing table", err, storage.ErrNotFound)
	_, err = s.InsertEntity(ctx(t), tableName(), storage.Entity{PartitionKey: "p", RowKey: "r"})
	wantErr(t, "InsertEntity in a missing table", err, storage.ErrNotFound)
	_, err = s.UpdateEntity(ctx(t), tbl, storage.Entity{PartitionKey: "p", RowKey: "r"}, "")
	wantErr(t, "UpdateEntity of a missing row", err, storage.ErrNotFound)
	wantErr(t, "DeleteEntity of a missing row", s.DeleteEntity(ctx(t), tbl, "p", "r", ""), storage.ErrNotFound)
	_, err = s.QueryPartition(ctx(t), tableName(), "p", storage.Query{})
	wantErr(t, "QueryPartition of a missing table", err, storage.ErrNotFound)
	wantErr(t, "DeleteTable of a missing table", s.DeleteTable(ctx(t), tableName()), storage.ErrNotFound)
}

// tableCreateTwice checks that creating an existing table succeeds.
func tableCreateTwice(t *testing.T, s storage.Tables, tbl string) {
	noErr(t, "second CreateTable", s.CreateTable(ctx(t), tbl))
}

// tableInsertExisting checks that an insert of an existing row fails with
// storage.ErrExists and leaves the row as it was.
func tableInsertExisting(t *testing.T, s storage.Tables, tbl string) {
	e := storage.Entity{PartitionKey: "p", RowKey: "r", Properties: map[string]any{"V": "one"}}
	_, err := s.InsertEntity(ctx(t), tbl, e)
	noErr(t, "InsertEntity", err)
	e.Properties["V"] = "two"
	_, err = s.InsertEntity(ctx(t), tbl, e)
	wantErr(t, "second InsertEntity", err, storage.ErrExists)
	got, err := s.GetEntity(ctx(t), tbl, "p", "r")
	noErr(t, "GetEntity", err)
	if got.String("V") != "one" {
		t.Errorf("failed insert changed the row: V = %q", got.String("V"))
	}
}

// tableUpsertReplaces checks that an upsert replaces the whole row (no
// merge of properties) and changes its ETag.
func tableUpsertReplaces(t *testing.T, s storage.Tables, tbl string) {
	e1, err := s.UpsertEntity(ctx(t), tbl, storage.Entity{PartitionKey: "p", RowKey: "r", Properties: map[string]any{"A": "a", "B": "b"}})
	noErr(t, "first UpsertEntity", err)
	e2, err := s.UpsertEntity(ctx(t), tbl, storage.Entity{PartitionKey: "p", RowKey: "r", Properties: map[string]any{"A": "a2"}})
	noErr(t, "second UpsertEntity", err)
	if e1 == e2 {
		t.Error("ETag did not change on upsert")
	}
	got, err := s.GetEntity(ctx(t), tbl, "p", "r")
	noErr(t, "GetEntity", err)
	if got.String("A") != "a2" {
		t.Errorf("A = %q, want a2", got.String("A"))
	}
	if _, ok := got.Properties["B"]; ok {
		t.Error("upsert merged instead of replacing: B is still there")
	}
}

// tableETags checks the conditional writes: an update or delete with a
// stale ETag fails with storage.ErrPrecondition and changes nothing; with
// the current ETag, or storage.ETagAny, it succeeds.
func tableETags(t *testing.T, s storage.Tables, tbl string) {
	e := storage.Entity{PartitionKey: "p", RowKey: "r", Properties: map[string]any{"N": int64(1)}}
	first, err := s.InsertEntity(ctx(t), tbl, e)
	noErr(t, "InsertEntity", err)
	e.Properties["N"] = int64(2)
	second, err := s.UpdateEntity(ctx(t), tbl, e, first)
	noErr(t, "UpdateEntity with the current ETag", err)
	if second == first {
		t.Fatal("ETag did not change on update")
	}
	e.Properties["N"] = int64(3)
	_, err = s.UpdateEntity(ctx(t), tbl, e, first)
	wantErr(t, "UpdateEntity with a stale ETag", err, storage.ErrPrecondition)
	wantErr(t, "DeleteEntity with a stale ETag", s.DeleteEntity(ctx(t), tbl, "p", "r", first), storage.ErrPrecondition)
	got, err := s.GetEntity(ctx(t), tbl, "p", "r")
	noErr(t, "GetEntity", err)
	if got.Int("N") != 2 {
		t.Errorf("N = %d after failed writes, want 2", got.Int("N"))
	}
	third, err := s.UpdateEntity(ctx(t), tbl, e, storage.ETagAny)
	noErr(t, "UpdateEntity with *", err)
	noErr(t, "DeleteEntity with the current ETag", s.DeleteEntity(ctx(t), tbl, "p", "r", third))
	_, err = s.GetEntity(ctx(t), tbl, "p", "r")
	wantErr(t, "GetEntity after delete", err, storage.ErrNotFound)
}

// tableConcurrentWriters checks that writers incrementing one counter with
// read, then update if the ETag matches, lose no update.
func tableConcurrentWriters(t *testing.T, s storage.Tables, tbl string) {
	_, err := s.InsertEntity(ctx(t), tbl, storage.Entity{PartitionKey: "p", RowKey: "counter", Properties: map[string]any{"N": int64(0)}})
	noErr(t, "InsertEntity", err)
	const writers, each = 6, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				for attempt := 0; ; attempt++ {
					if attempt > 200 {
						errs <- fmt.Errorf("no progress after %d attempts", attempt)
						return
					}
					e, err := s.GetEntity(ctx(t), tbl, "p", "counter")
					if err != nil {
						errs <- err
						return
					}
					e.Properties["N"] = e.Int("N") + 1
					_, err = s.UpdateEntity(ctx(t), tbl, e, e.ETag)
					if err == nil {
						break
					}
					if !isPrecondition(err) {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := s.GetEntity(ctx(t), tbl, "p", "counter")
	noErr(t, "GetEntity", err)
	if got.Int("N") != writers*each {
		t.Errorf("counter = %d, want %d: an update was lost", got.Int("N"), writers*each)
	}
}

// tableQueryPartition checks the queries of one partition: paged, in key
// order, none of another partition; a range of row keys; the top row from
// a key; an empty partition.
func tableQueryPartition(t *testing.T, s storage.Tables, tbl string) {
	// Rows r000..r024 in partition p1, and r005 in the partitions on
	// either side of it.
	var ops []storage.TableOp
	for i := 0; i < 25; i++ {
		ops = append(ops, storage.TableOp{Kind: storage.OpInsert, Entity: storage.Entity{
			PartitionKey: "p1", RowKey: fmt.Sprintf("r%03d", i), Properties: map[string]any{"I": int64(i)},
		}})
	}
	noErr(t, "Transact", s.Transact(ctx(t), tbl, "p1", ops))
	for _, pk := range []string{"p0", "p2", "p1x"} {
		_, err := s.InsertEntity(ctx(t), tbl, storage.Entity{PartitionKey: pk, RowKey: "r005"})
		noErr(t, "InsertEntity", err)
	}

	queryPartitionPages(t, s, tbl)
	queryPartitionRange(t, s, tbl)
	queryPartitionNext(t, s, tbl)
	queryPartitionEmpty(t, s, tbl)
}

// queryPartitionPages checks that the 25 rows of partition p1 come in
// pages of at most 10 (at least 3 pages), in key order, each with its
// ETag, none from another partition.
func queryPartitionPages(t *testing.T, s storage.Tables, tbl string) {
	// All pages, in order, none from another partition.
	var keys []string
	q := storage.Query{Top: 10}
	pages := 0
	for {
		page, err := s.QueryPartition(ctx(t), tbl, "p1", q)
		noErr(t, "QueryPartition", err)
		pages++
		if len(page.Entities) > 10 {
			t.Fatalf("page has %d entities, Top is 10", len(page.Entities))
		}
		for _, e := range page.Entities {
			if e.PartitionKey != "p1" {
				t.Fatalf("row of partition %q returned", e.PartitionKey)
			}
			if e.ETag == "" {
				t.Fatal("queried entity has no ETag")
			}
			keys = append(keys, e.RowKey)
		}
		if page.Continuation == "" {
			break
		}
		if pages > 10 {
			t.Fatal("continuation never ends")
		}
		q.Continuation = page.Continuation
	}
	if len(keys) != 25 || pages < 3 {
		t.Fatalf("got %d rows in %d pages, want 25 rows in at least 3", len(keys), pages)
	}
	for i, k := range keys {
		if want := fmt.Sprintf("r%03d", i); k != want {
			t.Fatalf("row %d is %q, want %q", i, k, want)
		}
	}
}

// queryPartitionRange checks a range of row keys of p1: from inclusive,
// to exclusive, in one page, with the rows' properties.
func queryPartitionRange(t *testing.T, s storage.Tables, tbl string) {
	// A range, from inclusive, to exclusive.
	page, err := s.QueryPartition(ctx(t), tbl, "p1", storage.Query{RowKeyFrom: "r010", RowKeyTo: "r015"})
	noErr(t, "QueryPartition range", err)
	var got []string
	for _, e := range page.Entities {
		got = append(got, e.RowKey)
	}
	if strings.Join(got, ",") != "r010,r011,r012,r013,r014" || page.Continuation != "" {
		t.Errorf("range gave %v (continuation %q)", got, page.Continuation)
	}
	if page.Entities[0].Int("I") != 10 {
		t.Errorf("I = %d, want 10", page.Entities[0].Int("I"))
	}
}

// queryPartitionNext checks the "next row" query: the top row from a key.
func queryPartitionNext(t *testing.T, s storage.Tables, tbl string) {
	// Top 1 from a key: the "next row" query.
	page, err := s.QueryPartition(ctx(t), tbl, "p1", storage.Query{RowKeyFrom: "r020", Top: 1})
	noErr(t, "QueryPartition top 1", err)
	if len(page.Entities) != 1 || page.Entities[0].RowKey != "r020" {
		t.Errorf("top 1 from r020 gave %v", page.Entities)
	}
}

// queryPartitionEmpty checks that a partition without rows gives an empty
// page and no continuation.
func queryPartitionEmpty(t *testing.T, s storage.Tables, tbl string) {
	// An empty partition.
	page, err := s.QueryPartition(ctx(t), tbl, "nobody", storage.Query{})
	noErr(t, "QueryPartition empty", err)
	if len(page.Entities) != 0 || page.Continuation != "" {
		t.Errorf("empty partition gave %d rows", len(page.Entities))
	}
}

// tableQueryTable checks the scans of a whole table: a range of
// partitions in pages and in key order, the first row, an empty range,
// and a missing table.
func tableQueryTable(t *testing.T, s storage.Tables, tbl string) {
	// Rows of partitions a1..a5 and b1, inserted out of order.
	var want []string
	for _, pk := range []string{"a3", "a1", "b1", "a5", "a2", "a4"} {
		for _, rk := range []string{"y", "x"} {
			_, err := s.InsertEntity(ctx(t), tbl, storage.Entity{PartitionKey: pk, RowKey: rk, Properties: map[string]any{"K": pk + "/" + rk}})
			noErr(t, "InsertEntity", err)
		}
	}
	for _, pk := range []string{"a2", "a3", "a4"} {
		want = append(want, pk+"/x", pk+"/y")
	}
	// A range of partitions, in pages of 4, in key order.
	var got []string
	q := storage.TableQuery{PartitionFrom: "a2", PartitionTo: "a5", Top: 4}
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("continuation never ends")
		}
		page, err := s.QueryTable(ctx(t), tbl, q)
		noErr(t, "QueryTable", err)
		if len(page.Entities) > 4 {
			t.Fatalf("page has %d entities, Top is 4", len(page.Entities))
		}
		for _, e := range page.Entities {
			if e.String("K") != e.PartitionKey+"/"+e.RowKey || e.ETag == "" {
				t.Fatalf("entity %+v", e)
			}
			got = append(got, e.PartitionKey+"/"+e.RowKey)
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("scan gave %v, want %v", got, want)
	}
	// The first row of the whole table.
	page, err := s.QueryTable(ctx(t), tbl, storage.TableQuery{Top: 1})
	noErr(t, "QueryTable top 1", err)
	if len(page.Entities) != 1 || page.Entities[0].PartitionKey != "a1" || page.Entities[0].RowKey != "x" {
		t.Errorf("top 1 gave %v", page.Entities)
	}
	// An empty range, and a missing table.
	page, err = s.QueryTable(ctx(t), tbl, storage.TableQuery{PartitionFrom: "c"})
	noErr(t, "QueryTable empty", err)
	if len(page.Entities) != 0 || page.Continuation != "" {
		t.Errorf("empty range gave %d rows", len(page.Entities))
	}
	_, err = s.QueryTable(ctx(t), tableName(), storage.TableQuery{})
	wantErr(t, "QueryTable of a missing table", err, storage.ErrNotFound)
}

// tableTransactions checks the transactions of one partition: all or
// nothing, a mixed one, and their limits.
func tableTransactions(t *testing.T, s storage.Tables, tbl string) {
	etag, err := s.InsertEntity(ctx(t), tbl, storage.Entity{PartitionKey: "p", RowKey: "existing", Properties: map[string]any{"V": "old"}})
	noErr(t, "InsertEntity", err)

	transactAllOrNothing(t, s, tbl, etag)
	transactMixed(t, s, tbl, etag)
	transactLimits(t, s, tbl)
}

// transactAllOrNothing checks that a transaction with a failing op undoes
// its other ops, with the failing op's error, and leaves the row
// "existing" (written with etag) as it was.
func transactAllOrNothing(t *testing.T, s storage.Tables, tbl, etag string) {
	// A failing op anywhere undoes the others.
	failing := []struct {
		name string
		op   storage.TableOp
		want error
	}{
		{"insert of an existing row", storage.TableOp{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: "p", RowKey: "existing"}}, storage.ErrExists},
		{"update with a stale ETag", storage.TableOp{Kind: storage.OpUpdate, Entity: storage.Entity{PartitionKey: "p", RowKey: "existing"}, IfMatch: `W/"datetime'2000-01-01T00%3A00%3A00.0000000Z'"`}, storage.ErrPrecondition},
		{"delete of a missing row", storage.TableOp{Kind: storage.OpDelete, Entity: storage.Entity{PartitionKey: "p", RowKey: "missing"}}, storage.ErrNotFound},
		{"update of a missing row", storage.TableOp{Kind: storage.OpUpdate, Entity: storage.Entity{PartitionKey: "p", RowKey: "missing"}}, storage.ErrNotFound},
	}
	for _, tc := range failing {
		ops := []storage.TableOp{
			{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: "p", RowKey: "new1"}},
			{Kind: storage.OpUpsert, Entity: storage.Entity{PartitionKey: "p", RowKey: "new2"}},
			tc.op,
		}
		err := s.Transact(ctx(t), tbl, "p", ops)
		wantErr(t, "Transact with "+tc.name, err, tc.want)
		for _, rk := range []string{"new1", "new2"} {
			if _, err := s.GetEntity(ctx(t), tbl, "p", rk); !isNotFound(err) {
				t.Fatalf("Transact with %s: row %s was written (err %v)", tc.name, rk, err)
			}
		}
	}
	got, err := s.GetEntity(ctx(t), tbl, "p", "existing")
	noErr(t, "GetEntity", err)
	if got.ETag != etag || got.String("V") != "old" {
		t.Fatal("a failed transaction changed the existing row")
	}
}

// transactMixed checks a transaction of a delete (if the row "existing"
// still has etag), an insert and an upsert: the move of a ranked row.
func transactMixed(t *testing.T, s storage.Tables, tbl, etag string) {
	// A successful mixed transaction: the move of a ranked row.
	ops := []storage.TableOp{
		{Kind: storage.OpDelete, Entity: storage.Entity{PartitionKey: "p", RowKey: "existing"}, IfMatch: etag},
		{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: "p", RowKey: "moved", Properties: map[string]any{"V": "new"}}},
		{Kind: storage.OpUpsert, Entity: storage.Entity{PartitionKey: "p", RowKey: "upserted"}},
	}
	noErr(t, "Transact", s.Transact(ctx(t), tbl, "p", ops))
	if _, err := s.GetEntity(ctx(t), tbl, "p", "existing"); !isNotFound(err) {
		t.Errorf("deleted row still there: %v", err)
	}
	moved, err := s.GetEntity(ctx(t), tbl, "p", "moved")
	noErr(t, "GetEntity moved", err)
	if moved.String("V") != "new" {
		t.Errorf("moved V = %q", moved.String("V"))
	}
	if _, err := s.GetEntity(ctx(t), tbl, "p", "upserted"); err != nil {
		t.Errorf("upserted row: %v", err)
	}
}

// transactLimits checks that a transaction of storage.MaxTransactionOps
// ops is taken, and that one of more, of two partitions, naming a row
// twice or of no op is refused with storage.ErrInvalid, writing nothing.
func transactLimits(t *testing.T, s storage.Tables, tbl string) {
	// Exactly 100 ops is allowed; 101, two partitions, or a row twice is not.
	var hundred []storage.TableOp
	for i := 0; i < storage.MaxTransactionOps+1; i++ {
		hundred = append(hundred, storage.TableOp{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: "big", RowKey: fmt.Sprintf("%03d", i)}})
	}
	wantErr(t, "Transact of 101 ops", s.Transact(ctx(t), tbl, "big", hundred), storage.ErrInvalid)
	noErr(t, "Transact of 100 ops", s.Transact(ctx(t), tbl, "big", hundred[:100]))
	page, err := s.QueryPartition(ctx(t), tbl, "big", storage.Query{})
	noErr(t, "QueryPartition", err)
	if len(page.Entities) != 100 {
		t.Errorf("100-op transaction wrote %d rows", len(page.Entities))
	}
	two := []storage.TableOp{
		{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: "a", RowKey: "1"}},
		{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: "b", RowKey: "1"}},
	}
	wantErr(t, "Transact across partitions", s.Transact(ctx(t), tbl, "a", two), storage.ErrInvalid)
	twice := []storage.TableOp{
		{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: "a", RowKey: "1"}},
		{Kind: storage.OpUpsert, Entity: storage.Entity{PartitionKey: "a", RowKey: "1"}},
	}
	wantErr(t, "Transact naming a row twice", s.Transact(ctx(t), tbl, "a", twice), storage.ErrInvalid)
	wantErr(t, "empty Transact", s.Transact(ctx(t), tbl, "a", nil), storage.ErrInvalid)
	if _, err := s.GetEntity(ctx(t), tbl, "a", "1"); !isNotFound(err) {
		t.Error("an invalid transaction wrote a row")
	}
}

// tableNames checks which table names, keys and properties are refused
// (storage.ErrInvalid, storage.ErrTooLarge) and which of the longest and
// unicode ones are taken.
func tableNames(t *testing.T, s storage.Tables) {
	for _, name := range []string{"ab", "1abc", "ab-c", "ab_c", strings.Repeat("a", 64), "tables", ""} {
		wantErr(t, fmt.Sprintf("CreateTable(%q)", name), s.CreateTable(ctx(t), name), storage.ErrInvalid)
	}
	long := "T" + randHex(10) + strings.Repeat("x", 52)
	noErr(t, "CreateTable of a 63-character name", s.CreateTable(ctx(t), long))
	for _, key := range []string{"a/b", `a\b`, "a#b", "a?b", "tab\there", "", strings.Repeat("k", 513)} {
		_, err := s.InsertEntity(ctx(t), long, storage.Entity{PartitionKey: key, RowKey: "r"})
		wantErr(t, fmt.Sprintf("InsertEntity with PartitionKey %q", key), err, storage.ErrInvalid)
		_, err = s.UpsertEntity(ctx(t), long, storage.Entity{PartitionKey: "p", RowKey: key})
		wantErr(t, fmt.Sprintf("UpsertEntity with RowKey %q", key), err, storage.ErrInvalid)
	}
	longKey := strings.Repeat("k", 512)
	_, err := s.InsertEntity(ctx(t), long, storage.Entity{PartitionKey: "adatum_ünï-😀", RowKey: longKey})
	noErr(t, "InsertEntity with a 512-byte key and unicode", err)
	if _, err := s.GetEntity(ctx(t), long, "adatum_ünï-😀", longKey); err != nil {
		t.Errorf("GetEntity with a long key: %v", err)
	}
	_, err = s.InsertEntity(ctx(t), long, storage.Entity{PartitionKey: "p", RowKey: "r", Properties: map[string]any{"N": 3}})
	wantErr(t, "InsertEntity with an int property", err, storage.ErrInvalid)
	_, err = s.InsertEntity(ctx(t), long, storage.Entity{PartitionKey: "p", RowKey: "r", Properties: map[string]any{"1bad": "x"}})
	wantErr(t, "InsertEntity with a bad property name", err, storage.ErrInvalid)
	_, err = s.InsertEntity(ctx(t), long, storage.Entity{PartitionKey: "p", RowKey: "r", Properties: map[string]any{"Big": strings.Repeat("x", storage.MaxPropertySize+1)}})
	wantErr(t, "InsertEntity with an oversized property", err, storage.ErrTooLarge)
	if _, err := s.GetEntity(ctx(t), long, "p", "r"); !isNotFound(err) {
		t.Error("an invalid insert wrote a row")
	}
	noErr(t, "DeleteTable", s.DeleteTable(ctx(t), long))
}
