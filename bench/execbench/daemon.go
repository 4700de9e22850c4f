package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// daemon is one `sidecar serve` process on a throwaway workspace and state directory.
type daemon struct {
	cmd     *exec.Cmd
	baseURL string // http://127.0.0.1:PORT
	token   string
	logPath string // the daemon's stdout and stderr
	done    chan struct{}
	waitErr error // set before done is closed
}

// startDaemon starts `sidecar serve` with its workspace and state directory under dir,
// waits until it prints its listen address and reads its token. The caller must call
// stop.
func startDaemon(ctx context.Context, bin, dir string, noAudit bool) (*daemon, error) {
	workspace := filepath.Join(dir, "workspace")
	stateDir := filepath.Join(dir, "state")
	for _, d := range []string{workspace, stateDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("create daemon directory: %w", err)
		}
	}
	logPath := filepath.Join(dir, "daemon.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("create daemon log: %w", err)
	}

	args := []string{"serve", "--host", "127.0.0.1", "--port", "0",
		"--workspace", workspace, "--state-dir", stateDir, "--approval", "allow"}
	if noAudit {
		args = append(args, "--no-audit")
	}
	watcher := newURLWatcher(logFile)
	cmd := exec.Command(bin, args...)
	cmd.Stdout = watcher
	cmd.Stderr = logFile
	// Its own process group, so a Ctrl-C at the terminal reaches only us and the daemon
	// is stopped the way the benchmark stops it: SIGTERM from stop.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	d := &daemon{cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		d.waitErr = cmd.Wait()
		// Only now: until Wait returns, exec copies the daemon's stdout into it.
		logFile.Close()
		close(d.done)
	}()

	select {
	case d.baseURL = <-watcher.found:
	case <-d.done:
		return nil, fmt.Errorf("daemon exited before listening (%v); log:\n%s", d.waitErr, tail(logPath))
	case <-time.After(15 * time.Second):
		d.stop(time.Second)
		return nil, fmt.Errorf("daemon printed no listen address within 15s; log:\n%s", tail(logPath))
	case <-ctx.Done():
		d.stop(time.Second)
		return nil, ctx.Err()
	}
	if d.token, err = readToken(filepath.Join(stateDir, "token")); err != nil {
		d.stop(time.Second)
		return nil, err
	}
	return d, nil
}

func (d *daemon) pid() int { return d.cmd.Process.Pid }

// stop sends SIGTERM, waits up to timeout, then kills. It reports an error unless the
// daemon exited with status 0 on the SIGTERM.
func (d *daemon) stop(timeout time.Duration) error {
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signal daemon: %w", err)
	}
	select {
	case <-d.done:
	case <-time.After(timeout):
		_ = d.cmd.Process.Kill() // it may have exited just now; Wait below tells.
		<-d.done
		return fmt.Errorf("daemon ignored SIGTERM for %v; killed", timeout)
	}
	if d.waitErr != nil {
		return fmt.Errorf("daemon exit after SIGTERM: %w; log:\n%s", d.waitErr, tail(d.logPath))
	}
	return nil
}

func readToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read daemon token: %w", err)
	}
	token := strings.TrimSpace(string(b))
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(token) {
		return "", fmt.Errorf("daemon token in %s is not 64 hex characters", path)
	}
	return token, nil
}

// tail returns the last lines of a log for an error message.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}

var listenURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)

// findURL returns the loopback listen address in one line of the daemon's output.
func findURL(line string) (string, bool) {
	u := listenURL.FindString(line)
	return u, u != ""
}

// urlWatcher is the daemon's stdout: it copies everything to log and sends the first
// listen address it sees, on a whole line, to found.
type urlWatcher struct {
	log   io.Writer
	found chan string // buffered; receives at most once

	mu      sync.Mutex
	partial []byte // the current line so far, until the address is found
	sent    bool
}

func newURLWatcher(log io.Writer) *urlWatcher {
	return &urlWatcher{log: log, found: make(chan string, 1)}
}

func (w *urlWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.sent {
		w.partial = append(w.partial, p...)
		for {
			i := bytes.IndexByte(w.partial, '\n')
			if i < 0 {
				break
			}
			line := string(w.partial[:i])
			w.partial = w.partial[i+1:]
			if u, ok := findURL(line); ok {
				w.found <- u
				w.sent, w.partial = true, nil
				break
			}
		}
	}
	return w.log.Write(p)
}
