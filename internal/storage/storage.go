// Package storage defines the storage primitives the application is built on:
// tables, blobs and queues with the semantics of Azure Storage. Two packages
// implement them: storage/azure (the Azure SDKs) and storage/local (an
// embedded SQLite file). Package storagetest holds the contract suite that
// both pass.
package storage

import (
	"context"
	"errors"
	"time"
)

// Errors returned by every implementation. Callers test them with errors.Is;
// implementations wrap them with context (fmt.Errorf("...: %w", ErrNotFound)).
var (
	// ErrNotFound: the entity, blob, message, table, container or queue does
	// not exist.
	ErrNotFound = errors.New("not found")
	// ErrContainerNotFound: a blob operation named a container that does not
	// exist. errors.Is(err, ErrNotFound) is also true for it.
	ErrContainerNotFound = &containerNotFound{}
	// ErrExists: an insert found the entity (or blob, with If-None-Match "*")
	// already there.
	ErrExists = errors.New("already exists")
	// ErrPrecondition: an If-Match or If-None-Match condition failed, or a
	// pop receipt is stale.
	ErrPrecondition = errors.New("precondition failed")
	// ErrInvalid: a name, key, property or argument is not acceptable to
	// Azure Storage (and so to either implementation).
	ErrInvalid = errors.New("invalid")
	// ErrTooLarge: an entity, message or transaction exceeds a size limit.
	ErrTooLarge = errors.New("too large")
)

type containerNotFound struct{}

func (*containerNotFound) Error() string        { return "container not found" }
func (*containerNotFound) Is(target error) bool { return target == ErrNotFound }

// Limits shared by both implementations (Azure's).
const (
	MaxTransactionOps = 100
	// MaxMessageSize is the largest message body accepted by Enqueue, in
	// bytes before encoding. The Azure implementation base64-encodes bodies,
	// and Azure's limit is 64 KiB after encoding.
	MaxMessageSize = 48 * 1024
	// MaxPropertySize is the largest string or []byte property, in bytes
	// (Azure allows 64 KiB per property; an entity is at most 1 MiB).
	MaxPropertySize = 64 * 1024
	// MaxDequeue is the most messages one Dequeue returns.
	MaxDequeue = 32
	// MaxVisibility is the longest visibility timeout.
	MaxVisibility = 7 * 24 * time.Hour
	// MaxPageSize is the most entities a table query returns in one page.
	MaxPageSize = 1000
	// MaxListResults is the most blobs ListBlobs returns in one page.
	MaxListResults = 5000
)

// Storage bundles the three services of one storage account.
type Storage interface {
	Tables
	Blobs
	Queues
	// Ping checks that the storage is reachable (for /readyz).
	Ping(ctx context.Context) error
	Close() error
}

// Entity is a table row. Properties hold values of the types string, int64,
// bool, time.Time (UTC, millisecond precision is kept at least) and []byte;
// any other type is rejected with ErrInvalid. PartitionKey, RowKey,
// Timestamp and ETag are not properties.
type Entity struct {
	PartitionKey string
	RowKey       string
	Properties   map[string]any
	// ETag is set on entities returned by the store; it is ignored on input
	// (use the ifMatch arguments).
	ETag string
	// Timestamp is the time of the last write, set by the store.
	Timestamp time.Time
}

// String returns the string property name, or "".
func (e Entity) String(name string) string { s, _ := e.Properties[name].(string); return s }

// Int returns the int64 property name, or 0.
func (e Entity) Int(name string) int64 { n, _ := e.Properties[name].(int64); return n }

// Bool returns the bool property name, or false.
func (e Entity) Bool(name string) bool { b, _ := e.Properties[name].(bool); return b }

// Time returns the time property name, or the zero time.
func (e Entity) Time(name string) time.Time { t, _ := e.Properties[name].(time.Time); return t }

// Bytes returns the []byte property name, or nil.
func (e Entity) Bytes(name string) []byte { b, _ := e.Properties[name].([]byte); return b }

// ETagAny matches any existing entity or blob in an If-Match condition.
const ETagAny = "*"

// Query selects entities of one partition in RowKey order.
type Query struct {
	// RowKeyFrom, when set, is the smallest RowKey returned (inclusive).
	RowKeyFrom string
	// RowKeyTo, when set, is the bound above every RowKey returned (exclusive).
	RowKeyTo string
	// Top is the most entities in the page; 0 means MaxPageSize. Larger
	// values are capped at MaxPageSize.
	Top int
	// Continuation, when set, resumes a query from the page that returned it.
	// The other fields must be the same as for that page.
	Continuation string
}

