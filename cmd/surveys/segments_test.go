package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/survey/surveytest"
	"github.com/surveys-dev/surveys/internal/worker"
)

// TestServeBuildsOldSegments starts serve on a store whose survey was
// answered before segments existed: the segment builder's start-up pass
// builds its segments and writes its marker.
func TestServeBuildsOldSegments(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	st, err := local.Open(filepath.Join(dir, "surveys.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Init(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := store.NewTenantStore(st).Create(ctx, &survey.Tenant{Key: "oldco", Name: "Old Co", Plan: survey.Standard}); err != nil {
		t.Fatal(err)
	}
	s := &survey.Survey{Tenant: "oldco", Title: "Before segments", State: survey.Published,
		Questions: []survey.Question{{Text: "Why?", Type: survey.SimpleText}}}
	if err := store.NewSurveyStore(st).Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	as := store.NewSurveyAnswerStore(st)
	sum := &store.StoredSummary{SurveyAnswersSummary: *survey.NewSummary(s)}
	var ids []string
	for i := range 30 {
		a, err := survey.NewAnswer(s, surveytest.Forms(map[string]string{s.Questions[0].ID: fmt.Sprintf("reason %d", i)}))
		if err != nil {
			t.Fatal(err)
		}
		a.ID, a.CreatedOn = store.NewAnswerID(time.Now()), time.Now().UTC()
		if _, err := as.File(ctx, &a, "old"); err != nil {
			t.Fatal(err)
		}
		sum.Add(a)
		ids = append(ids, a.ID)
	}
	if _, err := as.AppendAt(ctx, s.Tenant, s.Slug, nil, 0, ids); err != nil {
		t.Fatal(err)
	}
	if _, err := store.NewSurveyAnswersSummaryStore(st).Put(ctx, sum, ""); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	m := newTestMain(t, dir)
	defer m.Close()
	as = store.NewSurveyAnswerStore(m.Storage)
	deadline := time.Now().Add(time.Minute)
	for {
		n, err := as.Segmented(ctx, s.Tenant, s.Slug)
		_, merr := m.Storage.GetBlob(ctx, store.SystemContainer, worker.SegmentsMarker)
		if err == nil && n == len(ids) && merr == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute, %d answers of %d in segments (%v), marker: %v", n, len(ids), err, merr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	at := 0
	err = as.Scan(ctx, s.Tenant, s.Slug, 0, func(pos int, a *survey.SurveyAnswer) error {
		if pos != at || a.ID != ids[pos] {
			return fmt.Errorf("position %d holds %s", pos, a.ID)
		}
		at++
		return nil
	})
	if err != nil || at != len(ids) {
		t.Fatalf("scan: %d answers, %v", at, err)
	}
	if code, body := get(t, m, "/metrics"); code != http.StatusOK || !strings.Contains(body, "surveys_segments_answers_added_total 30") {
		t.Errorf("GET /metrics = %d, without the 30 answers the segment builder added", code)
	}
}
