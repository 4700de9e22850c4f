package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Recent returns the newest n records, oldest first, from the live file and
// the backups. It reads the files, so it sees exactly what Verify would.
func (l *Log) Recent(n int) ([]Record, error) {
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	// Appends may go on meanwhile: a record is one write of a whole line,
	// and a line still being written is left out.
	recs, _, err := readRecent(l.dir, n)
	return recs, err
}

// ReadRecent returns the newest n records kept in dir, oldest first, without
// opening the log: it takes no lock and may run beside the daemon. A dir
// without any audit file is an error that wraps fs.ErrNotExist.
func ReadRecent(dir string, n int) ([]Record, error) {
	recs, found, err := readRecent(dir, n)
	if err == nil && !found {
		return nil, fmt.Errorf("read audit records: no audit log in %s: %w", dir, fs.ErrNotExist)
	}
	return recs, err
}

// readRecent reads newest to oldest until it has n records. It reports
// whether dir holds any audit file.
func readRecent(dir string, n int) (recs []Record, found bool, err error) {
	// Open the live file before listing backups: a rotation in between
	// then shows the same file twice (skipped below) rather than hiding the
	// one that was just moved aside.
	live, err := os.Open(filepath.Join(dir, liveName))
	switch {
	case err == nil:
		defer live.Close() // read-only: a close error loses nothing
	case !errors.Is(err, fs.ErrNotExist):
		return nil, false, fmt.Errorf("read audit records: %w", err)
	}
	backups, err := backupFiles(dir)
	if err != nil {
		return nil, false, fmt.Errorf("read audit records: %w", err)
	}
	found = live != nil || len(backups) > 0
	if n <= 0 {
		return nil, found, nil
	}

	var newestFirst [][]Record
	need := n
	var liveInfo fs.FileInfo
	if live != nil {
		if liveInfo, err = live.Stat(); err != nil {
			return nil, found, fmt.Errorf("read audit records: %w", err)
		}
		got, err := lastRecords(live, need)
		if err != nil {
			return nil, found, fmt.Errorf("read audit records: %s: %w", live.Name(), err)
		}
		newestFirst = append(newestFirst, got)
		need -= len(got)
	}
	for i := len(backups) - 1; i >= 0 && need > 0; i-- {
		got, err := lastRecordsIn(backups[i], need, liveInfo)
		if errors.Is(err, fs.ErrNotExist) {
			break // pruned by rotation, and everything older with it
		}
		if err != nil {
			return nil, found, fmt.Errorf("read audit records: %w", err)
		}
		newestFirst = append(newestFirst, got)
		need -= len(got)
	}
	slices.Reverse(newestFirst)
	return slices.Concat(newestFirst...), found, nil
}

// lastRecordsIn reads the last n records of the file at path, or none if it
// is the same file as skip.
func lastRecordsIn(path string, n int, skip fs.FileInfo) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close() // read-only: a close error loses nothing
	if skip != nil {
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		if os.SameFile(fi, skip) {
			return nil, nil
		}
	}
	recs, err := lastRecords(f, n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// lastRecords decodes the last n complete lines of r. A last line without a
// newline is a record still being written and is left out.
func lastRecords(r io.Reader, n int) ([]Record, error) {
	type numbered struct {
		no   int
		line []byte
	}
	ring := make([]numbered, 0, min(n, 1024))
	next := 0 // where the next line goes once the ring is full
	br := bufio.NewReader(r)
	for no := 1; ; no++ {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(ring) < n {
			ring = append(ring, numbered{no, line})
			continue
		}
		ring[next] = numbered{no, line}
		next = (next + 1) % n
	}
	ordered := append(ring[next:len(ring):len(ring)], ring[:next]...)
	recs := make([]Record, len(ordered))
	for i, l := range ordered {
		if err := json.Unmarshal(l.line, &recs[i]); err != nil {
			return nil, fmt.Errorf("line %d: %w", l.no, err)
		}
	}
	return recs, nil
}
