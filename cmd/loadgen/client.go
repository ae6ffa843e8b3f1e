package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/surveys-dev/surveys/internal/formfill"
)

// maxOpsPerRun bounds the operations of one closed or open loop, whatever
// its duration.
const maxOpsPerRun = 2_000_000

// requestTimeout bounds one HTTP request.
const requestTimeout = 10 * time.Second

// newClient returns the one client of the load tool: enough idle
// connections per host for conns concurrent requests, no redirects
// followed, no compression (the server sends none).
func newClient(conns int) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil, // loopback only
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          2 * conns,
		MaxIdleConnsPerHost:   conns,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
		ResponseHeaderTimeout: requestTimeout,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       requestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

var phrases = []string{
	"Faster pages, please.",
	"The mobile app logs me out too often.",
	"More export formats (CSV, Excel).",
	"Nothing, it works well.",
	"Cheaper plans for small teams — and a dark theme.",
	"Better search in the web portal.",
}

// phrase is a text answer.
func phrase(r *rand.Rand) string {
	return phrases[r.IntN(len(phrases))] + " #" + strconv.Itoa(r.IntN(100000))
}

// get fetches url and returns its body when the status is 200.
func get(ctx context.Context, c *http.Client, u string, buf *bytes.Buffer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return errKey("GET", err)
	}
	defer resp.Body.Close()
	buf.Reset()
	_, err = buf.ReadFrom(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return errKey("GET body", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET status %d", resp.StatusCode)
	}
	return nil
}

// respond is one respondent: GET the page, POST a complete answer, expect
// 303.
func respond(ctx context.Context, c *http.Client, u string, r *rand.Rand, buf *bytes.Buffer) error {
	if err := get(ctx, c, u, buf); err != nil {
		return err
	}
	form, err := formfill.Parse(buf.Bytes())
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Answer(r, phrase).Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.Do(req)
	if err != nil {
		return errKey("POST", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<20))
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return fmt.Errorf("POST status %d", resp.StatusCode)
	}
	return nil
}

// errKey shortens a transport error to a countable key.
func errKey(what string, err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("%s: timeout", what)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%s: canceled", what)
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
}

// op is one measured operation of a loop.
type op func(ctx context.Context, r *rand.Rand, buf *bytes.Buffer) error

// result is what a loop measured.
type result struct {
	ok, errs int
	elapsed  time.Duration
	lat      []time.Duration // of the successful operations, sorted
	errKinds map[string]int
}

func (r *result) rate() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.ok) / r.elapsed.Seconds()
}

// pct is the q-quantile of the latencies (nearest rank), in milliseconds.
func (r *result) pct(q float64) float64 {
	if len(r.lat) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(q*float64(len(r.lat)))) - 1
	i = min(max(i, 0), len(r.lat)-1)
	return float64(r.lat[i]) / float64(time.Millisecond)
}

// collector gathers the loop goroutines' measurements.
type collector struct {
	mu  sync.Mutex
	res result
}

func (c *collector) add(lat []time.Duration, errs map[string]int, errN int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.res.lat = append(c.res.lat, lat...)
	c.res.ok += len(lat)
	c.res.errs += errN
	if c.res.errKinds == nil {
		c.res.errKinds = map[string]int{}
	}
	for k, n := range errs {
		if _, ok := c.res.errKinds[k]; ok || len(c.res.errKinds) < 10 {
			c.res.errKinds[k] += n
		} else {
			c.res.errKinds["other"] += n
		}
	}
}

func (c *collector) done(elapsed time.Duration) result {
	c.mu.Lock()
	defer c.mu.Unlock()
	sort.Slice(c.res.lat, func(i, j int) bool { return c.res.lat[i] < c.res.lat[j] })
	c.res.elapsed = elapsed
	return c.res
}

// closedLoop runs n goroutines, each doing f back to back for d (or until
// ctx ends, or maxOpsPerRun operations in all).
func closedLoop(ctx context.Context, n int, d time.Duration, f op) result {
	var (
		col     collector
		started atomic.Int64
		wg      sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(start.UnixNano()), uint64(g)))
			var buf bytes.Buffer
			lat := make([]time.Duration, 0, 4096)
			errs := map[string]int{}
			errN := 0
			for ctx.Err() == nil && time.Now().Before(deadline) && started.Add(1) <= maxOpsPerRun {
				t0 := time.Now()
				if err := f(ctx, r, &buf); err != nil {
					errN++
					errs[err.Error()]++
					// Do not spin on a refused connection.
					time.Sleep(5 * time.Millisecond)
					continue
				}
				lat = append(lat, time.Since(t0))
			}
			col.add(lat, errs, errN)
		}()
	}
	wg.Wait()
	return col.done(time.Since(start))
}

// openLoop starts f at rate per second for d, whatever the responses do
// (open loop): a ticker releases the operations due, and senders
// goroutines take them. Latency is measured from each operation's
// scheduled start, so a backlog in the load tool counts against the
// server. The whole run is bounded by d plus requestTimeout and a margin.
func openLoop(ctx context.Context, rate int, d time.Duration, senders int, f op) (res result, offered int) {
	total := int(float64(rate) * d.Seconds())
	total = min(max(total, 1), maxOpsPerRun)
	ctx, cancel := context.WithTimeout(ctx, d+requestTimeout+5*time.Second)
	defer cancel()
	jobs := make(chan time.Time, total)
	interval := time.Duration(float64(time.Second) / float64(rate))
	var (
		col collector
		wg  sync.WaitGroup
	)
	start := time.Now()
	for g := range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(start.UnixNano()), uint64(g)))
			var buf bytes.Buffer
			var lat []time.Duration
			errs := map[string]int{}
			errN := 0
			for at := range jobs {
				if ctx.Err() != nil {
					errN++
					errs["not sent: run timed out"]++
					continue
				}
				if err := f(ctx, r, &buf); err != nil {
					errN++
					errs[err.Error()]++
					continue
				}
				lat = append(lat, time.Since(at))
			}
			col.add(lat, errs, errN)
		}()
	}
	tick := time.NewTicker(min(5*time.Millisecond, max(interval, time.Millisecond)))
	sent := 0
dispatch:
	for sent < total {
		due := min(total, int(time.Since(start)/interval)+1)
		for ; sent < due; sent++ {
			jobs <- start.Add(time.Duration(sent) * interval) // never blocks: room for all
		}
		select {
		case <-ctx.Done():
			break dispatch
		case <-tick.C:
		}
	}
	tick.Stop()
	close(jobs)
	wg.Wait()
	return col.done(time.Since(start)), sent
}
