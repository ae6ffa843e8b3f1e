package azuritetest

import (
	"os/exec"
	"runtime"
	"syscall"
)

// setParentDeathSignal makes the kernel kill Azurite when the thread that
// started it dies, so that a test binary that exits without cleaning up
// (a test timeout) leaves no Azurite behind.
func setParentDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}

// startProcess starts cmd from a thread that lives as long as the process:
// the parent-death signal follows the thread, not the process.
func startProcess(cmd *exec.Cmd) error {
	runtime.LockOSThread() // never unlocked: the thread must not exit
	return cmd.Start()
}
