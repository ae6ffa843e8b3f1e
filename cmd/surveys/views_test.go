package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/store"
)

// TestShutdownFlushesViews views a survey, then shuts the server down as
// SIGTERM does: the views counted in memory reach the queue, and the next
// start's views worker adds them to the survey's count.
func TestShutdownFlushesViews(t *testing.T) {
	dir := t.TempDir()
	m := newTestMain(t, dir)
	ctx := context.Background()
	list, err := store.NewSurveyStore(m.Storage).List(ctx, "adatum")
	if err != nil || len(list) != 1 {
		t.Fatalf("demo surveys: %v %v", list, err)
	}
	slug := list[0].Slug
	for i := 0; i < 7; i++ {
		if code, _ := get(t, m, "/survey/adatum/"+slug); code != http.StatusOK {
			t.Fatalf("survey page = %d", code)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	m = newTestMain(t, dir)
	defer m.Close()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		tr, err := store.NewRankingStore(m.Storage).Tenant(ctx, "adatum", 5)
		if err != nil {
			t.Fatal(err)
		}
		if v := tr.Counts[slug].Views; v == 7 {
			break
		} else if v > 7 || time.Now().After(deadline) {
			t.Fatalf("%d views counted, want 7", v)
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, body := get(t, m, "/metrics")
	if !strings.Contains(body, "surveys_views_applied_total") {
		t.Error("/metrics lacks surveys_views_applied_total")
	}
}
