package inventory

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func open(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func addrs(ss ...string) []netip.Addr {
	var out []netip.Addr
	for _, s := range ss {
		out = append(out, netip.MustParseAddr(s))
	}
	return out
}

var cmpAddr = cmp.Comparer(func(a, b netip.Addr) bool { return a == b })

func TestObserveAndDecide(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	if first := s.Observe("p", "a.example", Observation{Time: t0, Status: Learned, Rule: "mode:learn", Type: "A", Addresses: addrs("192.0.2.1")}); !first {
		t.Error("first Observe not first")
	}
	if first := s.Observe("p", "a.example", Observation{Time: t0.Add(time.Second), Status: Held, Rule: "hold_first_seen", Type: "AAAA"}); first {
		t.Error("second Observe first")
	}
	if first := s.Observe("q", "a.example", Observation{Time: t0, Status: Learned, Type: "A"}); !first {
		t.Error("other policy's first Observe not first")
	}
	got, _ := s.Get("p", "a.example")
	want := Entry{Policy: "p", Name: "a.example", Status: Held, Rule: "hold_first_seen", FirstSeen: t0, LastSeen: t0.Add(time.Second),
		Count: 2, Types: []string{"A", "AAAA"}, Addresses: addrs("192.0.2.1")}
	if diff := cmp.Diff(want, got, cmpAddr); diff != "" {
		t.Errorf("entry (-want +got):\n%s", diff)
	}
	if _, err := s.Decide("p", "a.example", Approved, "person", t0.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	// A decided status survives later query outcomes.
	s.Observe("p", "a.example", Observation{Time: t0.Add(3 * time.Second), Status: Held, Rule: "person:approved", Type: "A", Addresses: addrs("192.0.2.1", "192.0.2.2")})
	st, decided, ok := s.Lookup("p", "a.example")
	if st != Approved || !decided || !ok {
		t.Errorf("Lookup = %v, %v, %v; want approved, decided", st, decided, ok)
	}
	if _, _, ok := s.Lookup("p", "none.example"); ok {
		t.Error("Lookup of unseen name ok")
	}
	e, _ := s.Decide("p", "never.example", Denied, "person", t0)
	if e.FirstSeen != t0 || e.Count != 0 || e.Status != Denied || !e.Decided {
		t.Errorf("Decide on unseen name = %+v", e)
	}
	names := func(f Filter) []string {
		var out []string
		for _, e := range s.List(f) {
			out = append(out, e.Policy+"/"+e.Name)
		}
		return out
	}
	for _, tc := range []struct {
		f    Filter
		want []string
	}{
		{Filter{}, []string{"p/a.example", "p/never.example", "q/a.example"}},
		{Filter{Policy: "p", Status: Denied}, []string{"p/never.example"}},
		{Filter{Status: Learned}, []string{"q/a.example"}},
	} {
		if diff := cmp.Diff(tc.want, names(tc.f)); diff != "" {
			t.Errorf("List(%+v) (-want +got):\n%s", tc.f, diff)
		}
	}
}

func TestPersistsAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	s.Observe("p", "a.example", Observation{Time: t0, Status: Learned, Type: "A", Addresses: addrs("192.0.2.1")})
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	s.Observe("p", "b.example", Observation{Time: t0, Status: Held, Type: "A"})
	if _, err := s.Decide("p", "a.example", Denied, "person", t0); err != nil {
		t.Fatal(err)
	}
	s.Observe("p", "c.example", Observation{Time: t0, Status: Learned, Type: "TXT"})
	want := s.List(Filter{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := open(t, dir)
	defer s2.Close()
	if diff := cmp.Diff(want, s2.List(Filter{}), cmpAddr); diff != "" {
		t.Errorf("after reopen (-want +got):\n%s", diff)
	}
}

// TestCrashKeepsDecisions simulates a crash: the store is never closed or
// flushed after Decide, and the journal's last write is torn.
func TestCrashKeepsDecisions(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	s.Observe("p", "unflushed.example", Observation{Time: t0, Status: Learned})
	if _, err := s.Decide("p", "approved.example", Approved, "person", t0); err != nil {
		t.Fatal(err)
	}
	// Abandon s without Close, as a crash would, and tear the journal.
	f, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"seq":99,"e":{"policy":"p","na`)
	f.Close()
	s2 := open(t, dir)
	defer s2.Close()
	if st, decided, _ := s2.Lookup("p", "approved.example"); st != Approved || !decided {
		t.Errorf("approved.example = %v decided %v after crash", st, decided)
	}
	s2.Observe("p", "after.example", Observation{Time: t0, Status: Learned})
	if err := s2.Flush(); err != nil {
		t.Fatal(err)
	}
	s3 := open(t, dir)
	defer s3.Close()
	if _, ok := s3.Get("p", "after.example"); !ok {
		t.Error("entry appended after a torn tail was lost")
	}
}

func TestCorruptJournal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, JournalFile), []byte("{bad\n{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	if !errors.Is(err, ErrCorrupt) || err.Error() != "inventory corrupt: inventory.journal line 1: invalid character 'b' looking for beginning of object key string" {
		t.Errorf("Open error = %v", err)
	}
}

func TestCompactsWhenJournalGrows(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	defer s.Close()
	s.compactAt = 1000
	for i := 0; i < 3000; i++ {
		s.Observe("p", fmt.Sprintf("n%d.example", i), Observation{Time: t0, Status: Learned, Type: "A"})
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	// The first flush (over compactAt) folds into a snapshot.
	st, err := os.Stat(filepath.Join(dir, JournalFile))
	if err != nil || st.Size() != 0 {
		t.Fatalf("journal size = %v, %v; want 0 after compaction", st.Size(), err)
	}
	s2 := open(t, dir)
	defer s2.Close()
	if s2.Len() != 3000 {
		t.Errorf("reopened Len = %d", s2.Len())
	}
}

func TestConcurrentObserve(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				s.Observe("p", fmt.Sprintf("n%d.example", i%50), Observation{Time: t0, Status: Learned, Type: "A"})
				s.Lookup("p", "n1.example")
				if i%100 == 0 {
					if err := s.Flush(); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	var total uint64
	for _, e := range s.List(Filter{}) {
		total += e.Count
	}
	if total != 8*500 {
		t.Errorf("total count = %d, want %d", total, 8*500)
	}
}

func TestParseStatus(t *testing.T) {
	if st, err := ParseStatus("held"); st != Held || err != nil {
		t.Errorf("ParseStatus(held) = %v, %v", st, err)
	}
	if _, err := ParseStatus("x"); err == nil || err.Error() != `status "x": want learned, approved, held or denied` {
		t.Errorf("ParseStatus(x) = %v", err)
	}
}

func TestEntryLimits(t *testing.T) {
	s := open(t, t.TempDir())
	defer s.Close()
	var want []netip.Addr
	for i := 0; i < 40; i++ {
		a := netip.AddrFrom4([4]byte{192, 0, 2, byte(i)})
		if i%2 == 1 {
			a = netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 15: byte(i)})
		}
		if i < MaxAddresses {
			want = append(want, a)
		}
		s.Observe("p", "many.example", Observation{Time: t0, Status: Learned, Type: fmt.Sprintf("TYPE%d", i%20), Addresses: []netip.Addr{a, a}})
	}
	e, _ := s.Get("p", "many.example")
	if diff := cmp.Diff(want, e.Addresses, cmpAddr); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}
	if len(e.Types) != MaxTypes || e.Types[0] != "TYPE0" || e.Count != 40 {
		t.Errorf("types %v count %d; want the first %d types, count 40", e.Types, e.Count, MaxTypes)
	}
}
