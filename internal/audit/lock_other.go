//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package audit

import (
	"errors"
	"fmt"
	"os"
)

// lockDir fails: without a lock two daemons could interleave records and
// break the chain, so the log refuses to open rather than risk it.
func lockDir(path string) (*os.File, error) {
	return nil, fmt.Errorf("lock %s: %w", path, errors.ErrUnsupported)
}
