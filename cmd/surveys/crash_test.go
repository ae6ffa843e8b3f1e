package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/surveys-dev/surveys/internal/formfill"
	"github.com/surveys-dev/surveys/internal/storage"
	"github.com/surveys-dev/surveys/internal/storage/local"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/survey"
	"github.com/surveys-dev/surveys/internal/worker"
)

// TestCrashKill9 is the crash test: under load, kill -9 the real server
// several times, restart it on the same data folder, and check that every
// answer that got its redirect is stored and that every stored answer is
// counted once, in the summary, in the answer list and in the answer
// segments (in the list's order).
//
// The servers run with their worker on, so that crashes hit the worker
// too (a batch dequeued, merged or appended but not deleted). A killed
// worker's messages stay hidden for worker.DefaultConfig.Visibility (a
// minute), which the binary offers no flag to shorten. Waiting it out made
// the test last about 70s (measured), so once every process is gone the
// test makes those messages visible in the file directly (see
// revealHiddenMessages): the state the queue reaches a minute later, as no
// live process holds a message any more. The test then lasts about 15-20s.
// Running the servers without their worker would be as quick but would
// not crash the worker. A fresh worker drains the queue, and the test
// checks the store.
func TestCrashKill9(t *testing.T) {
	const (
		tenant   = "adatum"
		slug     = "adatum-customer-satisfaction"
		clients  = 16
		kills    = 4
		minAcked = 100
		// answersTarget is how many answers to collect before the drain.
		answersTarget = 2*store.ListChunkSize + store.ListChunkSize/2
	)
	start := time.Now()
	bin := buildServer(t)
	t.Logf("built the server in %v", time.Since(start).Round(time.Millisecond))

	data, logs := t.TempDir(), t.TempDir()
	var (
		mu      sync.Mutex
		servers []*crashServer
	)
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, s := range servers {
			s.kill()
		}
		if t.Failed() {
			for _, s := range servers {
				s.logTail(t)
			}
		}
	})
	launch := func() *crashServer {
		mu.Lock()
		n := len(servers)
		mu.Unlock()
		s := startCrashServer(t, bin, data, logs, n)
		mu.Lock()
		servers = append(servers, s)
		mu.Unlock()
		return s
	}

	srv := launch()
	var base atomic.Pointer[string]
	base.Store(&srv.base)

	// The respondents.
	stop := make(chan struct{})
	// hard bounds the clients: they finish the form in hand after stop,
	// but not for ever.
	hard, cancelHard := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancelHard()
	led := newLedger()
	tr := &http.Transport{MaxIdleConns: 2 * clients, MaxIdleConnsPerHost: 2 * clients, IdleConnTimeout: 30 * time.Second}
	defer tr.CloseIdleConnections()
	hc := &http.Client{
		Transport:     tr,
		Timeout:       20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	// A survey whose every answer is too large for a queue message, so
	// that it is spilled to a blob before its message: a quarter of the
	// respondents answer it.
	longSlug := createLongSurvey(t, filepath.Join(data, "surveys.db"), tenant)
	// The demo survey asks a question of every kind: the clients fill
	// each from the page (formfill).
	demoQuestions := questionsOf(t, filepath.Join(data, "surveys.db"), tenant, slug)
	var wg sync.WaitGroup
	for i := range clients {
		c := &crashClient{t: t, hc: hc, base: &base, path: "/survey/" + tenant + "/" + slug, questions: demoQuestions, led: led,
			rnd: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(i)))}
		if i%4 == 0 {
			c.path, c.questions, c.long = "/survey/"+tenant+"/"+longSlug, longQuestions, true
		}
		wg.Go(func() { c.run(hard, stop) })
	}
	clientsDone := make(chan struct{})
	go func() { wg.Wait(); close(clientsDone) }()
	stopClients := func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
	}
	defer func() {
		stopClients()
		cancelHard()
		<-clientsDone
	}()

	// waitAcks waits until n more answers are acknowledged, so that each
	// server is killed under load, not while it starts.
	waitAcks := func(n int64, what string) {
		t.Helper()
		want := led.acks.Load() + n
		deadline := time.Now().Add(60 * time.Second)
		for led.acks.Load() < want {
			if time.Now().After(deadline) {
				t.Fatalf("%s: no answers acknowledged for 60s (%d acknowledged in all, %d failures)", what, led.acks.Load(), led.failures.Load())
			}
			select {
			case <-time.After(10 * time.Millisecond):
			case <-clientsDone:
				t.Fatalf("%s: the clients stopped", what)
			}
		}
	}

	// The kill phase.
	killPhase := time.Now()
	rnd := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 42))
	var lives []string
	for k := range kills {
		waitAcks(10, fmt.Sprintf("server %d", k))
		// A random moment in the server's life under load.
		time.Sleep(time.Duration(400+rnd.IntN(1400)) * time.Millisecond)
		acksAtKill := led.acks.Load()
		srv.kill()
		lives = append(lives, fmt.Sprintf("server %d killed at %v with %d acks so far", k, time.Since(killPhase).Round(time.Millisecond), acksAtKill))
		srv = launch()
		base.Store(&srv.base)
	}
	// The last server takes the load until the survey has answersTarget
	// answers (bounded by time). In production a killed worker's messages
	// come back a minute later, after that minute's answers have been
	// merged; revealing them at once must not make the test easier, so
	// thousands of answers, more than the summary's window of recent
	// answer IDs (store.RecentAnswers) and more than one chunk of the
	// answer list (store.ListChunkSize), are merged before the drain.
	waitAcks(20, "last server")
	for deadline := time.Now().Add(30 * time.Second); led.answered.Load() < answersTarget && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	// Then the clients stop, each finishing the form in hand (so no
	// stored answer is left that its respondent would still retry).
	stopClients()
	select {
	case <-clientsDone:
	case <-time.After(90 * time.Second):
		t.Fatal("the clients did not stop within 90s")
	}
	for _, l := range lives {
		t.Log(l)
	}
	t.Logf("load phase (kills, then the last server): %v, %d answers acknowledged", time.Since(killPhase).Round(time.Millisecond), led.answered.Load())
	if err := srv.terminate(30 * time.Second); err != nil {
		t.Fatalf("last server: %v", err)
	}

	// Every process is gone; reveal what the killed workers held and drain.
	dbPath := filepath.Join(data, "surveys.db")
	hidden := revealHiddenMessages(t, dbPath)
	st, err := local.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	drainStart := time.Now()
	w := worker.New(st, worker.Config{Batch: 32, Visibility: time.Second, MaxAttempts: 5, MaxIdle: 50 * time.Millisecond},
		slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})), nil)
	drained := 0
	for {
		n, err := w.RunOnce(ctx)
		if err != nil {
			t.Logf("drain: %v", err)
		}
		drained += n
		left := answersQueued(t, ctx, st)
		if left == 0 {
			break
		}
		if time.Since(drainStart) > 60*time.Second {
			t.Fatalf("the answers queue still holds %d messages after 60s of draining", left)
		}
		if n == 0 {
			// Messages a failed batch left hidden for a second.
			time.Sleep(50 * time.Millisecond)
		}
	}
	t.Logf("drained %d messages (%d were hidden by killed workers) in %v", drained, hidden, time.Since(drainStart).Round(time.Millisecond))
	if n, err := st.ApproximateCount(ctx, worker.PoisonQueue); err != nil || n != 0 {
		t.Errorf("poison queue holds %d messages (%v): their answers are not counted", n, err)
	}

	// The checks, for each survey.
	acked, posted, resubmitted, unfinished := led.snapshot()
	stored := 0
	for _, sl := range []string{slug, longSlug} {
		n := checkCrashSurvey(t, st, tenant, sl, led.of("/survey/"+tenant+"/"+sl))
		t.Logf("survey %s: %d answers stored", sl, n)
		stored += n
		if sl == longSlug && n < 5 {
			t.Errorf("only %d answers of the spilled survey are stored, want at least 5", n)
		}
	}
	t.Logf("acknowledged %d answers (%d redirects, %d forms resubmitted on purpose, %d client failures), stored %d, kills %d, posted but never acknowledged %d",
		len(acked), led.acks.Load(), resubmitted, led.failures.Load(), stored, len(lives), len(posted)-len(acked))
	if len(unfinished) > 0 {
		t.Errorf("%d forms could not be submitted before the clients' deadline: %v", len(unfinished), firstOf(unfinished))
	}
	if page, err := st.ListBlobs(ctx, store.SpillContainer, storage.ListOptions{}); err == nil {
		// Spills of forms posted as a server died, or whose message was
		// deleted just before a kill: nothing reads them.
		t.Logf("%d spilled answers left over", len(page.Items))
	}

	// The test did something.
	if len(acked) < minAcked {
		t.Errorf("only %d answers acknowledged, want at least %d", len(acked), minAcked)
	}
	if len(lives) < 3 {
		t.Errorf("only %d kills, want at least 3", len(lives))
	}
	t.Logf("total %v", time.Since(start).Round(time.Millisecond))
}

