// Command loadgen measures surveys serve end to end, on loopback only.
//
//	go run ./cmd/loadgen [--bin bin/surveys] [--duration 5s] [--concurrency 1,16,64]
//	                     [--rate-test 500] [--azure] [--shared-duration 40s]
//
// It starts the server (a child process over a temporary embedded store),
// then:
//
//   - closed loop, per concurrency C: C respondents back to back, each a GET
//     of the demo survey page and a POST of a complete, varied answer (303
//     expected), for --duration; it prints pairs/s, the p50/p99 latency of
//     a pair, errors, and the storage operations per accepted answer by
//     service, from the server's /metrics, once the worker has merged every
//     answer (so the worker's calls are amortised in);
//   - open loop: --rate-test answers/s for --rate-duration, and the delay
//     from an answer to its summary, estimated from the buckets of
//     surveys_summary_delay_seconds;
//   - the ceiling: the same loop against a trivial net/http server serving
//     the same page, in a process of its own (the load tool run again as
//     `loadgen trivial-serve ADDR PAGE`), as the real server is, and
//     in-process beside it; and GET-only rates of the real page and the
//     trivial one;
//   - with --azure, the closed loop at --azure-concurrency against Azurite
//     (from tools/node_modules; make tools installs it), then two instances
//     on that Azurite, one web-only (--worker=false) taking answers at a
//     low rate and in a burst, the other merging them: each answer's time
//     from its 303 to its summary, against the bound of the worker's
//     polling (--shared-duration; see shared.go).
//
// Every child process is stopped and every temporary directory removed at
// the end, on an error, and on an interrupt.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/surveys-dev/surveys/internal/formfill"
)

// surveyPath is the demo survey the seeded server publishes.
const surveyPath = "/survey/adatum/adatum-customer-satisfaction"

type config struct {
	bin          string
	duration     time.Duration
	concurrency  []int
	rate         int
	rateDuration time.Duration
	getDuration  time.Duration
	azure        bool
	azureConc    int
	tools        string
	catchup      time.Duration
	keep         bool
	idle         time.Duration
	shared       time.Duration
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	var conc string
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.bin, "bin", "bin/surveys", "path of the surveys binary (make build)")
	fs.DurationVar(&c.duration, "duration", 5*time.Second, "duration of each closed-loop step")
	fs.StringVar(&conc, "concurrency", "1,16,64", "comma-separated concurrencies of the closed-loop steps")
	fs.IntVar(&c.rate, "rate-test", 500, "answers per second of the open-loop run (0 skips it)")
	fs.DurationVar(&c.rateDuration, "rate-duration", 5*time.Second, "duration of the open-loop run")
	fs.DurationVar(&c.getDuration, "get-duration", 2*time.Second, "duration of each GET-only step (real and trivial)")
	fs.BoolVar(&c.azure, "azure", false, "also run a closed-loop step against Azurite")
	fs.IntVar(&c.azureConc, "azure-concurrency", 16, "concurrency of the Azurite step")
	fs.StringVar(&c.tools, "tools", "", "the tools folder holding node_modules/azurite (default: <repo>/tools)")
	fs.DurationVar(&c.catchup, "catchup-timeout", 60*time.Second, "how long to wait for the worker to merge a step's answers")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary directory (data and logs)")
	fs.DurationVar(&c.idle, "idle", time.Minute, "how long to count the storage operations of the idle server (0 skips it)")
	fs.DurationVar(&c.shared, "shared-duration", 30*time.Second, "with --azure, how long to send one answer every 2-5 s to a web-only instance beside a worker instance (0 skips it)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	for _, f := range strings.Split(conc, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 4096 {
			return c, fmt.Errorf("--concurrency %q: want numbers from 1 to 4096", conc)
		}
		c.concurrency = append(c.concurrency, n)
	}
	switch {
	case c.duration <= 0 || c.duration > 10*time.Minute:
		return c, errors.New("--duration: want more than 0 and at most 10m")
	case c.getDuration <= 0 || c.getDuration > 10*time.Minute:
		return c, errors.New("--get-duration: want more than 0 and at most 10m")
	case c.rate < 0 || c.rate > 100_000:
		return c, errors.New("--rate-test: want 0 to 100000")
	case c.rate > 0 && (c.rateDuration <= 0 || c.rateDuration > 10*time.Minute):
		return c, errors.New("--rate-duration: want more than 0 and at most 10m")
	case c.azureConc < 1 || c.azureConc > 4096:
		return c, errors.New("--azure-concurrency: want 1 to 4096")
	case c.idle < 0 || c.idle > 10*time.Minute:
		return c, errors.New("--idle: want 0 to 10m")
	case c.shared < 0 || c.shared > 10*time.Minute:
		return c, errors.New("--shared-duration: want 0 to 10m")
	case c.catchup <= 0 || c.catchup > 10*time.Minute:
		return c, errors.New("--catchup-timeout: want more than 0 and at most 10m")
	}
	return c, nil
}

