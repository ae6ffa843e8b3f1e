package azure_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/azure"
	"github.com/surveys-dev/surveys/internal/storage/azure/azuritetest"
)

// recorder is a transport that records requests and answers 400.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	method, url string
	body        string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, recorded{req.Method, req.URL.String(), string(body)})
	r.mu.Unlock()
	return &http.Response{
		StatusCode: http.StatusBadRequest,
		Status:     "400 Bad Request",
		Header:     http.Header{"Content-Type": {"application/json"}, "X-Ms-Error-Code": {"InvalidInput"}},
		Body:       io.NopCloser(strings.NewReader(`{"odata.error":{"code":"InvalidInput","message":{"value":"recorded"}}}`)),
		Request:    req,
	}, nil
}

func recordingStore(t *testing.T) (storage.Storage, *recorder) {
	t.Helper()
	rec := &recorder{}
	s, err := azure.New(azure.Config{
		ConnectionString: "DefaultEndpointsProtocol=http;AccountName=" + azuritetest.AccountName + ";AccountKey=" + azuritetest.AccountKey +
			";BlobEndpoint=http://127.0.0.1:1/a;QueueEndpoint=http://127.0.0.1:1/a;TableEndpoint=http://127.0.0.1:1/a",
		HTTPClient: &http.Client{Transport: rec},
	})
	if err != nil {
		t.Fatalf("azure.New: %v", err)
	}
	return s, rec
}

// Azurite accepts unescaped quotes in the keys of a transaction's URLs, but
// Azure does not ("unterminated string literal"), so check the request.
func TestTransactionEscapesQuotes(t *testing.T) {
	s, rec := recordingStore(t)
	err := s.Transact(context.Background(), "tbl", "a'b", []storage.TableOp{
		{Kind: storage.OpDelete, Entity: storage.Entity{PartitionKey: "a'b", RowKey: "c'd"}},
		{Kind: storage.OpUpdate, Entity: storage.Entity{PartitionKey: "a'b", RowKey: "e'f", Properties: map[string]any{"V": "x'%27y"}}},
		{Kind: storage.OpInsert, Entity: storage.Entity{PartitionKey: "a'b", RowKey: "g'h"}},
	})
	if err == nil {
		t.Fatal("Transact succeeded against the recorder")
	}
	if len(rec.reqs) != 1 {
		t.Fatalf("%d requests sent, want 1", len(rec.reqs))
	}
	body := rec.reqs[0].body
	lines := regexp.MustCompile(`(?m)^(DELETE|PUT|POST) (\S+) HTTP/1\.1`).FindAllStringSubmatch(body, -1)
	if len(lines) != 3 {
		t.Fatalf("found %d request lines in the batch:\n%s", len(lines), body)
	}
	for i, want := range []string{"(PartitionKey='a%27%27b',RowKey='c%27%27d')", "(PartitionKey='a%27%27b',RowKey='e%27%27f')", "/tbl?"} {
		if !strings.Contains(lines[i][2], want) {
			t.Errorf("request line %d is %q, want it to contain %q", i, lines[i][0], want)
		}
	}
	for _, want := range []string{`"RowKey":"e'f"`, `"V":"x'%27y"`, `"RowKey":"g'h"`, `"PartitionKey":"a'b"`} {
		if !strings.Contains(body, want) {
			t.Errorf("batch body lacks %s:\n%s", want, body)
		}
	}
}

// UpdateVisibility sends Update Message without a body, which changes only
// the visibility timeout.
func TestUpdateVisibilitySendsNoBody(t *testing.T) {
	s, rec := recordingStore(t)
	if _, err := s.UpdateVisibility(context.Background(), "queue", "id", "receipt", 90*time.Second); err == nil {
		t.Fatal("UpdateVisibility succeeded against the recorder")
	}
	if len(rec.reqs) != 1 {
		t.Fatalf("%d requests sent, want 1", len(rec.reqs))
	}
	r := rec.reqs[0]
	if r.method != http.MethodPut || r.body != "" || !strings.Contains(r.url, "visibilitytimeout=90") || !strings.Contains(r.url, "popreceipt=receipt") {
		t.Errorf("request = %s %s with body %q", r.method, r.url, r.body)
	}
}
