// Package lrucache is the one bounded in-process cache: at most a number of
// entries and of bytes (as the caller sizes its values), each entry living
// at most a TTL. Whatever keys a client can make the server look up, the
// cache holds no more than its bounds.
package lrucache

import (
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Cache is a least-recently-used cache bounded in entries and bytes, with
// expiry. It is safe for concurrent use.
type Cache[K comparable, V any] struct {
	maxBytes int64
	ttl      time.Duration
	size     func(K, V) int64
	now      func() time.Time

	mu    sync.Mutex
	lru   *simplelru.LRU[K, entry[V]]
	bytes int64
}

type entry[V any] struct {
	v       V
	size    int64
	expires time.Time
}

// New returns a cache of at most maxEntries entries and maxBytes bytes, as
// size counts them, each kept at most ttl.
func New[K comparable, V any](maxEntries int, maxBytes int64, ttl time.Duration, size func(K, V) int64) *Cache[K, V] {
	c := &Cache[K, V]{maxBytes: maxBytes, ttl: ttl, size: size, now: time.Now}
	// The eviction callback runs under c.mu, inside the LRU's own calls.
	l, err := simplelru.NewLRU(maxEntries, func(_ K, e entry[V]) { c.bytes -= e.size })
	if err != nil {
		panic("lrucache: " + err.Error()) // maxEntries < 1: a programming error
	}
	c.lru = l
	return c
}

// WithClock makes the cache tell the time with now instead of time.Now
// (tests move it past the TTL rather than sleep), and returns the cache.
// Call it before the cache is used.
func (c *Cache[K, V]) WithClock(now func() time.Time) *Cache[K, V] {
	c.now = now
	return c
}

// Get returns the value of k, if it is kept and not expired.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Get(k)
	if ok && !c.now().Before(e.expires) {
		c.lru.Remove(k)
		ok = false
	}
	if !ok {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Add keeps v under k for the TTL, dropping the least recently used entries
// while the cache is over its bounds, and any expired ones at the cold end.
// A value larger than the whole byte budget is not kept.
func (c *Cache[K, V]) Add(k K, v V) {
	n := c.size(k, v)
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(k)
	if n > c.maxBytes {
		return
	}
	c.lru.Add(k, entry[V]{v: v, size: n, expires: now.Add(c.ttl)})
	c.bytes += n
	for c.bytes > c.maxBytes {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
	// Active expiry: what expired at the cold end goes now, not when the
	// cache fills.
	for {
		_, e, ok := c.lru.GetOldest()
		if !ok || now.Before(e.expires) {
			break
		}
		c.lru.RemoveOldest()
	}
}

// Remove drops k.
func (c *Cache[K, V]) Remove(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(k)
}

// Len is the number of entries kept (some may have expired).
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// Bytes is the size of the entries kept, as size counts them.
func (c *Cache[K, V]) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
