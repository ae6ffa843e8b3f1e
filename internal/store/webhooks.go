package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/surveys-dev/surveys/internal/lrucache"
	"github.com/surveys-dev/surveys/internal/secret"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/webhook"
)

// Webhooks: a tenant's endpoints are rows of WebhooksTable (PK tenant, RK
// the endpoint's ID), each with its secret sealed and its last deliveries.
// An event for an endpoint is a message of WebhooksQueue; the webhooks
// worker delivers it and moves a message that keeps failing to
// WebhooksPoisonQueue. A body too large for a message waits in
// WebhookPayloadsContainer.
const (
	WebhooksTable            = "Webhooks"
	WebhooksQueue            = "webhooks"
	WebhooksPoisonQueue      = "webhooks-poison"
	WebhookPayloadsContainer = "webhookpayloads"
)

// Limits of a tenant's webhooks.
const (
	MaxWebhookEndpoints  = 10
	MaxWebhookSurveys    = 50
	MaxWebhookURL        = 2000
	KeptWebhookDelivered = 20 // deliveries an endpoint keeps, newest first
)

// endpointsTTL is how long a WebhookStore trusts its copy of a tenant's
// endpoints (a change on this instance drops it at once).
const endpointsTTL = 30 * time.Second

// WebhookEndpoint is a URL that receives a tenant's events.
type WebhookEndpoint struct {
	Tenant string
	ID     string
	URL    string
	// Kind names what it receives (webhook.Kinds): signed JSON
	// (webhook.KindStandard, also ""), or a message for a Slack or
	// Microsoft Teams channel.
	Kind string
	// Hook marks a subscription made through the REST-hook API (POST
	// /api/v1/hooks, as Zapier and n8n make them): it is listed and
	// deleted there, and a receiver that answers 410 Gone unsubscribes it.
	Hook bool
	// Events are the events it receives (webhook.Events).
	Events []string
	// Surveys, when set, are the only surveys whose events it receives.
	Surveys []string
	// Secret signs its requests; sealed at rest. After a rotation the
	// secret before it, PreviousSecret, signs them too until
	// PreviousUntil, so that receivers can change theirs meanwhile.
	Secret         string
	PreviousSecret string
	PreviousUntil  time.Time
	CreatedOn      time.Time
	// Disabled stops deliveries, with the reason, after persistent
	// failure; an admin enables it again.
	Disabled       bool
	DisabledReason string
	DisabledOn     time.Time
	// Failures counts the deliveries that failed since the last that
	// succeeded; FailingSince is when the first of them failed.
	Failures     int
	FailingSince time.Time
	// Deliveries are the last deliveries, newest first.
	Deliveries []WebhookDelivery
	// Tests are when the test events of the last minute were sent
	// (SendTest's limit, kept on the row so that it holds across
	// instances).
	Tests []time.Time

	etag string
}

// WebhookDelivery is one attempt to deliver an event.
type WebhookDelivery struct {
	At       time.Time     `json:"at"`
	Event    string        `json:"event"`
	ID       string        `json:"id"` // webhook-id
	Attempt  int           `json:"attempt"`
	Status   int           `json:"status,omitempty"` // the HTTP status, when one came
	Error    string        `json:"error,omitempty"`  // why it failed, in plain words
	Duration time.Duration `json:"duration"`
}

// Secrets are the secrets that sign a request sent at now: the endpoint's
// and, within a day of a rotation, the one before it.
func (e *WebhookEndpoint) Secrets(now time.Time) []string {
	if e.PreviousSecret != "" && now.Before(e.PreviousUntil) {
		return []string{e.Secret, e.PreviousSecret}
	}
	return []string{e.Secret}
}

// Format is the endpoint's kind: how its requests are made.
func (e *WebhookEndpoint) Format() webhook.Kind {
	if k, ok := webhook.KindOf(e.Kind); ok {
		return k
	}
	// A kind this binary does not know (written by a newer one): signed
	// JSON, which any receiver may ignore, rather than nothing.
	k, _ := webhook.KindOf(webhook.KindStandard)
	return k
}

