package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/storagetest/backends"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// TestStoredBytes pins the bytes the worker stores for merged answers, as
// they always were: each answer blob is json.Marshal of the answer and
// the message that filed it; the segments are, in list order, one line
// per answer of encoding/json's encoding without HTML escaping; the
// answer list's chunk is json.Marshal of its IDs. The answers carry
// texts that JSON escapes (<, >, &, quotes, é), one is spilled.
func TestStoredBytes(t *testing.T) {
	ctx := context.Background()
	st := backends.Local(t)
	f := newFixture(t, st, newTenant(), 17, 3, 5)
	drain(t, st, worker.New(st, patientConfig, quiet, nil))
	f.check(t)
	tenant, slug := f.survey.Tenant, f.survey.Slug
	ids, _, err := store.NewSurveyAnswerStore(st).Page(ctx, tenant, slug, 0, 100)
	if err != nil || len(ids) != len(f.ids) {
		t.Fatalf("list: %d ids, %v", len(ids), err)
	}
	var lines bytes.Buffer
	for _, id := range ids {
		b, err := st.GetBlob(ctx, store.AnswersContainer(tenant, slug), id)
		if err != nil {
			t.Fatal(err)
		}
		var stored struct {
			survey.SurveyAnswer
			Message string `json:"message,omitempty"`
		}
		if err := json.Unmarshal(b.Data, &stored); err != nil {
			t.Fatal(err)
		}
		if stored.Message == "" {
			t.Fatalf("answer %s: the blob names no message", id)
		}
		if want, _ := json.Marshal(stored); !bytes.Equal(b.Data, want) {
			t.Fatalf("answer %s: blob\n%s\nwant json.Marshal's\n%s", id, b.Data, want)
		}
		enc := json.NewEncoder(&lines)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&stored.SurveyAnswer); err != nil {
			t.Fatal(err)
		}
	}
	page, err := st.ListBlobs(ctx, store.SegmentContainer, storage.ListOptions{Prefix: tenant + "-" + slug + "/"})
	if err != nil || len(page.Items) == 0 {
		t.Fatalf("segments: %d, %v", len(page.Items), err)
	}
	var segs []byte
	for _, it := range page.Items {
		b, err := st.GetBlob(ctx, store.SegmentContainer, it.Name)
		if err != nil {
			t.Fatal(err)
		}
		segs = append(segs, b.Data...)
	}
	if !bytes.Equal(segs, lines.Bytes()) {
		t.Fatalf("segments\n%s\nwant the answers' lines\n%s", segs, lines.Bytes())
	}
	chunk, err := st.GetBlob(ctx, store.AnswerListContainer, tenant+"-"+slug+"/000000")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := json.Marshal(struct {
		IDs []string `json:"ids"`
	}{ids}); !bytes.Equal(chunk.Data, want) {
		t.Fatalf("list chunk\n%s\nwant\n%s", chunk.Data, want)
	}
}
