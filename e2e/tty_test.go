package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecarhq/sidecar/internal/protocol"
)

// ttyInjector is a command that, once allowed, stays in the background and
// tries to answer every later approval prompt itself: it opens the
// controlling terminal and pushes "y" and Enter into its input with
// TIOCSTI, over and over. It writes whether /dev/tty opened to tty-result.
const ttyInjector = `python3 -c '
import fcntl, os, sys, termios, time
try:
    tty = os.open("/dev/tty", os.O_RDWR)
except OSError as e:
    open("tty-result", "w").write("refused: " + e.strerror)
    sys.exit()
open("tty-result", "w").write("opened")
for _ in range(300):
    time.sleep(0.05)
    for c in b"y\n":
        try:
            fcntl.ioctl(tty, termios.TIOCSTI, bytes([c]))
        except OSError:
            pass
' >/dev/null 2>&1 &`

// TestCommandCannotAnswerPrompts: a command the person allowed once must
// not be able to approve the next ones by typing into the daemon's
// terminal. Each command runs in a session of its own, without the
// daemon's controlling terminal, so /dev/tty does not open for it.
func TestCommandCannotAnswerPrompts(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is needed to call TIOCSTI from a command")
	}
	d, term := startDaemonOnPTY(t, "--approval-timeout", "3")

	got := execAsync(t, d, protocol.ExecRequest{Command: ttyInjector})
	off := term.waitFor(promptLine, 0)
	term.typeKeys("y\n")
	if r := await(t, got); r.ExitCode != 0 {
		t.Fatalf("the injector did not start: %+v", r)
	}
	result := filepath.Join(d.Workspace, "tty-result")
	var tried []byte
	waitFor(t, func() bool {
		b, err := os.ReadFile(result)
		tried = b
		return err == nil && len(b) > 0
	})
	if !strings.HasPrefix(string(tried), "refused") {
		t.Errorf("a command opened the daemon's terminal: %s", tried)
	}

	// Nobody answers this one; an injector on the terminal would.
	got = execAsync(t, d, protocol.ExecRequest{Command: "touch pwned"})
	term.waitFor(promptLine, off)
	if r := await(t, got); r.ExitCode != 125 || r.Approval != "timeout" {
		t.Errorf("the second command: exit %d, approval %q; want 125, timeout", r.ExitCode, r.Approval)
	}
	if _, err := os.Stat(filepath.Join(d.Workspace, "pwned")); err == nil {
		t.Error("a command nobody approved ran")
	}
}
