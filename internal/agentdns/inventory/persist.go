package inventory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// compactAt is the smallest journal worth folding into the snapshot; above
// it, compaction happens once the journal outgrows the snapshot.
const compactAt = 4 << 20

// snapshot is the inventory.json layout. Seq is the last journal batch the
// snapshot includes: on load, journal lines at or below it are skipped.
type snapshot struct {
	Version int     `json:"version"`
	Seq     uint64  `json:"seq"`
	Entries []Entry `json:"entries"`
}

// journalLine is one line of inventory.journal: an entry's whole state
// after batch Seq, so replaying lines in order is idempotent.
type journalLine struct {
	Seq   uint64 `json:"seq"`
	Entry Entry  `json:"e"`
}

// put restores a saved entry; only load calls it, before any query.
func (s *Store) put(e Entry) {
	sh := s.shard(e.Policy, e.Name)
	sh.mu.Lock()
	sh.put(e)
	sh.mu.Unlock()
}

// load reads the snapshot, then replays the journal. A last line cut short
// by a crash is dropped (and cut off the file); any other damage is
// ErrCorrupt, because silently starting empty would forget decisions.
func (s *Store) load() error {
	b, err := os.ReadFile(filepath.Join(s.dir, SnapshotFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read inventory snapshot: %w", err)
	default:
		var snap snapshot
		if err := json.Unmarshal(b, &snap); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, SnapshotFile, err)
		}
		for _, e := range snap.Entries {
			s.put(e)
		}
		s.seq, s.sBytes = snap.Seq, int64(len(b))
	}
	if err := s.replay(); err != nil {
		return err
	}
	// What was just read is on disk already.
	for i := range s.sh {
		s.sh[i].clearDirty()
	}
	return nil
}

func (s *Store) replay() error {
	path := filepath.Join(s.dir, JournalFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open inventory journal: %w", err)
	}
	defer f.Close() // read-only: nothing to lose on close
	r := bufio.NewReaderSize(f, 1<<16)
	snapSeq := s.seq
	var good int64
	for lineNo := 1; ; lineNo++ {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				// A torn final write: cut it off so appends start clean.
				if err := os.Truncate(path, good); err != nil {
					return fmt.Errorf("cut torn inventory journal tail: %w", err)
				}
			}
			break
		}
		if err != nil {
			return fmt.Errorf("read inventory journal: %w", err)
		}
		var jl journalLine
		if err := json.Unmarshal(line, &jl); err != nil {
			return fmt.Errorf("%w: %s line %d: %v", ErrCorrupt, JournalFile, lineNo, err)
		}
		good += int64(len(line))
		if jl.Seq <= snapSeq {
			continue
		}
		s.put(jl.Entry)
		if jl.Seq > s.seq {
			s.seq = jl.Seq
		}
	}
	s.jBytes = good
	return nil
}

// Flush appends every entry changed since the last Flush to the journal as
// one batch and fsyncs it, then compacts if the journal has outgrown the
// snapshot.
func (s *Store) Flush() error {
	s.fileMu.Lock()
	defer s.fileMu.Unlock()
	if err := s.flushLocked(); err != nil {
		return err
	}
	if s.jBytes > s.compactAt && s.jBytes > s.sBytes {
		return s.compactLocked()
	}
	return nil
}

func (s *Store) flushLocked() error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	seq := s.seq + 1
	var changed []Entry
	for i := range s.sh {
		sh := &s.sh[i]
		sh.mu.Lock()
		changed = append(changed, sh.takeDirty()...)
		sh.mu.Unlock()
	}
	if len(changed) == 0 {
		return nil
	}
	for _, e := range changed {
		// An Entry is strings, numbers, times and addresses: it encodes.
		_ = enc.Encode(journalLine{Seq: seq, Entry: e})
	}
	if err := s.writeJournal(buf.Bytes()); err != nil {
		// Not on disk: mark them changed again for the next Flush.
		for _, e := range changed {
			sh := s.shard(e.Policy, e.Name)
			sh.mu.Lock()
			sh.markDirty(e.Policy, e.Name)
			sh.mu.Unlock()
		}
		return err
	}
	s.seq = seq
	s.jBytes += int64(buf.Len())
	return nil
}

func (s *Store) writeJournal(b []byte) error {
	if _, err := s.journal.Write(b); err != nil {
		return fmt.Errorf("append inventory journal: %w", err)
	}
	if err := s.journal.Sync(); err != nil {
		return fmt.Errorf("sync inventory journal: %w", err)
	}
	return nil
}

// Compact writes every entry to a new snapshot (atomically: a temporary
// file, fsync, rename, fsync of the directory) and empties the journal.
func (s *Store) Compact() error {
	s.fileMu.Lock()
	defer s.fileMu.Unlock()
	if err := s.flushLocked(); err != nil {
		return err
	}
	return s.compactLocked()
}

func (s *Store) compactLocked() error {
	snap := snapshot{Version: 1, Seq: s.seq, Entries: s.List(Filter{})}
	b, err := json.Marshal(snap)
	if err != nil {
		return fmt.Errorf("encode inventory snapshot: %w", err)
	}
	if err := writeAtomic(filepath.Join(s.dir, SnapshotFile), b); err != nil {
		return err
	}
	// Safe to empty now: every line in it has Seq <= snap.Seq.
	if err := s.journal.Truncate(0); err != nil {
		return fmt.Errorf("truncate inventory journal: %w", err)
	}
	s.sBytes, s.jBytes = int64(len(b)), 0
	return nil
}

func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this finds nothing
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("open dir of %s: %w", path, err)
	}
	defer d.Close() // read-only handle
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync dir of %s: %w", path, err)
	}
	return nil
}
