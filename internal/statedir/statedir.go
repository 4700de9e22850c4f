// Package statedir finds and guards Sidecar's state directory: the folder
// that holds the token, the audit log and per-session state. It must belong
// to the current user and be closed to everyone else, because whoever reads
// it can drive the daemon.
package statedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// EnvVar names the environment variable that overrides the default.
const EnvVar = "SIDECAR_STATE_DIR"

// ErrInsecure reports a state dir or file that others can reach.
var ErrInsecure = errors.New("insecure permissions")

// Resolve returns the absolute state dir: flag if set, else $SIDECAR_STATE_DIR,
// else ~/.hermes/plugin-data/sidecar. A leading ~ is expanded locally.
func Resolve(flag string, getenv func(string) string) (string, error) {
	dir := flag
	if dir == "" {
		dir = getenv(EnvVar)
	}
	if dir == "" {
		dir = "~/.hermes/plugin-data/sidecar"
	}
	dir, err := ExpandHome(dir)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("state dir %q: %w", dir, err)
	}
	return abs, nil
}

// ExpandHome replaces a leading "~" or "~/" with the current user's home.
func ExpandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expand %q: %w", p, err)
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
}

// Ensure creates dir with mode 0700 if it is missing and checks that an
// existing one is a directory owned by the current user with no group or
// other permission bits. It never loosens or silently fixes permissions: a
// wrong mode is an error the person sees, with the command that fixes it.
func Ensure(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create state dir: %w", err)
	}
	return CheckPrivate(dir, true)
}

// CheckPrivate checks that path is owned by the current user and has no
// group or other permission bits. wantDir says whether it must be a
// directory (else a regular file).
func CheckPrivate(path string, wantDir bool) error {
	info, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	switch {
	case wantDir && !info.IsDir():
		return fmt.Errorf("%s is not a directory", path)
	case !wantDir && !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (symlinks are refused)", path)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s is owned by uid %d, not by you (uid %d): %w", path, st.Uid, os.Geteuid(), ErrInsecure)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		want := fs.FileMode(0o600)
		if wantDir {
			want = 0o700
		}
		return fmt.Errorf("%s has mode %04o, readable or writable by group or others; run: chmod %o %s: %w",
			path, perm, want, path, ErrInsecure)
	}
	return nil
}
