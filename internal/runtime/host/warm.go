//go:build linux

package host

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sidecarhq/sidecar/internal/runtime"
)

// warmShell is a bash started before its request and blocked in the
// bootstrap, reading the payload pipe. Until a request takes it, it has no
// goroutine and its process group holds only itself.
type warmShell struct {
	env             []string // exactly the environment it was started with
	cmd             *exec.Cmd
	outR            *os.File // read end of the merged output
	recF            *os.File // the EXIT trap's record file
	scriptW, stdinW *os.File // write ends: payload, the request's stdin
}

// startWarm starts a warm shell with env, in "/" (the payload moves it),
// fd 0 on /dev/null and fds 3, 4 and 5 on the record, payload and stdin
// pipes.
func startWarm(shell string, env []string) (w *warmShell, err error) {
	var ps pipes
	defer func() { ps.done(err != nil) }()

	w = &warmShell{env: env}
	var outW, scriptR, stdinR *os.File
	if w.outR, outW, err = ps.fromChild("output"); err != nil {
		return nil, err
	}
	if w.recF, err = newRecordFile(); err != nil {
		return nil, err
	}
	ps.parent = append(ps.parent, w.recF) // closed with the pipes if the start fails
	if scriptR, w.scriptW, err = ps.toChild("payload"); err != nil {
		return nil, err
	}
	if stdinR, w.stdinW, err = ps.toChild("stdin"); err != nil {
		return nil, err
	}
	// recordFD, scriptFD, stdinFD
	w.cmd = shellCmd(shell, bootstrap, env, "/", outW, w.recF, scriptR, stdinR)
	if err := w.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start warm shell: %w", err)
	}
	return w, nil
}

// exited reports whether the shell has exited, or cannot be waited for,
// without reaping it. A shell killed from outside while idle must not be
// handed a request.
func (w *warmShell) exited() bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, w.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		// WNOHANG leaves info zeroed while the child runs.
		return err != nil || info.Signo != 0
	}
}

// discard kills the shell's process group, reaps the shell and closes the
// parent's ends. The shell has run nothing of a request, so its group is
// only itself; the group is signalled while the shell is still unreaped,
// so its id cannot have been reused.
func (w *warmShell) discard() {
	signalGroup(w.cmd.Process.Pid, syscall.SIGKILL)
	_ = w.cmd.Wait() // the status of a killed idle shell tells nothing
	closeFiles([]*os.File{w.outR, w.recF, w.scriptW, w.stdinW})
}

// begin gives the shell its request: from here on it is an ordinary proc,
// timed from now. The stdin pipe is closed at once when the request has no
// stdin. On error the shell is discarded.
func (w *warmShell) begin(req runtime.Request, wrapper string) (*proc, error) {
	payload, err := warmPayload(req.Cwd, wrapper, req.Stdin != nil)
	if err != nil {
		w.discard()
		return nil, err
	}
	p := newProc(req.MaxOutput)
	p.cmd, p.outR, p.recF = w.cmd, w.outR, w.recF
	p.scriptW, p.payload = w.scriptW, payload
	if req.Stdin != nil {
		p.stdinW = w.stdinW
	} else {
		_ = w.stdinW.Close() // nothing was written to it
	}
	p.started = time.Now()
	p.watch(req.Stdin) // feed writes the payload, then stdin
	return p, nil
}