// checkCrashSurvey checks one survey after the crash test's drain: every
// acknowledged answer (acked) is stored, and every stored answer is counted
// once in the summary and listed once. It returns the number stored.
func checkCrashSurvey(t *testing.T, st storage.Storage, tenant, slug string, acked map[string]bool) int {
	t.Helper()
	ctx := t.Context()
	sv, err := store.NewSurveyStore(st).Get(ctx, tenant, slug)
	if err != nil {
		t.Fatal(err)
	}
	answers := store.NewSurveyAnswerStore(st)
	var stored []string
	if err := answers.ListAll(ctx, tenant, slug, func(id string) error {
		stored = append(stored, id)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	storedSet := make(map[string]bool, len(stored))
	blobs := make(map[string][]byte, len(stored)) // ID: the answer blob's answer, as JSON
	recount := survey.NewSummary(sv)
	for _, id := range stored {
		storedSet[id] = true
		a, err := answers.Get(ctx, tenant, slug, id)
		if err != nil {
			t.Fatalf("answer %s: %v", id, err)
		}
		if a.ID != id {
			t.Errorf("blob %s holds answer %s", id, a.ID)
		}
		recount.Add(*a)
		if blobs[id], err = json.Marshal(a); err != nil {
			t.Fatal(err)
		}
	}

	// Nothing acknowledged is lost.
	var lost []string
	for id := range acked {
		if !storedSet[id] {
			lost = append(lost, id)
		}
	}
	if len(lost) > 0 {
		sort.Strings(lost)
		t.Errorf("%d acknowledged answers are not stored: %v", len(lost), firstOf(lost))
	}
	// Stored but never acknowledged: a respondent who would retry. The
	// clients finish every form, so there should be none; if there are,
	// they must be counted like the others.
	var orphans []string
	for _, id := range stored {
		if !acked[id] {
			orphans = append(orphans, id)
		}
	}
	if len(orphans) > 0 {
		t.Logf("%d stored answers were never acknowledged (forms the clients gave up): %v", len(orphans), firstOf(orphans))
	}

	// Each stored answer is counted once.
	sum, _, err := store.NewSurveyAnswersSummaryStore(st).Get(ctx, tenant, slug)
	if err != nil {
		t.Fatalf("summary: %v", err)
	}
	if sum.TotalAnswers != int64(len(stored)) {
		t.Errorf("summary counts %d answers, %d are stored", sum.TotalAnswers, len(stored))
	}
	if !reflect.DeepEqual(sum.SurveyAnswersSummary, *recount) {
		got, _ := json.Marshal(sum.SurveyAnswersSummary)
		want, _ := json.Marshal(recount)
		t.Errorf("the stored summary is not the recount of the stored answers:\nstored:  %s\nrecount: %s", got, want)
	}

	// The answer list has each stored answer once.
	ids, total, err := answers.Page(ctx, tenant, slug, 0, len(stored)+1000)
	if err != nil {
		t.Fatalf("answer list: %v", err)
	}
	if total != len(ids) {
		t.Errorf("answer list: Page gave %d of %d IDs", len(ids), total)
	}
	seen := make(map[string][]int, len(ids)) // ID: its positions
	for i, id := range ids {
		seen[id] = append(seen[id], i)
	}
	var twice, missing, unknown []string
	for id, at := range seen {
		if len(at) > 1 {
			twice = append(twice, fmt.Sprintf("%s at %v", id, at))
		}
		if !storedSet[id] {
			unknown = append(unknown, id)
		}
	}
	for _, id := range stored {
		if len(seen[id]) == 0 {
			missing = append(missing, id)
		}
	}
	sort.Strings(twice)
	if len(twice) > 0 || len(missing) > 0 || len(unknown) > 0 {
		t.Errorf("answer list of %d IDs (%d stored answers): %d listed more than once %v, %d missing %v, %d not stored %v",
			total, len(stored), len(twice), firstOf(twice), len(missing), firstOf(missing), len(unknown), firstOf(unknown))
	}

	checkCrashSegments(t, answers, tenant, slug, ids, blobs, acked)
	return len(stored)
}

// checkCrashSegments checks a survey's answer segments after the drain:
// every listed answer is in a segment (Segmented is the list's length), and
// the segments hold the list's answers in its order, each once, each as its
// blob holds it; so every acknowledged answer is there exactly once.
func checkCrashSegments(t *testing.T, answers *store.SurveyAnswerStore, tenant, slug string, list []string, blobs map[string][]byte, acked map[string]bool) {
	t.Helper()
	ctx := t.Context()
	segmented, err := answers.Segmented(ctx, tenant, slug)
	if err != nil {
		t.Fatalf("segments of %s: %v", slug, err)
	}
	if segmented != len(list) {
		t.Errorf("segments of %s end at %d, the answer list holds %d answers", slug, segmented, len(list))
	}
	t.Logf("survey %s: %d answers in segments", slug, segmented)
	// Scan reads segments up to Segmented, then single blobs: with
	// Segmented equal to the list's length, every answer comes from a
	// segment.
	var scanned []string
	var moved, differ []string
	if err := answers.Scan(ctx, tenant, slug, 0, func(pos int, a *survey.SurveyAnswer) error {
		if pos != len(scanned) {
			moved = append(moved, fmt.Sprintf("%s at %d, not %d", a.ID, pos, len(scanned)))
		}
		scanned = append(scanned, a.ID)
		got, err := json.Marshal(a)
		if err != nil {
			return err
		}
		if want, ok := blobs[a.ID]; ok && !bytes.Equal(got, want) {
			differ = append(differ, a.ID)
		}
		return nil
	}); err != nil {
		t.Fatalf("scan the segments of %s: %v", slug, err)
	}
	if len(moved) > 0 {
		t.Errorf("segments of %s: %d answers out of place: %v", slug, len(moved), firstOf(moved))
	}
	if len(differ) > 0 {
		t.Errorf("segments of %s: %d answers differ from their blobs: %v", slug, len(differ), firstOf(differ))
	}
	if !slices.Equal(scanned, list) {
		first := 0
		for first < min(len(scanned), len(list)) && scanned[first] == list[first] {
			first++
		}
		t.Errorf("segments of %s hold %d answers, the list %d; they part at position %d", slug, len(scanned), len(list), first)
	}
	count := make(map[string]int, len(scanned))
	for _, id := range scanned {
		count[id]++
	}
	var twice, lost []string
	for id, n := range count {
		if n > 1 {
			twice = append(twice, id)
		}
	}
	for id := range acked {
		if count[id] == 0 {
			lost = append(lost, id)
		}
	}
	sort.Strings(twice)
	sort.Strings(lost)
	if len(twice) > 0 || len(lost) > 0 {
		t.Errorf("segments of %s: %d answers more than once %v, %d acknowledged answers missing %v", slug, len(twice), firstOf(twice), len(lost), firstOf(lost))
	}
}

// longQuestions is the number of text questions of the crash test's
// spilled survey: 13 answers of 4,000 characters pass a queue message.
const longQuestions = 13

// createLongSurvey publishes a survey of longQuestions text questions for
// tenant in the store at dbPath, beside a running server, and returns its
// slug.
func createLongSurvey(t *testing.T, dbPath, tenant string) string {
	t.Helper()
	st, err := local.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := &survey.Survey{Tenant: tenant, Title: "Adatum long answers", State: survey.Published}
	for i := range longQuestions {
		s.Questions = append(s.Questions, survey.Question{Text: fmt.Sprintf("Tell us more (%d)", i+1), Type: survey.SimpleText})
	}
	if err := store.NewSurveyStore(st).Create(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	return s.Slug
}

// questionsOf counts the questions of a survey in the store at dbPath.
func questionsOf(t *testing.T, dbPath, tenant, slug string) int {
	t.Helper()
	st, err := local.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sv, err := store.NewSurveyStore(st).Get(t.Context(), tenant, slug)
	if err != nil {
		t.Fatal(err)
	}
	return len(sv.Questions)
}

// firstOf returns the first 20 of list, for messages.
func firstOf(list []string) []string {
	if len(list) > 20 {
		return append(list[:20:20], fmt.Sprintf("… %d more", len(list)-20))
	}
	return list
}

// buildServer builds the real binary once, into a temporary folder.
func buildServer(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		//lint:ignore SA1019 only a fallback: go test puts its go on PATH.
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "surveys")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goCmd, "build", "-o", bin, "./").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// crashServer is one run of the server binary.
type crashServer struct {
	n       int
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:port
	logPath string
	done    chan struct{} // closed when the process has been waited for
}

// crashSecretKey is the servers' SURVEYS_SECRET_KEY (32 bytes, base64).
const crashSecretKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// startCrashServer starts the binary on a free loopback port over data and
// waits until it is ready. A port taken in the meantime is retried.
func startCrashServer(t *testing.T, bin, data, logs string, n int) *crashServer {
	t.Helper()
	var lastErr error
	for attempt := range 5 {
		s := &crashServer{n: n, logPath: filepath.Join(logs, fmt.Sprintf("server-%d-%d.log", n, attempt)), done: make(chan struct{})}
		addr := freeLoopbackAddr(t)
		s.base = "http://" + addr
		logf, err := os.Create(s.logPath)
		if err != nil {
			t.Fatal(err)
		}
		// 16 clients on one address: no answer rate limit.
		s.cmd = exec.Command(bin, "serve", "--addr", addr, "--data", data, "--storage", "local", "--worker=true", "--seed=true", "--answers-per-minute=0")
		// One secret key for every life of the server, as an operator
		// keeps it: a form served before a kill is accepted after it.
		s.cmd.Env = append(os.Environ(), "SURVEYS_SECRET_KEY="+crashSecretKey)
		s.cmd.Stdout, s.cmd.Stderr = logf, logf
		err = s.cmd.Start()
		logf.Close() // the child has its own copy
		if err != nil {
			t.Fatalf("start server %d: %v", n, err)
		}
		go func() { _ = s.cmd.Wait(); close(s.done) }()
		if lastErr = s.waitReady(60 * time.Second); lastErr == nil {
			return s
		}
		s.kill()
		t.Logf("server %d, attempt %d: %v", n, attempt, lastErr)
	}
	t.Fatalf("server %d did not start: %v", n, lastErr)
	return nil
}

func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitReady polls /readyz until it answers 200.
func (s *crashServer) waitReady(timeout time.Duration) error {
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	deadline := time.Now().Add(timeout)
	for {
		resp, err := hc.Get(s.base + "/readyz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.done:
			return fmt.Errorf("exited before ready: %v", s.cmd.ProcessState)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v (last: %v)", timeout, err)
		}
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (s *crashServer) kill() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Kill()
	<-s.done
}

// terminate stops the server gracefully and checks that it exits cleanly.
func (s *crashServer) terminate(timeout time.Duration) error {
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-s.done:
	case <-time.After(timeout):
		s.kill()
		return fmt.Errorf("did not stop within %v of SIGTERM", timeout)
	}
	if !s.cmd.ProcessState.Success() {
		return fmt.Errorf("exited with %v", s.cmd.ProcessState)
	}
	return nil
}

// logTail logs the end of the server's log.
func (s *crashServer) logTail(t *testing.T) {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	t.Logf("log of server %d (%s):\n%s", s.n, filepath.Base(s.logPath), b)
}

// revealHiddenMessages makes the answers queues' messages that killed
// workers dequeued visible now, as they would be once their visibility
// timeout ran out. It must run when no process has the store open.
func revealHiddenMessages(t *testing.T, dbPath string) int64 {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+dbPath+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Now().UnixNano()
	res, err := db.Exec("UPDATE messages SET visible = ? WHERE queue IN (?, ?) AND visible > ?", now, store.AnswersQueue, store.PremiumAnswersQueue, now)
	if err != nil {
		t.Fatalf("reveal the messages hidden by killed workers (has the local schema changed?): %v", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// ledger records what the respondents were told.
type ledger struct {
	mu          sync.Mutex
	acked       map[string]bool   // got a 303
	paths       map[string]string // token: the survey's path
	posted      map[string]bool   // POSTed at least once
	unfinished  []string          // POSTed, never acknowledged, given up
	resubmitted int
	acks        atomic.Int64 // 303s, resubmissions included
	answered    atomic.Int64 // distinct answers acknowledged
	failures    atomic.Int64 // requests that failed (connection errors, 5xx)
}

func newLedger() *ledger {
	return &ledger{acked: map[string]bool{}, paths: map[string]string{}, posted: map[string]bool{}}
}

// tokenID is the answer's ID a form token holds ("<id>.<mac>"): the
// ledger keeps IDs, to compare with the stored answers.
func tokenID(token string) string {
	id, _, _ := strings.Cut(token, ".")
	return id
}

func (l *ledger) post(token string) {
	token = tokenID(token)
	l.mu.Lock()
	l.posted[token] = true
	l.mu.Unlock()
}

func (l *ledger) ack(token, path string, resubmit bool) {
	token = tokenID(token)
	l.mu.Lock()
	if !l.acked[token] {
		l.acked[token] = true
		l.paths[token] = path
		l.answered.Add(1)
	}
	if resubmit {
		l.resubmitted++
	}
	l.mu.Unlock()
	l.acks.Add(1)
}

// of returns the acknowledged tokens of the survey at path.
func (l *ledger) of(path string) map[string]bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]bool{}
	for token := range l.acked {
		if l.paths[token] == path {
			out[token] = true
		}
	}
	return out
}

func (l *ledger) giveUp(token string) {
	token = tokenID(token)
	l.mu.Lock()
	l.unfinished = append(l.unfinished, token)
	l.mu.Unlock()
}

func (l *ledger) snapshot() (acked, posted map[string]bool, resubmitted int, unfinished []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.acked, l.posted, l.resubmitted, l.unfinished
}

// crashClient is one respondent after another: it loads the form, answers
// every question and posts until it is redirected, through kills and
// restarts.
type crashClient struct {
	t    *testing.T
	hc   *http.Client
	base *atomic.Pointer[string]
	path string
	// questions is how many questions the survey at path has (0: not
	// checked); long
	// clients answer each text question with 4,000 characters.
	questions int
	long      bool
	led       *ledger
	rnd       *rand.Rand
}

var words = []string{"fast", "slow", "reliable", "friendly", "support", "pricing", "portal", "invoices", "reports", "great", "confusing", "helpful"}

// form is a parsed survey page.
type form struct {
	token string
	fill  formfill.Form
}

func (c *crashClient) run(hard context.Context, stop <-chan struct{}) {
	for failures := 0; ; {
		select {
		case <-stop:
			return
		case <-hard.Done():
			return
		default:
		}
		f, err := c.fetch(hard)
		if err != nil {
			if errors.Is(err, errBadPage) {
				c.t.Error(err)
				return
			}
			c.backoff(&failures)
			continue
		}
		failures = 0
		values := c.answer(f)
		if c.rnd.IntN(10) == 0 {
			// Now and then the form posted twice at once (a double click
			// on Submit): both posts in flight together, one answer.
			twin := *c
			twin.rnd = rand.New(rand.NewPCG(c.rnd.Uint64(), c.rnd.Uint64()))
			var ok [2]bool
			var both sync.WaitGroup
			both.Go(func() { ok[1] = twin.submit(hard, f.token, values, true) })
			ok[0] = c.submit(hard, f.token, values, false)
			both.Wait()
			if !ok[0] || !ok[1] {
				return
			}
			continue
		}
		if !c.submit(hard, f.token, values, false) {
			return
		}
		// Now and then the same form again (a double click, the back
		// button): still one answer.
		if c.rnd.IntN(10) == 0 && !c.submit(hard, f.token, values, true) {
			return
		}
	}
}

var errBadPage = errors.New("crash test: the survey page cannot be parsed")

func (c *crashClient) fetch(ctx context.Context) (form, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *c.base.Load()+c.path, nil)
	if err != nil {
		return form{}, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.led.failures.Add(1)
		return form{}, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		c.led.failures.Add(1)
		return form{}, err
	}
	if resp.StatusCode != http.StatusOK {
		c.led.failures.Add(1)
		return form{}, fmt.Errorf("GET %s: %d", c.path, resp.StatusCode)
	}
	page := string(body)
	filled, err := formfill.Parse(body)
	if err != nil || !store.ValidAnswerID(tokenID(filled.Token)) {
		return form{}, fmt.Errorf("%w: %v, token %q in\n%s", errBadPage, err, filled.Token, page)
	}
	if n := filled.Questions(); c.questions > 0 && n != c.questions {
		return form{}, fmt.Errorf("%w: %d questions, want %d\n%s", errBadPage, n, c.questions, page)
	}
	f := form{token: filled.Token, fill: filled}
	return f, nil
}

// answer fills in every question at random (formfill): each text
// question with a few words, or, on a long client, with
// survey.MaxTextAnswerLength characters.
func (c *crashClient) answer(f form) url.Values {
	return f.fill.Answer(c.rnd, func(r *rand.Rand) string {
		n := 1 + r.IntN(4)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[r.IntN(len(words))]
		}
		text := strings.Join(ws, " ")
		if c.long {
			for len(text) < survey.MaxTextAnswerLength {
				text += " " + words[r.IntN(len(words))]
			}
			text = text[:survey.MaxTextAnswerLength-1] + "."
		}
		return text
	})
}

// submit posts the form until it is redirected to the thank-you page. It
// reports false when the client must stop: the hard deadline passed (the
// form is recorded as unfinished) or the server refused the form.
func (c *crashClient) submit(hard context.Context, token string, values url.Values, resubmit bool) bool {
	body := values.Encode()
	for failures := 0; ; {
		if hard.Err() != nil {
			c.led.giveUp(token)
			return false
		}
		req, err := http.NewRequestWithContext(hard, http.MethodPost, *c.base.Load()+c.path, strings.NewReader(body))
		if err != nil {
			c.t.Error(err)
			return false
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		c.led.post(token)
		resp, err := c.hc.Do(req)
		if err != nil {
			c.led.failures.Add(1)
			c.backoff(&failures)
			continue
		}
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4000))
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusSeeOther && strings.HasSuffix(resp.Header.Get("Location"), c.path+"/thankyou"):
			c.led.ack(token, c.path, resubmit)
			return true
		case resp.StatusCode >= 500:
			// A server failing as it is killed, or its storage closing.
			c.led.failures.Add(1)
			c.backoff(&failures)
		default:
			c.t.Errorf("POST %s (token %s) = %d %q:\n%s", c.path, token, resp.StatusCode, resp.Header.Get("Location"), msg)
			return false
		}
	}
}

// backoff waits a little longer after each failure in a row, with jitter.
func (c *crashClient) backoff(failures *int) {
	*failures++
	d := time.Duration(5<<min(*failures, 5)) * time.Millisecond // 10ms .. 160ms
	time.Sleep(d/2 + time.Duration(c.rnd.Int64N(int64(d/2)+1)))
}
