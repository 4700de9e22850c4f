//go:build linux

package host

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sidecarhq/sidecar/internal/runtime"
)

// These tests start long sleeps with a unique argument and prove, via
// kill(-pgid, 0) and a /proc scan, that none of them outlives Run.

func TestRunTimeoutKillsGroup(t *testing.T) {
	tests := []struct {
		name    string
		command string // %s is the unique sleep argument
	}{
		{"shell and background job", "echo $$; sh -c 'sleep %[1]s & sleep %[1]s'"},
		{"TERM ignored everywhere", "trap '' TERM; echo $$; sleep %[1]s & sleep %[1]s"},
		{"foreground sleep", "echo $$; sleep %[1]s"},
	}
	for _, p := range paths {
		for _, tt := range tests {
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				r := newRuntime(t, p.warmShells)
				arg := uniqueSleep()
				req := request(t, sprintf(tt.command, arg))
				req.Timeout = 300 * time.Millisecond
				got := run(t, r, context.Background(), req)
				if got.ExitCode != runtime.ExitTimedOut || !got.TimedOut || got.Cancelled {
					t.Errorf("Run = exit %d, timed out %v, cancelled %v; want exit 124, timed out", got.ExitCode, got.TimedOut, got.Cancelled)
				}
				// Only the command's own output: the trap that lost its
				// record pipe to the signal must not complain into it.
				if _, rest, _ := strings.Cut(string(got.Output), "\n"); rest != "" {
					t.Errorf("output after the pid: %q", rest)
				}
				assertGone(t, leaderPID(t, got.Output), arg)
			})
		}
	}
}

func TestRunCancel(t *testing.T) {
	forEachPath(t, func(t *testing.T, r *Runtime) {
		arg := uniqueSleep()
		req := request(t, "echo $$; sleep "+arg+" & sleep "+arg)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// Cancel once the command is surely running: its sleeper is visible.
		go func() {
			for ctx.Err() == nil && len(procsWithArg(t, arg)) < 2 {
				time.Sleep(5 * time.Millisecond)
			}
			cancel()
		}()
		got := run(t, r, ctx, req)
		if got.ExitCode != runtime.ExitCancelled || !got.Cancelled || got.TimedOut {
			t.Errorf("Run = exit %d, cancelled %v, timed out %v; want exit 130, cancelled", got.ExitCode, got.Cancelled, got.TimedOut)
		}
		assertGone(t, leaderPID(t, got.Output), arg)
	})
}

func TestRunBackgroundJobOutlivesRequestUntilClose(t *testing.T) {
	forEachPath(t, func(t *testing.T, r *Runtime) {
		arg := uniqueSleep()
		got := run(t, r, context.Background(), request(t, "echo $$; sleep "+arg+" >/dev/null 2>&1 & exit 0"))
		if got.ExitCode != 0 || got.TimedOut {
			t.Errorf("Run = exit %d, timed out %v; want 0", got.ExitCode, got.TimedOut)
		}
		// The answer can come before the forked job has exec'd sleep (it is
		// read from the trap's record), so wait for it to show.
		eventually(t, "exactly one background sleeper after the request", func() bool {
			return len(procsWithArg(t, arg)) == 1
		})
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		assertGone(t, leaderPID(t, got.Output), arg)
	})
}

func TestRunEscapedGrandchildDoesNotHang(t *testing.T) {
	forEachPath(t, func(t *testing.T, r *Runtime) {
		arg := uniqueSleep()
		// The subshell is not a group leader, so setsid(1) calls setsid(2)
		// itself, and sleep keeps the inherited output pipe in a new session.
		// The shell waits until the escape happened, or the group kill after
		// its exit could catch the child before setsid.
		got := run(t, r, context.Background(), request(t,
			"(setsid sh -c 'touch escaped; exec sleep "+arg+"' &); until [ -e escaped ]; do sleep 0.01; done; echo started"))
		t.Cleanup(func() {
			for _, pid := range procsWithArg(t, arg) {
				_ = syscall.Kill(pid, syscall.SIGKILL) // best effort: it is our own sleeper
			}
		})
		if string(got.Output) != "started\n" || got.ExitCode != 0 || got.TimedOut {
			t.Errorf("Run = %q exit %d timed out %v; want \"started\\n\" exit 0", got.Output, got.ExitCode, got.TimedOut)
		}
		// The sleeper must really have escaped, or this test proves nothing.
		// `touch escaped` comes before `exec sleep`, so it may not show yet.
		eventually(t, "exactly one escaped sleeper", func() bool {
			return len(procsWithArg(t, arg)) == 1
		})
	})
}

func TestRunLeaksNoFDs(t *testing.T) {
	// One path at a time: the count is the whole process's.
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) { testLeaksNoFDs(t, newRuntime(t, p.warmShells)) })
	}
}

func testLeaksNoFDs(t *testing.T, r *Runtime) {
	// Idle warm shells hold five pipe ends each, and a shell answered
	// before it exited a pidfd until it is reaped: count once the pool has
	// started exactly the shells it wants and every shell run is reaped.
	countFDs := func() int {
		t.Helper()
		r.reapers.Wait()
		if r.pool != nil {
			settle(t, r.pool)
		}
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	req := request(t, "cat; echo err >&2; exit 1")
	req.Stdin = []byte("in\n")
	run(t, r, context.Background(), req) // warm up the runtime's lazily opened fds
	before := countFDs()
	for i := range 50 {
		req.Stdin = []byte(strconv.Itoa(i))
		if i%2 == 0 {
			req.Stdin = nil
		}
		run(t, r, context.Background(), req)
	}
	if after := countFDs(); after != before {
		t.Errorf("open fds: %d before 50 runs, %d after", before, after)
	}
}
