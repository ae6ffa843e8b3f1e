// Package azuritetest runs Azurite, the Azure Storage emulator, for the
// tests of one test binary:
//
//	func TestMain(m *testing.M) { azuritetest.Main(m) }
//
// Main starts Azurite from <repo>/tools/node_modules (running
// "npm ci --prefix <repo>/tools" first if it is not installed there) on
// three free loopback ports with its data in memory (its log in a
// temporary directory), runs the tests, stops Azurite and removes the
// directory. Test binaries running
// in parallel each get their own Azurite. When the environment variable
// AZURITE_CONNECTION_STRING is set, Main starts nothing and the tests use
// that account.
//
// Main never skips: when Azurite cannot be installed or started, the test
// binary fails with a message saying why.
package azuritetest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// EnvConnectionString names the environment variable that, when set, gives
// the connection string of an already running Azurite (or storage account)
// to use instead of starting one.
const EnvConnectionString = "AZURITE_CONNECTION_STRING"

// Azurite's well-known development account.
const (
	AccountName = "devstoreaccount1"
	AccountKey  = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// startTimeout bounds how long Azurite may take to listen on its ports: a
// bound on a stuck start, generous for a machine busy with other work.
const startTimeout = 2 * time.Minute

var connectionString string

// ConnectionString returns the connection string of the account Main set
// up, or "" before Main has run.
func ConnectionString() string { return connectionString }

// Main sets up Azurite, runs the tests and exits with their exit code. Call
// it from TestMain.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run sets up Azurite, runs the tests, stops Azurite and returns the tests'
// exit code (1 when Azurite did not start), for a TestMain that sets up
// more than Azurite.
func Run(m *testing.M) int {
	if cs := os.Getenv(EnvConnectionString); cs != "" {
		connectionString = cs
		return m.Run()
	}
	az, err := start()
	if err != nil {
		fmt.Fprintf(os.Stderr, "azuritetest: FAIL: %v\n", err)
		return 1
	}
	connectionString = az.connectionString()

	// Stop Azurite on an interrupt too; if the test binary dies instead
	// (a test timeout), the child's parent-death signal stops it.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		az.stop()
		fmt.Fprintf(os.Stderr, "azuritetest: stopped Azurite on %v\n", s)
		os.Exit(1)
	}()

	code := m.Run()
	signal.Stop(sig)
	if err := az.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "azuritetest: %v\n", err)
	}
	return code
}

// azurite is a running Azurite process.
type azurite struct {
	cmd                            *exec.Cmd
	exited                         chan struct{} // closed when cmd has been waited for
	dir                            string        // data and log
	blobPort, queuePort, tablePort int
}

// start installs Azurite if needed and starts it, trying new ports if
// another process took the chosen ones before Azurite could listen.
func start() (*azurite, error) {
	script, err := install()
	if err != nil {
		return nil, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node (Node.js), needed to run Azurite, is not available: %w", err)
	}
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		az, err := launch(node, script)
		if err == nil {
			return az, nil
		}
		last = err
	}
	return nil, last
}

// launch starts one Azurite process on free ports and waits until it
// listens on all three.
func launch(node, script string) (*azurite, error) {
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	sweepStaleDirs()
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("create Azurite directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, pidFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("write Azurite pid file: %w", err)
	}
	logPath := filepath.Join(dir, "azurite.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("create Azurite log: %w", err)
	}
	defer logFile.Close() // the child has its own descriptor

	az := &azurite{dir: dir, blobPort: ports[0], queuePort: ports[1], tablePort: ports[2], exited: make(chan struct{})}
	az.cmd = exec.Command(node, script,
		"--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(az.blobPort),
		"--queueHost", "127.0.0.1", "--queuePort", strconv.Itoa(az.queuePort),
		"--tableHost", "127.0.0.1", "--tablePort", strconv.Itoa(az.tablePort),
		"--skipApiVersionCheck", "--loose", "--disableTelemetry", "--silent",
		// Nothing on disk: the tests' Azurite lives as long as they do,
		// and saving its databases as they grow cost CPU the tests need.
		"--inMemoryPersistence",
	)
	az.cmd.Dir = dir // anything it writes, beside its log
	az.cmd.Stdout, az.cmd.Stderr = logFile, logFile
	configureProcess(az.cmd)
	if err := startProcess(az.cmd); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start Azurite: %w", err)
	}
	go func() {
		az.cmd.Wait()
		close(az.exited)
	}()

	if err := az.waitReady(); err != nil {
		az.stop()
		log, _ := os.ReadFile(logPath)
		return nil, fmt.Errorf("%w\nAzurite's output:\n%s", err, log)
	}
	return az, nil
}

// waitReady waits until Azurite accepts connections on its three ports.
func (az *azurite) waitReady() error {
	deadline := time.Now().Add(startTimeout)
	for _, port := range []int{az.blobPort, az.queuePort, az.tablePort} {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		for {
			select {
			case <-az.exited:
				return fmt.Errorf("azurite exited before listening on %s (%v)", addr, az.cmd.ProcessState)
			default:
			}
			conn, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				conn.Close()
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("azurite did not listen on %s within %s", addr, startTimeout)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	// A port taken by another process before Azurite could bind it also
	// accepts connections; Azurite then exits at once.
	select {
	case <-az.exited:
		return fmt.Errorf("azurite exited after starting (%v)", az.cmd.ProcessState)
	case <-time.After(300 * time.Millisecond):
	}
	return nil
}

// stop kills Azurite's process group, waits for it and removes its
// directory.
func (az *azurite) stop() error {
	killProcess(az.cmd)
	select {
	case <-az.exited:
	case <-time.After(10 * time.Second):
		return fmt.Errorf("azurite (pid %d) did not exit; left %s", az.cmd.Process.Pid, az.dir)
	}
	if err := os.RemoveAll(az.dir); err != nil {
		return fmt.Errorf("remove Azurite directory: %w", err)
	}
	return nil
}

func (az *azurite) connectionString() string {
	endpoint := func(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) + "/" + AccountName }
	return "DefaultEndpointsProtocol=http;AccountName=" + AccountName + ";AccountKey=" + AccountKey +
		";BlobEndpoint=" + endpoint(az.blobPort) +
		";QueueEndpoint=" + endpoint(az.queuePort) +
		";TableEndpoint=" + endpoint(az.tablePort) + ";"
}

// Each Azurite directory holds the pid of the test binary that made it, so
// that the directories of binaries that died without cleaning up (a test
// timeout) are removed by later runs.
const (
	dirPrefix = "azuritetest-"
	pidFile   = "owner.pid"
)

// sweepStaleDirs removes the Azurite directories of test binaries that no
// longer run.
func sweepStaleDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, pidFile))
		if err != nil {
			continue
		}
		if pid, err := strconv.Atoi(string(data)); err == nil && pid != os.Getpid() && !processAlive(pid) {
			os.RemoveAll(dir)
		}
	}
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		// Keep it open until all are chosen, so that they differ.
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
