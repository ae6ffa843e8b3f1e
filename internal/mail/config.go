// Package mail sends the service's e-mail through SMTP (go-mail), from
// templates of the messages, and queues it for the mail worker so that a
// slow mail server never slows a page.
package mail

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	netmail "net/mail"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Security is how the connection to the SMTP server is protected.
type Security string

const (
	// Implicit is TLS from the first byte (smtps://, port 465 by default).
	Implicit Security = "implicit"
	// StartTLS upgrades the connection with STARTTLS and fails when the
	// server does not offer it (smtp://, port 587 by default).
	StartTLS Security = "starttls"
	// None sends in clear (smtp://host?tls=none, port 25 by default): for
	// a relay on this machine or its private network. With it a password
	// is refused unless the host is a loopback address.
	None Security = "none"
)

// Config is where and how mail is sent. It is made by Load at start-up.
type Config struct {
	Host     string
	Port     int
	Security Security
	// Username and Password, when Username is set, authenticate (PLAIN,
	// LOGIN or a stronger mechanism the server offers).
	Username string
	Password string
	// From is the sender of every message.
	From *netmail.Address
	// RootCAs, when set, replaces the system's roots (tests).
	RootCAs *x509.CertPool
	// Timeout bounds one connection's dial and each command.
	Timeout time.Duration
}

// Settings are the operator's values, from flags and the environment.
type Settings struct {
	URL          string // SURVEYS_SMTP_URL, e.g. smtps://user@host:465
	Password     string // SURVEYS_SMTP_PASSWORD
	PasswordFile string // SURVEYS_SMTP_PASSWORD_FILE
	From         string // SURVEYS_MAIL_FROM, e.g. "Surveys <surveys@example.com>"
	// DefaultHost names the domain of the default sender (surveys@<host>)
	// when From is empty: the public URL's host, or this machine's name.
	DefaultHost string
}

// DefaultTimeout bounds a connection and each SMTP command.
const DefaultTimeout = 30 * time.Second

// Load checks the settings and returns the configuration; nil (and no
// error) when no SMTP URL is set: mail is off. The password is never part
// of the URL (a URL is logged and shown in process lists).
func Load(s Settings) (*Config, error) {
	if strings.TrimSpace(s.URL) == "" {
		if s.Password != "" || s.PasswordFile != "" {
			return nil, errors.New("mail: an SMTP password is set but no --smtp-url (SURVEYS_SMTP_URL)")
		}
		return nil, nil
	}
	c, err := parseSMTPURL(s.URL)
	if err != nil {
		return nil, err
	}
	if c.Password, err = smtpPassword(s); err != nil {
		return nil, err
	}
	switch {
	case c.Username != "" && c.Password == "":
		return nil, fmt.Errorf("mail: --smtp-url (SURVEYS_SMTP_URL) names the user %q but no password is set: set SURVEYS_SMTP_PASSWORD or SURVEYS_SMTP_PASSWORD_FILE", c.Username)
	case c.Username == "" && c.Password != "":
		return nil, errors.New("mail: an SMTP password is set but --smtp-url (SURVEYS_SMTP_URL) names no user, such as smtps://user@mail.example.com:465")
	}
	if c.Security == None && c.Username != "" && !loopback(c.Host) {
		return nil, fmt.Errorf("mail: --smtp-url (SURVEYS_SMTP_URL): tls=none would send the password in clear to %s; use TLS, or a relay on this machine", c.Host)
	}
	from, err := sender(s)
	if err != nil {
		return nil, err
	}
	if c.From, err = ParseAddress(from); err != nil {
		return nil, fmt.Errorf("mail: --mail-from (SURVEYS_MAIL_FROM) %q: %w", from, err)
	}
	return c, nil
}

