//go:build linux

package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/sidecarhq/sidecar/internal/runtime"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(ttyHelperEnv); mode != "" {
		os.Exit(runTTYHelper(mode))
	}
	goleak.VerifyTestMain(m)
}

// testEnv is a small complete environment for test commands.
var testEnv = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "HOME=/nonexistent"}

// path is one way Run gets its shell. Every behaviour test runs on each;
// on the warm path every call of the run helper must take a warm shell,
// so a warm Runtime serves one test at a time.
type path struct {
	name       string
	warmShells int
}

var paths = []path{{"cold", 0}, {"warm", 2}}

// newRuntime returns a Runtime with short kill and drain waits so tests
// that exercise them stay quick. It is closed when the test ends.
func newRuntime(t *testing.T, warmShells int) *Runtime {
	t.Helper()
	r, err := New(Options{KillGrace: 200 * time.Millisecond, DrainTimeout: 300 * time.Millisecond, WarmShells: warmShells})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r
}

// forEachPath runs f as one parallel subtest per path, each with its own
// Runtime.
func forEachPath(t *testing.T, f func(t *testing.T, r *Runtime)) {
	t.Helper()
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			f(t, newRuntime(t, p.warmShells))
		})
	}
}

// request returns a Request for command with test defaults.
func request(t *testing.T, command string) runtime.Request {
	t.Helper()
	return runtime.Request{
		ID:        t.Name(),
		Command:   command,
		Cwd:       t.TempDir(),
		Env:       testEnv,
		Timeout:   30 * time.Second,
		MaxOutput: 1 << 20,
	}
}

// run runs req, failing the test if Run errors or hangs. With warm shells
// it first waits until one started with req.Env is idle and then fails the
// test unless Run took it.
func run(t *testing.T, r *Runtime, ctx context.Context, req runtime.Request) runtime.Result {
	t.Helper()
	if r.pool != nil {
		primeWarm(t, r.pool, req.Env)
		before := statsOf(r.pool)
		defer func() {
			if after := statsOf(r.pool); after.hits != before.hits+1 {
				t.Errorf("Run(%q) did not take a warm shell: stats %+v before, %+v after", req.Command, before, after)
			}
		}()
	}
	type outcome struct {
		res runtime.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := r.Run(ctx, req)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatalf("Run(%q): %v", req.Command, o.err)
		}
		return o.res
	case <-time.After(60 * time.Second): // hang guard only
		t.Fatalf("Run(%q) hung", req.Command)
		return runtime.Result{}
	}
}

var uniq atomic.Int64

// uniqueSleep returns a sleep duration argument no other process has, so
// tests can find their own sleepers in /proc.
func uniqueSleep() string {
	return fmt.Sprintf("1000.%d%d", os.Getpid(), uniq.Add(1))
}

// procsWithArg returns the pids of live processes with arg in their argv.
// Zombies have an empty cmdline and are not counted.
func procsWithArg(t *testing.T, arg string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("read /proc: %v", err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue // exited while we looked
		}
		for _, a := range bytes.Split(b, []byte{0}) {
			if string(a) == arg {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// eventually polls cond until it holds, failing after a generous hang
// guard. Killed processes take a moment to be torn down and reaped.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("still not true after 10s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// assertGone fails unless process group pgid is empty and no process with
// sleepArg in its argv is alive.
func assertGone(t *testing.T, pgid int, sleepArg string) {
	t.Helper()
	eventually(t, fmt.Sprintf("process group %d is empty", pgid), func() bool {
		return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
	})
	eventually(t, "no sleep "+sleepArg+" is alive", func() bool {
		return len(procsWithArg(t, sleepArg)) == 0
	})
}

// leaderPID reads the pid the command printed first (`echo $$`).
func leaderPID(t *testing.T, out []byte) int {
	t.Helper()
	first, _, _ := strings.Cut(string(out), "\n")
	pid, err := strconv.Atoi(first)
	if err != nil {
		t.Fatalf("output %q does not start with a pid", out)
	}
	return pid
}

func TestNew(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "bash")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		opts    Options
		wantErr error
	}{
		{"defaults", Options{}, nil},
		{"missing shell", Options{Shell: filepath.Join(dir, "nope")}, ErrShellUnusable},
		{"directory", Options{Shell: dir}, ErrShellUnusable},
		{"not executable", Options{Shell: notExec}, ErrShellUnusable},
		{"not bash", Options{Shell: "/bin/sh"}, ErrShellUnusable},
		{"negative grace", Options{KillGrace: -time.Second}, ErrInvalidOptions},
		{"negative warm shells", Options{WarmShells: -1}, ErrInvalidOptions},
		{"too many warm shells", Options{WarmShells: MaxWarmShells + 1}, ErrInvalidOptions},
		{"warm shells", Options{WarmShells: MaxWarmShells}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := New(tt.opts)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("New(%+v) error = %v, want %v", tt.opts, err, tt.wantErr)
			}
			if r != nil {
				t.Cleanup(func() { _ = r.Close() }) // always nil
			}
			if err == nil && (r.Name() != "host" || r.shell != DefaultShell || r.killGrace != DefaultKillGrace || r.drainTimeout != DefaultDrainTimeout) {
				t.Errorf("New(%+v) = %+v, want defaults", tt.opts, r)
			}
		})
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func TestRunAfterClose(t *testing.T) {
	forEachPath(t, func(t *testing.T, r *Runtime) {
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		req := request(t, "touch ran")
		req.Cwd = dir
		res, err := r.Run(context.Background(), req)
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Run after Close error = %v, want %v", err, ErrClosed)
		}
		if diff := cmp.Diff(runtime.Result{}, res); diff != "" {
			t.Errorf("Run after Close result mismatch (-want +got):\n%s", diff)
		}
		if _, err := os.Stat(filepath.Join(dir, "ran")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the command ran after Close: %v", err)
		}
	})
}
