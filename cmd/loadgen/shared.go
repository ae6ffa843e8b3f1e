package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// The answers worker's polling, as worker.DefaultConfig and worker/poll.go
// set it: an empty poll pauses 10 ms at first, twice as long each time, up
// to MaxIdle; a wake (an answer this instance queued) ends the pause. An
// answer taken by a web-only instance wakes no worker: it waits for the
// next poll of a worker instance, at most MaxIdle, then a batch (a gather
// of 20 ms and the batch's own storage calls). While that worker is busy,
// a queue it found empty is left alone for 500 ms (worker.emptyRecheck)
// unless its own instance queued to it: its polls are then closer than
// that anyway.
const (
	workerMaxIdle = 10 * time.Second
	// sharedGoal is the bound printed for an answer taken by a web-only
	// instance: MaxIdle and a second for the batch.
	sharedGoal = workerMaxIdle + time.Second
	// idleBeforeBurst lets the pause grow to MaxIdle (10 ms doubling
	// reaches 10 s after about 10.2 s of empty polls).
	idleBeforeBurst = 11 * time.Second
)

// observation is one scrape of the worker instance's merged answers.
type observation struct {
	at     time.Time
	merged float64
}

// mergeDelays matches the k-th acknowledged answer with the k-th answer
// merged (the first observation whose count reached base+k+1) and returns
// each answer's delay from its 303 to that observation. acks must be
// sorted; an answer not seen merged gets -1. Merges happen in batches, so
// the order within a batch does not change the delays' distribution.
func mergeDelays(acks []time.Time, base float64, obs []observation) []time.Duration {
	out := make([]time.Duration, len(acks))
	j := 0
	for k, ack := range acks {
		for j < len(obs) && obs[j].merged < base+float64(k+1) {
			j++
		}
		if j == len(obs) {
			for ; k < len(acks); k++ {
				out[k] = -1
			}
			return out
		}
		out[k] = max(obs[j].at.Sub(ack), 0)
	}
	return out
}

