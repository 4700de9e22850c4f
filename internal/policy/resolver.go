package policy

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// maxSymlinks is how many symlinks one resolution follows, as Linux does.
const maxSymlinks = 40

// errSymlinkLoop reports a path that follows more symlinks than the kernel
// would (ELOOP): it cannot be resolved, so nothing it names is safe.
var errSymlinkLoop = errors.New("too many levels of symbolic links")

// resolver resolves absolute paths for one Classify call. It remembers
// every prefix it has looked at, so the workspace's own directories are
// read once per call however many paths a command names. It forgets all
// of it between calls (a pooled one is reset): a symlink made by the
// previous command is seen.
// A nil fs resolves lexically.
type resolver struct {
	fs    FileSystem
	known map[string]string // clean path -> its real path, or missing
	// gone holds paths the walks took lexically, below a prefix that
	// does not exist: nothing can exist below them either, so a walk
	// that goes on below one (as it does once its answer is in known)
	// needs no Lstat to find each next entry missing.
	gone map[string]bool
	buf  []byte // realJoin's key for looking a path up
}

// missing marks a prefix that does not exist (or cannot be read): what
// follows it is taken lexically.
const missing = "\x00missing"

func newResolver(fsys FileSystem) *resolver {
	return &resolver{fs: fsys, known: make(map[string]string)}
}

// reset forgets everything r has resolved, keeping the room of its maps
// unless they grew past maxPooledPaths.
func (r *resolver) reset() {
	if len(r.known) > maxPooledPaths {
		r.known = nil
	}
	if len(r.gone) > maxPooledPaths {
		r.gone = nil
	}
	clear(r.known)
	clear(r.gone)
	r.fs = nil
}

// real returns p with its symlinks resolved, or only cleaned without a
// file system. It reports false when p cannot be resolved (a symlink loop).
func (r *resolver) real(p string) (string, bool) {
	if r.fs == nil {
		return cleanPath(p), true
	}
	out, err := r.resolve(p)
	return out, err == nil
}

// realJoin is real(joinPath(dir, p)) without making the joined string
// when this call has already resolved that path, as it has the same file
// operand from each directory a command may run in, again and again.
func (r *resolver) realJoin(dir, p string) (string, bool) {
	if filepath.IsAbs(p) {
		return r.real(p)
	}
	if r.fs != nil {
		r.buf = append(append(append(r.buf[:0], dir...), '/'), p...)
		if out, ok := r.known[string(r.buf)]; ok && out != missing {
			return out, true
		}
	}
	return r.real(dir + "/" + p)
}

func (r *resolver) resolve(p string) (string, error) {
	if out, ok := r.known[p]; ok && out != missing {
		return out, nil
	}
	// One openat2 (and the close of what it opened) proves a whole path
	// free of symlinks where a walk would Lstat each of its components:
	// worth it when three or more are not known yet (the cwd of a call,
	// typically). With two it saves no call, and costs one more where the
	// path does not exist.
	if ns, ok := r.fs.(noSymlinker); ok && r.unknownComponents(p) >= 3 && ns.NoSymlinks(p) {
		clean := cleanPath(p)
		for i := 1; i < len(clean); i++ {
			if clean[i] == '/' {
				r.known[clean[:i]] = clean[:i]
			}
		}
		r.known[clean], r.known[p] = clean, clean
		return clean, nil
	}
	links := 0
	out, lexical, err := r.walk("/", p, &links)
	if err == nil {
		r.known[p] = out
		if lexical {
			r.markGone(out)
		}
	}
	return out, err
}

func (r *resolver) markGone(p string) {
	if r.gone == nil {
		r.gone = make(map[string]bool)
	}
	r.gone[p] = true
}

// joinClean is filepath.Join(dir, rest) for a non-empty dir, quick when
// both are clean.
func joinClean(dir, rest string) string {
	if rest == "" {
		return cleanPath(dir)
	}
	return cleanPath(dir + "/" + rest)
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

// noSymlinker is a FileSystem that can tell in one call that a path has
// no symlink in it (OS on Linux).
type noSymlinker interface {
	NoSymlinks(p string) bool
}

// linkStater is a FileSystem that can tell whether an entry is a symlink
// more cheaply than through Lstat's fs.FileInfo (OS on Linux).
type linkStater interface {
	isSymlink(name string) (bool, error)
}

// walk resolves rest, a path relative to the real directory base (an
// absolute rest starts again at the root). lexical reports an answer that
// lies below a prefix that does not exist.
func (r *resolver) walk(base, rest string, links *int) (out string, lexical bool, err error) {
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
			if r.gone[cur] {
				real = missing // as Lstat would find it
			} else if real, err = r.lookup(cur, next, links); err != nil {
				return "", false, err
			}
			r.known[next] = real
		}
		if real == missing {
			// Nothing below a missing directory exists yet: the rest is
			// what it will mean once created.
			out = joinClean(next, rest)
			if within(next, out) {
				return out, true, nil
			}
			// A `..` climbed back out of what does not exist yet: once
			// the command makes it (`mkdir -p m && echo x >> m/../rc`),
			// the path lands on out, whose own symlinks count.
			return r.walk("/", out, links)
		}
		cur = real
	}
	return cur, r.gone[cur], nil
}

// lookup returns the real path of next, the entry of the real directory
// dir, following it if it is a symlink.
func (r *resolver) lookup(dir, next string, links *int) (string, error) {
	var link bool
	if ls, ok := r.fs.(linkStater); ok {
		var err error
		if link, err = ls.isSymlink(next); err != nil {
			return missing, nil
		}
	} else {
		fi, err := r.fs.Lstat(next)
		if err != nil {
			return missing, nil
		}
		link = fi.Mode()&fs.ModeSymlink != 0
	}
	if !link {
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
	real, lexical, err := r.walk(dir, target, links)
	if lexical {
		r.markGone(real)
	}
	return real, err
}