// OK reports whether the receiver took it (a 2xx status).
func (d WebhookDelivery) OK() bool { return d.Error == "" && d.Status >= 200 && d.Status < 300 }

// Wants reports whether e receives event of the survey slug ("" for an
// event of no survey).
func (e *WebhookEndpoint) Wants(event, slug string) bool {
	if e.Disabled || !slices.Contains(e.Events, event) {
		return false
	}
	return len(e.Surveys) == 0 || slug == "" || slices.Contains(e.Surveys, slug)
}

// WebhookMessage is a message of WebhooksQueue: one event for one
// endpoint. Body is the request body, made once when the event happened,
// so that every attempt sends the same bytes with the same ID; a body too
// large for a message is in WebhookPayloadsContainer as Spill.
type WebhookMessage struct {
	Tenant   string          `json:"tenant"`
	Endpoint string          `json:"endpoint"`
	ID       string          `json:"id"`
	Event    string          `json:"event"`
	Body     json.RawMessage `json:"body,omitempty"`
	Spill    string          `json:"spill,omitempty"`
	// Tries are the attempts made before this message was put back by a
	// worker whose tenant's share of the slots was taken (the queue's
	// count of dequeues starts again with the copy); Deferred counts those
	// put-backs.
	Tries    int `json:"tries,omitempty"`
	Deferred int `json:"deferred,omitempty"`
}

// WebhookStore keeps the tenants' endpoints and queues their events.
type WebhookStore struct {
	st      storage.Storage
	secrets *secret.Box
	now     func() time.Time
	// cache holds each tenant's endpoints (none, too) for endpointsTTL:
	// an answer of a tenant without endpoints costs no storage call.
	cache *lrucache.Cache[string, []*WebhookEndpoint]
	// locks serialise this instance's writes of one endpoint.
	locks [64]sync.Mutex
	// Queued, when set, is called after events are queued: it wakes this
	// instance's webhooks worker. It never blocks.
	Queued func()
	// PublicURL is the base of the surveys' public links in survey.*
	// events ("https://surveys.example"); "" leaves the path alone.
	PublicURL string
	// Domains, when set, gives a tenant's verified custom domain
	// (DomainStore.VerifiedHost, cached): the survey.* events of a
	// tenant that has one link to its surveys there.
	Domains interface {
		VerifiedHost(ctx context.Context, tenant string) (string, error)
	}
	// TestsPerMinute is how many test events one endpoint may be sent in
	// a minute (SendTest); 0 limits nothing. NewWebhookStore sets
	// DefaultTestsPerMinute.
	TestsPerMinute int
}

// DefaultTestsPerMinute is the test events an endpoint may be sent per
// minute.
const DefaultTestsPerMinute = 3

// NewWebhookStore returns a WebhookStore over st; without WithSecrets it
// cannot add endpoints (their secrets are sealed).
func NewWebhookStore(st storage.Storage) *WebhookStore {
	return &WebhookStore{st: st, now: time.Now, TestsPerMinute: DefaultTestsPerMinute,
		cache: lrucache.New(10_000, 8<<20, endpointsTTL, func(_ string, eps []*WebhookEndpoint) int64 {
			n := int64(64)
			for _, e := range eps {
				n += int64(512 + len(e.URL) + 200*len(e.Deliveries))
			}
			return n
		})}
}

// WithSecrets sets the box that seals the endpoints' secrets.
func (ws *WebhookStore) WithSecrets(b *secret.Box) *WebhookStore {
	ws.secrets = b
	return ws
}

// KeepsSecrets reports whether the store can seal secrets: without a key,
// no endpoint can be added.
func (ws *WebhookStore) KeepsSecrets() bool { return ws.secrets != nil }

// TestLimit is how many test events an endpoint may be sent a minute.
func (ws *WebhookStore) TestLimit() int { return ws.TestsPerMinute }

