//go:build unix

package policy

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkFileOwner refuses a policy file that another user owns or that
// group or others may write: its rules would not be the local user's.
func checkFileOwner(path string, info fs.FileInfo) error {
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrUnsafeFile, path)
	}
	if info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: %s is writable by group or others (fix it with: chmod go-w %s)", ErrUnsafeFile, path, path)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: %s belongs to uid %d, not to you (uid %d)", ErrUnsafeFile, path, st.Uid, os.Getuid())
	}
	return nil
}
