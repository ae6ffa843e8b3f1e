package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// child is a process the load tool started.
type child struct {
	name   string
	cmd    *exec.Cmd
	log    string        // its stdout and stderr
	exited chan struct{} // closed once it has been waited for
}

// startChild starts argv with env, its output to logPath, in a process
// group of its own that dies with the load tool (on Linux).
func startChild(name, logPath string, env []string, argv ...string) (*child, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("%s: create log: %w", name, err)
	}
	defer logFile.Close() // the child has its own descriptor
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	configureProcess(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", name, argv[0], err)
	}
	c := &child{name: name, cmd: cmd, log: logPath, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

func (c *child) hasExited() bool {
	select {
	case <-c.exited:
		return true
	default:
		return false
	}
}

// stop asks the child to stop (SIGTERM to its group), waits up to grace,
// then kills the group and waits a little more.
func (c *child) stop(grace time.Duration) error {
	if c.hasExited() {
		return nil
	}
	terminate(c.cmd)
	select {
	case <-c.exited:
		return nil
	case <-time.After(grace):
	}
	kill(c.cmd)
	select {
	case <-c.exited:
		return fmt.Errorf("%s (pid %d) did not stop within %s; killed", c.name, c.cmd.Process.Pid, grace)
	case <-time.After(5 * time.Second):
		return fmt.Errorf("%s (pid %d) did not exit even when killed", c.name, c.cmd.Process.Pid)
	}
}

// logTail is the end of the child's log, for error messages.
func (c *child) logTail(lines int) string {
	data, err := os.ReadFile(c.log)
	if err != nil {
		return ""
	}
	all := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// logLevels counts the child's JSON log lines by level.
func (c *child) logLevels() (total int, levels map[string]int) {
	levels = map[string]int{}
	f, err := os.Open(c.log)
	if err != nil {
		return 0, levels
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		total++
		line := sc.Text()
		if i := strings.Index(line, `"level":"`); i >= 0 {
			rest := line[i+len(`"level":"`):]
			if j := strings.IndexByte(rest, '"'); j >= 0 {
				levels[rest[:j]]++
			}
		}
	}
	return total, levels
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// childEnv is the load tool's environment without the server's settings,
// plus extra.
func childEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "SURVEYS_") || strings.HasPrefix(kv, "AZURE_STORAGE_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// surveysServer is a running surveys serve.
type surveysServer struct {
	*child
	base string // http://127.0.0.1:port
}

// startSurveys starts bin serve on a free loopback port over the data folder
// dir (or Azure when env names an account), with the extra serve flags
// args, logging JSON to dir/serve.log, and waits until /readyz answers 200.
// A port taken before the server could bind it is retried with another.
func startSurveys(ctx context.Context, c *http.Client, bin, dir string, env []string, args ...string) (*surveysServer, error) {
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		ch, err := startChild("surveys", filepath.Join(dir, "serve.log"), append(env, "SURVEYS_LOG_FORMAT=json", "SURVEYS_ANSWERS_PER_MINUTE=0"),
			append([]string{bin, "serve", "--addr", addr, "--data", filepath.Join(dir, "data")}, args...)...)
		if err != nil {
			return nil, err
		}
		s := &surveysServer{child: ch, base: "http://" + addr}
		err = waitReady(ctx, c, s.base+"/readyz", ch, 90*time.Second)
		if err == nil {
			return s, nil
		}
		_ = ch.stop(5 * time.Second)
		last = fmt.Errorf("%w\nsurveys log (%s):\n%s", err, ch.log, ch.logTail(30))
		if ctx.Err() != nil || !strings.Contains(ch.logTail(30), "address already in use") {
			break
		}
	}
	return nil, last
}

// waitReady polls url until it answers 200, the child exits, or timeout.
func waitReady(ctx context.Context, c *http.Client, url string, ch *child, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if ch.hasExited() {
			return fmt.Errorf("%s exited before it was ready (%v)", ch.name, ch.cmd.ProcessState)
		}
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		req, _ := http.NewRequestWithContext(rctx, http.MethodGet, url, nil)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		cancel()
		if err == nil && resp.StatusCode == http.StatusOK {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
			return fmt.Errorf("%s not ready within %s: %v", url, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Azurite's well-known development account.
const (
	azuriteAccount = "devstoreaccount1"
	azuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// azurite is a running Azurite.
type azurite struct {
	*child
	blob, queue, table int
}

// connectionString is the account's connection string.
func (a *azurite) connectionString() string {
	ep := func(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) + "/" + azuriteAccount }
	return "DefaultEndpointsProtocol=http;AccountName=" + azuriteAccount + ";AccountKey=" + azuriteKey +
		";BlobEndpoint=" + ep(a.blob) + ";QueueEndpoint=" + ep(a.queue) + ";TableEndpoint=" + ep(a.table) + ";"
}

// azuriteScript finds Azurite's entry script in tools/node_modules of the
// repository around the working directory (make tools installs it).
func azuriteScript(tools string) (string, error) {
	if tools == "" {
		dir, err := os.Getwd()
		if err != nil {
			return "", err
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return "", errors.New("no go.mod above the working directory; pass --tools")
			}
			dir = parent
		}
		tools = filepath.Join(dir, "tools")
	}
	script := filepath.Join(tools, "node_modules", "azurite", "dist", "src", "azurite.js")
	if _, err := os.Stat(script); err != nil {
		return "", fmt.Errorf("azurite is not installed (%v); run make tools", err)
	}
	return script, nil
}

// startAzurite runs Azurite on three free loopback ports with its data in
// dir, as internal/storage/azure/azuritetest does, and waits until it
// listens on all of them.
func startAzurite(ctx context.Context, tools, dir string) (*azurite, error) {
	script, err := azuriteScript(tools)
	if err != nil {
		return nil, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node (Node.js), needed to run Azurite, is not available: %w", err)
	}
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		var ports [3]int
		for i := range ports {
			if ports[i], err = freePort(); err != nil {
				return nil, err
			}
		}
		if ports[0] == ports[1] || ports[1] == ports[2] || ports[0] == ports[2] {
			continue
		}
		data := filepath.Join(dir, "data")
		if err := os.MkdirAll(data, 0o755); err != nil {
			return nil, err
		}
		ch, err := startChild("azurite", filepath.Join(dir, "azurite.log"), childEnv(),
			node, script,
			"--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(ports[0]),
			"--queueHost", "127.0.0.1", "--queuePort", strconv.Itoa(ports[1]),
			"--tableHost", "127.0.0.1", "--tablePort", strconv.Itoa(ports[2]),
			"--location", data,
			"--skipApiVersionCheck", "--loose", "--disableTelemetry", "--silent")
		if err != nil {
			return nil, err
		}
		az := &azurite{child: ch, blob: ports[0], queue: ports[1], table: ports[2]}
		if err = az.waitListening(ctx, 30*time.Second); err == nil {
			return az, nil
		}
		_ = ch.stop(5 * time.Second)
		last = fmt.Errorf("%w\nAzurite's output:\n%s", err, ch.logTail(30))
		if ctx.Err() != nil {
			break
		}
	}
	return nil, last
}

// waitListening waits until Azurite accepts connections on its three
// ports, and is still running a moment later (a port another process took
// also accepts connections; Azurite then exits at once).
func (a *azurite) waitListening(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, port := range []int{a.blob, a.queue, a.table} {
		addr := "127.0.0.1:" + strconv.Itoa(port)
		for {
			if a.hasExited() {
				return fmt.Errorf("azurite exited before listening on %s (%v)", addr, a.cmd.ProcessState)
			}
			conn, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				conn.Close()
				break
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("azurite did not listen on %s within %s", addr, timeout)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	select {
	case <-a.exited:
		return fmt.Errorf("azurite exited after starting (%v)", a.cmd.ProcessState)
	case <-time.After(300 * time.Millisecond):
		return nil
	}
}
