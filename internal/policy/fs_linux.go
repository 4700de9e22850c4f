//go:build linux

package policy

import "golang.org/x/sys/unix"

// NoSymlinks reports whether the absolute path p exists and no component
// of it is a symlink, with one openat2 call (RESOLVE_NO_SYMLINKS): then p,
// cleaned, is its own real path. It reports false when it cannot tell (an
// older kernel, a missing part, a symlink), and the caller walks p one
// component at a time.
func (OS) NoSymlinks(p string) bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return false
	}
	_ = unix.Close(fd) // an O_PATH descriptor holds nothing to flush
	return true
}

// isSymlink reports whether the entry name is a symlink: Lstat without
// the fs.FileInfo, which the resolver does not need, and its garbage. An
// error means name cannot be looked at, as from Lstat.
func (OS) isSymlink(name string) (bool, error) {
	var st unix.Stat_t
	for {
		err := unix.Lstat(name, &st)
		if err == unix.EINTR {
			continue // as os.Lstat does
		}
		if err != nil {
			return false, err
		}
		return st.Mode&unix.S_IFMT == unix.S_IFLNK, nil
	}
}
