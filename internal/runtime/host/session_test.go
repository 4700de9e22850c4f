//go:build linux

package host

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/sidecarhq/sidecar/internal/runtime"
)

// ttyHelperEnv makes the test binary a helper that owns a terminal and runs
// ttyProbe on the path its value names (see TestCommandCannotReachTerminal).
const ttyHelperEnv = "SIDECAR_HOST_TTY_HELPER"

// ttyProbe tries what a command would do to forge an approval prompt or
// type into it: open the controlling terminal.
const ttyProbe = `if { : >/dev/tty; } 2>/dev/null; then echo opened; else echo refused; fi`

// runTTYHelper runs in a helper whose controlling terminal is a pty, as a
// daemon started from a terminal is. It prints what ttyProbe printed.
func runTTYHelper(mode string) int {
	// The helper itself must be able to open its terminal, or the probe
	// proves nothing.
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper has no controlling terminal:", err)
		return 2
	}
	_ = tty.Close()
	warmShells := 0
	if mode == "warm" {
		warmShells = 1
	}
	r, err := New(Options{WarmShells: warmShells})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer func() { _ = r.Close() }()
	dir, err := os.MkdirTemp("", "sidecar-tty-helper-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer func() { _ = os.RemoveAll(dir) }()
	req := runtime.Request{ID: "tty-probe", Command: ttyProbe, Cwd: dir, Env: testEnv, Timeout: 30 * time.Second, MaxOutput: 1 << 10}
	if r.pool != nil {
		demand(r.pool, req.Env)
		for deadline := time.Now().Add(10 * time.Second); len(idleShells(r.pool)) == 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				fmt.Fprintln(os.Stderr, "no warm shell started")
				return 2
			}
		}
	}
	res, err := r.Run(context.Background(), req)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if mode == "warm" && statsOf(r.pool).hits != 1 {
		fmt.Fprintln(os.Stderr, "the probe did not run in a warm shell")
		return 2
	}
	fmt.Print(string(res.Output))
	return 0
}

// TestCommandCannotReachTerminal: a daemon started from a terminal must
// not lend it to commands. A command that could open /dev/tty could write a
// forged approval prompt there or, with TIOCSTI, type "y" into a real one.
func TestCommandCannotReachTerminal(t *testing.T) {
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ptmx, slave, err := pty.Open()
			if err != nil {
				t.Fatalf("open pty: %v", err)
			}
			defer func() { _ = ptmx.Close(); _ = slave.Close() }()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), ttyHelperEnv+"="+p.name)
			cmd.Stdin = slave
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("helper: %v\nstderr:\n%s", err, stderr.String())
			}
			if got := strings.TrimSpace(stdout.String()); got != "refused" {
				t.Errorf("a command opening /dev/tty under a daemon with a terminal: %q, want refused", got)
			}
		})
	}
}

// TestCommandSession: the shell leads a session and a process group of its
// own, with no controlling terminal (tty_nr 0), on both paths.
func TestCommandSession(t *testing.T) {
	forEachPath(t, func(t *testing.T, r *Runtime) {
		res := run(t, r, context.Background(), request(t, `builtin printf '%s ' $$; builtin read -r stat </proc/$$/stat; builtin printf '%s\n' "${stat##*) }"`))
		f := strings.Fields(string(res.Output))
		if len(f) < 6 {
			t.Fatalf("output %q", res.Output)
		}
		// $$, then from /proc/PID/stat: state ppid pgrp session tty_nr
		pid, pgrp, session, ttyNr := f[0], f[3], f[4], f[5]
		if _, err := strconv.Atoi(pid); err != nil || pgrp != pid || session != pid || ttyNr != "0" {
			t.Errorf("shell %s: pgrp %s, session %s, tty_nr %s; want its own group and session, no terminal", pid, pgrp, session, ttyNr)
		}
	})
}