func main() {
	if len(os.Args) == 4 && os.Args[1] == trivialCommand {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := runTrivialChild(ctx, os.Args[2], os.Args[3])
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadgen trivial server:", err)
			os.Exit(1)
		}
		return
	}
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, cfg, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// sendersFor is the number of goroutines of the open loop at rate.
func sendersFor(rate int) int { return min(max(32, rate/4), 1024) }

// run is the whole measurement. Children are started from this goroutine
// only (see proc_linux.go).
func run(ctx context.Context, cfg config, out io.Writer) (err error) {
	began := time.Now()
	bin, err := filepath.Abs(cfg.bin)
	if err != nil {
		return err
	}
	if st, err := os.Stat(bin); err != nil || st.IsDir() {
		return fmt.Errorf("surveys binary %s not found: run make build, or pass --bin", bin)
	}
	tmp, err := os.MkdirTemp("", "loadgen-")
	if err != nil {
		return err
	}
	var children []*child
	defer func() {
		for i := len(children) - 1; i >= 0; i-- {
			if e := children[i].stop(15 * time.Second); e != nil {
				fmt.Fprintln(os.Stderr, "loadgen:", e)
			}
		}
		if cfg.keep {
			fmt.Fprintf(out, "kept %s\n", tmp)
			return
		}
		if e := os.RemoveAll(tmp); e != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", e)
		}
	}()
	stopChild := func(c *child) {
		for i, x := range children {
			if x == c {
				children = append(children[:i], children[i+1:]...)
				break
			}
		}
		if e := c.stop(15 * time.Second); e != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", e)
		}
	}

	maxC := slicesMax(cfg.concurrency)
	client := newClient(max(maxC, cfg.azureConc, sendersFor(cfg.rate)) + 8)
	defer client.CloseIdleConnections()

	fmt.Fprintf(out, "loadgen: %s serve, embedded store; %d CPUs (GOMAXPROCS %d), shared by the load tool, the server and its worker\n",
		cfg.bin, runtime.NumCPU(), runtime.GOMAXPROCS(0))

	// The server over the embedded store.
	localDir := filepath.Join(tmp, "local")
	if err := os.MkdirAll(localDir, 0o755); err != nil {
		return err
	}
	srv, err := startSurveys(ctx, client, bin, localDir, childEnv())
	if err != nil {
		return err
	}
	children = append(children, srv.child)
	surveyURL := srv.base + surveyPath

	var buf bytes.Buffer
	if err := get(ctx, client, surveyURL, &buf); err != nil {
		return fmt.Errorf("GET %s: %w", surveyPath, err)
	}
	page := bytes.Clone(buf.Bytes())
	form, err := formfill.Parse(page)
	if err != nil {
		return fmt.Errorf("GET %s: %w", surveyPath, err)
	}
	fmt.Fprintf(out, "survey page %s: %d bytes, %d questions\n", surveyPath, len(page), form.Questions())

	respondTo := func(u string) op {
		return func(ctx context.Context, r *rand.Rand, buf *bytes.Buffer) error {
			return respond(ctx, client, u, r, buf)
		}
	}
	getOnly := func(u string) op {
		return func(ctx context.Context, _ *rand.Rand, buf *bytes.Buffer) error { return get(ctx, client, u, buf) }
	}

	// Warm up (connections, the survey cache, the answers container), and
	// let the worker catch up before the first step.
	if err := warmUp(ctx, client, srv.base, surveyURL, cfg.catchup); err != nil {
		return err
	}

	fmt.Fprintf(out, "\n== closed loop: GET survey page + POST complete answer (303), %s per step, embedded store ==\n", cfg.duration)
	fmt.Fprintln(out, "storage ops per answer = surveys_storage_operations_total delta / answers accepted, counted after the worker merged them all")
	printStepHeader(out)
	var steps []step
	for _, c := range cfg.concurrency {
		st, err := measureStep(ctx, client, srv.base, surveyURL, c, cfg.duration, cfg.catchup, respondTo(surveyURL))
		if err != nil {
			return err
		}
		printStep(out, st)
		steps = append(steps, st)
	}
	printKinds(out, steps)
	printMerging(out, steps)

	if cfg.rate > 0 {
		if err := rateTest(ctx, out, client, srv.base, cfg, respondTo(surveyURL)); err != nil {
			return err
		}
	}

	// The ceiling: a trivial server in a process of its own, as the real
	// server runs, and the same in the load tool's process. The
	// in-process one shares the load tool's scheduler, which favours it
	// at one connection (no other process to wake) and starves it at
	// many (the client's goroutines on the same threads): the goals are
	// set against the first, the second is shown beside it.
	triv, err := startTrivial(page)
	if err != nil {
		return err
	}
	defer triv.close()
	trivialURL := triv.base + surveyPath
	trivCh, trivBase, err := startTrivialChild(ctx, client, tmp, page)
	if err != nil {
		return err
	}
	children = append(children, trivCh)
	ownURL := trivBase + surveyPath
	fmt.Fprintf(out, "\n== ceiling: trivial net/http server in a process of its own (fixed %d-byte page; POST: parse form, 303), same client loop, %s per step; goal: real >= 0.6 x trivial at 64 ==\n", len(page), cfg.duration)
	fmt.Fprintf(out, "%5s  %15s  %12s  %12s  %15s  %15s  %s\n", "conc", "trivial pairs/s", "real pairs/s", "real/trivial", "trivial p50 ms", "trivial p99 ms", "(in-process trivial pairs/s, real/it)")
	for i, c := range cfg.concurrency {
		res := closedLoop(ctx, c, cfg.duration, respondTo(ownURL))
		inproc := closedLoop(ctx, c, cfg.duration, respondTo(trivialURL))
		if err := ctx.Err(); err != nil {
			return err
		}
		realRate := steps[i].res.rate()
		fmt.Fprintf(out, "%5d  %15.1f  %12.1f  %12.2f  %15s  %15s  (%.1f, %.2f)%s\n", c, res.rate(), realRate, ratio(realRate, res.rate()),
			ms(res.pct(.5)), ms(res.pct(.99)), inproc.rate(), ratio(realRate, inproc.rate()), errNote(res))
	}

	fmt.Fprintf(out, "\n== GET only: survey page (real) vs the trivial page (its own process; in-process beside it), %s per step; goal: real >= 0.5 x trivial at 1, 0.7 x at 64 ==\n", cfg.getDuration)
	fmt.Fprintf(out, "%5s  %10s  %13s  %12s  %11s  %14s  %s  %s\n", "conc", "real GET/s", "trivial GET/s", "real/trivial", "real p50 ms", "trivial p50 ms", "goal", "(in-process trivial GET/s, real/it)")
	for _, c := range cfg.concurrency {
		realRes := closedLoop(ctx, c, cfg.getDuration, getOnly(surveyURL))
		trivial := closedLoop(ctx, c, cfg.getDuration, getOnly(ownURL))
		inproc := closedLoop(ctx, c, cfg.getDuration, getOnly(trivialURL))
		if err := ctx.Err(); err != nil {
			return err
		}
		r := ratio(realRes.rate(), trivial.rate())
		goal := "met"
		if !(r >= 0.5) || c >= 64 && !(r >= 0.7) {
			goal = "NOT met"
		}
		fmt.Fprintf(out, "%5d  %10.1f  %13.1f  %12.2f  %11s  %14s  %s  (%.1f, %.2f)%s%s\n", c, realRes.rate(), trivial.rate(), r,
			ms(realRes.pct(.5)), ms(trivial.pct(.5)), goal, inproc.rate(), ratio(realRes.rate(), inproc.rate()), errNote(realRes), errNote(trivial))
	}
	stopChild(trivCh)
	if err := triv.close(); err != nil {
		return err
	}

	if cfg.idle > 0 {
		if err := idleStep(ctx, out, client, srv.base, cfg.idle); err != nil {
			return err
		}
	}

	stopChild(srv.child)
	printLog(out, "embedded store", srv.child)

	if cfg.azure {
		if err := azureStep(ctx, out, client, bin, tmp, cfg, &children, stopChild); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "\ndone in %s\n", time.Since(began).Round(100*time.Millisecond))
	return nil
}