// parseSMTPURL reads the SMTP URL (set): its scheme (smtps, or smtp with
// STARTTLS or tls=none), host, port (by default the scheme's) and user. It
// refuses anything else in it, a password above all.
func parseSMTPURL(raw string) (*Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("mail: --smtp-url (SURVEYS_SMTP_URL) is not a URL; give one such as smtps://user@mail.example.com:465")
	}
	c := &Config{Timeout: DefaultTimeout}
	switch u.Scheme {
	case "smtps":
		c.Security, c.Port = Implicit, 465
	case "smtp":
		c.Security, c.Port = StartTLS, 587
	default:
		return nil, fmt.Errorf("mail: --smtp-url (SURVEYS_SMTP_URL): scheme %q: use smtps:// (TLS, port 465) or smtp:// (STARTTLS, port 587)", u.Scheme)
	}
	if (u.Path != "" && u.Path != "/") || u.Fragment != "" || u.Opaque != "" {
		return nil, errors.New("mail: --smtp-url (SURVEYS_SMTP_URL): give a scheme, user, host and port only, such as smtps://user@mail.example.com:465")
	}
	q := u.Query()
	for k := range q {
		if k != "tls" {
			return nil, fmt.Errorf("mail: --smtp-url (SURVEYS_SMTP_URL): unknown parameter %q (only tls=none)", k)
		}
	}
	if t := q.Get("tls"); t != "" {
		if t != "none" || u.Scheme != "smtp" {
			return nil, fmt.Errorf("mail: --smtp-url (SURVEYS_SMTP_URL): tls=%q: the only choice is tls=none, with smtp://", t)
		}
		c.Security, c.Port = None, 25
	}
	c.Host = u.Hostname()
	if c.Host == "" {
		return nil, errors.New("mail: --smtp-url (SURVEYS_SMTP_URL) names no host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("mail: --smtp-url (SURVEYS_SMTP_URL): port %q is not a port", p)
		}
		c.Port = n
	}
	if u.User != nil {
		if _, set := u.User.Password(); set {
			return nil, errors.New("mail: --smtp-url (SURVEYS_SMTP_URL) holds a password: put it in SURVEYS_SMTP_PASSWORD or a file named by SURVEYS_SMTP_PASSWORD_FILE instead")
		}
		c.Username = u.User.Username()
	}
	return c, nil
}

// smtpPassword returns the SMTP password: SURVEYS_SMTP_PASSWORD, or the
// file SURVEYS_SMTP_PASSWORD_FILE names (without its line end; not
// empty), not both; "" when neither is set.
func smtpPassword(s Settings) (string, error) {
	switch {
	case s.Password != "" && s.PasswordFile != "":
		return "", errors.New("mail: set SURVEYS_SMTP_PASSWORD or SURVEYS_SMTP_PASSWORD_FILE, not both")
	case s.PasswordFile != "":
		b, err := os.ReadFile(s.PasswordFile)
		if err != nil {
			return "", fmt.Errorf("mail: SURVEYS_SMTP_PASSWORD_FILE: %w", err)
		}
		password := strings.TrimRight(string(b), "\r\n")
		if password == "" {
			return "", fmt.Errorf("mail: SURVEYS_SMTP_PASSWORD_FILE %s is empty", s.PasswordFile)
		}
		return password, nil
	default:
		return s.Password, nil
	}
}

// sender returns the sender's address as set (--mail-from), or by default
// Surveys <surveys@host> of s.DefaultHost or this machine's name.
func sender(s Settings) (string, error) {
	from := strings.TrimSpace(s.From)
	if from == "" {
		host := s.DefaultHost
		if host == "" {
			host, _ = os.Hostname()
		}
		if host == "" || strings.ContainsAny(host, "@<> \r\n") {
			return "", errors.New("mail: set the sender with --mail-from (SURVEYS_MAIL_FROM), such as \"Surveys <surveys@example.com>\"")
		}
		from = "Surveys <surveys@" + host + ">"
	}
	return from, nil
}

// String describes the configuration for the log, without the password.
func (c *Config) String() string {
	if c == nil {
		return "off"
	}
	user := ""
	if c.Username != "" {
		user = c.Username + "@"
	}
	return fmt.Sprintf("%s%s (%s), from %s", user, net.JoinHostPort(c.Host, strconv.Itoa(c.Port)), c.Security, c.From.Address)
}

func (c *Config) tlsConfig() *tls.Config {
	return &tls.Config{ServerName: c.Host, RootCAs: c.RootCAs, MinVersion: tls.VersionTLS12}
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
