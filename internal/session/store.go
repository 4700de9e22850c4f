package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// ErrUnstorable reports a State that Put refuses because it would not read
// back unchanged: a relative cwd, or text that is not valid UTF-8.
var ErrUnstorable = errors.New("state cannot be stored")

// ErrCorrupt reports a session file that cannot be read back as a State.
var ErrCorrupt = errors.New("corrupt session file")

// maxFileSize bounds a session file. FilterExports keeps at most 64 KiB of
// variables; JSON escaping can at most sextuple that.
const maxFileSize = 1 << 20

// Store keeps one JSON file per session in a private directory. It is safe
// for concurrent use: Put replaces a file by an atomic rename, so Get sees
// the old or the new state, never a mix, and of two concurrent Puts to one
// session the later rename wins, as it would under any lock.
//
// Get is on the path of every command, so the Store remembers the states
// of up to maxCached sessions with the identity of the file each was read
// from; one stat shows whether the file is still that one. A file
// replaced or changed from outside is read again.
type Store struct {
	dir string

	mu     sync.Mutex
	cached map[string]cachedState
}

// maxCached bounds the sessions a Store remembers.
const maxCached = 64

// cachedState is a State and the file it was read from or written to.
type cachedState struct {
	st   State
	file fileID
}

// fileID tells one version of a file from another: Put's rename makes a
// new inode, and an edit in place changes the size or the modification
// time.
type fileID struct {
	ino, size int64
	mtime     time.Time
}

func idOf(fi fs.FileInfo) (fileID, bool) {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{ino: int64(sys.Ino), size: fi.Size(), mtime: fi.ModTime()}, true
}

// OpenStore returns a Store in dir, creating it with mode 0700, or
// tightening an existing dir to 0700, since session state steers the
// commands that run next.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create session dir: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("stat session dir: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("session dir %s is not a directory", dir)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("restrict session dir: %w", err)
		}
	}
	return &Store{dir: dir}, nil
}

// Get returns the state of session name; a session never stored has the
// zero State and no error.
func (s *Store) Get(name string) (State, error) {
	path, err := s.path(name)
	if err != nil {
		return State{}, err
	}
	// One stat answers from memory; the file is opened only when it is
	// not the one remembered.
	if fi, err := os.Stat(path); err == nil {
		if id, ok := idOf(fi); ok {
			if st, ok := s.recall(name, id); ok {
				return st, nil
			}
		}
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		s.forget(name)
		return State{}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("session %q: %w", name, err)
	}
	defer f.Close() // read-only: a close error loses nothing
	// The identity of what is read, not of what was stat'ed above.
	fi, err := f.Stat()
	if err != nil {
		return State{}, fmt.Errorf("session %q: stat %s: %w", name, path, err)
	}
	id, idOK := idOf(fi)
	b, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return State{}, fmt.Errorf("session %q: read %s: %w", name, path, err)
	}
	st, err := decodeState(b)
	if err != nil {
		return State{}, fmt.Errorf("session %q: %s: %w", name, path, err)
	}
	if idOK {
		s.remember(name, st, id)
	}
	return st, nil
}

// recall returns a copy of the state remembered for name if it was read
// from, or written to, the file id names.
func (s *Store) recall(name string, id fileID) (State, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.cached[name]
	if !ok || c.file != id {
		return State{}, false
	}
	return c.st.clone(), true
}

// remember keeps a copy of st as read from, or written to, the file id
// names, forgetting an arbitrary other session when full.
func (s *Store) remember(name string, st State, id fileID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cached == nil {
		s.cached = make(map[string]cachedState)
	}
	if _, ok := s.cached[name]; !ok && len(s.cached) >= maxCached {
		for other := range s.cached {
			delete(s.cached, other)
			break
		}
	}
	s.cached[name] = cachedState{st: st.clone(), file: id}
}

func (s *Store) forget(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.cached, name)
}

// Put stores st as the state of session name, durably: the file is written
// to a temporary name (mode 0600), synced, renamed over the old one, and
// the directory synced.
func (s *Store) Put(name string, st State) (err error) {
	path, err := s.path(name)
	if err != nil {
		return err
	}
	if err := checkStorable(st); err != nil {
		return fmt.Errorf("session %q: %w", name, err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("session %q: encode: %w", name, err)
	}
	tmp, err := os.CreateTemp(s.dir, ".put-*.tmp") // mode 0600
	if err != nil {
		return fmt.Errorf("session %q: %w", name, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()           // may already be closed; the write failed anyway
			_ = os.Remove(tmp.Name()) // best effort: a stray .tmp file is never read
		}
	}()
	if _, err := tmp.Write(b); err != nil {
		return fmt.Errorf("session %q: write: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("session %q: sync: %w", name, err)
	}
	// The rename keeps inode, size and modification time: this is the
	// identity the file will have, whatever another Put does meanwhile.
	fi, err := tmp.Stat()
	if err != nil {
		return fmt.Errorf("session %q: stat: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("session %q: close: %w", name, err)
	}
	s.forget(name) // until the new file is known to be in place
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("session %q: %w", name, err)
	}
	if id, ok := idOf(fi); ok {
		s.remember(name, st, id)
	}
	return syncDir(s.dir)
}

// path returns the file of session name. ValidName makes it a plain file
// name inside dir; a temporary file never ends in ".json".
func (s *Store) path(name string) (string, error) {
	if !ValidName(name) {
		return "", fmt.Errorf("%w: %q (want 1-%d of A-Z a-z 0-9 . _ -)", ErrInvalidName, name, maxNameLen)
	}
	return filepath.Join(s.dir, name+".json"), nil
}

// decodeState parses a session file strictly: one JSON object with known
// fields only and an absolute or empty cwd.
func decodeState(b []byte) (State, error) {
	if len(b) > maxFileSize {
		return State{}, fmt.Errorf("%w: larger than %d bytes", ErrCorrupt, maxFileSize)
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return State{}, fmt.Errorf("%w: not a JSON object", ErrCorrupt)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var st State
	if err := dec.Decode(&st); err != nil {
		return State{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return State{}, fmt.Errorf("%w: data after the JSON object", ErrCorrupt)
	}
	if st.Cwd != "" && !filepath.IsAbs(st.Cwd) {
		return State{}, fmt.Errorf("%w: cwd %q is not absolute", ErrCorrupt, st.Cwd)
	}
	return st, nil
}

// checkStorable reports ErrUnstorable unless st survives a JSON round
// trip unchanged: JSON strings are UTF-8, and encoding/json would silently
// replace invalid bytes.
func checkStorable(st State) error {
	if st.Cwd != "" && !filepath.IsAbs(st.Cwd) {
		return fmt.Errorf("%w: cwd %q is not absolute", ErrUnstorable, st.Cwd)
	}
	if !utf8.ValidString(st.Cwd) {
		return fmt.Errorf("%w: cwd %q is not valid UTF-8", ErrUnstorable, st.Cwd)
	}
	for k, v := range st.Exports {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return fmt.Errorf("%w: variable %q is not valid UTF-8", ErrUnstorable, k)
		}
	}
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync session dir: %w", err)
	}
	defer d.Close() // read-only handle; Sync reported what mattered
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync session dir: %w", err)
	}
	return nil
}

// clone returns st with its own copy of Exports.
func (st State) clone() State {
	st.Exports = maps.Clone(st.Exports)
	return st
}
