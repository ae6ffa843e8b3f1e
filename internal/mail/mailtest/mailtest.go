// Package mailtest runs a real SMTP server (go-smtp) in the test's
// process, on 127.0.0.1, and records every message it accepts, for tests
// of the code that sends mail.
package mailtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Security is how the server takes connections.
type Security string

const (
	Plain    Security = "none"     // no TLS at all
	StartTLS Security = "starttls" // offers STARTTLS
	Implicit Security = "implicit" // TLS from the first byte
)

// Options configure a Server.
type Options struct {
	Security Security
	// Username and Password, when set, are the one account AUTH PLAIN
	// accepts; a message from an unauthenticated session is then refused.
	Username, Password string
}

// Message is one message the server accepted.
type Message struct {
	From    string
	To      []string
	Header  netmail.Header
	Subject string // decoded
	Text    string // the text/plain part, decoded
	HTML    string // the text/html part, decoded; "" when none
	Raw     []byte
}

// Server is a running SMTP server.
type Server struct {
	Addr    string // host:port
	Host    string
	Port    int
	RootCAs *x509.CertPool // trusts the server's certificate (TLS modes)

	srv  *smtp.Server
	opts Options

	mu       sync.Mutex
	messages []Message
	fail     *smtp.SMTPError
	refuse   map[string]int
	notify   chan struct{}
}

// Start runs a server until the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.Security == "" {
		opts.Security = Plain
	}
	s := &Server{opts: opts, notify: make(chan struct{}, 1)}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }))
	s.srv.Domain = "localhost"
	s.srv.AllowInsecureAuth = true // AUTH PLAIN without TLS, on 127.0.0.1
	s.srv.ReadTimeout, s.srv.WriteTimeout = 10*time.Second, 10*time.Second
	var ln net.Listener
	var err error
	if opts.Security != Plain {
		cert, pool := selfSigned(t)
		s.RootCAs = pool
		s.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if opts.Security == Implicit {
		ln, err = tls.Listen("tcp", "127.0.0.1:0", s.srv.TLSConfig)
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatalf("mailtest: listen: %v", err)
	}
	s.Addr = ln.Addr().String()
	s.Host = "127.0.0.1"
	s.Port = ln.Addr().(*net.TCPAddr).Port
	go func() { _ = s.srv.Serve(ln) }()
	t.Cleanup(func() { _ = s.srv.Close() })
	return s
}

// Close stops the server (a test of a server that is down).
func (s *Server) Close() { _ = s.srv.Close() }

// Fail makes the server refuse every message with code (4xx: try later,
// 5xx: refused for good) until Fail(0).
func (s *Server) Fail(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code == 0 {
		s.fail = nil
		return
	}
	s.fail = &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 0, 0}, Message: "mailtest: told to fail"}
}

// RefuseRecipient makes the server refuse the address addr at RCPT with
// code (4xx: try later, 5xx: refused for good; 0: accept it again).
func (s *Server) RefuseRecipient(addr string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse == nil {
		s.refuse = map[string]int{}
	}
	s.refuse[strings.ToLower(addr)] = code
}

// Messages returns the messages accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Wait waits until n messages have arrived, or fails the test after a
// minute (a bound for a hung test, not a timing assertion).
func (s *Server) Wait(t testing.TB, n int) []Message {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		if m := s.Messages(); len(m) >= n {
			return m
		}
		select {
		case <-s.notify:
		case <-deadline:
			t.Fatalf("mailtest: %d messages arrived, want %d", len(s.Messages()), n)
		}
	}
}

type session struct {
	s      *Server
	authed bool
	from   string
	to     []string
}

func (se *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (se *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if se.s.opts.Username == "" || username != se.s.opts.Username || password != se.s.opts.Password {
			return errors.New("invalid credentials")
		}
		se.authed = true
		return nil
	}), nil
}

func (se *session) Mail(from string, _ *smtp.MailOptions) error {
	if se.s.opts.Username != "" && !se.authed {
		return smtp.ErrAuthRequired
	}
	se.from = from
	return nil
}

func (se *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	se.s.mu.Lock()
	code := se.s.refuse[strings.ToLower(to)]
	se.s.mu.Unlock()
	if code != 0 {
		return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{code / 100, 1, 1}, Message: "mailtest: told to refuse " + to}
	}
	se.to = append(se.to, to)
	return nil
}

func (se *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	se.s.mu.Lock()
	fail := se.s.fail
	se.s.mu.Unlock()
	if fail != nil {
		return fail
	}
	m, err := parse(raw)
	if err != nil {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "mailtest: cannot parse: " + err.Error()}
	}
	m.From, m.To = se.from, append([]string(nil), se.to...)
	se.s.mu.Lock()
	se.s.messages = append(se.s.messages, m)
	se.s.mu.Unlock()
	select {
	case se.s.notify <- struct{}{}:
	default:
	}
	return nil
}

func (se *session) Reset()        { se.from, se.to = "", nil }
func (se *session) Logout() error { return nil }

// parse decodes a message: its subject, and its text and HTML parts.
func parse(raw []byte) (Message, error) {
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, err
	}
	m := Message{Header: msg.Header, Raw: raw}
	if m.Subject, err = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject")); err != nil {
		return Message{}, err
	}
	err = walk(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body, &m)
	return m, err
}

func walk(contentType, encoding string, body io.Reader, m *Message) error {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return err
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := walk(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p, m); err != nil {
				return err
			}
		}
	}
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	switch mt {
	case "text/plain":
		m.Text = strings.ReplaceAll(string(b), "\r\n", "\n")
	case "text/html":
		m.HTML = strings.ReplaceAll(string(b), "\r\n", "\n")
	}
	return nil
}

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mailtest"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(c)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: c}, pool
}

// Security returns how the server takes connections.
func (s *Server) Security() Security { return s.opts.Security }
