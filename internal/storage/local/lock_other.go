//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package local

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("would block")

// flock does nothing where flock(2) is missing: surveys migrate cannot tell
// there that a server uses the store (stop it first, or migrate a backup).
func flock(*os.File, bool) error { return nil }
