package events

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"gopkg.in/natefinch/lumberjack.v2"
)

// flushAt is the buffered size that forces a write from the query path.
const flushAt = 64 << 10

// ErrClosed reports a write after Close.
var ErrClosed = errors.New("event log closed")

// Options bound the log's size on disk.
type Options struct {
	MaxSizeMB, MaxBackups, MaxAgeDays int
}

// Writer appends events. Write only buffers (the query path must not wait
// on the disk); Flush writes whole lines, so a rotation never splits a
// record across files. The owner calls Flush on a short timer and at Close.
//
// A Writer is safe for concurrent use. Nothing may be called after Close.
type Writer struct {
	mu     sync.Mutex
	buf    []byte
	out    *lumberjack.Logger
	err    error
	closed bool
}

// Open starts (or continues) the log in dir.
func Open(dir string, o Options) (*Writer, error) {
	path := filepath.Join(dir, FileName)
	// lumberjack opens lazily; open once now so a bad directory fails at
	// start, not on the first query, and so the file is 0600 from birth.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open event log: %w", err)
	}
	f.Close() // only a probe; lumberjack keeps its own handle
	return &Writer{out: &lumberjack.Logger{
		Filename: path, MaxSize: o.MaxSizeMB, MaxBackups: o.MaxBackups, MaxAge: o.MaxAgeDays, LocalTime: false,
	}}, nil
}

// Write buffers e as one JSON line. It does not keep e.
func (w *Writer) Write(e *Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.buf = append(e.AppendJSON(w.buf), '\n')
	if len(w.buf) >= flushAt {
		w.flushLocked()
	}
}

// Flush writes what is buffered and returns the first error since the last
// Flush.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	w.flushLocked()
	err := w.err
	w.err = nil
	return err
}

func (w *Writer) flushLocked() {
	if len(w.buf) == 0 {
		return
	}
	if _, err := w.out.Write(w.buf); err != nil {
		w.err = errors.Join(w.err, fmt.Errorf("write event log: %w", err))
	}
	w.buf = w.buf[:0]
}

// Close flushes and closes the log.
func (w *Writer) Close() error {
	err := w.Flush()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	if cerr := w.out.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close event log: %w", cerr)
	}
	return err
}