// azureStep runs one closed-loop step against a server over Azurite.
func azureStep(ctx context.Context, out io.Writer, client *http.Client, bin, tmp string, cfg config, children *[]*child, stopChild func(*child)) error {
	fmt.Fprintf(out, "\n== Azurite: closed loop at concurrency %d, %s, server with AZURE_STORAGE_CONNECTION_STRING ==\n", cfg.azureConc, cfg.duration)
	azDir, srvDir := filepath.Join(tmp, "azurite"), filepath.Join(tmp, "azure")
	for _, d := range []string{azDir, srvDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	t0 := time.Now()
	az, err := startAzurite(ctx, cfg.tools, azDir)
	if err != nil {
		return err
	}
	*children = append(*children, az.child)
	srv, err := startSurveys(ctx, client, bin, srvDir, childEnv("AZURE_STORAGE_CONNECTION_STRING="+az.connectionString()))
	if err != nil {
		return err
	}
	*children = append(*children, srv.child)
	fmt.Fprintf(out, "Azurite and the server ready in %s\n", time.Since(t0).Round(100*time.Millisecond))
	surveyURL := srv.base + surveyPath
	if err := warmUp(ctx, client, srv.base, surveyURL, cfg.catchup); err != nil {
		return err
	}
	printStepHeader(out)
	st, err := measureStep(ctx, client, srv.base, surveyURL, cfg.azureConc, cfg.duration, cfg.catchup,
		func(ctx context.Context, r *rand.Rand, buf *bytes.Buffer) error {
			return respond(ctx, client, surveyURL, r, buf)
		})
	if err != nil {
		return err
	}
	printStep(out, st)
	printKinds(out, []step{st})
	stopChild(srv.child)
	printLog(out, "Azurite", srv.child)
	if cfg.shared > 0 {
		// The same Azurite, two new instances.
		if err := sharedStep(ctx, out, client, bin, tmp, az, cfg.shared, children, stopChild); err != nil {
			return err
		}
	}
	stopChild(az.child)
	return nil
}

// warmUp answers a few times, one after another, then waits for the worker.
func warmUp(ctx context.Context, c *http.Client, base, surveyURL string, timeout time.Duration) error {
	before, err := getMetrics(ctx, c, base)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(1, 2))
	var buf bytes.Buffer
	const n = 20
	for range n {
		if err := respond(ctx, c, surveyURL, r, &buf); err != nil {
			return fmt.Errorf("warm-up answer: %w", err)
		}
	}
	_, _, ok, err := waitWorker(ctx, c, base, before.value(workerAnswers)+n, timeout)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("the worker did not merge the %d warm-up answers within %s", n, timeout)
	}
	return nil
}

