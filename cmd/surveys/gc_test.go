package main

import (
	"bytes"
	"log/slog"
	"runtime/debug"
	"strings"
	"testing"
)

// TestConfigGC: the flags set the collector unless GOGC or GOMEMLIMIT
// are in the environment (the runtime applied those already), and the
// start-up log says which.
func TestConfigGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	cfg := Config{GCPercent: 300, MemoryLimitMiB: 256}
	for _, tc := range []struct {
		name        string
		env         map[string]string
		wantPercent int
		wantLimit   int64
		wantLog     string
	}{
		{"flags", nil, 300, 256 << 20, "gc_percent=300 memory_limit_mib=256"},
		{"GOGC wins", map[string]string{"GOGC": "150"}, 150, 256 << 20, `gc_percent="GOGC=150" memory_limit_mib=256`},
		{"GOMEMLIMIT wins", map[string]string{"GOMEMLIMIT": "2GiB"}, 300, 3 << 30, `gc_percent=300 memory_limit_mib="GOMEMLIMIT=2GiB"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// What the runtime would have read from the environment.
			debug.SetGCPercent(150)
			debug.SetMemoryLimit(3 << 30)
			var out bytes.Buffer
			applyGC(gcFor(cfg, func(k string) string { return tc.env[k] }), slog.New(slog.NewTextHandler(&out, nil)))
			if got := debug.SetGCPercent(100); got != tc.wantPercent {
				t.Errorf("GC percent %d, want %d", got, tc.wantPercent)
			}
			if got := debug.SetMemoryLimit(-1); got != tc.wantLimit {
				t.Errorf("memory limit %d, want %d", got, tc.wantLimit)
			}
			if !strings.Contains(out.String(), tc.wantLog) {
				t.Errorf("log %q, want %q", out.String(), tc.wantLog)
			}
		})
	}
	var out bytes.Buffer
	debug.SetMemoryLimit(5 << 30)
	applyGC(gcFor(Config{GCPercent: 400}, func(string) string { return "" }), slog.New(slog.NewTextHandler(&out, nil)))
	if got := debug.SetMemoryLimit(-1); got != 5<<30 || !strings.Contains(out.String(), "memory_limit_mib=none") {
		t.Errorf("no limit: limit %d, log %q", got, out.String())
	}
}
