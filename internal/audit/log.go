package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"gopkg.in/natefinch/lumberjack.v2"
)

// ErrClosed is returned by Append and Recent after Close.
var ErrClosed = errors.New("audit log closed")

// ErrLocked is returned by Open while another Log, in this process or
// another, has the same directory open.
var ErrLocked = errors.New("audit log in use by another process")

// Defaults for Options.
const (
	DefaultMaxSizeMB  = 20
	DefaultMaxBackups = 10
)

const megabyte = 1 << 20

// Options configures Open.
type Options struct {
	Dir        string           // state directory; the live file is Dir/audit.jsonl
	MaxSizeMB  int              // rotate when the next record would take the live file past this; 0 means DefaultMaxSizeMB
	MaxBackups int              // rotated files kept; 0 means DefaultMaxBackups
	Sync       bool             // fsync after each decision record, so it is durable before the command starts
	Now        func() time.Time // clock for Record.Time; nil means time.Now

	// maxBytes, when set, replaces MaxSizeMB so that tests can rotate after
	// a few records.
	maxBytes int64
}

// Summary describes the log as a whole.
type Summary struct {
	Entries uint64 // records written over the log's life (the last Seq)
	Head    string // Hash of the newest record; empty before the first
}

// Log appends records to the audit log in one directory. Its methods are
// safe for concurrent use. After Close, Append and Recent return ErrClosed.
type Log struct {
	dir      string
	live     string
	maxBytes int64
	sync     bool
	now      func() time.Time
	lock     *os.File // holds the directory's flock until Close

	mu       sync.Mutex
	out      *lumberjack.Logger
	size     int64    // bytes in the live file
	last     Position // the newest record
	syncFile *os.File // the live file, for fsync; nil until needed and after rotation
	broken   error    // a failed write or fsync: later records could not link safely
	closed   bool
}

// Open opens the audit log in opts.Dir, creating the directory (0700) if
// needed, and continues the chain from the newest record on disk (the live
// file, else the newest backup). It verifies the whole file holding that
// record first: a torn or altered tail is a *ChainError, because appending
// after it would hide the damage. Open fails with ErrLocked while another Log
// has the directory open.
func Open(opts Options) (*Log, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	lock, err := lockDir(filepath.Join(opts.Dir, lockName))
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	l, err := open(opts, lock)
	if err != nil {
		lock.Close() // releases the flock; nothing was written
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	return l, nil
}

func open(opts Options, lock *os.File) (*Log, error) {
	last, err := loadTail(opts.Dir)
	if err != nil {
		return nil, err
	}
	live := filepath.Join(opts.Dir, liveName)
	var size int64
	switch fi, err := os.Stat(live); {
	case err == nil:
		size = fi.Size()
		// Rotation copies the live file's mode to the next one, so a
		// loosened mode would spread; put it back.
		if fi.Mode().Perm() != 0o600 {
			if err := os.Chmod(live, 0o600); err != nil {
				return nil, err
			}
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return &Log{
		dir:      opts.Dir,
		live:     live,
		maxBytes: opts.maxBytes,
		sync:     opts.Sync,
		now:      opts.Now,
		lock:     lock,
		out: &lumberjack.Logger{
			Filename: live,
			// Rotation is decided in Append, to the byte; lumberjack's own
			// limit sits above ours so that it never rotates by itself
			// and the live file changes only when Append says so.
			MaxSize:    int(opts.maxBytes/megabyte) + 1,
			MaxBackups: opts.MaxBackups,
			LocalTime:  false,
			Compress:   false,
		},
		size: size,
		last: last,
	}, nil
}

func (o Options) withDefaults() (Options, error) {
	switch {
	case o.Dir == "":
		return o, errors.New("no directory given")
	case o.MaxSizeMB < 0:
		return o, fmt.Errorf("MaxSizeMB %d is negative", o.MaxSizeMB)
	case o.MaxBackups < 0:
		return o, fmt.Errorf("MaxBackups %d is negative", o.MaxBackups)
	}
	if o.MaxSizeMB == 0 {
		o.MaxSizeMB = DefaultMaxSizeMB
	}
	if o.MaxBackups == 0 {
		o.MaxBackups = DefaultMaxBackups
	}
	if o.maxBytes == 0 {
		o.maxBytes = int64(o.MaxSizeMB) * megabyte
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// loadTail returns the position of the newest record in dir after verifying
// the file that holds it.
func loadTail(dir string) (Position, error) {
	paths, err := chainFiles(dir)
	if err != nil {
		return Position{}, err
	}
	for i := len(paths) - 1; i >= 0; i-- {
		seg, err := verifyFile(paths[i], nil)
		if errors.Is(err, fs.ErrNotExist) {
			break // pruned meanwhile, and everything older with it
		}
		if err != nil {
			return Position{}, err
		}
		if seg.Records > 0 {
			return seg.End, nil
		}
	}
	return Position{Hash: Genesis}, nil
}

// Summary returns the number of records written and the newest hash.
func (l *Log) Summary() Summary {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last.Seq == 0 {
		return Summary{}
	}
	return Summary{Entries: l.last.Seq, Head: l.last.Hash}
}

// Close makes written records durable, closes the files and releases the
// directory lock. Calling it again does nothing.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	var errs []error
	if l.size > 0 {
		errs = append(errs, l.syncLive())
	}
	if l.syncFile != nil {
		errs = append(errs, l.syncFile.Close())
	}
	errs = append(errs, l.out.Close(), l.lock.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close audit log: %w", err)
	}
	return nil
}
