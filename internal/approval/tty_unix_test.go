//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// These tests exercise the default OpenTTY, /dev/tty, which only a process
// with a controlling terminal has. The test binary re-runs itself as a
// helper in a new session, with or without the pty as its controlling
// terminal, and reports the answer it got as JSON on stdout.

const helperEnv = "SIDECAR_APPROVAL_TEST_HELPER"

// helperResult is an Answer as a helper process reports it.
type helperResult struct {
	Approved      bool   `json:"approved"`
	Approval      string `json:"approval"`
	Reason        string `json:"reason"`
	Err           string `json:"err"`
	NotForeground bool   `json:"not_foreground"`
}

// runHelper runs one helper mode and returns the exit code.
//   - "ask": Ask with default options.
//   - "ask-in-background": first hand the terminal to another process
//     group, as a shell does for "sidecar serve &", then Ask.
func runHelper(mode string) int {
	if mode == "ask-in-background" {
		other := exec.Command("sleep", "60")
		other.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := other.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "start other job:", err)
			return 2
		}
		defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
		if err := unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, other.Process.Pid); err != nil {
			fmt.Fprintln(os.Stderr, "hand the terminal to the other job:", err)
			return 2
		}
	}
	a := New(Options{}).Ask(context.Background(), testRequest("r1", "rm -rf build"))
	res := helperResult{
		Approved:      a.Approved,
		Approval:      a.Approval,
		Reason:        a.Reason,
		NotForeground: errors.Is(a.Err, ErrNotForeground),
	}
	if a.Err != nil {
		res.Err = a.Err.Error()
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		fmt.Fprintln(os.Stderr, "report answer:", err)
		return 2
	}
	return 0
}

// startHelper starts the test binary as a helper in a new session. With
// ctty set, the helper's stdin and controlling terminal is that pty slave.
func startHelper(t *testing.T, mode string, ctty *os.File) (wait func() helperResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if ctty != nil {
		cmd.Stdin = ctty
		cmd.SysProcAttr.Setctty = true
		cmd.SysProcAttr.Ctty = 0
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start helper: %v", err)
	}
	return func() helperResult {
		t.Helper()
		defer cancel()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("helper %s: %v\nstderr:\n%s", mode, err, stderr.String())
		}
		var res helperResult
		if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
			t.Fatalf("helper %s output %q: %v", mode, stdout.String(), err)
		}
		return res
	}
}

func TestDefaultTTY(t *testing.T) {
	t.Run("prompts on the controlling terminal", func(t *testing.T) {
		term := newTerminal(t)
		wait := startHelper(t, "ask", term.slave)
		term.waitFor(promptLine, 0)
		term.typeKeys("y\n")
		want := helperResult{Approved: true, Approval: ApprovalUser}
		if diff := cmp.Diff(want, wait()); diff != "" {
			t.Errorf("helper answer (-want +got):\n%s", diff)
		}
	})

	t.Run("denies without a controlling terminal", func(t *testing.T) {
		wait := startHelper(t, "ask", nil)
		want := helperResult{
			Approval: ApprovalNoTTY,
			Reason:   "no terminal to ask on (/dev/tty unavailable)",
			Err:      "open terminal: open /dev/tty: " + unix.ENXIO.Error(),
		}
		if diff := cmp.Diff(want, wait()); diff != "" {
			t.Errorf("helper answer (-want +got):\n%s", diff)
		}
	})

	// Without the foreground check the helper would read a terminal it
	// does not own. Here its process group is orphaned, so that read fails
	// with EIO; under a shell ("sidecar serve &") SIGTTIN would stop the
	// whole daemon instead.
	t.Run("denies from a background job", func(t *testing.T) {
		term := newTerminal(t)
		wait := startHelper(t, "ask-in-background", term.slave)
		want := helperResult{
			Approval:      ApprovalNoTTY,
			Reason:        "no terminal to ask on (sidecar is not the terminal's foreground job)",
			Err:           ErrNotForeground.Error(),
			NotForeground: true,
		}
		if diff := cmp.Diff(want, wait()); diff != "" {
			t.Errorf("helper answer (-want +got):\n%s", diff)
		}
		if bytes.Contains([]byte(term.transcript()), []byte(promptTitle)) {
			t.Errorf("a background job showed its prompt:\n%s", term.transcript())
		}
	})
}
