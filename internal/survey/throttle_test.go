package survey

import (
	"testing"
	"time"
)

func TestThrottleDelay(t *testing.T) {
	for _, tc := range []struct {
		failures int64
		want     time.Duration
	}{
		{0, 0}, {4, 0}, {5, time.Second}, {6, 2 * time.Second}, {10, 32 * time.Second},
		{14, 512 * time.Second}, {15, MaxThrottleDelay}, {1000, MaxThrottleDelay}, {-1, 0},
	} {
		if got := ThrottleDelay(tc.failures, 5); got != tc.want {
			t.Errorf("ThrottleDelay(%d, 5) = %v, want %v", tc.failures, got, tc.want)
		}
	}
}
