//go:build !linux

package main

import (
	"os"
	"os/exec"
)

func configureProcess(*exec.Cmd) {}

// terminate asks the child to stop (an interrupt where the platform has
// one), else kills it.
func terminate(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		_ = cmd.Process.Kill()
	}
}

func kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
