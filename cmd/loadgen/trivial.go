package main

import (
	"errors"
	"net"
	"net/http"
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
	return t, nil
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
