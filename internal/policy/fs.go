package policy

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotAbsolute is returned (wrapped) by ResolveExisting for a relative path.
var ErrNotAbsolute = errors.New("path is not absolute")

// errSymlinkLoop reports a path that follows more symlinks than the kernel
// would (ELOOP): it cannot be resolved, so nothing it names is safe.
var errSymlinkLoop = errors.New("too many levels of symbolic links")

// maxSymlinks is how many symlinks one resolution follows, as Linux does.
const maxSymlinks = 40

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

// resolver resolves absolute paths for one Classify call. It remembers
// every prefix it has looked at, so the workspace's own directories are
// read once per call however many paths a command names, and it is never
// shared between calls: a symlink made by the previous command is seen.
// A nil fs resolves lexically.
type resolver struct {
	fs    FileSystem
	known map[string]string // clean path -> its real path, or missing
}

// missing marks a prefix that does not exist (or cannot be read): what
// follows it is taken lexically.
const missing = "\x00missing"

func newResolver(fsys FileSystem) *resolver {
	return &resolver{fs: fsys, known: make(map[string]string)}
}

// real returns p with its symlinks resolved, or only cleaned without a
// file system. It reports false when p cannot be resolved (a symlink loop).
func (r *resolver) real(p string) (string, bool) {
	if r.fs == nil {
		return filepath.Clean(p), true
	}
	out, err := r.resolve(p)
	return out, err == nil
}

func (r *resolver) resolve(p string) (string, error) {
	if out, ok := r.known[p]; ok && out != missing {
		return out, nil
	}
	// One openat2 proves a whole path free of symlinks where a walk
	// would Lstat each of its components: worth it when two or more are
	// not known yet (the cwd of a call, typically).
	if ns, ok := r.fs.(noSymlinker); ok && r.unknownComponents(p) >= 2 && ns.NoSymlinks(p) {
		clean := filepath.Clean(p)
		for i := 1; i < len(clean); i++ {
			if clean[i] == '/' {
				r.known[clean[:i]] = clean[:i]
			}
		}
		r.known[clean], r.known[p] = clean, clean
		return clean, nil
	}
	links := 0
	out, err := r.walk("/", p, &links)
	if err == nil {
		r.known[p] = out
	}
	return out, err
}

// noSymlinker is a FileSystem that can tell in one call that a path has
// no symlink in it (OS on Linux).
type noSymlinker interface {
	NoSymlinks(p string) bool
}

// unknownComponents counts the components at the end of p below its
// longest prefix the resolver already knows.
func (r *resolver) unknownComponents(p string) int {
	n := 0
	for q := p; len(q) > 1; n++ {
		if _, ok := r.known[q]; ok {
			return n
		}
		i := strings.LastIndexByte(q, '/')
		if i < 0 {
			break
		}
		q = q[:i]
	}
	return n
}

// walk resolves rest, a path relative to the real directory base (an
// absolute rest starts again at the root).
func (r *resolver) walk(base, rest string, links *int) (string, error) {
	cur := base
	if strings.HasPrefix(rest, "/") {
		cur = "/"
	}
	whole, read := rest, 0
	for rest != "" {
		var comp string
		var more bool
		comp, rest, more = strings.Cut(rest, "/")
		start := read
		read += len(comp)
		if more {
			read++
		}
		switch comp {
		case "", ".":
			continue
		case "..":
			// cur has no symlinks left in it, so its parent is lexical.
			cur = filepath.Dir(cur)
			continue
		}
		// Where cur is spelled exactly as whole's text so far, the next
		// prefix is a substring of whole and needs no new string.
		var next string
		switch {
		case start > 0 && whole[:start-1] == cur:
			next = whole[:start+len(comp)]
		case start == 1 && cur == "/":
			next = whole[:1+len(comp)]
		case cur == "/":
			next = "/" + comp
		default:
			next = cur + "/" + comp
		}
		real, seen := r.known[next]
		if !seen {
			var err error
			real, err = r.lookup(cur, next, links)
			if err != nil {
				return "", err
			}
			r.known[next] = real
		}
		if real == missing {
			// Nothing below a missing directory exists yet: the rest is
			// what it will mean once created.
			return filepath.Join(next, rest), nil
		}
		cur = real
	}
	return cur, nil
}

// lookup returns the real path of next, the entry of the real directory
// dir, following it if it is a symlink.
func (r *resolver) lookup(dir, next string, links *int) (string, error) {
	fi, err := r.fs.Lstat(next)
	if err != nil {
		return missing, nil
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return next, nil
	}
	*links++
	if *links > maxSymlinks {
		return "", errSymlinkLoop
	}
	target, err := r.fs.Readlink(next)
	if err != nil {
		return missing, nil
	}
	return r.walk(dir, target, links)
}
