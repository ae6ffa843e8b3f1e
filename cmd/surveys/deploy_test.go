package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The deploy/ folder is checked with the tools it is written for: the
// Makefile's test target installs Debian's shellcheck, nginx and caddy;
// systemd-analyze comes with systemd.

const deployDir = "../../deploy"

// lookTool finds a tool the deploy checks need.
func lookTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		p, err = exec.LookPath(filepath.Join("/usr/sbin", name)) // nginx, for users without sbin in PATH
	}
	if err != nil {
		t.Fatalf("%s is not installed: make test installs it (Debian package)", name)
	}
	return p
}

func runTool(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(lookTool(t, name), args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func readDeploy(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// regionVar names the per-region variables in one form, whatever the region.
var regionVar = regexp.MustCompile(`^(AZURE_STORAGE_ACCOUNT|AZURE_STORAGE_CONNECTION_STRING)_[A-Z0-9]*$`)

func normalizeVar(name string) string {
	if m := regionVar.FindStringSubmatch(name); m != nil {
		return m[1] + "_<REGION>"
	}
	return name
}

// knownVars is every environment variable surveys serve reads (recorded
// from parseServe, with regions so that the per-region ones show), plus
// AZURE_CLIENT_ID, which Azure's SDK reads for a user-assigned managed
// identity.
func knownVars(t *testing.T) map[string]bool {
	t.Helper()
	known := map[string]bool{"AZURE_CLIENT_ID": true}
	_, err := parseServe(nil, func(k string) string {
		known[normalizeVar(k)] = true
		if k == "SURVEYS_REGIONS" {
			return "westeurope"
		}
		return ""
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return known
}

var varRE = regexp.MustCompile(`\b(?:SURVEYS|AZURE)_[A-Z0-9_]*[A-Z0-9_]`)

// TestDeployEnv: the env example and the operators' manual
// (docs/operating.md) document every variable the server reads, and
// deploy/ names none it does not.
func TestDeployEnv(t *testing.T) {
	known := knownVars(t)
	if len(known) < 14 {
		t.Fatalf("recorded only %v", known)
	}
	example := map[string]bool{}
	for _, line := range strings.Split(readDeploy(t, "surveys.env.example"), "\n") {
		line = strings.TrimPrefix(line, "#")
		if i := strings.IndexByte(line, '='); i > 0 && varRE.MatchString(line[:i]) && !strings.Contains(line[:i], " ") {
			example[normalizeVar(line[:i])] = true
		}
	}
	for v := range known {
		if v == "AZURE_STORAGE_CONNECTION_STRING_<REGION>" || v == "AZURE_STORAGE_ACCOUNT_<REGION>" {
			continue // shown by example, below
		}
		if !example[v] {
			t.Errorf("surveys.env.example lacks %s", v)
		}
	}
	for _, v := range []string{"AZURE_STORAGE_CONNECTION_STRING_<REGION>", "AZURE_STORAGE_ACCOUNT_<REGION>"} {
		if !example[v] {
			t.Errorf("surveys.env.example shows no %s", v)
		}
	}
	err := filepath.WalkDir(deployDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, v := range varRE.FindAllString(string(b), -1) {
			if !known[normalizeVar(v)] {
				t.Errorf("%s names %s, which the server does not read", path, v)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	manual, err := os.ReadFile("../../docs/operating.md")
	if err != nil {
		t.Fatal(err)
	}
	for v := range known {
		if !strings.Contains(string(manual), strings.TrimSuffix(v, "<REGION>")) {
			t.Errorf("docs/operating.md does not mention %s", v)
		}
	}
}

// TestProvisionScript checks deploy/azure/provision.sh with bash -n and
// shellcheck, and runs it with --dry-run: the account it makes is
// StorageV2, HTTPS only, TLS 1.2; logos is public; the identity gets the
// three data roles; and it prints env lines the server reads. No Azure
// here: the az commands are printed, not run.
func TestProvisionScript(t *testing.T) {
	script := filepath.Join(deployDir, "azure", "provision.sh")
	runTool(t, nil, "bash", "-n", script)
	runTool(t, nil, "shellcheck", script)

	out := runTool(t, nil, "bash", script, "--dry-run", "--account", "surveystest", "--vm", "web1")
	for _, want := range []string{
		"+ az group create --name surveys --location westeurope",
		"--kind StorageV2", "--https-only true", "--min-tls-version TLS1_2", "--allow-blob-public-access true",
		"+ az storage container-rm create --storage-account surveystest --resource-group surveys --name logos --public-access blob",
		"+ az identity create --name surveys",
		"+ az vm identity assign --name web1",
		`--role Storage\ Table\ Data\ Contributor --scope /subscriptions/SUBSCRIPTION/resourceGroups/surveys/providers/Microsoft.Storage/storageAccounts/surveystest`,
		`--role Storage\ Blob\ Data\ Contributor`, `--role Storage\ Queue\ Data\ Contributor`,
		"\nSURVEYS_STORAGE=azure\n", "\nAZURE_STORAGE_ACCOUNT=surveystest\n", "\nAZURE_CLIENT_ID=CLIENT_ID\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	known := knownVars(t)
	for _, line := range strings.Split(out, "\n") {
		if i := strings.IndexByte(line, '='); i > 0 && !strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "#") {
			if !known[normalizeVar(line[:i])] {
				t.Errorf("provision.sh prints %q, a variable the server does not read", line)
			}
		}
	}
	region := runTool(t, nil, "bash", script, "--dry-run", "--account", "surveyseast", "--region", "eastus", "--principal-id", "1111")
	if !strings.Contains(region, "\nAZURE_STORAGE_ACCOUNT_EASTUS=surveyseast\n") || strings.Contains(region, "identity create") ||
		!strings.Contains(region, "--assignee-object-id 1111") {
		t.Errorf("dry run for a region's account with an existing identity:\n%s", region)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--account is required"},
		{[]string{"--account", "Surveys_Prod"}, "3-24 lower-case letters and digits"},
		{[]string{"--account", "surveystest", "--sku", "Premium_LRS"}, "use a Standard_ redundancy"},
		{[]string{"--account", "surveystest", "--region", "East US"}, "--region East US"},
		{[]string{"--account", "surveystest", "--principal-id", "1", "--vm", "web1"}, "already the VM's"},
		{[]string{"--account", "surveystest", "--bogus"}, "unknown argument --bogus"},
	} {
		cmd := exec.Command("bash", append([]string{script, "--dry-run"}, tc.args...)...)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) || strings.Contains(string(out), "+ az") {
			t.Errorf("provision.sh %v = %v\n%s\nwant a failure saying %q before any az command", tc.args, err, out, tc.want)
		}
	}
}

var exposureRE = regexp.MustCompile(`Overall exposure level for surveys\.service: ([0-9.]+)`)

// TestSystemdUnit verifies surveys.service with systemd-analyze (its
// ExecStart pointed at an executable that exists here) and rates its
// hardening offline.
func TestSystemdUnit(t *testing.T) {
	unit := readDeploy(t, "surveys.service")
	for _, want := range []string{"ExecStart=/usr/local/bin/surveys serve\n", "EnvironmentFile=/etc/surveys/surveys.env\n",
		"KillSignal=SIGTERM\n", "DynamicUser=yes\n", "StateDirectory=surveys\n", "ProtectSystem=strict\n"} {
		if !strings.Contains(unit, want) {
			t.Errorf("surveys.service lacks %q", want)
		}
	}
	// systemd waits for shutdown: requests (--shutdown-wait, 10 s), then the
	// batch in hand (at most the worker's visibility timeout, 1 min).
	if m := regexp.MustCompile(`TimeoutStopSec=(\d+)`).FindStringSubmatch(unit); m == nil {
		t.Error("surveys.service sets no TimeoutStopSec")
	} else if n, _ := strconv.Atoi(m[1]); n < 75 {
		t.Errorf("TimeoutStopSec=%d: shorter than the 10 s for requests and 60 s for the batch in hand", n)
	}

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyUnit := filepath.Join(dir, "surveys.service")
	if err := os.WriteFile(copyUnit, []byte(strings.Replace(unit, "ExecStart=/usr/local/bin/surveys", "ExecStart="+exe, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := runTool(t, nil, "systemd-analyze", "verify", copyUnit); strings.TrimSpace(out) != "" {
		t.Errorf("systemd-analyze verify:\n%s", out)
	}

	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "etc/systemd/system"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc/systemd/system/surveys.service"), []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runTool(t, nil, "systemd-analyze", "security", "--offline=yes", "--root="+root, "--no-pager", "surveys.service")
	m := exposureRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no exposure level in:\n%s", out)
	}
	if level, _ := strconv.ParseFloat(m[1], 64); level > 2.0 {
		t.Errorf("exposure level %s, want at most 2.0 (a hardened unit):\n%s", m[1], out)
	}
	t.Logf("systemd-analyze security: exposure %s", m[1])
}

// TestReverseProxies checks the Caddyfile with caddy (validate, fmt) and
// the nginx site with nginx -t, its certificate paths pointed at a
// self-signed certificate made here.
func TestReverseProxies(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_DATA_HOME=" + home, "XDG_CONFIG_HOME=" + home}
	caddyfile := filepath.Join(deployDir, "Caddyfile")
	runTool(t, env, "caddy", "validate", "--config", caddyfile, "--adapter", "caddyfile")
	if out := runTool(t, env, "caddy", "fmt", caddyfile); out != readDeploy(t, "Caddyfile") {
		t.Errorf("the Caddyfile is not as caddy fmt writes it:\n%s", out)
	}

	site := readDeploy(t, "nginx/surveys.conf")
	for _, want := range []string{"proxy_set_header Host $http_host;", "proxy_set_header X-Forwarded-Proto $scheme;",
		"proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;", "ssl_protocols TLSv1.2 TLSv1.3;",
		"return 301 https://$host$request_uri;", "proxy_pass http://127.0.0.1:8080;"} {
		if !strings.Contains(site, want) {
			t.Errorf("nginx/surveys.conf lacks %q", want)
		}
	}
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	site = strings.NewReplacer("/etc/letsencrypt/live/surveys.example.com/fullchain.pem", cert,
		"/etc/letsencrypt/live/surveys.example.com/privkey.pem", key).Replace(site)
	if err := os.WriteFile(filepath.Join(dir, "site.conf"), []byte(site), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := "pid " + dir + "/nginx.pid;\nerror_log " + dir + "/error.log;\nevents {}\nhttp {\n access_log off;\n" +
		" client_body_temp_path " + dir + "/body;\n proxy_temp_path " + dir + "/proxy;\n include " + dir + "/site.conf;\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	runTool(t, nil, "nginx", "-t", "-q", "-e", filepath.Join(dir, "error.log"), "-p", dir, "-c", filepath.Join(dir, "nginx.conf"))
}

// selfSigned writes a certificate and key for surveys.example.com.
func selfSigned(t *testing.T, dir string) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "surveys.example.com"},
		DNSNames: []string{"surveys.example.com"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	for path, block := range map[string]*pem.Block{cert: {Type: "CERTIFICATE", Bytes: der}, key: {Type: "EC PRIVATE KEY", Bytes: kb}} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cert, key
}

// proxyClient reaches host:port at 127.0.0.1 over TLS, trusting cert,
// without following redirects.
func proxyClient(t *testing.T, cert string) *http.Client {
	t.Helper()
	pemBytes, err := os.ReadFile(cert)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pemBytes)
	tr := &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			_, port, _ := net.SplitHostPort(addr)
			return (&net.Dialer{}).DialContext(ctx, network, "127.0.0.1:"+port)
		},
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// throughProxy serves a survey page and an answer to the real server
// through a proxy at https://surveys.example.com:port: the proxy passes the
// Host on, so a same-origin form post is accepted and a cross-site one
// refused; /metrics is hidden; plain HTTP is redirected.
func throughProxy(t *testing.T, m *Main, c *http.Client, httpsPort, httpPort string) {
	t.Helper()
	path, form := demoAnswer(t, m)
	base := "https://surveys.example.com:" + httpsPort
	var resp *http.Response
	var err error
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if resp, err = c.Get(base + path); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("GET through the proxy: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s through the proxy = %d", path, resp.StatusCode)
	}
	post := func(origin string) int {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("https://evil.example"); code != http.StatusForbidden {
		t.Errorf("cross-site POST through the proxy = %d, want 403", code)
	}
	if code := post(base); code != http.StatusSeeOther {
		t.Errorf("same-origin POST through the proxy = %d, want 303 (is Host passed on?)", code)
	}
	if resp, err := c.Get(base + "/metrics"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics through the proxy = %v %v, want 404", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}
	if resp, err := c.Get("http://surveys.example.com:" + httpPort + "/x"); err != nil ||
		resp.StatusCode/100 != 3 || !strings.HasPrefix(resp.Header.Get("Location"), "https://surveys.example.com") {
		t.Errorf("plain HTTP through the proxy = %v %v, want a redirect to HTTPS", resp, err)
	} else {
		resp.Body.Close()
	}
}

// startProxy runs a proxy process until the test ends.
func startProxy(t *testing.T, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(lookTool(t, name), args...)
	cmd.Env = append(os.Environ(), env...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s output:\n%s", name, out.String())
		}
	})
}

// TestNginxInFront runs the nginx site, on loopback ports, in front of
// the real server.
func TestNginxInFront(t *testing.T) {
	m := bootMain(t, io.Discard)
	defer m.Close()
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	_, httpsPort, _ := net.SplitHostPort(freeLoopbackAddr(t))
	_, httpPort, _ := net.SplitHostPort(freeLoopbackAddr(t))
	site := strings.NewReplacer(
		"/etc/letsencrypt/live/surveys.example.com/fullchain.pem", cert,
		"/etc/letsencrypt/live/surveys.example.com/privkey.pem", key,
		"listen 443 ssl http2;", "listen 127.0.0.1:"+httpsPort+" ssl http2;", "listen [::]:443 ssl http2;", "",
		"listen 80;", "listen 127.0.0.1:"+httpPort+";", "listen [::]:80;", "",
		"proxy_pass http://127.0.0.1:8080;", "proxy_pass http://"+m.Addr()+";",
	).Replace(readDeploy(t, "nginx/surveys.conf"))
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;\n" // the workers read the test's private folders
	}
	conf := user + "pid " + dir + "/nginx.pid;\nerror_log " + dir + "/error.log;\nevents {}\nhttp {\n access_log off;\n" +
		" client_body_temp_path " + dir + "/body;\n proxy_temp_path " + dir + "/proxy;\n" + site + "\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	startProxy(t, nil, "nginx", "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", filepath.Join(dir, "error.log"), "-g", "daemon off;")
	throughProxy(t, m, proxyClient(t, cert), httpsPort, httpPort)
}

// TestCaddyInFront runs the Caddyfile, on loopback ports and with Caddy's
// own local CA instead of Let's Encrypt, in front of the real server.
func TestCaddyInFront(t *testing.T) {
	m := bootMain(t, io.Discard)
	defer m.Close()
	dir := t.TempDir()
	_, httpsPort, _ := net.SplitHostPort(freeLoopbackAddr(t))
	_, httpPort, _ := net.SplitHostPort(freeLoopbackAddr(t))
	// These options join the Caddyfile's own global block (its first
	// "{"), where the custom domains' on-demand TLS asks the server.
	global := "{\n\tadmin off\n\tlocal_certs\n\tskip_install_trust\n\tdefault_bind 127.0.0.1\n\thttp_port " + httpPort +
		"\n\thttps_port " + httpsPort + "\n\tstorage file_system " + dir + "\n"
	caddyfile := strings.NewReplacer("reverse_proxy 127.0.0.1:8080", "reverse_proxy "+m.Addr(), "ask http://127.0.0.1:8080/", "ask http://"+m.Addr()+"/").
		Replace(strings.Replace(readDeploy(t, "Caddyfile"), "{\n", global, 1))
	conf := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(conf, []byte(caddyfile), 0o644); err != nil {
		t.Fatal(err)
	}
	startProxy(t, []string{"HOME=" + dir, "XDG_DATA_HOME=" + dir, "XDG_CONFIG_HOME=" + dir},
		"caddy", "run", "--config", conf, "--adapter", "caddyfile")
	root := filepath.Join(dir, "pki", "authorities", "local", "root.crt")
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(root); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("caddy made no local CA: %v", err)
		}
	}
	throughProxy(t, m, proxyClient(t, root), httpsPort, httpPort)
}
