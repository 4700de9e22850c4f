package inventory

import (
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// File names inside the store's directory.
const (
	SnapshotFile = "inventory.json"
	JournalFile  = "inventory.journal"
)

// ErrCorrupt reports a snapshot or journal that cannot be read back.
var ErrCorrupt = errors.New("inventory corrupt")

const shards = 64

// Store is the inventory of every policy. Queries update it in memory
// (Observe); Flush appends what changed to the journal and fsyncs it, and
// compacts the journal into a new snapshot when it has grown. A person's
// decision (Decide) is journaled and fsynced before Decide returns.
//
// What a crash can lose is the query statistics since the last Flush; a
// held name lost that way is held again on its next query. It never loses
// a person's decision.
//
// A Store is safe for concurrent use. Nothing may be called after Close.
type Store struct {
	dir  string
	seed maphash.Seed
	sh   [shards]shard

	// fileMu serialises journal writes and compaction.
	fileMu  sync.Mutex
	journal *os.File
	seq     uint64
	jBytes  int64
	sBytes  int64
	// compactAt is compactAt unless a test lowers it.
	compactAt int64
}

// Open loads the inventory kept in dir (creating nothing until the first
// write) and opens its journal for appending.
func Open(dir string) (*Store, error) {
	s := &Store{dir: dir, seed: maphash.MakeSeed(), compactAt: compactAt}
	for i := range s.sh {
		s.sh[i] = newShard(s.seed)
	}
	if err := s.load(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open inventory journal: %w", err)
	}
	s.journal = f
	return s, nil
}

func (s *Store) shard(policy, name string) *shard {
	var h maphash.Hash
	h.SetSeed(s.seed)
	h.WriteString(policy)
	h.WriteByte(0)
	h.WriteString(name)
	return &s.sh[h.Sum64()%shards]
}

// Lookup returns the status of name under policy and whether a person
// decided it; ok is false for a name never seen.
func (s *Store) Lookup(policy, name string) (st Status, decided, ok bool) {
	sh := s.shard(policy, name)
	sh.mu.RLock()
	if sl := sh.find(policy, name); sl != nil {
		st, decided, ok = sl.status.status(), sl.decided, true
	}
	sh.mu.RUnlock()
	return st, decided, ok
}

// Get returns the entry for name under policy.
func (s *Store) Get(policy, name string) (Entry, bool) {
	sh := s.shard(policy, name)
	sh.mu.RLock()
	defer sh.mu.RUnlock()
	p, ok := sh.pols.find(policy)
	if !ok {
		return Entry{}, false
	}
	i := sh.index(p, name, sh.hash(p, name))
	if i < 0 {
		return Entry{}, false
	}
	return sh.entry(i), true
}

// Observe records one query's outcome and reports whether this was the
// first time policy saw name. It changes memory only; Flush persists it.
func (s *Store) Observe(policy, name string, o Observation) (first bool) {
	sh := s.shard(policy, name)
	sh.mu.Lock()
	first = sh.observe(policy, name, o)
	sh.mu.Unlock()
	return first
}

// Decision is a person's verdict on one name.
type Decision struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
}

// Decide records a person's verdict on name under policy and makes it
// durable before returning. An unseen name gets an entry with no queries.
func (s *Store) Decide(policy, name string, st Status, rule string, now time.Time) (Entry, error) {
	if err := s.DecideMany(policy, []Decision{{name, st}}, rule, now); err != nil {
		return Entry{}, err
	}
	e, _ := s.Get(policy, name)
	return e, nil
}

// DecideMany records several verdicts and makes them durable with one
// journal write before returning.
func (s *Store) DecideMany(policy string, ds []Decision, rule string, now time.Time) error {
	for _, d := range ds {
		sh := s.shard(policy, d.Name)
		sh.mu.Lock()
		sh.decide(policy, d.Name, d.Status, rule, now)
		sh.mu.Unlock()
	}
	return s.Flush()
}

// Filter selects entries; empty fields match everything.
type Filter struct {
	Policy string
	Status Status
}

// List returns copies of the entries that match f, sorted by policy then
// name.
func (s *Store) List(f Filter) []Entry {
	var out []Entry
	for i := range s.sh {
		sh := &s.sh[i]
		sh.mu.RLock()
		for j := range sh.slots {
			sl := &sh.slots[j]
			if (f.Policy == "" || sh.pols.str(sl.pol) == f.Policy) && (f.Status == "" || sl.status.status() == f.Status) {
				out = append(out, sh.entry(int32(j)))
			}
		}
		sh.mu.RUnlock()
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Policy != out[j].Policy {
			return out[i].Policy < out[j].Policy
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Len returns the number of entries across all policies.
func (s *Store) Len() int {
	n := 0
	for i := range s.sh {
		s.sh[i].mu.RLock()
		n += len(s.sh[i].slots)
		s.sh[i].mu.RUnlock()
	}
	return n
}

// Close flushes what changed and closes the journal.
func (s *Store) Close() error {
	err := s.Flush()
	s.fileMu.Lock()
	defer s.fileMu.Unlock()
	if cerr := s.journal.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close inventory journal: %w", cerr)
	}
	return err
}
