//go:build linux

package approver

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestForeignUserRefused connects as another user to a socket left open
// to everyone, so that only the peer check stands between them: the
// daemon refuses the connection and never counts it as attached. It needs
// root to run a process as another user.
func TestForeignUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("SKIP: running a process as another user needs root")
	}
	s := startServer(t, nil)
	// Open the way: a world-readable directory, socket and test binary.
	dir, err := os.MkdirTemp("", "approver-peer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, p := range []string{dir, filepath.Dir(s.Path())} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(s.Path(), 0o666); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "helper")
	copyFile(t, os.Args[0], bin)

	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+s.Path())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	var got Message
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("helper output %q: %v", out, err)
	}
	if got.Type != "dial-error" || !strings.Contains(got.Message, "refused: only the user running the daemon may attach") {
		t.Errorf("foreign user got %+v, want refused", got)
	}
	if n := s.Attached(); n != 0 {
		t.Errorf("Attached() = %d after a foreign connection, want 0", n)
	}

	// The same helper as this user attaches.
	cmd = exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+s.Path())
	if out, err = cmd.Output(); err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	if err := json.Unmarshal(out, &got); err != nil || got.Type != TypeHello {
		t.Errorf("same user got %s, want hello", out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
