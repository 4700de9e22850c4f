package main

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

func TestParseStatPPID(t *testing.T) {
	tests := []struct {
		name    string
		stat    string
		want    int
		wantErr error
	}{
		{"plain", "1234 (bash) S 1000 1234 1234 0 -1", 1000, nil},
		{"name with spaces and parens", "77 (a) b (c) d) R 42 77 77", 42, nil},
		{"zombie", "99 (true) Z 5 99 99", 5, nil},
		{"no paren", "1234 bash S 1000", 0, errBadStat},
		{"truncated", "1234 (bash) S", 0, errBadStat},
		{"bad ppid", "1234 (bash) S x", 0, errBadStat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatPPID(tt.stat)
			if got != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("parseStatPPID(%q) = %d, %v; want %d, %v", tt.stat, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestCountChildrenSeesARealChild(t *testing.T) {
	before, err := countChildren(os.Getpid())
	if err != nil {
		t.Fatalf("countChildren: %v", err)
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sleep: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // already dead when the test reaped it
		_ = cmd.Wait()
	})
	during, err := countChildren(os.Getpid())
	if err != nil {
		t.Fatalf("countChildren: %v", err)
	}
	if during != before+1 {
		t.Errorf("children with sleep running = %d, want %d", during, before+1)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatalf("kill sleep: %v", err)
	}
	_ = cmd.Wait() // "signal: killed" is the expected outcome
	after, err := countChildren(os.Getpid())
	if err != nil {
		t.Fatalf("countChildren: %v", err)
	}
	if after != before {
		t.Errorf("children after reaping = %d, want %d", after, before)
	}
}

func TestReadMemoryOfSelf(t *testing.T) {
	m, err := readMemory(os.Getpid())
	if err != nil {
		t.Fatalf("readMemory: %v", err)
	}
	if m.RSS <= 0 || m.Peak < m.RSS {
		t.Errorf("readMemory = %+v, want 0 < RSS <= Peak", m)
	}
}