func (ws *WebhookStore) lock(tenant, id string) *sync.Mutex {
	h := fnv.New32a()
	h.Write([]byte(tenant + "/" + id))
	return &ws.locks[h.Sum32()%uint32(len(ws.locks))]
}

func secretContext(tenant, id string) string { return tenant + "/webhook/" + id }

// NewWebhook is what an admin asks for: a URL (checked by the caller's
// outbound client), events and, optionally, surveys.
type NewWebhook struct {
	URL     string
	Events  []string
	Surveys []string
	// Kind is a webhook.Kinds name; "" is webhook.KindStandard.
	Kind string
	// Hook: a subscription of the REST-hook API (WebhookEndpoint.Hook).
	Hook bool
}

// Add creates an endpoint with a new secret, and returns it with its
// secret (to show once). EINVALID with the field's message for no event,
// an unknown event or survey, or a URL too long; ECONFLICT at
// MaxWebhookEndpoints.
func (ws *WebhookStore) Add(ctx context.Context, tenant string, n NewWebhook, knownSurvey func(string) bool) (*WebhookEndpoint, error) {
	if err := survey.ValidateTenantKey(tenant); err != nil {
		return nil, err
	}
	if fields := n.Problems(knownSurvey); len(fields) > 0 {
		return nil, &survey.Error{Code: survey.EINVALID, Message: "The endpoint is not valid.", Fields: fields}
	}
	events, surveys := n.events(), uniq(n.Surveys)
	existing, err := ws.read(ctx, tenant)
	if err != nil {
		return nil, err
	}
	if len(existing) >= MaxWebhookEndpoints {
		return nil, survey.Errorf(survey.ECONFLICT, "A tenant has at most %d endpoints; delete one first.", MaxWebhookEndpoints)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	kind, _ := webhook.KindOf(n.Kind)
	e := &WebhookEndpoint{Tenant: tenant, ID: "ep" + hex.EncodeToString(b[:]), URL: n.URL, Kind: kind.Name(), Hook: n.Hook, Events: events, Surveys: surveys,
		Secret: webhook.NewSecret(), CreatedOn: ws.now().UTC()}
	ent, err := ws.entity(e)
	if err != nil {
		return nil, err
	}
	if _, err := ws.st.InsertEntity(ctx, WebhooksTable, ent); err != nil {
		return nil, mapErr(err, "Endpoint")
	}
	ws.cache.Remove(tenant)
	return e, nil
}

// Problems are the problems of each field ("url", "kind", "events", "surveys"),
// none when it may be added; knownSurvey (nil: any) says which slugs are
// the tenant's. (Whether the server may reach the URL is the outbound
// client's to say.)
func (n NewWebhook) Problems(knownSurvey func(string) bool) map[string]string {
	fields := map[string]string{}
	switch {
	case strings.TrimSpace(n.URL) == "":
		fields["url"] = "Give the URL that receives the events."
	case len(n.URL) > MaxWebhookURL:
		fields["url"] = fmt.Sprintf("Keep the URL to %d characters.", MaxWebhookURL)
	}
	switch kind, ok := webhook.KindOf(n.Kind); {
	case !ok:
		fields["kind"] = "Choose among the kinds listed: standard, slack or teams."
	case n.Hook && kind.Name() != webhook.KindStandard:
		fields["kind"] = "A REST-hook subscription receives signed JSON (the standard kind)."
	case fields["url"] == "":
		if u, err := url.Parse(strings.TrimSpace(n.URL)); err == nil {
			if problem := kind.URLProblem(u); problem != "" {
				fields["url"] = problem
			}
		}
	}
	switch events := n.events(); {
	case len(events) == 0 && len(uniq(n.Events)) == 0:
		fields["events"] = "Choose at least one event."
	case len(events) != len(uniq(n.Events)):
		fields["events"] = "Choose among the events listed."
	}
	surveys := uniq(n.Surveys)
	if len(surveys) > MaxWebhookSurveys {
		fields["surveys"] = fmt.Sprintf("Choose at most %d surveys, or none for all.", MaxWebhookSurveys)
	}
	for _, s := range surveys {
		if knownSurvey != nil && !knownSurvey(s) {
			fields["surveys"] = "Choose among your surveys."
		}
	}
	return fields
}

// events are the known events of n, in their order, each once.
func (n NewWebhook) events() []string {
	var events []string
	for _, e := range webhook.Events {
		if slices.Contains(n.Events, e) {
			events = append(events, e)
		}
	}
	return events
}

func uniq(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// List returns the tenant's endpoints, oldest first, read now.
func (ws *WebhookStore) List(ctx context.Context, tenant string) ([]*WebhookEndpoint, error) {
	if survey.ValidateTenantKey(tenant) != nil {
		return nil, nil
	}
	eps, err := ws.read(ctx, tenant)
	if err != nil {
		return nil, err
	}
	ws.cache.Add(tenant, eps)
	return copies(eps), nil
}

// Endpoints returns the tenant's endpoints as this instance saw them at
// most endpointsTTL ago: a tenant without endpoints costs one query per
// endpointsTTL, not one per event. The caller must not change them.
func (ws *WebhookStore) Endpoints(ctx context.Context, tenant string) ([]*WebhookEndpoint, error) {
	if eps, ok := ws.cache.Get(tenant); ok {
		return eps, nil
	}
	if survey.ValidateTenantKey(tenant) != nil {
		return nil, nil
	}
	eps, err := ws.read(ctx, tenant)
	if err != nil {
		return nil, err
	}
	ws.cache.Add(tenant, eps)
	return eps, nil
}

func copies(eps []*WebhookEndpoint) []*WebhookEndpoint {
	out := make([]*WebhookEndpoint, len(eps))
	for i, e := range eps {
		c := *e
		out[i] = &c
	}
	return out
}

func (ws *WebhookStore) read(ctx context.Context, tenant string) ([]*WebhookEndpoint, error) {
	var out []*WebhookEndpoint
	q := storage.Query{}
	for {
		page, err := ws.st.QueryPartition(ctx, WebhooksTable, tenant, q)
		if err != nil {
			return nil, mapErr(err, "Endpoints")
		}
		for _, ent := range page.Entities {
			e, err := ws.endpoint(ent)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	slices.SortFunc(out, func(a, b *WebhookEndpoint) int { return a.CreatedOn.Compare(b.CreatedOn) })
	return out, nil
}

// Get returns one endpoint, read now; ENOTFOUND when the tenant has no
// such endpoint.
func (ws *WebhookStore) Get(ctx context.Context, tenant, id string) (*WebhookEndpoint, error) {
	if survey.ValidateTenantKey(tenant) != nil || !validEndpointID(id) {
		return nil, survey.Errorf(survey.ENOTFOUND, "Endpoint not found.")
	}
	ent, err := ws.st.GetEntity(ctx, WebhooksTable, tenant, id)
	if err != nil {
		return nil, mapErr(err, "Endpoint")
	}
	return ws.endpoint(ent)
}

func validEndpointID(id string) bool {
	if len(id) != 18 || !strings.HasPrefix(id, "ep") {
		return false
	}
	_, err := hex.DecodeString(id[2:])
	return err == nil
}

// Delete removes an endpoint; its queued events are dropped when they
// come up.
func (ws *WebhookStore) Delete(ctx context.Context, tenant, id string) error {
	if survey.ValidateTenantKey(tenant) != nil || !validEndpointID(id) {
		return survey.Errorf(survey.ENOTFOUND, "Endpoint not found.")
	}
	defer ws.cache.Remove(tenant)
	return mapErr(ws.st.DeleteEntity(ctx, WebhooksTable, tenant, id, ""), "Endpoint")
}

// Enable lets a disabled endpoint receive events again, its failures
// forgotten.
func (ws *WebhookStore) Enable(ctx context.Context, tenant, id string) error {
	_, err := ws.change(ctx, tenant, id, func(e *WebhookEndpoint) bool {
		if !e.Disabled && e.Failures == 0 {
			return false
		}
		e.Disabled, e.DisabledReason, e.DisabledOn, e.Failures, e.FailingSince = false, "", time.Time{}, 0, time.Time{}
		return true
	})
	return err
}

// RotationOverlap is how long the secret before a rotation keeps signing
// an endpoint's requests beside the new one.
const RotationOverlap = 24 * time.Hour

// Rotate gives an endpoint a new secret and returns the endpoint with it
// (to show once). The secret it replaces keeps signing, beside the new
// one, for RotationOverlap; one rotated within that time is dropped.
func (ws *WebhookStore) Rotate(ctx context.Context, tenant, id string) (*WebhookEndpoint, error) {
	var out *WebhookEndpoint
	_, err := ws.change(ctx, tenant, id, func(e *WebhookEndpoint) bool {
		e.PreviousSecret, e.PreviousUntil = e.Secret, ws.now().UTC().Add(RotationOverlap)
		e.Secret = webhook.NewSecret()
		c := *e
		out = &c
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Disable stops deliveries to an endpoint, with the reason; it reports
// whether this call disabled it (false: it was already).
func (ws *WebhookStore) Disable(ctx context.Context, tenant, id, reason string) (bool, error) {
	return ws.change(ctx, tenant, id, func(e *WebhookEndpoint) bool {
		if e.Disabled {
			return false
		}
		e.Disabled, e.DisabledReason, e.DisabledOn = true, reason, ws.now().UTC()
		return true
	})
}

// Record keeps a delivery in the endpoint's last deliveries and counts its
// failures: one write, with the copy this instance holds (a read first
// only when another instance changed it). It returns the endpoint as
// written; ENOTFOUND when it was deleted.
func (ws *WebhookStore) Record(ctx context.Context, tenant, id string, d WebhookDelivery) (*WebhookEndpoint, error) {
	var out *WebhookEndpoint
	_, err := ws.change(ctx, tenant, id, func(e *WebhookEndpoint) bool {
		e.Deliveries = append([]WebhookDelivery{d}, e.Deliveries...)
		if len(e.Deliveries) > KeptWebhookDelivered {
			e.Deliveries = e.Deliveries[:KeptWebhookDelivered]
		}
		if d.OK() {
			e.Failures, e.FailingSince = 0, time.Time{}
		} else {
			if e.Failures == 0 {
				e.FailingSince = d.At
			}
			e.Failures++
		}
		c := *e
		out = &c
		return true
	})
	return out, err
}

// change applies edit to an endpoint and writes it if edit says so, with
// the ETag of the copy it started from; on a conflict it reads the
// endpoint again and retries.
func (ws *WebhookStore) change(ctx context.Context, tenant, id string, edit func(*WebhookEndpoint) bool) (bool, error) {
	mu := ws.lock(tenant, id)
	mu.Lock()
	defer mu.Unlock()
	var e *WebhookEndpoint
	if eps, ok := ws.cache.Get(tenant); ok {
		for _, c := range eps {
			if c.ID == id {
				cp := *c
				e = &cp
			}
		}
	}
	for attempt := 0; ; attempt++ {
		if e == nil {
			var err error
			if e, err = ws.Get(ctx, tenant, id); err != nil {
				return false, err
			}
		}
		if !edit(e) {
			return false, nil
		}
		ent, err := ws.entity(e)
		if err != nil {
			return false, err
		}
		etag, err := ws.st.UpdateEntity(ctx, WebhooksTable, ent, e.etag)
		switch {
		case err == nil:
			e.etag = etag
			ws.keep(tenant, e)
			return true, nil
		case (errors.Is(err, storage.ErrPrecondition) || errors.Is(err, storage.ErrNotFound)) && attempt < 5:
			// Changed (or deleted) elsewhere: read it again.
			e = nil
		default:
			ws.cache.Remove(tenant)
			return false, mapErr(err, "Endpoint")
		}
	}
}

// keep puts the endpoint as written in the cached list, if there is one.
func (ws *WebhookStore) keep(tenant string, e *WebhookEndpoint) {
	eps, ok := ws.cache.Get(tenant)
	if !ok {
		return
	}
	next := make([]*WebhookEndpoint, 0, len(eps))
	for _, c := range eps {
		if c.ID == e.ID {
			cp := *e
			c = &cp
		}
		next = append(next, c)
	}
	ws.cache.Add(tenant, next)
}

func (ws *WebhookStore) entity(e *WebhookEndpoint) (storage.Entity, error) {
	sealed, err := ws.secrets.Seal(e.Secret, secretContext(e.Tenant, e.ID))
	if errors.Is(err, secret.ErrNoKey) {
		return storage.Entity{}, survey.Errorf(survey.EINVALID, "This server keeps no secrets: its operator must set SURVEYS_SECRET_KEY before a webhook can be added.")
	}
	if err != nil {
		return storage.Entity{}, err
	}
	deliveries, err := json.Marshal(e.Deliveries)
	if err != nil {
		return storage.Entity{}, err
	}
	tests, err := json.Marshal(e.Tests)
	if err != nil {
		return storage.Entity{}, err
	}
	p := map[string]any{
		"Tests": string(tests),
		"URL":   e.URL, "Kind": e.Kind, "Hook": e.Hook, "Events": strings.Join(e.Events, ","), "Surveys": strings.Join(e.Surveys, ","),
		"Secret": sealed, "CreatedOn": e.CreatedOn, "Disabled": e.Disabled, "DisabledReason": e.DisabledReason,
		"Failures": int64(e.Failures), "Deliveries": string(deliveries),
	}
	if !e.DisabledOn.IsZero() {
		p["DisabledOn"] = e.DisabledOn
	}
	if !e.FailingSince.IsZero() {
		p["FailingSince"] = e.FailingSince
	}
	if e.PreviousSecret != "" {
		prev, err := ws.secrets.Seal(e.PreviousSecret, secretContext(e.Tenant, e.ID))
		if err != nil {
			return storage.Entity{}, err
		}
		p["PreviousSecret"], p["PreviousUntil"] = prev, e.PreviousUntil
	}
	return storage.Entity{PartitionKey: e.Tenant, RowKey: e.ID, Properties: p}, nil
}

func (ws *WebhookStore) endpoint(ent storage.Entity) (*WebhookEndpoint, error) {
	e := &WebhookEndpoint{Tenant: ent.PartitionKey, ID: ent.RowKey, URL: ent.String("URL"), Kind: ent.String("Kind"), Hook: ent.Bool("Hook"),
		CreatedOn: ent.Time("CreatedOn").UTC(), Disabled: ent.Bool("Disabled"), DisabledReason: ent.String("DisabledReason"),
		DisabledOn: ent.Time("DisabledOn"), Failures: int(ent.Int("Failures")), FailingSince: ent.Time("FailingSince"), etag: ent.ETag}
	if s := ent.String("Events"); s != "" {
		e.Events = strings.Split(s, ",")
	}
	if s := ent.String("Surveys"); s != "" {
		e.Surveys = strings.Split(s, ",")
	}
	if s := ent.String("Deliveries"); s != "" {
		if err := json.Unmarshal([]byte(s), &e.Deliveries); err != nil {
			return nil, fmt.Errorf("store: endpoint %s/%s's deliveries: %w", e.Tenant, e.ID, err)
		}
	}
	if s := ent.String("Tests"); s != "" && s != "null" {
		if err := json.Unmarshal([]byte(s), &e.Tests); err != nil {
			return nil, fmt.Errorf("store: endpoint %s/%s's tests: %w", e.Tenant, e.ID, err)
		}
	}
	v, err := ws.secrets.Open(ent.String("Secret"), secretContext(e.Tenant, e.ID))
	if err != nil {
		return nil, fmt.Errorf("store: endpoint %s/%s's secret: %w", e.Tenant, e.ID, err)
	}
	e.Secret = v
	if sealed := ent.String("PreviousSecret"); sealed != "" {
		if e.PreviousSecret, err = ws.secrets.Open(sealed, secretContext(e.Tenant, e.ID)); err != nil {
			return nil, fmt.Errorf("store: endpoint %s/%s's previous secret: %w", e.Tenant, e.ID, err)
		}
		e.PreviousUntil = ent.Time("PreviousUntil").UTC()
	}
	return e, nil
}

// maxWebhookBody is the largest body carried in a message; a larger one
// is spilled to a blob.
const maxWebhookBody = storage.MaxMessageSize - 1024

// EmitNotice queues event (of the survey slug, "" for none) for each of
// the tenant's endpoints that wants it, each with its stable webhook-id
// (of the endpoint, the event and subject) and the body its kind makes of
// the notice; the notice is made once, and only when an endpoint wants
// the event, and each kind's body once. It returns how many were queued.
// A tenant without endpoints costs no storage call within endpointsTTL of
// the last look (Endpoints).
func (ws *WebhookStore) EmitNotice(ctx context.Context, tenant, event, slug, subject string, notice func() (webhook.Notice, error)) (int, error) {
	var n *webhook.Notice
	return ws.emit(ctx, tenant, event, slug, subject, func(k webhook.Kind) ([]byte, error) {
		if n == nil {
			made, err := notice()
			if err != nil {
				return nil, err
			}
			n = &made
		}
		return k.Body(*n)
	})
}

// Emit is EmitNotice with one body, made by body, for every endpoint
// whatever its kind: for tests and tools that hold a body already.
func (ws *WebhookStore) Emit(ctx context.Context, tenant, event, slug, subject string, body func() ([]byte, error)) (int, error) {
	return ws.emit(ctx, tenant, event, slug, subject, func(webhook.Kind) ([]byte, error) { return body() })
}

func (ws *WebhookStore) emit(ctx context.Context, tenant, event, slug, subject string, bodyOf func(webhook.Kind) ([]byte, error)) (int, error) {
	eps, err := ws.Endpoints(ctx, tenant)
	if err != nil || len(eps) == 0 {
		return 0, err
	}
	bodies := map[string][]byte{}
	n := 0
	for _, e := range eps {
		if !e.Wants(event, slug) {
			continue
		}
		k := e.Format()
		data, ok := bodies[k.Name()]
		if !ok {
			if data, err = bodyOf(k); err != nil {
				return n, err
			}
			bodies[k.Name()] = data
		}
		if err := ws.enqueue(ctx, e, event, webhook.MessageID(e.ID, event, subject), data); err != nil {
			return n, err
		}
		n++
	}
	if n > 0 && ws.Queued != nil {
		ws.Queued()
	}
	return n, nil
}

// EmitSurvey queues survey.published or survey.closed (by sv's state; a
// draft emits nothing) for the endpoints that want it. Each change is an
// event of its own (its webhook-id names the moment it was emitted).
func (ws *WebhookStore) EmitSurvey(ctx context.Context, sv *survey.Survey) (int, error) {
	var event string
	switch sv.State {
	case survey.Published:
		event = webhook.SurveyPublished
	case survey.Closed:
		event = webhook.SurveyClosed
	default:
		return 0, nil
	}
	now := ws.now()
	subject := sv.Slug + "/" + event + "/" + strconv.FormatInt(now.UnixNano(), 10)
	return ws.EmitNotice(ctx, sv.Tenant, event, sv.Slug, subject, func() (webhook.Notice, error) {
		// A domain that cannot be read now leaves the main address,
		// where the survey is served too.
		base, _ := SurveyBase(ctx, ws.Domains, sv.Tenant, ws.PublicURL)
		return webhook.SurveyNotice(sv, event, now, base), nil
	})
}

// TestLimitError is SendTest's refusal: the endpoint was sent its
// TestsPerMinute test events in the last minute.
type TestLimitError struct {
	Limit int
	// RetryAfter is when the next test may be sent, from now.
	RetryAfter time.Duration
}

func (e *TestLimitError) Error() string {
	secs := max(1, int((e.RetryAfter+time.Second-1)/time.Second))
	unit := "seconds"
	if secs == 1 {
		unit = "second"
	}
	events := "test events"
	if e.Limit == 1 {
		events = "test event"
	}
	return fmt.Sprintf("An endpoint may be sent %d %s a minute; send the next one in %d %s.", e.Limit, events, secs, unit)
}

// SendTest queues a webhook.test event for one endpoint, disabled or not:
// at most TestsPerMinute in any minute (a *TestLimitError beyond, and
// nothing queued). The times of the last minute's tests are written on
// the endpoint's row with its ETag, so the limit holds across instances.
func (ws *WebhookStore) SendTest(ctx context.Context, tenant, id string) error {
	var e *WebhookEndpoint
	var err error
	now := ws.now()
	if ws.TestsPerMinute <= 0 {
		e, err = ws.Get(ctx, tenant, id)
	} else {
		var limited *TestLimitError
		_, err = ws.change(ctx, tenant, id, func(c *WebhookEndpoint) bool {
			limited = nil
			kept := c.Tests[:0:0]
			for _, at := range c.Tests {
				if now.Sub(at) < time.Minute && !at.After(now) {
					kept = append(kept, at)
				}
			}
			if len(kept) >= ws.TestsPerMinute {
				limited = &TestLimitError{Limit: ws.TestsPerMinute, RetryAfter: kept[len(kept)-ws.TestsPerMinute].Add(time.Minute).Sub(now)}
				return false
			}
			c.Tests = append(kept, now.UTC())
			cp := *c
			e = &cp
			return true
		})
		if err == nil && limited != nil {
			return limited
		}
	}
	if err != nil {
		return err
	}
	data, err := e.Format().Body(webhook.TestNotice(now))
	if err != nil {
		return err
	}
	if err := ws.enqueue(ctx, e, webhook.Test, webhook.MessageID(e.ID, webhook.Test, now.Format(time.RFC3339Nano)), data); err != nil {
		return err
	}
	if ws.Queued != nil {
		ws.Queued()
	}
	return nil
}

func (ws *WebhookStore) enqueue(ctx context.Context, e *WebhookEndpoint, event, id string, body []byte) error {
	m := WebhookMessage{Tenant: e.Tenant, Endpoint: e.ID, ID: id, Event: event, Body: body}
	if len(body) > maxWebhookBody {
		m.Body, m.Spill = nil, e.Tenant+"-"+e.ID+"-"+id
		if _, err := ws.st.PutBlob(ctx, WebhookPayloadsContainer, m.Spill, body, storage.PutOptions{ContentType: "application/json"}); err != nil {
			return fmt.Errorf("store: spill webhook %s: %w", id, err)
		}
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	if _, err := ws.st.Enqueue(ctx, WebhooksQueue, data, storage.EnqueueOptions{TTL: -1}); err != nil {
		return fmt.Errorf("store: queue webhook %s: %w", id, err)
	}
	return nil
}

// Body returns the request body of a message (read from its spill blob
// when it has one).
func (ws *WebhookStore) Body(ctx context.Context, m WebhookMessage) ([]byte, error) {
	if m.Spill == "" {
		return m.Body, nil
	}
	b, err := ws.st.GetBlob(ctx, WebhookPayloadsContainer, m.Spill)
	if err != nil {
		return nil, mapErr(err, "Webhook body")
	}
	return b.Data, nil
}

// Done deletes a delivered (or poisoned) message's spill blob, if any.
func (ws *WebhookStore) Done(ctx context.Context, m WebhookMessage) error {
	if m.Spill == "" {
		return nil
	}
	if err := ws.st.DeleteBlob(ctx, WebhookPayloadsContainer, m.Spill, ""); err != nil && !isNotFound(err) {
		return err
	}
	return nil
}
