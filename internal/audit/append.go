package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/sidecarhq/sidecar/internal/redact"
)

// ErrTooLarge is returned by Append for a record whose line would not fit in
// one file of the configured size.
var ErrTooLarge = errors.New("audit record larger than the maximum file size")

// Append writes r as the next record and returns it as written. It sets Seq,
// Prev and Hash, sets Time to the clock's time if it is zero (and to UTC
// always), and redacts Command and Reason with redact.Command. With
// Options.Sync a decision record is on disk when Append returns. A result
// record is not synced on its own: it comes after the command ran, the
// decision before it already proves that, and the next synced record (or
// Close) flushes it. This halves the fsyncs on every command's path.
//
// A write or fsync that fails leaves the log unusable: every later Append
// returns an error, because the next record could not link to a record that
// may be half on disk. The caller should then deny what it was about to run.
func (l *Log) Append(r Record) (Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return Record{}, ErrClosed
	}
	if l.broken != nil {
		return Record{}, fmt.Errorf("append audit record: log unusable since an earlier failure: %w", l.broken)
	}
	r.Seq = l.last.Seq + 1
	r.Prev = l.last.Hash
	if r.Time.IsZero() {
		r.Time = l.now()
	}
	r.Time = r.Time.UTC()
	r.Command = redact.Command(r.Command)
	r.Reason = redact.Command(r.Reason)
	line, hash, err := encodeLine(r)
	if err != nil {
		return Record{}, fmt.Errorf("append audit record: %w", err)
	}
	if int64(len(line)) > l.maxBytes {
		return Record{}, fmt.Errorf("append audit record %d (%d bytes): %w", r.Seq, len(line), ErrTooLarge)
	}
	if err := l.write(line, l.sync && r.Event != EventResult); err != nil {
		l.broken = err
		return Record{}, fmt.Errorf("append audit record %d: %w", r.Seq, err)
	}
	r.Hash = hash
	l.last = Position{Seq: r.Seq, Hash: hash}
	return r, nil
}

// write appends one line to the live file, rotating first if the line would
// take the file past its limit. Called with l.mu held.
func (l *Log) write(line []byte, sync bool) error {
	if l.size > 0 && l.size+int64(len(line)) > l.maxBytes {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	n, err := l.out.Write(line)
	l.size += int64(n)
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if sync {
		return l.syncLive()
	}
	return nil
}

// rotate moves the live file aside and starts a new one. Called with l.mu
// held.
func (l *Log) rotate() error {
	if err := waitForFreeBackupName(l.dir); err != nil {
		return err
	}
	if err := l.out.Rotate(); err != nil {
		return fmt.Errorf("rotate: %w", err)
	}
	l.size = 0
	if l.syncFile != nil {
		// Every record in the old file was already synced if Sync is on.
		err := l.syncFile.Close()
		l.syncFile = nil
		if err != nil {
			return fmt.Errorf("rotate: %w", err)
		}
	}
	return nil
}

// waitForFreeBackupName waits until the backup name for the current
// millisecond is unused. lumberjack names a backup after the time to the
// millisecond and renames over whatever has that name, so two rotations
// within one millisecond would silently drop the first backup.
func waitForFreeBackupName(dir string) error {
	const tries = 100
	for range tries {
		_, err := os.Lstat(backupPath(dir, time.Now()))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("rotate: %w", err)
		}
		time.Sleep(time.Millisecond)
	}
	return fmt.Errorf("rotate: backup names for the current time are taken (clock moved back?)")
}

// syncLive flushes the live file to disk. lumberjack keeps its file handle
// to itself, so a second one is kept for fsync (on Linux fsync through any
// handle flushes the inode); it is reopened after each rotation, the only
// time the live file changes. Opening it after a new file appeared also
// syncs the directory, so that the new name survives a crash too. Called
// with l.mu held.
func (l *Log) syncLive() error {
	if l.syncFile == nil {
		f, err := os.Open(l.live)
		if err != nil {
			return fmt.Errorf("sync: %w", err)
		}
		if err := syncDir(l.dir); err != nil {
			f.Close() // read-only handle: nothing to lose
			return err
		}
		l.syncFile = f
	}
	if err := l.syncFile.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return nil
}

// syncDir flushes a directory's entries, making renames and new files in it
// durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	defer d.Close() // read-only handle: nothing to lose
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	return nil
}
