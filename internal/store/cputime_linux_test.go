//go:build linux

package store

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU is the CPU time of the calling thread, user and system: what
// a loop costs whatever else the machine runs.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuPerOp runs f b.N times on one thread and reports the thread's CPU
// time an op (cpu-ns/op) beside the wall time.
func cpuPerOp(b *testing.B, f func(i int)) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	start := threadCPU()
	for i := range b.N {
		f(i)
	}
	b.ReportMetric(float64(threadCPU()-start)/float64(b.N), "cpu-ns/op")
}
