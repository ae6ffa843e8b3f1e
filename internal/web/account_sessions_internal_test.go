package web

import (
	"testing"
	"time"
)

// TestDeviceName: User-Agents of the common browsers in short.
func TestDeviceName(t *testing.T) {
	for _, tc := range []struct{ ua, want string }{
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox on Windows"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0", "Edge on Windows"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15", "Safari on Mac"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", "Safari on iPhone"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1", "Chrome on iPhone"},
		{"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36", "Chrome on Android"},
		{"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36", "Samsung Internet on Android"},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36", "Headless Chrome on Linux"},
		{"Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome on ChromeOS"},
		{"curl/8.5.0", "curl"},
		{"Mozilla/5.0 (X11; Linux x86_64)", "A browser on Linux"},
		{"", "Unknown browser"},
	} {
		if got := deviceName(tc.ua); got != tc.want {
			t.Errorf("deviceName(%q) = %q, want %q", tc.ua, got, tc.want)
		}
	}
}

// TestSeenAgo: a session's last use, as coarsely as it is noted.
func TestSeenAgo(t *testing.T) {
	now := time.Date(2026, 12, 6, 15, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		ago  time.Duration
		want string
	}{
		{0, "in the last 5 minutes"},
		{4 * time.Minute, "in the last 5 minutes"},
		{17 * time.Minute, "about 15 minutes ago"},
		{time.Hour, "about 1 hour ago"},
		{5*time.Hour + 59*time.Minute, "about 5 hours ago"},
		{50 * time.Hour, "on 4 December 2026"},
	} {
		if got := seenAgo(now, now.Add(-tc.ago)); got != tc.want {
			t.Errorf("seenAgo(%v) = %q, want %q", tc.ago, got, tc.want)
		}
	}
}