// TableQuery selects entities across partitions, in (PartitionKey, RowKey)
// order: Azure's table query without a PartitionKey equality. Ranked lists
// whose PartitionKey is the rank (an inverted count) are read this way.
type TableQuery struct {
	// PartitionFrom, when set, is the smallest PartitionKey returned
	// (inclusive); PartitionTo, when set, is the bound above every
	// PartitionKey returned (exclusive).
	PartitionFrom, PartitionTo string
	// Top and Continuation are as in Query.
	Top          int
	Continuation string
}

// EntityPage is one page of a query. Continuation is "" on the last page.
// A page may hold fewer than Top entities and still have a continuation.
type EntityPage struct {
	Entities     []Entity
	Continuation string
}

// OpKind is the kind of one operation in a table transaction.
type OpKind int

const (
	OpInsert OpKind = iota // fails with ErrExists if the row exists
	OpUpsert               // insert or replace
	OpUpdate               // replace an existing row, honouring IfMatch
	OpDelete               // delete an existing row, honouring IfMatch
)

// TableOp is one operation in a transaction.
type TableOp struct {
	Kind   OpKind
	Entity Entity // for OpDelete only PartitionKey and RowKey are used
	// IfMatch, for OpUpdate and OpDelete: an ETag, or ETagAny (the default
	// when empty).
	IfMatch string
}

// Tables is the table service.
type Tables interface {
	// CreateTable creates the table; it succeeds if the table exists.
	CreateTable(ctx context.Context, table string) error
	// DeleteTable deletes the table and its entities (ErrNotFound if absent).
	DeleteTable(ctx context.Context, table string) error
	GetEntity(ctx context.Context, table, pk, rk string) (Entity, error)
	// InsertEntity fails with ErrExists if the row exists. It returns the ETag.
	InsertEntity(ctx context.Context, table string, e Entity) (string, error)
	// UpsertEntity inserts or replaces the whole row. It returns the ETag.
	UpsertEntity(ctx context.Context, table string, e Entity) (string, error)
	// UpdateEntity replaces an existing row: ErrNotFound if it is absent,
	// ErrPrecondition if ifMatch is neither ETagAny (or "") nor its ETag.
	UpdateEntity(ctx context.Context, table string, e Entity, ifMatch string) (string, error)
	// DeleteEntity deletes a row: ErrNotFound if it is absent, ErrPrecondition
	// if ifMatch is neither ETagAny (or "") nor its ETag.
	DeleteEntity(ctx context.Context, table, pk, rk, ifMatch string) error
	// QueryPartition returns a page of the rows of partition pk, in RowKey
	// order. An unknown table gives ErrNotFound.
	QueryPartition(ctx context.Context, table, pk string, q Query) (EntityPage, error)
	// QueryTable returns a page of the rows of every partition in the
	// range of q, in (PartitionKey, RowKey) order. It costs a scan: use it
	// for the first rows of a table whose keys order it. An unknown table
	// gives ErrNotFound.
	QueryTable(ctx context.Context, table string, q TableQuery) (EntityPage, error)
	// Transact applies ops atomically: all of them or none. Every op must be
	// in partition pk, no row may appear twice, and there may be at most
	// MaxTransactionOps ops (ErrInvalid otherwise). When an op fails, the
	// error wraps ErrExists, ErrNotFound or ErrPrecondition and nothing is
	// changed.
	Transact(ctx context.Context, table, pk string, ops []TableOp) error
}

// Blob is a blob's content and properties.
type Blob struct {
	Data         []byte
	ContentType  string
	ETag         string
	LastModified time.Time
}

// PutOptions are the conditions and properties of a PutBlob.
type PutOptions struct {
	ContentType string
	// IfMatch: write only if the blob exists with this ETag (or exists at
	// all, with ETagAny). ErrPrecondition otherwise; ErrPrecondition also
	// when the blob does not exist.
	IfMatch string
	// IfNoneMatch: with ETagAny, write only if the blob does not exist
	// (ErrPrecondition if it does).
	IfNoneMatch string
}

// ListOptions select blobs of one container in name order.
type ListOptions struct {
	Prefix string
	// Marker, when set, resumes a listing from the page that returned it.
	Marker string
	// MaxResults is the most blobs in the page; 0 means MaxListResults.
	MaxResults int
}

// BlobItem is one listed blob.
type BlobItem struct {
	Name         string
	Size         int64
	ETag         string
	LastModified time.Time
}

// BlobPage is one page of a listing. NextMarker is "" on the last page.
type BlobPage struct {
	Items      []BlobItem
	NextMarker string
}

