package audit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAppendFillsRecord(t *testing.T) {
	dir := t.TempDir()
	l := openTest(t, Options{Dir: dir})
	exit := 0
	in := Record{
		Seq: 99, Prev: "caller's", Hash: "caller's", // all three are the log's to set
		Event: EventResult, RequestID: "r1", Session: "s", Client: "127.0.0.1:1",
		Command: "mysql --password hunter2 -e 'select 1'", Cwd: "/w",
		Decision: DecisionAllow, Approval: "user", Reason: "token=abc", ExitCode: &exit,
	}
	got, err := l.Append(in)
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.Seq = 1
	want.Time = time.Date(2025, 1, 2, 3, 4, 6, 0, time.UTC)
	want.Prev = Genesis
	want.Command = "mysql --password [REDACTED] -e 'select 1'"
	want.Reason = "token=[REDACTED]"
	want.Hash = got.Hash
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Append returned (-want +got):\n%s", diff)
	}
	data, err := os.ReadFile(filepath.Join(dir, liveName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "hunter2") || strings.Contains(string(data), "abc") {
		t.Errorf("a secret reached the file: %s", data)
	}
	if !strings.HasSuffix(string(data), `,"hash":"`+got.Hash+`"}`+"\n") {
		t.Errorf("file does not end with the returned hash: %s", data)
	}
}

func TestAppendKeepsGivenTime(t *testing.T) {
	l := openTest(t, Options{Dir: t.TempDir()})
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("CEST", 2*3600))
	r := sample(0)
	r.Time = at
	got, err := l.Append(r)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Time.Equal(at) || got.Time.Location() != time.UTC {
		t.Errorf("Time = %v, want %v in UTC", got.Time, at.UTC())
	}
}

func TestAppendRecentSummary(t *testing.T) {
	l := openTest(t, Options{Dir: t.TempDir()})
	if diff := cmp.Diff(Summary{}, l.Summary()); diff != "" {
		t.Errorf("Summary of an empty log (-want +got):\n%s", diff)
	}
	if got, err := l.Recent(5); err != nil || got != nil {
		t.Errorf("Recent(5) on an empty log = %v, %v; want nil, nil", got, err)
	}
	recs := appendN(t, l, 5, sample)
	for i := 1; i < len(recs); i++ {
		if recs[i].Prev != recs[i-1].Hash || recs[i].Seq != recs[i-1].Seq+1 {
			t.Errorf("record %d does not link to record %d", recs[i].Seq, recs[i-1].Seq)
		}
	}
	tests := []struct {
		n    int
		want []Record
	}{
		{0, nil},
		{-1, nil},
		{1, recs[4:]},
		{3, recs[2:]},
		{5, recs},
		{50, recs},
	}
	for _, tt := range tests {
		got, err := l.Recent(tt.n)
		if err != nil {
			t.Fatalf("Recent(%d): %v", tt.n, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Recent(%d) mismatch (-want +got):\n%s", tt.n, diff)
		}
	}
	if diff := cmp.Diff(Summary{Entries: 5, Head: recs[4].Hash}, l.Summary()); diff != "" {
		t.Errorf("Summary mismatch (-want +got):\n%s", diff)
	}
}

func TestReadRecentWithoutOpening(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadRecent(dir, 3); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadRecent(empty dir) = %v, want an error wrapping fs.ErrNotExist", err)
	}
	l := openTest(t, Options{Dir: dir})
	recs := appendN(t, l, 4, sample)
	// The daemon holds the lock; a reader beside it still gets records,
	// and a line still being written is left out.
	f, err := os.OpenFile(filepath.Join(dir, liveName), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"seq":5,"time":"2025-`); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRecent(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recs[2:], got); diff != "" {
		t.Errorf("ReadRecent mismatch (-want +got):\n%s", diff)
	}
}

