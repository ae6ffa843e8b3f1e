package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
)

// Placement is a storage.Storage over several accounts: a home account,
// and one account per region. A tenant's own data (its Surveys and
// Questions rows, answers, answer lists, summaries and logos) is kept in the
// account of the region it chose at on-boarding (Tenant.HostGeoLocation);
// what every instance must find without knowing the tenant (the tenant
// records, accounts, sessions, API tokens, the queues) stays at home. A
// tenant with no region, or an unknown one, lives at home.
//
// The route is taken from the names of the layout (this package's), so the
// stores above need not know: each call of a store names its tenant in a
// PartitionKey, container or blob name. A tenant's region is read from its
// record once per process, then kept: a region never changes.
type Placement struct {
	home    storage.Storage
	regions map[string]storage.Storage

	mu    sync.Mutex
	where map[string]storage.Storage // tenant → account
}

var _ storage.Storage = (*Placement)(nil)

// NewPlacement returns the storage over home and the regions' accounts.
func NewPlacement(home storage.Storage, regions map[string]storage.Storage) *Placement {
	return &Placement{home: home, regions: regions, where: map[string]storage.Storage{}}
}

// Regions returns the names of the regions, sorted.
func (p *Placement) Regions() []string {
	out := make([]string, 0, len(p.regions))
	for r := range p.regions {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// Region returns a region's account, for tests and operators.
func (p *Placement) Region(name string) storage.Storage { return p.regions[name] }

// all is home, then every region.
func (p *Placement) all() []storage.Storage {
	out := []storage.Storage{p.home}
	for _, r := range p.Regions() {
		out = append(out, p.regions[r])
	}
	return out
}

// tenantAccount returns the account of a tenant's data.
func (p *Placement) tenantAccount(ctx context.Context, tenant string) (storage.Storage, error) {
	if len(p.regions) == 0 || tenant == "" {
		return p.home, nil
	}
	p.mu.Lock()
	st, ok := p.where[tenant]
	p.mu.Unlock()
	if ok {
		return st, nil
	}
	st = p.home
	b, err := p.home.GetBlob(ctx, TenantsContainer, tenant)
	switch {
	case errors.Is(err, storage.ErrNotFound), errors.Is(err, storage.ErrContainerNotFound):
		return p.home, nil // not (yet) a tenant: not remembered
	case err != nil:
		return nil, fmt.Errorf("store: placement of tenant %s: %w", tenant, err)
	}
	var t struct {
		Region string `json:"hostGeoLocation"`
	}
	if err := json.Unmarshal(b.Data, &t); err != nil {
		return nil, fmt.Errorf("store: placement of tenant %s: %w", tenant, err)
	}
	if r, ok := p.regions[t.Region]; ok {
		st = r
	}
	p.mu.Lock()
	p.where[tenant] = st
	p.mu.Unlock()
	return st, nil
}

// beforeDash returns s up to its first "-" (tenant keys have none).
func beforeDash(s string) string {
	if i := strings.IndexByte(s, '-'); i >= 0 {
		return s[:i]
	}
	return s
}

// tableTenant names the tenant whose data a table row is, "" for home.
func tableTenant(table, pk string) string {
	switch table {
	case SurveysTable, RanksTable:
		return pk
	case QuestionsTable:
		if i := strings.IndexByte(pk, '_'); i >= 0 {
			return pk[:i]
		}
	}
	return ""
}

// containerTenant names the tenant of a per-survey container, "" otherwise.
func containerTenant(container string) string {
	if rest, ok := strings.CutPrefix(container, answersPrefix); ok {
		return beforeDash(rest)
	}
	if rest, ok := strings.CutPrefix(container, uploadsPrefix); ok {
		return beforeDash(rest)
	}
	return ""
}

// blobTenant names the tenant whose data a blob is, "" for home.
func blobTenant(container, name string) string {
	switch container {
	case SummariesContainer, AnswerListContainer, SegmentContainer, LogosContainer, TransferStatusContainer:
		return beforeDash(name)
	}
	return containerTenant(container)
}

func (p *Placement) table(ctx context.Context, table, pk string) (storage.Storage, error) {
	return p.tenantAccount(ctx, tableTenant(table, pk))
}

func (p *Placement) blob(ctx context.Context, container, name string) (storage.Storage, error) {
	return p.tenantAccount(ctx, blobTenant(container, name))
}

// eachAccount runs f on home and every region.
func (p *Placement) eachAccount(f func(storage.Storage) error) error {
	for _, st := range p.all() {
		if err := f(st); err != nil {
			return err
		}
	}
	return nil
}

// Tables: the tables exist in every account.

func (p *Placement) CreateTable(ctx context.Context, table string) error {
	return p.eachAccount(func(st storage.Storage) error { return st.CreateTable(ctx, table) })
}

func (p *Placement) DeleteTable(ctx context.Context, table string) error {
	return p.eachAccount(func(st storage.Storage) error {
		if err := st.DeleteTable(ctx, table); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		return nil
	})
}

func (p *Placement) GetEntity(ctx context.Context, table, pk, rk string) (storage.Entity, error) {
	st, err := p.table(ctx, table, pk)
	if err != nil {
		return storage.Entity{}, err
	}
	return st.GetEntity(ctx, table, pk, rk)
}

func (p *Placement) InsertEntity(ctx context.Context, table string, e storage.Entity) (string, error) {
	st, err := p.table(ctx, table, e.PartitionKey)
	if err != nil {
		return "", err
	}
	return st.InsertEntity(ctx, table, e)
}

func (p *Placement) UpsertEntity(ctx context.Context, table string, e storage.Entity) (string, error) {
	st, err := p.table(ctx, table, e.PartitionKey)
	if err != nil {
		return "", err
	}
	return st.UpsertEntity(ctx, table, e)
}

func (p *Placement) UpdateEntity(ctx context.Context, table string, e storage.Entity, ifMatch string) (string, error) {
	st, err := p.table(ctx, table, e.PartitionKey)
	if err != nil {
		return "", err
	}
	return st.UpdateEntity(ctx, table, e, ifMatch)
}

func (p *Placement) DeleteEntity(ctx context.Context, table, pk, rk, ifMatch string) error {
	st, err := p.table(ctx, table, pk)
	if err != nil {
		return err
	}
	return st.DeleteEntity(ctx, table, pk, rk, ifMatch)
}

func (p *Placement) QueryPartition(ctx context.Context, table, pk string, q storage.Query) (storage.EntityPage, error) {
	st, err := p.table(ctx, table, pk)
	if err != nil {
		return storage.EntityPage{}, err
	}
	return st.QueryPartition(ctx, table, pk, q)
}

// QueryTable scans a table across partitions: the lists ranked across
// tenants (PublicRanks) are at home.
func (p *Placement) QueryTable(ctx context.Context, table string, q storage.TableQuery) (storage.EntityPage, error) {
	return p.home.QueryTable(ctx, table, q)
}

func (p *Placement) Transact(ctx context.Context, table, pk string, ops []storage.TableOp) error {
	st, err := p.table(ctx, table, pk)
	if err != nil {
		return err
	}
	return st.Transact(ctx, table, pk, ops)
}

// Blobs: a survey's container lives in its tenant's account; the shared
// containers exist in every account.

func (p *Placement) CreateContainer(ctx context.Context, container string, public bool) error {
	if t := containerTenant(container); t != "" {
		st, err := p.tenantAccount(ctx, t)
		if err != nil {
			return err
		}
		return st.CreateContainer(ctx, container, public)
	}
	return p.eachAccount(func(st storage.Storage) error { return st.CreateContainer(ctx, container, public) })
}

func (p *Placement) DeleteContainer(ctx context.Context, container string) error {
	if t := containerTenant(container); t != "" {
		st, err := p.tenantAccount(ctx, t)
		if err != nil {
			return err
		}
		return st.DeleteContainer(ctx, container)
	}
	return p.eachAccount(func(st storage.Storage) error {
		if err := st.DeleteContainer(ctx, container); err != nil && !errors.Is(err, storage.ErrNotFound) && !errors.Is(err, storage.ErrContainerNotFound) {
			return err
		}
		return nil
	})
}

func (p *Placement) PutBlob(ctx context.Context, container, name string, data []byte, o storage.PutOptions) (string, error) {
	st, err := p.blob(ctx, container, name)
	if err != nil {
		return "", err
	}
	return st.PutBlob(ctx, container, name, data, o)
}

func (p *Placement) GetBlob(ctx context.Context, container, name string) (storage.Blob, error) {
	st, err := p.blob(ctx, container, name)
	if err != nil {
		return storage.Blob{}, err
	}
	return st.GetBlob(ctx, container, name)
}

// GetBlobInto is GetBlob into buf (storage.BlobIntoReader).
func (p *Placement) GetBlobInto(ctx context.Context, container, name string, buf []byte) (storage.Blob, error) {
	st, err := p.blob(ctx, container, name)
	if err != nil {
		return storage.Blob{}, err
	}
	return storage.GetBlobInto(ctx, st, container, name, buf)
}

func (p *Placement) DeleteBlob(ctx context.Context, container, name, ifMatch string) error {
	st, err := p.blob(ctx, container, name)
	if err != nil {
		return err
	}
	if container == TenantsContainer {
		// The key may be taken again, by a tenant of another region.
		p.mu.Lock()
		delete(p.where, name)
		p.mu.Unlock()
	}
	return st.DeleteBlob(ctx, container, name, ifMatch)
}

// ListBlobs lists a survey's container in its tenant's account, and a
// shared container by the tenant its prefix names (as "adatum-"); a shared
// container listed without a tenant prefix is listed at home only.
func (p *Placement) ListBlobs(ctx context.Context, container string, o storage.ListOptions) (storage.BlobPage, error) {
	tenant := containerTenant(container)
	if tenant == "" && strings.Contains(o.Prefix, "-") {
		tenant = blobTenant(container, o.Prefix)
	}
	st, err := p.tenantAccount(ctx, tenant)
	if err != nil {
		return storage.BlobPage{}, err
	}
	return st.ListBlobs(ctx, container, o)
}

// Queues are at home: any instance's worker drains them.

func (p *Placement) CreateQueue(ctx context.Context, queue string) error {
	return p.home.CreateQueue(ctx, queue)
}

func (p *Placement) DeleteQueue(ctx context.Context, queue string) error {
	return p.home.DeleteQueue(ctx, queue)
}

func (p *Placement) Enqueue(ctx context.Context, queue string, data []byte, o storage.EnqueueOptions) (string, error) {
	return p.home.Enqueue(ctx, queue, data, o)
}

func (p *Placement) Dequeue(ctx context.Context, queue string, max int, visibility time.Duration) ([]storage.Message, error) {
	return p.home.Dequeue(ctx, queue, max, visibility)
}

func (p *Placement) DeleteMessage(ctx context.Context, queue, id, popReceipt string) error {
	return p.home.DeleteMessage(ctx, queue, id, popReceipt)
}

func (p *Placement) UpdateVisibility(ctx context.Context, queue, id, popReceipt string, visibility time.Duration) (string, error) {
	return p.home.UpdateVisibility(ctx, queue, id, popReceipt, visibility)
}

func (p *Placement) PeekMessages(ctx context.Context, queue string, max int) ([]storage.Message, error) {
	return p.home.PeekMessages(ctx, queue, max)
}

func (p *Placement) ApproximateCount(ctx context.Context, queue string) (int, error) {
	return p.home.ApproximateCount(ctx, queue)
}

// Ping checks every account.
func (p *Placement) Ping(ctx context.Context) error {
	return p.eachAccount(func(st storage.Storage) error { return st.Ping(ctx) })
}

// Close closes every account.
func (p *Placement) Close() error {
	var errs []error
	for _, st := range p.all() {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}