// sharedStep runs two instances over one Azurite account, a web-only one
// (--worker=false) and one with the worker, sends answers to the web-only
// one, and measures each answer's time from its 303 to its merge by the
// other's worker (surveys_worker_answers_total on its /metrics, scraped
// every 25 ms): first one answer every 2 to 5 s for d (each found by one of
// the polls that follow the last merge, 2.5 or 5 s apart by then), then,
// after 11 s without answers, a burst of 20 (found by a poll up to MaxIdle
// later).
func sharedStep(ctx context.Context, out io.Writer, client *http.Client, bin, tmp string, az *azurite, d time.Duration, children *[]*child, stopChild func(*child)) error {
	fmt.Fprintf(out, "\n== two instances on Azurite: answers taken by a web-only instance (--worker=false), merged by another's worker ==\n")
	fmt.Fprintf(out, "one answer every 2-5 s for %s, then a burst of 20 (4 at once) after %s idle; delay = from the 303 to surveys_worker_answers_total counting it on the worker instance (scraped every 25 ms)\n", d, idleBeforeBurst)
	env := childEnv("AZURE_STORAGE_CONNECTION_STRING=" + az.connectionString())
	var started []*child
	defer func() {
		for i := len(started) - 1; i >= 0; i-- {
			stopChild(started[i])
		}
	}()
	start := func(name string, args ...string) (*surveysServer, error) {
		dir := filepath.Join(tmp, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		s, err := startSurveys(ctx, client, bin, dir, env, args...)
		if err != nil {
			return nil, fmt.Errorf("%s instance: %w", name, err)
		}
		*children = append(*children, s.child)
		started = append(started, s.child)
		return s, nil
	}
	// One after the other: both seed the same account.
	worker, err := start("shared-worker")
	if err != nil {
		return err
	}
	web, err := start("shared-web", "--worker=false")
	if err != nil {
		return err
	}
	surveyURL := web.base + surveyPath
	var buf bytes.Buffer
	if err := get(ctx, client, surveyURL, &buf); err != nil {
		return fmt.Errorf("web-only instance: GET %s: %w", surveyPath, err)
	}
	first, err := getMetrics(ctx, client, worker.base)
	if err != nil {
		return err
	}
	base := first.value(workerAnswers)

	// The scraper.
	var (
		mu  sync.Mutex
		obs []observation
	)
	sctx, stopScrape := context.WithCancel(ctx)
	scraped := make(chan error, 1)
	go func() {
		t := time.NewTicker(25 * time.Millisecond)
		defer t.Stop()
		for {
			m, err := getMetrics(sctx, client, worker.base)
			if sctx.Err() != nil {
				scraped <- nil
				return
			}
			if err != nil {
				scraped <- err
				return
			}
			mu.Lock()
			obs = append(obs, observation{time.Now(), m.value(workerAnswers)})
			mu.Unlock()
			select {
			case <-sctx.Done():
				scraped <- nil
				return
			case <-t.C:
			}
		}
	}()
	defer stopScrape()

	// waitMerged waits until n answers are merged, or timeout.
	waitMerged := func(n int, timeout time.Duration) error {
		deadline := time.Now().Add(timeout)
		for {
			mu.Lock()
			done := len(obs) > 0 && obs[len(obs)-1].merged >= base+float64(n)
			mu.Unlock()
			if done || time.Now().After(deadline) {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case err := <-scraped:
				return fmt.Errorf("scrape the worker instance: %w", err)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}

	r := rand.New(rand.NewPCG(7, 8))
	var acks []time.Time
	var slowAcks, burstAcks int
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if err := respond(ctx, client, surveyURL, r, &buf); err != nil {
			return fmt.Errorf("answer to the web-only instance: %w", err)
		}
		acks = append(acks, time.Now())
		slowAcks++
		gap := 2*time.Second + time.Duration(r.Int64N(int64(3*time.Second)))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(gap):
		}
	}
	// The burst comes once the worker has been idle long enough for its
	// pause to have grown to MaxIdle: its answers wait for the next poll,
	// anywhere in that pause (the bound's worst case).
	if err := waitMerged(len(acks), 2*sharedGoal); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(idleBeforeBurst):
	}
	// The burst: 20 answers, 4 at a time.
	var bmu sync.Mutex
	var berr error
	var wg sync.WaitGroup
	next := make(chan int, 20)
	for i := range 20 {
		next <- i
	}
	close(next)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rr := rand.New(rand.NewPCG(9, uint64(g)))
			var b bytes.Buffer
			for range next {
				err := respond(ctx, client, surveyURL, rr, &b)
				bmu.Lock()
				if err != nil {
					berr = err
				} else {
					acks = append(acks, time.Now())
					burstAcks++
				}
				bmu.Unlock()
			}
		}()
	}
	wg.Wait()
	if berr != nil {
		return fmt.Errorf("burst to the web-only instance: %w", berr)
	}
	sort.Slice(acks, func(i, j int) bool { return acks[i].Before(acks[j]) })

	if err := waitMerged(len(acks), 2*sharedGoal); err != nil {
		return err
	}
	stopScrape()
	if err := <-scraped; err != nil {
		return fmt.Errorf("scrape the worker instance: %w", err)
	}
	mu.Lock()
	delays := mergeDelays(acks, base, obs)
	mu.Unlock()

	show := func(what string, ds []time.Duration) {
		var ok []time.Duration
		missing := 0
		for _, x := range ds {
			if x < 0 {
				missing++
				continue
			}
			ok = append(ok, x)
		}
		sort.Slice(ok, func(i, j int) bool { return ok[i] < ok[j] })
		goal := "met"
		if missing > 0 || len(ok) == 0 || ok[len(ok)-1] > sharedGoal {
			goal = "NOT met"
		}
		p50, mx := "-", "-"
		if len(ok) > 0 {
			p50, mx = secs(ok[(len(ok)-1)/2]), secs(ok[len(ok)-1])
		}
		note := ""
		if missing > 0 {
			note = fmt.Sprintf(" (%d not merged within %s)", missing, 2*sharedGoal)
		}
		fmt.Fprintf(out, "  %-22s %3d answers: p50 %s s, max %s s; goal: <= %s s (MaxIdle %s + a batch): %s%s\n",
			what, len(ds), p50, mx, secs(sharedGoal), secs(workerMaxIdle), goal, note)
	}
	// acks were sorted; the slow ones came first (the burst began after).
	show("one every 2-5 s", delays[:slowAcks])
	show("burst after 11 s idle", delays[slowAcks:slowAcks+burstAcks])
	show("all", delays)
	after, err := getMetrics(ctx, client, worker.base)
	if err != nil {
		return err
	}
	hist := bucketDelta(first.histogram(summaryDelay), after.histogram(summaryDelay))
	p50, o50 := bucketQuantile(.5, hist)
	p99, o99 := bucketQuantile(.99, hist)
	fmt.Fprintf(out, "  cross-check, the worker instance's %s (CreatedOn on the web-only instance to the merge): p50 %s ms, p99 %s ms\n",
		summaryDelay, over(p50*1000, o50), over(p99*1000, o99))
	for i := len(started) - 1; i >= 0; i-- {
		stopChild(started[i])
	}
	printLog(out, "two instances, web-only", web.child)
	printLog(out, "two instances, worker", worker.child)
	started = nil
	return nil
}

func secs(d time.Duration) string {
	return fmt.Sprintf("%.2f", d.Seconds())
}
