package events

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Files returns the log's files oldest first: rotated ones, then the
// current one if it exists.
func Files(dir string) ([]string, error) {
	old, err := filepath.Glob(filepath.Join(dir, "events-*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("list event logs: %w", err)
	}
	// lumberjack stamps rotated names with a sortable UTC time.
	sort.Strings(old)
	cur := filepath.Join(dir, FileName)
	if _, err := os.Stat(cur); err == nil {
		old = append(old, cur)
	}
	return old, nil
}

// Tail returns the newest limit events that match f, oldest first.
func Tail(dir string, f Filter, limit int) ([]Event, error) {
	files, err := Files(dir)
	if err != nil {
		return nil, err
	}
	var out []Event
	for _, path := range files {
		fh, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("open event log: %w", err)
		}
		_, err = scan(fh, f, func(e Event) {
			out = append(out, e)
			if len(out) > 2*limit+1024 {
				out = append(out[:0], out[len(out)-limit:]...)
			}
		})
		fh.Close() // read-only
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, nil
}

// scan calls fn for each complete line of r that matches f and returns the
// bytes consumed (an incomplete last line is left for the next read).
// Lines that are not events (a partial write, a foreign line) are skipped.
func scan(r io.Reader, f Filter, fn func(Event)) (int64, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var n int64
	for {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += int64(len(line))
		var e Event
		if json.Unmarshal(line, &e) == nil && f.Match(&e) {
			fn(e)
		}
	}
}

// Follow calls fn for the last tail matching events already in the current
// log file, then for every matching event appended to it, following
// rotation, until ctx ends. It polls every interval.
func Follow(ctx context.Context, dir string, f Filter, tail int, interval time.Duration, fn func(Event)) error {
	path := filepath.Join(dir, FileName)
	var fh *os.File
	var off int64
	defer func() {
		if fh != nil {
			fh.Close() // read-only
		}
	}()
	reopen := func(history bool) error {
		if fh != nil {
			fh.Close() // read-only
			fh = nil
		}
		nf, err := os.Open(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil // not written yet; try again next tick
		}
		if err != nil {
			return fmt.Errorf("open event log: %w", err)
		}
		fh, off = nf, 0
		if history {
			// Read what is there now in one pass, keeping the last tail.
			var keep []Event
			n, err := scan(nf, f, func(e Event) {
				if keep = append(keep, e); len(keep) > tail {
					keep = keep[1:]
				}
			})
			if err != nil {
				return fmt.Errorf("read event log: %w", err)
			}
			off = n
			for _, e := range keep {
				fn(e)
			}
		}
		return nil
	}
	if err := reopen(true); err != nil {
		return err
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if fh != nil {
			if _, err := fh.Seek(off, io.SeekStart); err != nil {
				return fmt.Errorf("seek event log: %w", err)
			}
			n, err := scan(fh, f, fn)
			if err != nil {
				return fmt.Errorf("read event log: %w", err)
			}
			off += n
			// Rotated: the name now points at a new file. What was left in
			// the old one was just read.
			cur, serr := os.Stat(path)
			old, oerr := fh.Stat()
			if serr == nil && oerr == nil && !os.SameFile(cur, old) {
				if err := reopen(false); err != nil {
					return err
				}
				continue
			}
		} else if err := reopen(true); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
