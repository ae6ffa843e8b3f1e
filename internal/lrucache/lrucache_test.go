package lrucache

import (
	"strconv"
	"testing"
	"time"
)

func newTestCache(t *testing.T, entries int, bytes int64) (*Cache[string, string], *time.Time) {
	t.Helper()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := New(entries, bytes, time.Minute, func(k, v string) int64 { return int64(len(k) + len(v)) })
	c.now = func() time.Time { return now }
	return c, &now
}

func TestBounds(t *testing.T) {
	tests := []struct {
		name       string
		entries    int
		bytes      int64
		add        int // values of 10 bytes under keys of 1 to 3 digits
		wantLen    int
		wantMaxLen int
	}{
		{"under both", 10, 1000, 5, 5, 5},
		{"entries bound", 10, 1 << 20, 1000, 10, 10},
		{"bytes bound", 1000, 120, 1000, 0, 10}, // 12 or 13 bytes each
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestCache(t, tc.entries, tc.bytes)
			for i := range tc.add {
				c.Add(strconv.Itoa(i), "0123456789")
			}
			if n := c.Len(); n > tc.wantMaxLen || (tc.wantLen > 0 && n != tc.wantLen) || n == 0 {
				t.Fatalf("Len = %d, want %d (at most %d)", n, tc.wantLen, tc.wantMaxLen)
			}
			if b := c.Bytes(); b > tc.bytes {
				t.Fatalf("Bytes = %d over the budget %d", b, tc.bytes)
			}
			last := strconv.Itoa(tc.add - 1)
			if v, ok := c.Get(last); !ok || v != "0123456789" {
				t.Fatalf("the newest entry is gone: %q %v", v, ok)
			}
		})
	}
}

func TestTooLargeNotKept(t *testing.T) {
	c, _ := newTestCache(t, 10, 100)
	c.Add("small", "x")
	c.Add("big", string(make([]byte, 200)))
	if _, ok := c.Get("big"); ok {
		t.Fatal("a value over the whole budget was kept")
	}
	if _, ok := c.Get("small"); !ok || c.Bytes() != 6 {
		t.Fatalf("the small entry was dropped for it (bytes %d)", c.Bytes())
	}
}

func TestExpiry(t *testing.T) {
	c, now := newTestCache(t, 100, 1<<20)
	for i := range 50 {
		c.Add("old"+strconv.Itoa(i), "v")
	}
	*now = now.Add(30 * time.Second)
	c.Add("new", "v")
	if _, ok := c.Get("old1"); !ok {
		t.Fatal("an entry expired early")
	}
	*now = now.Add(31 * time.Second)
	if _, ok := c.Get("old1"); ok {
		t.Fatal("an expired entry was served")
	}
	// One more insert drops the other expired entries at once.
	c.Add("newer", "v")
	if n := c.Len(); n != 2 {
		t.Fatalf("Len = %d after expiry, want the 2 fresh entries", n)
	}
	if b := c.Bytes(); b != int64(len("new")+1+len("newer")+1) {
		t.Fatalf("Bytes = %d", b)
	}
	c.Remove("new")
	if _, ok := c.Get("new"); ok || c.Bytes() != 6 {
		t.Fatalf("Remove kept it (bytes %d)", c.Bytes())
	}
}
