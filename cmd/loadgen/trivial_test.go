package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary be the trivial server's process, as the
// load tool's binary is (startTrivialChild runs os.Executable).
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == trivialCommand {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := runTrivialChild(ctx, os.Args[2], os.Args[3])
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestTrivialChild: the ceiling in a process of its own serves the page
// it was given and answers a POST with a token with 303, and stops when
// asked.
func TestTrivialChild(t *testing.T) {
	c := newClient(2)
	page := []byte("<!doctype html><title>A page</title>" + strings.Repeat("x", 1000))
	ch, base, err := startTrivialChild(context.Background(), c, t.TempDir(), page)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := get(context.Background(), c, base+surveyPath, &buf); err != nil || !bytes.Equal(buf.Bytes(), page) {
		t.Errorf("GET = %q, %v; want the page", buf.String(), err)
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.PostForm(base+surveyPath, url.Values{"token": {"t"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("POST = %d, want 303", resp.StatusCode)
	}
	if err := ch.stop(time.Minute); err != nil || !ch.hasExited() {
		t.Errorf("stop: %v", err)
	}
}
