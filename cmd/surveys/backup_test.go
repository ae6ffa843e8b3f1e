package main

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
)

const (
	demoTenant = "adatum"
	demoSlug   = "adatum-customer-satisfaction"
)

func none(string) string { return "" }

// respondents answers the demo survey at addr from n goroutines until the
// returned stop is called.
func respondents(t *testing.T, addr string, n int) (*ledger, func()) {
	t.Helper()
	led := newLedger()
	base := "http://" + addr
	var bp atomic.Pointer[string]
	bp.Store(&base)
	hc := &http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	hard, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		c := &crashClient{t: t, hc: hc, base: &bp, path: "/survey/" + demoTenant + "/" + demoSlug, led: led,
			rnd: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(i)))}
		wg.Go(func() { c.run(hard, stop) })
	}
	var once sync.Once
	stopAll := func() {
		once.Do(func() { close(stop); wg.Wait(); cancel() })
	}
	t.Cleanup(stopAll)
	return led, stopAll
}

// waitAnswered waits until the respondents have n answers acknowledged.
func waitAnswered(t *testing.T, led *ledger, n int64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for led.answered.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d answers acknowledged in two minutes, want %d", led.answered.Load(), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// answersQueued is the number of messages in st's answers queues.
func answersQueued(t *testing.T, ctx context.Context, st storage.Storage) int {
	t.Helper()
	left := 0
	for _, q := range store.AnswerQueues {
		n, err := st.ApproximateCount(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		left += n
	}
	return left
}

// drainAnswers waits until st's answers queues are empty (a worker runs
// on it).
func drainAnswers(t *testing.T, st storage.Storage) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		left := answersQueued(t, ctx, st)
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d answers messages still queued after two minutes", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkAnswers checks that a survey's summary counts each stored answer
// blob once (it equals a recount), that its answer list lists each once,
// and returns the stored answers' IDs.
func checkAnswers(t *testing.T, st storage.Storage, tenant, slug string) map[string]bool {
	t.Helper()
	ctx := context.Background()
	as := store.NewSurveyAnswerStore(st)
	s, err := store.NewSurveyStore(st).Get(ctx, tenant, slug)
	if err != nil {
		t.Fatal(err)
	}
	recount := survey.NewSummary(s)
	ids := map[string]bool{}
	err = as.ListAll(ctx, tenant, slug, func(id string) error {
		a, err := as.Get(ctx, tenant, slug, id)
		if err != nil {
			return err
		}
		recount.Add(*a)
		ids[id] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sum, _, err := store.NewSurveyAnswersSummaryStore(st).Get(ctx, tenant, slug)
	if err != nil {
		t.Fatalf("summary: %v", err)
	}
	if !reflect.DeepEqual(sum.SurveyAnswersSummary, *recount) {
		t.Errorf("the summary (%d answers) is not the recount of the %d answer blobs", sum.TotalAnswers, len(ids))
	}
	list, total, err := as.Page(ctx, tenant, slug, 0, len(ids)+100)
	if err != nil || total != len(ids) {
		t.Fatalf("answer list has %d entries (%v), want %d", total, err, len(ids))
	}
	seen := map[string]bool{}
	for _, id := range list {
		if seen[id] || !ids[id] {
			t.Fatalf("answer list: %s twice, or not stored", id)
		}
		seen[id] = true
	}
	return ids
}

// TestBackupWhileServing takes a backup of a server's store while
// respondents keep answering, then restores it (a server started on the
// backup folder) and checks that it is a snapshot: it passes
// integrity_check, opens, serves the surveys, holds every answer
// acknowledged before the backup began, and its summary counts exactly the
// answers it holds once its worker has merged the queued ones.
func TestBackupWhileServing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	// A region's store, to be copied too.
	if err := os.MkdirAll(filepath.Join(dir, "regions"), 0o750); err != nil {
		t.Fatal(err)
	}
	region, err := local.Open(filepath.Join(dir, "regions", "westeurope.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := region.CreateQueue(ctx, "regionqueue"); err != nil {
		t.Fatal(err)
	}
	if err := region.Close(); err != nil {
		t.Fatal(err)
	}

	// Its respondents all come from loopback, faster than a person would.
	m := newTestMainWith(t, []string{"--data", dir, "--answers-per-minute=0"}, nil)
	closed := false
	defer func() {
		if !closed {
			m.Close()
		}
	}()
	led, stop := respondents(t, m.Addr(), 4)
	waitAnswered(t, led, 30)
	led.mu.Lock()
	before := make(map[string]bool, len(led.acked))
	for id := range led.acked {
		before[id] = true
	}
	led.mu.Unlock()
	out := filepath.Join(t.TempDir(), "backup")
	var stdout bytes.Buffer
	start := time.Now()
	if err := run(ctx, []string{"backup", "--data", dir, "--out", out}, none, strings.NewReader(""), &stdout, io.Discard); err != nil {
		t.Fatalf("backup: %v", err)
	}
	took := time.Since(start)
	waitAnswered(t, led, led.answered.Load()+20) // still serving
	stop()
	closed = true
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("backup took %v:\n%s", took, stdout.String())
	for _, f := range []string{"surveys.db", "regions/westeurope.db"} {
		if !strings.Contains(stdout.String(), filepath.Join(out, f)+": ") {
			t.Errorf("backup printed nothing about %s:\n%s", f, stdout.String())
		}
		if err := local.Check(ctx, filepath.Join(out, f)); err != nil {
			t.Errorf("integrity: %v", err)
		}
	}
	if !strings.Contains(stdout.String(), "entities") || !strings.Contains(stdout.String(), "messages") {
		t.Errorf("backup printed no counts:\n%s", stdout.String())
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("the backup left temporary files beside it: %v", entries)
	}
	st, err := local.Open(filepath.Join(out, "surveys.db"))
	if err != nil {
		t.Fatalf("the backup does not open: %v", err)
	}
	st.Close()

	// Restore: a server on the backup folder. A worker had taken some
	// messages when the backup was made: in the backup they are hidden
	// for another minute; reveal them now, as that minute would.
	revealHiddenMessages(t, filepath.Join(out, "surveys.db"))
	r := newTestMain(t, out)
	defer r.Close()
	if code, body := get(t, r, "/"); code != http.StatusOK || !strings.Contains(body, "Adatum customer satisfaction") {
		t.Fatalf("the restored server's home page = %d", code)
	}
	if code, _ := get(t, r, "/survey/"+demoTenant+"/"+demoSlug); code != http.StatusOK {
		t.Fatalf("the restored server's survey page = %d", code)
	}
	drainAnswers(t, r.Storage)
	ids := checkAnswers(t, r.Storage, demoTenant, demoSlug)
	var missing []string
	for id := range before {
		if !ids[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d answers acknowledged before the backup are not in it: %v", len(missing), firstOf(missing))
	}
	if int64(len(ids)) >= led.answered.Load() {
		t.Errorf("the backup holds %d answers, as many as were acknowledged by the end (%d): not a copy of the middle", len(ids), led.answered.Load())
	}
	t.Logf("acknowledged before the backup %d, in the backup %d, by the end %d", len(before), len(ids), led.answered.Load())
}

func TestBackupBadInput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	newTestMain(t, dir).Close()
	existing := filepath.Join(t.TempDir(), "existing")
	if err := os.MkdirAll(existing, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(existing, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	notStore := t.TempDir()
	if err := os.WriteFile(filepath.Join(notStore, "surveys.db"), bytes.Repeat([]byte("not sqlite "), 500), 0o600); err != nil {
		t.Fatal(err)
	}
	fresh := func() string { return filepath.Join(t.TempDir(), "b") }
	tests := []struct {
		name    string
		args    []string
		out     string // must not exist afterwards, unless it did before
		wantErr string
	}{
		{"unknown flag", []string{"--outt", "x"}, "", "flag provided but not defined"},
		{"no --out", []string{"--data", dir}, "", "--out"},
		{"stray argument", []string{"--data", dir, "--out", fresh(), "now"}, "", "unexpected arguments"},
		{"--out exists", []string{"--data", dir, "--out", existing}, existing, "exists"},
		{"--force over something else", []string{"--data", dir, "--out", existing, "--force"}, existing, "is not a backup"},
		{"no store", []string{"--data", t.TempDir(), "--out", fresh()}, "", "holds no embedded store"},
		{"not a store", []string{"--data", notStore, "--out", fresh()}, "", "not a Surveys store"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.out
			for i, a := range tc.args {
				if a == "--out" && out == "" {
					out = tc.args[i+1]
				}
			}
			err := run(ctx, append([]string{"backup"}, tc.args...), none, strings.NewReader(""), io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if out == existing {
				if b, err := os.ReadFile(filepath.Join(existing, "notes.txt")); err != nil || string(b) != "mine" {
					t.Errorf("the existing folder changed: %q %v", b, err)
				}
			} else if out != "" {
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s was written", out)
				}
				if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
					t.Errorf("files left beside %s: %v", out, entries)
				}
			}
		})
	}

	// --force replaces an earlier backup.
	out := fresh()
	for i := range 2 {
		args := []string{"backup", "--data", dir, "--out", out}
		if i == 1 {
			args = append(args, "--force")
		}
		if err := run(ctx, args, none, strings.NewReader(""), io.Discard, io.Discard); err != nil {
			t.Fatalf("backup %d: %v", i, err)
		}
	}
	if err := local.Check(ctx, filepath.Join(out, "surveys.db")); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
		t.Errorf("--force left %v", entries)
	}
}
