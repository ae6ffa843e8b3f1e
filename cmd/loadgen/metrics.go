package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// sample is one line of the Prometheus text format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// scrape is one read of /metrics.
type scrape []sample

// getMetrics reads base+"/metrics".
func getMetrics(ctx context.Context, c *http.Client, base string) (scrape, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("scrape /metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("scrape /metrics: status %d", resp.StatusCode)
	}
	return parseMetrics(io.LimitReader(resp.Body, 16<<20))
}

// parseMetrics parses the Prometheus text exposition format (the subset
// promhttp writes: no timestamps needed, comments skipped).
func parseMetrics(r io.Reader) (scrape, error) {
	var out scrape
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		s, err := parseSample(line)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

func parseSample(line string) (sample, error) {
	s := sample{labels: map[string]string{}}
	i := strings.IndexAny(line, "{ ")
	if i <= 0 {
		return s, fmt.Errorf("metrics: bad line %q", line)
	}
	s.name = line[:i]
	rest := line[i:]
	if rest[0] == '{' {
		rest = rest[1:]
		for {
			rest = strings.TrimLeft(rest, ", ")
			if strings.HasPrefix(rest, "}") {
				rest = rest[1:]
				break
			}
			eq := strings.Index(rest, `="`)
			if eq <= 0 {
				return s, fmt.Errorf("metrics: bad labels in %q", line)
			}
			key := rest[:eq]
			rest = rest[eq+2:]
			var val strings.Builder
			j := 0
			for ; j < len(rest) && rest[j] != '"'; j++ {
				if rest[j] == '\\' && j+1 < len(rest) {
					j++
					if rest[j] == 'n' {
						val.WriteByte('\n')
						continue
					}
				}
				val.WriteByte(rest[j])
			}
			if j == len(rest) {
				return s, fmt.Errorf("metrics: unterminated label in %q", line)
			}
			s.labels[key] = val.String()
			rest = rest[j+1:]
		}
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return s, fmt.Errorf("metrics: no value in %q", line)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return s, fmt.Errorf("metrics: bad value in %q: %w", line, err)
	}
	s.value = v
	return s, nil
}

// value is the sum of the samples called name (0 when there are none).
func (m scrape) value(name string) float64 {
	var v float64
	for _, s := range m {
		if s.name == name {
			v += s.value
		}
	}
	return v
}

// has reports whether the scrape has a sample called name.
func (m scrape) has(name string) bool {
	for _, s := range m {
		if s.name == name {
			return true
		}
	}
	return false
}

// storageOps returns surveys_storage_operations_total (or the errors
// counter) by "service.kind".
func (m scrape) storageOps(name string) map[string]float64 {
	out := map[string]float64{}
	for _, s := range m {
		if s.name == name {
			out[s.labels["service"]+"."+s.labels["kind"]] += s.value
		}
	}
	return out
}

// bucket is a cumulative histogram bucket.
type bucket struct {
	le    float64
	count float64
}

// histogram returns the cumulative buckets of name, by upper bound.
func (m scrape) histogram(name string) []bucket {
	var out []bucket
	for _, s := range m {
		if s.name != name+"_bucket" {
			continue
		}
		le, err := strconv.ParseFloat(s.labels["le"], 64)
		if err != nil {
			continue
		}
		out = append(out, bucket{le: le, count: s.value})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].le < out[j].le })
	return out
}

// bucketDelta is after less before, bucket by bucket (same bounds).
func bucketDelta(before, after []bucket) []bucket {
	prev := map[float64]float64{}
	for _, b := range before {
		prev[b.le] = b.count
	}
	out := make([]bucket, len(after))
	for i, b := range after {
		out[i] = bucket{le: b.le, count: b.count - prev[b.le]}
	}
	return out
}

// bucketQuantile estimates quantile q from cumulative buckets, like
// Prometheus's histogram_quantile: linear interpolation inside the bucket
// that holds the rank, from 0 for the first bucket. A rank in the +Inf
// bucket returns the highest finite bound and over=true.
func bucketQuantile(q float64, bs []bucket) (v float64, over bool) {
	if len(bs) == 0 || bs[len(bs)-1].count <= 0 {
		return math.NaN(), false
	}
	total := bs[len(bs)-1].count
	rank := q * total
	for i, b := range bs {
		if b.count < rank {
			continue
		}
		if math.IsInf(b.le, 1) {
			if i == 0 {
				return math.NaN(), true
			}
			return bs[i-1].le, true
		}
		lo, cLo := 0.0, 0.0
		if i > 0 {
			lo, cLo = bs[i-1].le, bs[i-1].count
		}
		if b.count == cLo {
			return b.le, false
		}
		return lo + (b.le-lo)*(rank-cLo)/(b.count-cLo), false
	}
	return bs[len(bs)-1].le, false
}
