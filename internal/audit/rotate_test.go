package audit

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRotation(t *testing.T) {
	const maxBytes, n = 1000, 40
	for _, syncEach := range []bool{false, true} {
		t.Run(map[bool]string{false: "no sync", true: "sync"}[syncEach], func(t *testing.T) {
			dir := t.TempDir()
			l := openTest(t, Options{Dir: dir, MaxBackups: 100, Sync: syncEach, maxBytes: maxBytes})
			recs := appendN(t, l, n, sample)

			backups := backupNames(t, dir)
			if len(backups) < 5 {
				t.Fatalf("only %d backups after %d records of ~300 bytes with a %d-byte limit", len(backups), n, maxBytes)
			}
			for _, name := range append(backups, liveName) {
				fi, err := os.Stat(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				if fi.Size() > maxBytes || fi.Size() == 0 {
					t.Errorf("%s has %d bytes, want 1..%d", name, fi.Size(), maxBytes)
				}
				if fi.Mode().Perm() != 0o600 {
					t.Errorf("%s has mode %v, want 0600", name, fi.Mode().Perm())
				}
			}

			rep, err := Verify(dir)
			if err != nil {
				t.Fatal(err)
			}
			want := Report{Files: len(backups) + 1, Records: n, FirstSeq: 1, LastSeq: n, Head: recs[n-1].Hash}
			if diff := cmp.Diff(want, rep); diff != "" {
				t.Errorf("Verify mismatch (-want +got):\n%s", diff)
			}

			for _, k := range []int{1, 5, n, n + 10} {
				got, err := l.Recent(k)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(recs[max(0, n-k):], got); diff != "" {
					t.Errorf("Recent(%d) across files mismatch (-want +got):\n%s", k, diff)
				}
			}
		})
	}
}

// TestRotationReopen checks that a reopened log rotates by the size already
// on disk and keeps the chain across the new file.
func TestRotationReopen(t *testing.T) {
	dir := t.TempDir()
	clock := fixedClock()
	const maxBytes = 1100 // three records of the sample's size
	first, err := Open(Options{Dir: dir, Now: clock, maxBytes: maxBytes})
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, first, 2, sample)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second := openTest(t, Options{Dir: dir, Now: clock, maxBytes: maxBytes})
	recs := appendN(t, second, 4, sample)
	backups := backupNames(t, dir)
	if len(backups) != 1 {
		t.Fatalf("backups %v, want 1", backups)
	}
	for _, name := range append(backups, liveName) {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > maxBytes {
			t.Errorf("%s has %d bytes, more than %d", name, fi.Size(), maxBytes)
		}
	}
	rep, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Report{Files: 2, Records: 6, FirstSeq: 1, LastSeq: 6, Head: recs[3].Hash}, rep); diff != "" {
		t.Errorf("Verify mismatch (-want +got):\n%s", diff)
	}
}

// TestRotationPrunes checks that what remains after lumberjack deletes the
// oldest backups still verifies, from the oldest record kept.
func TestRotationPrunes(t *testing.T) {
	const n, keep = 30, 2
	dir := t.TempDir()
	l := openTest(t, Options{Dir: dir, MaxBackups: keep, maxBytes: 1000})
	recs := appendN(t, l, n, sample)

	// lumberjack prunes in its own goroutine; wait for it (hang guard only).
	deadline := time.Now().Add(20 * time.Second)
	for len(backupNames(t, dir)) > keep {
		if time.Now().After(deadline) {
			t.Fatalf("backups %v not pruned to %d", backupNames(t, dir), keep)
		}
		time.Sleep(10 * time.Millisecond)
	}

	rep, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != keep+1 || rep.FirstSeq <= 1 || rep.LastSeq != n || rep.Head != recs[n-1].Hash ||
		uint64(rep.Records) != rep.LastSeq-rep.FirstSeq+1 {
		t.Errorf("Verify after pruning = %+v; want %d files ending at seq %d with head %s, not starting at 1", rep, keep+1, n, recs[n-1].Hash)
	}
	got, err := l.Recent(n)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recs[rep.FirstSeq-1:], got); diff != "" {
		t.Errorf("Recent after pruning mismatch (-want +got):\n%s", diff)
	}
}
