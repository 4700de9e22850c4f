package policy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotAbsolute is returned (wrapped) by ResolveExisting for a relative path.
var ErrNotAbsolute = errors.New("path is not absolute")

// FileSystem is the read-only view of the file system the classifier has:
// enough to follow symlinks and to list the directory a glob reads. The
// daemon passes OS{}; a nil FileSystem in Config means lexical paths only.
// Implementations must be safe for concurrent use.
type FileSystem interface {
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
	// ReadDirNames returns the names in dir, at most n of them (in no
	// particular order); a directory with more returns n+1 names so the
	// caller can tell.
	ReadDirNames(dir string, n int) ([]string, error)
}

// OS is the real file system, read-only.
type OS struct{}

// Lstat is os.Lstat.
func (OS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// Readlink is os.Readlink.
func (OS) Readlink(name string) (string, error) { return os.Readlink(name) }

// ReadDirNames reads at most n+1 names of dir.
func (OS) ReadDirNames(dir string, n int) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(n + 1)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return names, err
}

// ResolveExisting resolves the symlinks of the absolute path p. When p does
// not exist (yet), it resolves the longest leading part that does and
// appends the rest, cleaned: what the path will mean once created. A ".."
// after a symlink applies to the link's target, as in the kernel.
func ResolveExisting(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("resolve %q: %w", p, ErrNotAbsolute)
	}
	r, err := newResolver(OS{}).resolve(p)
	if err != nil {
		return "", fmt.Errorf("resolve %q: %w", p, err)
	}
	return r, nil
}
