//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package local

import (
	"os"
	"syscall"
)

var errWouldBlock = syscall.EWOULDBLOCK

// flock locks f, shared or exclusive, failing at once with errWouldBlock
// when another holds a conflicting lock.
func flock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH | syscall.LOCK_NB
	if exclusive {
		how = syscall.LOCK_EX | syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