// Blobs is the blob service.
type Blobs interface {
	// CreateContainer creates a container; public containers' blobs may be
	// read anonymously. It succeeds if the container already exists.
	CreateContainer(ctx context.Context, container string, public bool) error
	// DeleteContainer deletes a container and its blobs (ErrNotFound if absent).
	DeleteContainer(ctx context.Context, container string) error
	// PutBlob writes a whole blob and returns its new ETag. It fails with
	// ErrContainerNotFound if the container does not exist.
	PutBlob(ctx context.Context, container, name string, data []byte, o PutOptions) (string, error)
	// GetBlob reads a blob (ErrNotFound, or ErrContainerNotFound).
	GetBlob(ctx context.Context, container, name string) (Blob, error)
	// DeleteBlob deletes a blob: ErrNotFound if absent, ErrPrecondition if
	// ifMatch is neither "" nor ETagAny nor its ETag.
	DeleteBlob(ctx context.Context, container, name, ifMatch string) error
	// ListBlobs lists a container's blobs in name order (ErrContainerNotFound
	// if it does not exist).
	ListBlobs(ctx context.Context, container string, o ListOptions) (BlobPage, error)
}

// BlobIntoReader is a Storage that reads a blob into memory its caller
// gives, and gives again for the next read: a reader of many large blobs
// one after the other (a scan of answer segments) then allocates none for
// each. It is optional (GetBlobInto falls back to GetBlob); a Storage
// that wraps another passes it on.
type BlobIntoReader interface {
	// GetBlobInto is GetBlob with the blob's data appended to buf[:0]
	// (in buf's memory when it fits).
	GetBlobInto(ctx context.Context, container, name string, buf []byte) (Blob, error)
}

// GetBlobInto reads a blob of s into buf (BlobIntoReader), or with
// GetBlob when s cannot.
func GetBlobInto(ctx context.Context, s Blobs, container, name string, buf []byte) (Blob, error) {
	if r, ok := s.(BlobIntoReader); ok {
		return r.GetBlobInto(ctx, container, name, buf)
	}
	return s.GetBlob(ctx, container, name)
}

// Message is a dequeued message.
type Message struct {
	ID         string
	PopReceipt string
	Data       []byte
	// DequeueCount counts deliveries, this one included (1 on the first).
	DequeueCount int64
	InsertedAt   time.Time
	ExpiresAt    time.Time
}

// EnqueueOptions are the options of Enqueue.
type EnqueueOptions struct {
	// TTL is how long the message lives; 0 means 7 days, a negative value
	// means never expire.
	TTL time.Duration
	// Delay keeps a new message invisible for this long.
	Delay time.Duration
}

// Queues is the queue service.
type Queues interface {
	// CreateQueue creates a queue; it succeeds if the queue exists.
	CreateQueue(ctx context.Context, queue string) error
	// DeleteQueue deletes a queue and its messages (ErrNotFound if absent).
	DeleteQueue(ctx context.Context, queue string) error
	// Enqueue adds a message of at most MaxMessageSize bytes (ErrTooLarge)
	// and returns its ID. An unknown queue gives ErrNotFound.
	Enqueue(ctx context.Context, queue string, data []byte, o EnqueueOptions) (string, error)
	// Dequeue returns up to max (1..MaxDequeue) visible messages and hides
	// them for visibility (1s..MaxVisibility), after which they are
	// delivered again unless deleted. It returns no messages, and no error,
	// when none are visible.
	Dequeue(ctx context.Context, queue string, max int, visibility time.Duration) ([]Message, error)
	// PeekMessages returns up to max (1..MaxDequeue) visible messages,
	// oldest first, without hiding them or counting a delivery: their
	// PopReceipt is empty and DequeueCount is what it was. Hidden messages
	// are not returned, as in Azure. It returns no messages, and no error,
	// when none are visible.
	PeekMessages(ctx context.Context, queue string, max int) ([]Message, error)
	// DeleteMessage deletes a dequeued message. A stale pop receipt (the
	// message was delivered again since) gives ErrNotFound or
	// ErrPrecondition; a deleted message gives ErrNotFound.
	DeleteMessage(ctx context.Context, queue, id, popReceipt string) error
	// UpdateVisibility hides a dequeued message for visibility from now (0
	// makes it visible at once) and returns the new pop receipt.
	UpdateVisibility(ctx context.Context, queue, id, popReceipt string, visibility time.Duration) (string, error)
	// ApproximateCount is the approximate number of messages in the queue,
	// visible or not.
	ApproximateCount(ctx context.Context, queue string) (int, error)
}
