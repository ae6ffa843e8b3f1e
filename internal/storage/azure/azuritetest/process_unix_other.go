//go:build unix && !linux

package azuritetest

import (
	"os/exec"
	"syscall"
)

func setParentDeathSignal(*syscall.SysProcAttr) {}

func startProcess(cmd *exec.Cmd) error { return cmd.Start() }
