package audit

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fixedClock returns a clock that starts at a fixed time and moves one
// second per call, so that records and golden files are reproducible.
func fixedClock() func() time.Time {
	t := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time {
		t = t.Add(time.Second)
		return t
	}
}

// openTest opens a Log in dir and closes it when the test ends.
func openTest(t *testing.T, opts Options) *Log {
	t.Helper()
	if opts.Now == nil {
		opts.Now = fixedClock()
	}
	l, err := Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return l
}

// appendN appends n records made by mk and returns them as written.
func appendN(t *testing.T, l *Log, n int, mk func(i int) Record) []Record {
	t.Helper()
	out := make([]Record, 0, n)
	for i := range n {
		r, err := l.Append(mk(i))
		if err != nil {
			t.Fatalf("Append #%d: %v", i, err)
		}
		out = append(out, r)
	}
	return out
}

// sample is an ordinary decision record.
func sample(i int) Record {
	return Record{
		Event:     EventDecision,
		RequestID: "req-" + string(rune('a'+i%26)),
		Session:   "default",
		Client:    "127.0.0.1:50000",
		Command:   "echo hello",
		Cwd:       "/work",
		Decision:  DecisionAllow,
		Approval:  "policy",
	}
}

// copyFile copies src to dst with mode 0600.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// backupNames returns the base names of dir's backups, oldest first.
func backupNames(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := backupFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(p)
	}
	return names
}