const (
	workerAnswers = "surveys_worker_answers_total"
	acceptedTotal = "surveys_answers_accepted_total"
	workerBatches = "surveys_worker_batches_total"
	storageOps    = "surveys_storage_operations_total"
	storageErrs   = "surveys_storage_errors_total"
	summaryDelay  = "surveys_summary_delay_seconds"
	processCPU    = "process_cpu_seconds_total"
)

// waitWorker waits until the worker has merged target answers in all, then
// until the storage calls that follow a merge (summary write, answer list,
// message delete) have settled, and returns the last scrape. ok is false
// on a timeout.
func waitWorker(ctx context.Context, c *http.Client, base string, target float64, timeout time.Duration) (m scrape, merged time.Time, ok bool, err error) {
	deadline := time.Now().Add(timeout)
	for {
		if m, err = getMetrics(ctx, c, base); err != nil {
			return nil, merged, false, err
		}
		if m.value(workerAnswers) >= target {
			merged = time.Now()
			break
		}
		if time.Now().After(deadline) {
			return m, merged, false, nil
		}
		select {
		case <-ctx.Done():
			return nil, merged, false, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	// Settled: no storage call but the worker's idle polls between two
	// scrapes 250 ms apart (at most 5 s).
	settle := time.Now().Add(5 * time.Second)
	prev := busyOps(m)
	for time.Now().Before(settle) {
		select {
		case <-ctx.Done():
			return nil, merged, false, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
		if m, err = getMetrics(ctx, c, base); err != nil {
			return nil, merged, false, err
		}
		n := busyOps(m)
		if n == prev {
			break
		}
		prev = n
	}
	return m, merged, true, nil
}

// busyOps counts the storage calls other than queue polls.
func busyOps(m scrape) float64 {
	var n float64
	for k, v := range m.storageOps(storageOps) {
		if k != "queue.dequeue" {
			n += v
		}
	}
	return n
}

// step is one closed-loop measurement.
type step struct {
	conc     int
	res      result
	ops      map[string]float64 // delta by service.kind
	errOps   map[string]float64
	caughtUp bool
	// accepted is the server's count of acknowledged answers in the step,
	// -1 when it does not export one.
	accepted float64
	// merging is from the step's start to the worker's merge of its last
	// answer (seen by scrapes 100 ms apart); behind, from the step's last
	// response to that merge.
	merging, behind time.Duration
	// cpu is the server process's CPU time over the step and the worker's
	// catch-up (process_cpu_seconds_total), 0 when it does not export it.
	cpu time.Duration
}

func measureStep(ctx context.Context, c *http.Client, base, surveyURL string, conc int, d, catchup time.Duration, f op) (step, error) {
	before, err := getMetrics(ctx, c, base)
	if err != nil {
		return step{}, err
	}
	start := time.Now()
	res := closedLoop(ctx, conc, d, f)
	if err := ctx.Err(); err != nil {
		return step{}, err
	}
	end := time.Now()
	after, merged, ok, err := waitWorker(ctx, c, base, before.value(workerAnswers)+float64(res.ok), catchup)
	if err != nil {
		return step{}, err
	}
	accepted := -1.0
	if after.has(acceptedTotal) {
		accepted = after.value(acceptedTotal) - before.value(acceptedTotal)
	}
	cpu := time.Duration((after.value(processCPU) - before.value(processCPU)) * float64(time.Second))
	return step{conc: conc, res: res, ops: delta(before.storageOps(storageOps), after.storageOps(storageOps)),
		errOps: delta(before.storageOps(storageErrs), after.storageOps(storageErrs)), caughtUp: ok, accepted: accepted,
		merging: merged.Sub(start), behind: merged.Sub(end), cpu: cpu}, nil
}

// idleSettle is how long the idle step waits before counting: the workers'
// polls back off to their longest pause within it.
const idleSettle = 25 * time.Second

// idleScrape is how often the idle step scrapes /metrics, as a Prometheus
// server would; each scrape may read queues (see metrics.QueueRefresh).
const idleScrape = 15 * time.Second

// idleStep counts the storage operations of the server with no traffic
// over d, after idleSettle, per minute, from scrapes of /metrics every
// idleScrape: the workers' polls and what the scrapes read, together
// (goal: at most 20 a minute).
func idleStep(ctx context.Context, out io.Writer, c *http.Client, base string, d time.Duration) error {
	fmt.Fprintf(out, "\n== idle: storage operations of the embedded-store server with no traffic, scraped every %s, over %s after %s to settle ==\n", idleScrape, d, idleSettle)
	select {
	case <-time.After(idleSettle):
	case <-ctx.Done():
		return ctx.Err()
	}
	before, err := getMetrics(ctx, c, base)
	if err != nil {
		return err
	}
	end := time.Now().Add(d)
	var after scrape
	for {
		wait := min(idleScrape, time.Until(end))
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		if after, err = getMetrics(ctx, c, base); err != nil {
			return err
		}
		if !time.Now().Before(end) {
			break
		}
	}
	ops := delta(before.storageOps(storageOps), after.storageOps(storageOps))
	total, reads := 0.0, 0.0
	var kinds []string
	for k, v := range ops {
		total += v
		if k == "queue.count" || k == "queue.peek" {
			reads += v // only /metrics reads queue depths
		}
		if v > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %.0f", k, v))
		}
	}
	sort.Strings(kinds)
	perMinute := float64(time.Minute) / float64(d)
	fmt.Fprintf(out, "%.0f storage operations in %s (%s): %.1f a minute in all (goal <= 20), of which %.1f a minute are /metrics' queue reads\n",
		total, d, strings.Join(kinds, ", "), total*perMinute, reads*perMinute)
	return nil
}

func delta(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func (s step) perAnswer(service string) float64 {
	if s.res.ok == 0 {
		return math.NaN()
	}
	var n float64
	for k, v := range s.ops {
		svc, _, _ := strings.Cut(k, ".")
		if svc == service || service == "" && (svc == "table" || svc == "blob" || svc == "queue") {
			n += v
		}
	}
	return n / float64(s.res.ok)
}

func printStepHeader(out io.Writer) {
	fmt.Fprintf(out, "%5s  %9s  %8s  %8s  %6s  %7s  |  %-25s\n", "conc", "pairs/s", "p50 ms", "p99 ms", "errors", "answers", "storage ops per answer")
	fmt.Fprintf(out, "%5s  %9s  %8s  %8s  %6s  %7s  |  %6s  %6s  %6s  %6s\n", "", "", "", "", "", "", "table", "blob", "queue", "total")
}

func printStep(out io.Writer, s step) {
	note := ""
	if !s.caughtUp {
		note = "  (worker had not merged them all: amortised figures incomplete)"
	}
	fmt.Fprintf(out, "%5d  %9.1f  %8s  %8s  %6d  %7d  |  %6.3f  %6.3f  %6.3f  %6.3f%s\n", s.conc, s.res.rate(),
		ms(s.res.pct(.5)), ms(s.res.pct(.99)), s.res.errs, s.res.ok,
		s.perAnswer("table"), s.perAnswer("blob"), s.perAnswer("queue"), s.perAnswer(""), note)
	printErrKinds(out, s.res)
	if s.accepted >= 0 && s.accepted != float64(s.res.ok) {
		fmt.Fprintf(out, "       note: the server counted %.0f answers accepted (%s), the load tool %d 303s\n", s.accepted, acceptedTotal, s.res.ok)
	}
}

// printMerging prints how fast the worker merged each step's answers while
// the web took them at full speed: the answers over the time from the
// step's start to the merge of its last answer. Where the worker ends
// behind the web (more than a few scrapes), that is its capacity beside a
// busy web server on the same cores; where it keeps up, it is the web's rate.
func printMerging(out io.Writer, steps []step) {
	fmt.Fprintln(out, "worker while the web takes answers at full speed (answers / time from the step's start to the merge of its last answer):")
	for _, s := range steps {
		if !s.caughtUp || s.merging <= 0 {
			fmt.Fprintf(out, "  conc %d: not all merged within the catch-up timeout\n", s.conc)
			continue
		}
		fmt.Fprintf(out, "  conc %d: %.0f answers merged a second; the last merged %s after the last response\n", s.conc,
			float64(s.res.ok)/s.merging.Seconds(), s.behind.Round(10*time.Millisecond))
	}
	// The server's CPU time an answer says what its cores can take, and
	// is steadier than the pairs a second when other work shares them.
	fmt.Fprintln(out, "server CPU time per answer (process_cpu_seconds_total over the step and the worker's catch-up / answers):")
	for _, s := range steps {
		if s.cpu > 0 && s.res.ok > 0 {
			fmt.Fprintf(out, "  conc %d: %.0f µs\n", s.conc, float64(s.cpu.Microseconds())/float64(s.res.ok))
		}
	}
}

// printKinds prints each step's storage operations per answer by kind,
// with the storage errors among them.
func printKinds(out io.Writer, steps []step) {
	fmt.Fprintln(out, "by kind, per answer (storage errors in brackets; most are expected: container created on first 404, ETag races):")
	for _, s := range steps {
		keys := make([]string, 0, len(s.ops))
		for k := range s.ops {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			p := fmt.Sprintf("%s %.3f", k, s.ops[k]/float64(max(s.res.ok, 1)))
			if e := s.errOps[k]; e != 0 {
				p += fmt.Sprintf(" [%.0f]", e)
			}
			parts = append(parts, p)
		}
		fmt.Fprintf(out, "  conc %d: %s\n", s.conc, strings.Join(parts, ", "))
	}
}

func printErrKinds(out io.Writer, r result) {
	if len(r.errKinds) == 0 {
		return
	}
	keys := make([]string, 0, len(r.errKinds))
	for k := range r.errKinds {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return r.errKinds[keys[i]] > r.errKinds[keys[j]] })
	for _, k := range keys {
		fmt.Fprintf(out, "       error x%d: %s\n", r.errKinds[k], k)
	}
}

func errNote(r result) string {
	if r.errs == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d errors)", r.errs)
}

// rateTest is the open loop at cfg.rate answers/s and the summary delay.
func rateTest(ctx context.Context, out io.Writer, c *http.Client, base string, cfg config, f op) error {
	senders := sendersFor(cfg.rate)
	fmt.Fprintf(out, "\n== open loop: %d answers/s for %s (ticker-based, %d sender goroutines), embedded store ==\n", cfg.rate, cfg.rateDuration, senders)
	before, err := getMetrics(ctx, c, base)
	if err != nil {
		return err
	}
	res, offered := openLoop(ctx, cfg.rate, cfg.rateDuration, senders, f)
	if err := ctx.Err(); err != nil {
		return err
	}
	lastResponse := time.Now()
	after, _, ok, err := waitWorker(ctx, c, base, before.value(workerAnswers)+float64(res.ok), cfg.catchup)
	if err != nil {
		return err
	}
	caughtUp := time.Since(lastResponse)
	fmt.Fprintf(out, "offered %d, accepted %d (303), errors %d; achieved %.1f answers/s (accepted / %s from the first send to the last response)\n",
		offered, res.ok, res.errs, res.rate(), res.elapsed.Round(time.Millisecond))
	printErrKinds(out, res)
	fmt.Fprintf(out, "pair latency from its scheduled start: p50 %s ms, p99 %s ms\n", ms(res.pct(.5)), ms(res.pct(.99)))
	ops := delta(before.storageOps(storageOps), after.storageOps(storageOps))
	batches := after.value(workerBatches) - before.value(workerBatches)
	fmt.Fprintf(out, "worker: %.0f queue messages (%.1f answers each), %.0f batches, done %s after the last response (incl. a settle wait of >= 250 ms)\n",
		ops["queue.enqueue"], float64(res.ok)/max(ops["queue.enqueue"], 1), batches, caughtUp.Round(10*time.Millisecond))
	hist := bucketDelta(before.histogram(summaryDelay), after.histogram(summaryDelay))
	var n float64
	if len(hist) > 0 {
		n = hist[len(hist)-1].count
	}
	p50, o50 := bucketQuantile(.5, hist)
	p99, o99 := bucketQuantile(.99, hist)
	fmt.Fprintf(out, "summary delay (answer's CreatedOn, set as the server stores it, to its merge by the worker), %.0f observations:\n", n)
	fmt.Fprintf(out, "  p50 %s ms, p99 %s ms  (bucket-estimated: linear interpolation in %s buckets)\n",
		over(p50*1000, o50), over(p99*1000, o99), summaryDelay)
	if !ok {
		fmt.Fprintf(out, "  the worker had not merged every answer within %s: the figures leave out the slowest\n", cfg.catchup)
	}
	return nil
}

func over(v float64, o bool) string {
	if o {
		return "> " + ms(v)
	}
	return ms(v)
}

func ms(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

func slicesMax(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// printLog summarises the server's JSON log by level.
func printLog(out io.Writer, what string, c *child) {
	total, levels := c.logLevels()
	keys := make([]string, 0, len(levels))
	for k := range levels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, levels[k]))
	}
	fmt.Fprintf(out, "server log (%s): %d lines: %s\n", what, total, strings.Join(parts, ", "))
	if levels["ERROR"] > 0 || levels["WARN"] > 0 {
		for _, line := range strings.Split(c.logTail(200), "\n") {
			if strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, `"level":"WARN"`) {
				fmt.Fprintf(out, "  %s\n", truncate(line, 300))
				levels["shown"]++
				if levels["shown"] == 5 {
					break
				}
			}
		}
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
