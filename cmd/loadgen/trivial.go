package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// trivialServer is the ceiling: an in-process net/http server on loopback
// that serves a fixed page (the real survey page as first fetched, so the
// same size and form, with one token) and answers a POST whose form has a
// token with 303, storing nothing.
type trivialServer struct {
	srv  *http.Server
	base string
	done chan error

	once sync.Once
	err  error
}

func startTrivial(page []byte) (*trivialServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return serveTrivial(ln, page), nil
}

// serveTrivial serves the trivial page on ln.
func serveTrivial(ln net.Listener, page []byte) *trivialServer {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			_, _ = w.Write(page)
		case http.MethodPost:
			r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
			if err := r.ParseForm(); err != nil || r.PostForm.Get("token") == "" {
				http.Error(w, "bad form", http.StatusUnprocessableEntity)
				return
			}
			http.Redirect(w, r, r.URL.Path+"/thankyou", http.StatusSeeOther)
		default:
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	})
	t := &trivialServer{
		srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
			WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second},
		base: "http://" + ln.Addr().String(),
		done: make(chan error, 1),
	}
	go func() { t.done <- t.srv.Serve(ln) }()
	return t
}

// trivialCommand is the hidden first argument that makes the load tool
// the trivial server in a process of its own (runTrivialChild): the
// ceiling as the real server is measured, across a process boundary,
// with its own Go scheduler rather than the load tool's.
const trivialCommand = "trivial-serve"

// runTrivialChild serves the page in file pagePath on addr until SIGTERM
// or SIGINT.
func runTrivialChild(ctx context.Context, addr, pagePath string) error {
	page, err := os.ReadFile(pagePath)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	t := serveTrivial(ln, page)
	select {
	case <-ctx.Done():
	case err := <-t.done:
		return err
	}
	return t.close()
}

// startTrivialChild starts the load tool's own binary as the trivial
// server of page, in a process of its own, and waits until it answers.
func startTrivialChild(ctx context.Context, c *http.Client, dir string, page []byte) (*child, string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	pagePath := filepath.Join(dir, "trivial-page.html")
	if err := os.WriteFile(pagePath, page, 0o600); err != nil {
		return nil, "", err
	}
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	ch, err := startChild("trivial server", filepath.Join(dir, "trivial.log"), childEnv(), self, trivialCommand, addr, pagePath)
	if err != nil {
		return nil, "", err
	}
	base := "http://" + addr
	if err := waitReady(ctx, c, base+"/", ch, 30*time.Second); err != nil {
		_ = ch.stop(5 * time.Second)
		return nil, "", err
	}
	return ch, base, nil
}

// close stops the server; later calls return the first one's result.
func (t *trivialServer) close() error {
	t.once.Do(func() {
		_ = t.srv.Close()
		if err := <-t.done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.err = err
		}
	})
	return t.err
}
