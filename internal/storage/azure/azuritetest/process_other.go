//go:build !unix

package azuritetest

import (
	"os/exec"
)

func configureProcess(*exec.Cmd) {}

func startProcess(cmd *exec.Cmd) error { return cmd.Start() }

func killProcess(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

// lockFile does not lock on this platform: concurrent installs may clash.
func lockFile(string) (func(), error) { return func() {}, nil }

// processAlive cannot tell on this platform, so it keeps every directory.
func processAlive(int) bool { return true }
