package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/surveys-dev/surveys/internal/formfill"
	"github.com/surveys-dev/surveys/internal/store"
	"github.com/surveys-dev/surveys/internal/worker"
)

// syncBuffer is a log sink several goroutines write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// bootMain boots the real server over the embedded store with extra flags,
// logging to logOut.
// testPublicURL is the --public-url of the tests that turn e-mail on: the
// links mailed start with it (whatever Host a request names), and a test
// follows them by their path on the server it started.
const testPublicURL = "http://surveys.test"

func bootMain(t *testing.T, logOut io.Writer, flags ...string) *Main {
	t.Helper()
	cfg, err := parseServe(append([]string{"--addr", "127.0.0.1:0", "--data", t.TempDir()}, flags...), func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.PasswordCost = bcrypt.MinCost // see testUsers
	m := NewMain(cfg, logOut)
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	return m
}

var formTokenRE = regexp.MustCompile(`name="token" value="([^"]+)"`)

// demoAnswer returns the path of Adatum's demo survey and a valid answer
// to it, with a form token from its page.
func demoAnswer(t *testing.T, m *Main) (string, url.Values) {
	t.Helper()
	ctx := context.Background()
	list, err := store.NewSurveyStore(m.Storage).List(ctx, "adatum")
	if err != nil || len(list) != 1 {
		t.Fatalf("demo surveys: %v %v", list, err)
	}
	s, err := store.NewSurveyStore(m.Storage).Get(ctx, "adatum", list[0].Slug)
	if err != nil {
		t.Fatal(err)
	}
	path := "/survey/adatum/" + s.Slug
	code, body := get(t, m, path)
	f, err := formfill.Parse([]byte(body))
	if code != http.StatusOK || err != nil {
		t.Fatalf("GET %s = %d: %v", path, code, err)
	}
	form := f.Answer(rand.New(rand.NewPCG(1, 2)), func(*rand.Rand) string { return "Quick and clear" })
	return path, form
}

// scrape returns the series of /metrics: "name{labels}" → value.
func scrape(t *testing.T, m *Main) map[string]string {
	t.Helper()
	code, body := get(t, m, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics = %d", code)
	}
	series := map[string]string{}
	for _, line := range strings.Split(body, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		series[line[:i]] = line[i+1:]
	}
	return series
}

// TestMetricsAfterTraffic views a survey and answers it on the real
// server, then checks that /metrics has every family, with its labels.
func TestMetricsAfterTraffic(t *testing.T) {
	m := bootMain(t, io.Discard)
	defer m.Close()
	path, form := demoAnswer(t, m)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm("http://"+m.Addr()+path, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST answer = %d", resp.StatusCode)
	}

	want := []string{
		`surveys_http_request_duration_seconds_count{code="200",method="GET",route="/survey/{tenant}/{slug}"}`,
		`surveys_http_request_duration_seconds_count{code="303",method="POST",route="/survey/{tenant}/{slug}"}`,
		`surveys_http_requests_in_flight`,
		`surveys_storage_operations_total{kind="enqueue",service="queue"}`,
		`surveys_storage_operations_total{kind="peek",service="queue"}`,
		`surveys_storage_errors_total{kind="get",service="blob"}`,
		`surveys_worker_queue_wait_seconds_count{queue="surveyanswers-premium",worker="answers"}`, // Adatum is premium
		`surveys_worker_queue_wait_seconds_count{queue="surveyviews",worker="views"}`,
		`surveys_worker_seconds_since_progress{worker="answers"}`,
		`surveys_worker_seconds_since_progress{worker="views"}`,
		`surveys_worker_seconds_since_progress{worker="transfers"}`,
		`surveys_summary_delay_seconds_count`,
		`surveys_answers_accepted_total`,
	}
	for _, q := range []string{store.AnswersQueue, store.PremiumAnswersQueue, worker.PoisonQueue, store.TransfersQueue, store.TransfersPoisonQueue, store.ViewsQueue, store.MailQueue, store.MailPoisonQueue} {
		want = append(want, fmt.Sprintf(`surveys_queue_depth{queue=%q}`, q), fmt.Sprintf(`surveys_queue_oldest_message_age_seconds{queue=%q}`, q))
	}
	// The worker files the answer in the background, and the view reaches
	// the views worker at the next flush (5 s): scrape until both have.
	var series map[string]string
	deadline := time.Now().Add(2 * time.Minute)
	for {
		series = scrape(t, m)
		if series[`surveys_worker_queue_wait_seconds_count{queue="surveyanswers-premium",worker="answers"}`] != "" &&
			series[`surveys_worker_queue_wait_seconds_count{queue="surveyviews",worker="views"}`] != "" || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, w := range want {
		if _, ok := series[w]; !ok {
			t.Errorf("/metrics lacks %s", w)
		}
	}
	if v := series[`surveys_http_request_duration_seconds_count{code="303",method="POST",route="/survey/{tenant}/{slug}"}`]; v != "1" {
		t.Errorf("one answer posted, request count %q", v)
	}
	for k := range series {
		if strings.Contains(k, "adatum") {
			t.Errorf("a label holds a raw path: %s", k)
		}
	}
}

// TestJSONLogs: with --log-format json every log line is one JSON object
// with time, level and msg.
func TestJSONLogs(t *testing.T) {
	var logs syncBuffer
	m := bootMain(t, &logs, "--log-format", "json")
	if code, _ := get(t, m, "/readyz"); code != http.StatusOK {
		t.Fatalf("readyz = %d", code)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	lines := 0
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		lines++
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line %d is not JSON: %v\n%s", lines, err, sc.Text())
		}
		for _, k := range []string{"time", "level", "msg"} {
			if s, _ := rec[k].(string); s == "" {
				t.Errorf("log line %d lacks %s: %s", lines, k, sc.Text())
			}
		}
	}
	if lines < 2 || !strings.Contains(logs.String(), `"msg":"serving"`) {
		t.Fatalf("%d log lines, want the start-up lines:\n%s", lines, logs.String())
	}
}

// TestShutdownFinishesInFlightRequest starts an answer whose body arrives
// slowly, then shuts down as SIGTERM does (serve's context cancelled, then
// Close): the request in flight completes, and Close waits for it.
func TestShutdownFinishesInFlightRequest(t *testing.T) {
	m := bootMain(t, io.Discard)
	path, form := demoAnswer(t, m)
	body := form.Encode()
	conn, err := net.Dial("tcp", m.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const inFlight = "surveys_http_requests_in_flight"
	gauge := func() float64 {
		v, err := strconv.ParseFloat(scrape(t, m)[inFlight], 64)
		if err != nil {
			t.Fatalf("%s: %v", inFlight, err)
		}
		return v
	}
	idle := gauge() // the scrape's own request
	half := len(body) / 2
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s",
		path, m.Addr(), len(body), body[:half])
	// The server has the headers: the request is in flight.
	waitUntil(t, time.Minute, "the answer in flight", func() bool { return gauge() > idle })

	closed := make(chan error, 1)
	go func() { closed <- m.Close() }()
	// The shutdown is under way once the server takes no new connections;
	// Close has not returned then, for the request in flight.
	waitUntil(t, time.Minute, "the listener closed", func() bool {
		c, err := net.DialTimeout("tcp", m.Addr(), 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) before the request in flight finished", err)
	default:
	}
	if _, err := io.WriteString(conn, body[half:]); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the request in flight got no response: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasSuffix(resp.Header.Get("Location"), "/thankyou") {
		t.Fatalf("the request in flight = %d %q, want 303 to the thank-you page", resp.StatusCode, resp.Header.Get("Location"))
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("Close did not return")
	}
	// New connections are refused once the server is closed.
	if c, err := net.DialTimeout("tcp", m.Addr(), time.Second); err == nil {
		c.Close()
		t.Error("the closed server still accepts connections")
	}
}

// TestSlowClientIsCut: a client that never finishes its request headers
// is disconnected after the server's read-header timeout (10 s), so slow
// clients cannot hold connections open.
func TestSlowClientIsCut(t *testing.T) {
	t.Parallel()
	m := bootMain(t, io.Discard)
	defer m.Close()
	conn, err := net.Dial("tcp", m.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: surveys\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	n, err := io.Copy(io.Discard, conn) // returns when the server closes the connection
	took := time.Since(start)
	if err != nil {
		t.Fatalf("read: %v after %s (the server did not close the connection)", err, took)
	}
	if took < 9*time.Second || took > 20*time.Second {
		t.Fatalf("the server closed a slow client's connection after %s (%d bytes), want about 10 s", took, n)
	}
}

// TestWorkerMetricsOnlyWithWorker: a web-only instance (--worker=false)
// exports no series of the workers it does not run, so that an alert on a
// stuck worker cannot fire on it; an instance with the worker has them all.
func TestWorkerMetricsOnlyWithWorker(t *testing.T) {
	workerPrefixes := []string{"surveys_worker_", "surveys_summary_delay_seconds", "surveys_views_", "surveys_transfers_", "surveys_segments_"}
	for _, tc := range []struct {
		flag   string
		worker bool
	}{
		{"--worker=false", false},
		{"--worker=true", true},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			m := bootMain(t, io.Discard, tc.flag)
			defer m.Close()
			series := scrape(t, m)
			for _, p := range workerPrefixes {
				var found []string
				for k := range series {
					if strings.HasPrefix(k, p) {
						found = append(found, k)
					}
				}
				if tc.worker && len(found) == 0 {
					t.Errorf("with the worker, /metrics has no %s* series", p)
				}
				if !tc.worker && len(found) > 0 {
					t.Errorf("without the worker, /metrics has %v", found)
				}
			}
			// What every instance serves is there either way.
			for _, w := range []string{`surveys_http_requests_in_flight`, fmt.Sprintf(`surveys_queue_depth{queue=%q}`, store.AnswersQueue)} {
				if _, ok := series[w]; !ok {
					t.Errorf("/metrics lacks %s", w)
				}
			}
		})
	}
}