func TestReopenContinuesChain(t *testing.T) {
	dir := t.TempDir()
	clock := fixedClock()
	first, err := Open(Options{Dir: dir, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	before := appendN(t, first, 3, sample)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	second := openTest(t, Options{Dir: dir, Now: clock})
	if diff := cmp.Diff(Summary{Entries: 3, Head: before[2].Hash}, second.Summary()); diff != "" {
		t.Errorf("Summary after reopen (-want +got):\n%s", diff)
	}
	after := appendN(t, second, 2, sample)
	if after[0].Seq != 4 || after[0].Prev != before[2].Hash {
		t.Errorf("first record after reopen has seq %d prev %s; want 4 and %s", after[0].Seq, after[0].Prev, before[2].Hash)
	}
	rep, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Report{Files: 1, Records: 5, FirstSeq: 1, LastSeq: 5, Head: after[1].Hash}, rep); diff != "" {
		t.Errorf("Verify mismatch (-want +got):\n%s", diff)
	}
}

// TestReopenAfterRotationCrash covers a crash right after rotation: the live
// file is empty, and the chain continues from the newest backup.
func TestReopenAfterRotationCrash(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join("testdata", "chain", "good.jsonl"), filepath.Join(dir, "audit-2025-01-02T03-05-00.000.jsonl"))
	if err := os.WriteFile(filepath.Join(dir, liveName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l := openTest(t, Options{Dir: dir})
	r, err := l.Append(sample(0))
	if err != nil {
		t.Fatal(err)
	}
	if r.Seq != 7 || r.Prev != goodHead {
		t.Errorf("appended seq %d prev %s; want 7 and %s", r.Seq, r.Prev, goodHead)
	}
	rep, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Report{Files: 2, Records: 7, FirstSeq: 1, LastSeq: 7, Head: r.Hash}, rep); diff != "" {
		t.Errorf("Verify mismatch (-want +got):\n%s", diff)
	}
}

func TestOpenRefusesBrokenTail(t *testing.T) {
	tests := []struct {
		name    string
		backup  string // golden chain placed as the only backup
		live    string // golden chain placed as the live file
		wantErr func(dir string) *ChainError
	}{
		{
			name: "torn live file",
			live: "torn_tail.jsonl",
			wantErr: func(dir string) *ChainError {
				return &ChainError{File: filepath.Join(dir, liveName), Line: 6, Problem: problemTorn}
			},
		},
		{
			name: "edited live file",
			live: "edited_field.jsonl",
			wantErr: func(dir string) *ChainError {
				return &ChainError{File: filepath.Join(dir, liveName), Line: 3, Seq: 3, Problem: problemHashMismatch}
			},
		},
		{
			name:   "torn backup under an empty live file",
			backup: "torn_tail.jsonl",
			live:   "",
			wantErr: func(dir string) *ChainError {
				return &ChainError{File: filepath.Join(dir, "audit-2025-01-02T03-05-00.000.jsonl"), Line: 6, Problem: problemTorn}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.backup != "" {
				copyFile(t, filepath.Join("testdata", "chain", tt.backup), filepath.Join(dir, "audit-2025-01-02T03-05-00.000.jsonl"))
			}
			live := filepath.Join(dir, liveName)
			if tt.live != "" {
				copyFile(t, filepath.Join("testdata", "chain", tt.live), live)
			} else if err := os.WriteFile(live, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := Open(Options{Dir: dir})
			if err == nil {
				l.Close()
				t.Fatal("Open accepted a broken tail")
			}
			if diff := cmp.Diff(tt.wantErr(dir), asChainError(t, err)); diff != "" {
				t.Errorf("Open error mismatch (-want +got):\n%s", diff)
			}
			if !strings.HasPrefix(err.Error(), "open audit log: audit chain broken at ") {
				t.Errorf("Open error %q does not say the chain is broken", err)
			}
			// The lock was released: a repaired directory opens.
			if err := os.Remove(live); err != nil {
				t.Fatal(err)
			}
			if tt.backup != "" {
				if err := os.Remove(filepath.Join(dir, "audit-2025-01-02T03-05-00.000.jsonl")); err != nil {
					t.Fatal(err)
				}
			}
			openTest(t, Options{Dir: dir})
		})
	}
}

func TestOpenLocked(t *testing.T) {
	dir := t.TempDir()
	first, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if second, err := Open(Options{Dir: dir}); !errors.Is(err, ErrLocked) {
		if second != nil {
			second.Close()
		}
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	openTest(t, Options{Dir: dir})
}

func TestOpenOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no dir", Options{}, "open audit log: no directory given"},
		{"negative size", Options{Dir: t.TempDir(), MaxSizeMB: -1}, "open audit log: MaxSizeMB -1 is negative"},
		{"negative backups", Options{Dir: t.TempDir(), MaxBackups: -2}, "open audit log: MaxBackups -2 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Open(tt.opts)
			if err == nil {
				l.Close()
				t.Fatalf("Open(%+v) succeeded", tt.opts)
			}
			if err.Error() != tt.want {
				t.Errorf("Open error = %q, want %q", err, tt.want)
			}
		})
	}
}

func TestFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	l := openTest(t, Options{Dir: dir})
	appendN(t, l, 1, sample)
	want := map[string]fs.FileMode{
		dir:                          fs.ModeDir | 0o700,
		filepath.Join(dir, liveName): 0o600,
		filepath.Join(dir, lockName): 0o600,
	}
	for path, mode := range want {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != mode {
			t.Errorf("%s has mode %v, want %v", path, fi.Mode(), mode)
		}
	}
}

func TestOpenTightensLiveMode(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, liveName)
	copyFile(t, filepath.Join("testdata", "chain", "good.jsonl"), live)
	if err := os.Chmod(live, 0o644); err != nil {
		t.Fatal(err)
	}
	openTest(t, Options{Dir: dir})
	fi, err := os.Stat(live)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("live file mode %v after Open, want 0600", fi.Mode().Perm())
	}
}

func TestAppendConcurrent(t *testing.T) {
	const writers, each = 16, 25
	dir := t.TempDir()
	l := openTest(t, Options{Dir: dir, Now: time.Now})
	var wg sync.WaitGroup
	seqs := make(chan uint64, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				r, err := l.Append(sample(w*each + i))
				if err != nil {
					t.Errorf("Append: %v", err)
					return
				}
				seqs <- r.Seq
			}
		})
	}
	wg.Go(func() { // a reader alongside the writers
		for range 20 {
			if _, err := l.Recent(10); err != nil {
				t.Errorf("Recent: %v", err)
				return
			}
		}
	})
	wg.Wait()
	close(seqs)
	seen := map[uint64]bool{}
	for s := range seqs {
		if seen[s] {
			t.Errorf("seq %d handed out twice", s)
		}
		seen[s] = true
	}
	rep, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := Report{Files: 1, Records: writers * each, FirstSeq: 1, LastSeq: writers * each, Head: l.Summary().Head}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("Verify mismatch (-want +got):\n%s", diff)
	}
}

func TestClose(t *testing.T) {
	l, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, l, 2, sample)
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := l.Append(sample(0)); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	if _, err := l.Recent(1); !errors.Is(err, ErrClosed) {
		t.Errorf("Recent after Close = %v, want ErrClosed", err)
	}
	if got := l.Summary().Entries; got != 2 {
		t.Errorf("Summary after Close has %d entries, want 2", got)
	}
}

func TestAppendTooLarge(t *testing.T) {
	l := openTest(t, Options{Dir: t.TempDir(), maxBytes: 1000})
	big := sample(0)
	big.Command = strings.Repeat("x", 1000)
	if _, err := l.Append(big); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Append(too large) = %v, want ErrTooLarge", err)
	}
	// Nothing was written, so the log goes on with the same seq.
	r, err := l.Append(sample(1))
	if err != nil {
		t.Fatal(err)
	}
	if r.Seq != 1 {
		t.Errorf("next record has seq %d, want 1", r.Seq)
	}
}
