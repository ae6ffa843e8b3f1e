package main

import (
	"os/exec"
	"runtime"
	"syscall"
)

// The children are started from the main goroutine, locked to the main
// thread: the kernel's parent-death signal follows the thread that forked,
// and the main thread lives as long as the process. So a load tool killed
// hard leaves no server or Azurite behind.
func init() { runtime.LockOSThread() }

// configureProcess puts the child in a process group of its own (so that
// stopping it stops what it started) that is killed when the load tool dies.
func configureProcess(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// terminate asks the child's process group to stop.
func terminate(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
		_ = cmd.Process.Signal(syscall.SIGTERM)
	}
}

// kill kills the child's process group.
func kill(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		_ = cmd.Process.Kill()
	}
}
