// Package e2e drives the real `sidecar` binary over real HTTP on loopback:
// the daemon as a person starts it, the CLI verbs as a person types them.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sidecarhq/sidecar/internal/client"
)

// binary is the sidecar binary built once for the whole package.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sidecar-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "sidecar")
	build := exec.Command("go", "build", "-race", "-o", binary, "../cmd/sidecar")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build sidecar:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// daemon is one running `sidecar serve`.
type daemon struct {
	t         *testing.T
	cmd       *exec.Cmd
	URL       string
	Token     string
	Workspace string
	StateDir  string
	stderr    *bytes.Buffer
	done      chan error
}

// startDaemon runs `sidecar serve --port 0` over a fresh workspace and
// state dir with extra flags, waits for its URL and returns it. The daemon
// runs in a new session, so it has no terminal to prompt on and every
// "ask" is answered no, as for a daemon started in the background.
func startDaemon(t *testing.T, flags ...string) *daemon {
	t.Helper()
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return startDaemonIn(t, ws, filepath.Join(root, "state"), flags...)
}

// startDaemonIn is startDaemon over a given workspace and state dir.
func startDaemonIn(t *testing.T, workspace, stateDir string, flags ...string) *daemon {
	t.Helper()
	d := &daemon{t: t, Workspace: workspace, StateDir: stateDir, stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	args := append([]string{"serve", "--port", "0", "--workspace", d.Workspace, "--state-dir", d.StateDir}, flags...)
	d.cmd = exec.Command(binary, args...)
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	d.cmd.Stderr = d.stderr
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urlRE := regexp.MustCompile(`http://127\.0\.0\.1:\d+`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u := urlRE.FindString(sc.Text()); u != "" {
				found <- u
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout) // keep the pipe drained
	}()
	go func() { d.done <- d.cmd.Wait() }()
	select {
	case d.URL = <-found:
	case err := <-d.done:
		t.Fatalf("daemon exited before listening: %v\n%s", err, d.stderr)
	case <-time.After(30 * time.Second):
		d.cmd.Process.Kill()
		t.Fatalf("daemon did not print its URL\n%s", d.stderr)
	}
	tok, err := os.ReadFile(filepath.Join(d.StateDir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	d.Token = strings.TrimSpace(string(tok))
	t.Cleanup(func() { d.stop() })
	return d
}

// stop sends SIGTERM and waits; it returns the exit error.
func (d *daemon) stop() error {
	if d.cmd.ProcessState != nil {
		return nil
	}
	_ = d.cmd.Process.Signal(syscall.SIGTERM) // it may have exited already
	select {
	case err := <-d.done:
		d.done <- err
		return err
	case <-time.After(30 * time.Second):
		d.cmd.Process.Kill()
		d.t.Errorf("daemon ignored SIGTERM\n%s", d.stderr)
		return <-d.done
	}
}

func (d *daemon) client(t *testing.T) *client.Client {
	t.Helper()
	c, err := client.New(d.URL, d.Token)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// raw sends a request by hand, for the cases a well-behaved client never
// produces.
func (d *daemon) raw(t *testing.T, method, path, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, d.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+d.Token)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		if k == "Host" {
			req.Host = v // net/http takes the Host header from here only
			continue
		}
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// runCLI runs the binary with args and returns its output and exit code.
func runCLI(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}
