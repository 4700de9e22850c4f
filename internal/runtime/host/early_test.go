//go:build linux

package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestAnswerEarly: a shell whose trap wrote its record and closed its
// output is answered from the record, even while it is still exiting; a
// command that keeps the trap from closing it is answered at the exit,
// with the same result. When the output closes only at the exit, which of
// the two is seen first is a race, so only the cases that decide it are
// checked for the path taken.
func TestAnswerEarly(t *testing.T) {
	tests := []struct {
		name     string
		command  string
		wantExit int
		wantOut  string
		atExit   bool // no record: only the shell's exit can answer
	}{
		{"true", "true", 0, "", false},
		// Stateless: the plain wrapper's short record, or its exit, gives
		// the command's status, also when a job keeps the output open.
		{"stateless status", "echo out; false", 1, "out\n", false},
		{"stateless, output held by a job", "sleep 0.2 & false", 1, "", false},
		{"exit status", "echo out; exit 3", 3, "out\n", false},
		{"a function named exec is removed first", "exec() { echo hijacked; }; echo ran", 0, "ran\n", false},
		// The trap calls the function with the pipes closed around the
		// call, then exits: the record still answers, at the exit.
		{"a readonly function named exec runs instead", "exec() { echo hijacked; }; readonly -f exec", 0, "", false},
		{"exec disabled", "enable -n exec; exit 4", 4, "", false},
		{"killed shell, no record", "kill -9 $$", 137, "", true},
	}
	for _, tt := range tests {
		forEachPath(t, func(t *testing.T, r *Runtime) {
			t.Run(tt.name, func(t *testing.T) {
				before := r.early.Load()
				got := run(t, r, context.Background(), request(t, tt.command))
				if got.ExitCode != tt.wantExit || string(got.Output) != tt.wantOut {
					t.Errorf("Run(%q) = exit %d output %q, want exit %d output %q", tt.command, got.ExitCode, got.Output, tt.wantExit, tt.wantOut)
				}
				wasEarly := r.early.Load() != before
				if tt.atExit && wasEarly {
					t.Errorf("Run(%q) was answered before the shell's exit; want it at the exit", tt.command)
				}
				if wasEarly && got.Exports == nil && !stateless(tt.command) {
					t.Errorf("Run(%q) answered early without the record's exports", tt.command)
				}
			})
		})
	}
}

// TestRecordAfterOutputClosed: a command that closes its output itself
// ends the output before its trap has written anything; the answer then
// waits for the shell's exit and still carries the record's directory,
// variables and status.
func TestRecordAfterOutputClosed(t *testing.T) {
	forEachPath(t, func(t *testing.T, r *Runtime) {
		req := request(t, "echo before; exec >&- 2>&-; /bin/sleep 0.2; cd sub; export LATE=1; exit 6")
		mkdir("sub")(t, req.Cwd)
		got := run(t, r, context.Background(), req)
		if got.ExitCode != 6 || string(got.Output) != "before\n" || got.Cwd != filepath.Join(req.Cwd, "sub") || got.Exports["LATE"] != "1" {
			t.Errorf("Run = exit %d output %q cwd %q LATE %q; want exit 6, \"before\\n\", %s/sub, LATE 1",
				got.ExitCode, got.Output, got.Cwd, got.Exports["LATE"], req.Cwd)
		}
	})
}

// TestAnswerEarlyShellStillRunning drives wait with a shell that writes a
// record, closes its pipes and stays alive: the answer comes from the
// record while the shell runs on, and Close kills it and waits until it is
// reaped.
func TestAnswerEarlyShellStillRunning(t *testing.T) {
	r, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			_ = r.Close() // always nil
		}
	})
	req := request(t, "unused: the script below stands in for the wrapper")
	nonce, err := newNonce()
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`echo out; printf '%%s\0%%s\0%%s\n\0\0%%s' %s 5 "$PWD" %s >&3; exec 1>&- 2>&- 3>&-; /bin/sleep 60`, nonce, nonce)
	p, err := r.startCold(req, script)
	if err != nil {
		t.Fatal(err)
	}
	res := r.wait(context.Background(), p, time.Minute, nonce)
	if res.ExitCode != 5 || string(res.Output) != "out\n" || res.Cwd != req.Cwd || r.early.Load() != 1 {
		t.Fatalf("wait = exit %d output %q cwd %q (early %d); want exit 5, \"out\\n\", %s, early 1",
			res.ExitCode, res.Output, res.Cwd, r.early.Load(), req.Cwd)
	}
	pid := p.cmd.Process.Pid
	if !processExists(pid) {
		t.Fatalf("shell %d is gone: this test needs it alive after the answer", pid)
	}
	closed = true
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if processExists(pid) {
		t.Errorf("shell %d still exists after Close", pid)
	}
}

// processExists reports whether pid names a process that has not been
// reaped.
func processExists(pid int) bool {
	_, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
	return err == nil
}

// TestOversizedRecordIsIgnored: a record larger than recordLimit (here a
// 5 MB exported variable) is not read; the command is answered at its exit,
// with its status and output but no directory or variables, as if the trap
// had not run.
func TestOversizedRecordIsIgnored(t *testing.T) {
	forEachPath(t, func(t *testing.T, r *Runtime) {
		req := request(t, fmt.Sprintf("export BIG=$(head -c %d /dev/zero | tr '\\0' x); echo done; exit 4", recordLimit+1<<20))
		before := r.early.Load()
		got := run(t, r, context.Background(), req)
		if got.ExitCode != 4 || string(got.Output) != "done\n" || got.Cwd != "" || got.Exports != nil {
			t.Errorf("Run = exit %d output %q cwd %q, %d exports; want exit 4, \"done\\n\", no cwd, no exports",
				got.ExitCode, got.Output, got.Cwd, len(got.Exports))
		}
		if r.early.Load() != before {
			t.Errorf("answered early from a record over the limit")
		}
	})
}
