//go:build linux

package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/sidecarhq/sidecar/internal/runtime"
)

// Run runs req and waits for it and for its output (see the package doc for
// the steps). On timeout or cancellation the group gets SIGTERM, then
// SIGKILL after KillGrace: cancellation is as gentle as a timeout because
// a command that cleans up on SIGTERM (lock files, temp dirs) should get to
// do so whoever stopped it. Run returns an error only when the command was
// not started: an invalid request, a cwd that cannot be entered
// (runtime.ErrCwdUnusable), ctx already done, the runtime closed
// (ErrClosed), or exec failing.
func (r *Runtime) Run(ctx context.Context, req runtime.Request) (runtime.Result, error) {
	if r.closed.Load() {
		return runtime.Result{}, fmt.Errorf("run %s: %w", req.ID, ErrClosed)
	}
	if err := validate(req); err != nil {
		return runtime.Result{}, fmt.Errorf("run %s: %w", req.ID, err)
	}
	if err := ctx.Err(); err != nil {
		return runtime.Result{}, fmt.Errorf("run %s: not started: %w", req.ID, err)
	}
	nonce, err := newNonce()
	if err != nil {
		return runtime.Result{}, fmt.Errorf("run %s: %w", req.ID, err)
	}
	// A stateless command runs without the EXIT trap: it ends where it
	// started, with the variables it started with. Not in an environment
	// that warmable refuses: BASH_FUNC_* or BASH_ENV could make `ls` a
	// function that runs `cd`.
	plain := warmable(req.Env) && stateless(req.Command)
	var script string
	if plain {
		script, err = plainWrapperScript(nonce, req.Cwd, req.Command)
	} else {
		script, err = wrapperScript(nonce, req.Cwd, req.Command)
	}
	if err != nil {
		return runtime.Result{}, fmt.Errorf("run %s: %w", req.ID, err)
	}
	p, err := r.start(req, script)
	if err != nil {
		return runtime.Result{}, fmt.Errorf("run %s: %w", req.ID, err)
	}
	res := r.wait(ctx, p, req.Timeout, nonce)
	if plain && !res.TimedOut && !res.Cancelled {
		res.Cwd = req.Cwd
	}
	r.pool.wake() // replace the shell taken, now that the CPU is free
	return res, nil
}

// start runs script for req in a warm shell started with exactly req.Env
// if one is idle, else in a fresh shell. Either way the shell runs the
// same wrapper with the same environment, stdin, descriptors and start
// directory; only how long it takes differs.
func (r *Runtime) start(req runtime.Request, script string) (*proc, error) {
	if w := r.pool.take(req.Env, len(script) <= maxWarmScript); w != nil {
		return w.begin(req, script)
	}
	return r.startCold(req, script)
}

// wait takes a started proc to its end: the leader's exit (or the kill
// sequence), the group kill, the reap and the drain. A shell whose trap has
// written a complete record and closed the output is answered at once,
// from the record, while it is still exiting (see answerEarly).
func (r *Runtime) wait(ctx context.Context, p *proc, timeout time.Duration, nonce string) runtime.Result {
	var res runtime.Result
	pgid := p.cmd.Process.Pid
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	outDone := p.outDone
	for ended := false; !ended; {
		select {
		case <-p.exited:
			ended = true
		case <-outDone:
			// The trap closes the output after writing its record, so
			// a complete record now means the command is over. Without
			// one the command closed its output itself, and only the
			// leader's exit ends it.
			outDone = nil
			if rec, ok := p.record(nonce, &r.exports); ok {
				return r.answerEarly(p, rec)
			}
		case <-timer.C:
			res.TimedOut = true
			terminate(pgid, p.exited, r.killGrace)
			ended = true
		case <-ctx.Done():
			res.Cancelled = true
			terminate(pgid, p.exited, r.killGrace)
			ended = true
		}
	}
	if res.TimedOut || res.Cancelled {
		// The leader has exited but is not reaped, so -pgid names only its
		// group: kill whatever the command left behind before reaping.
		signalGroup(pgid, syscall.SIGKILL)
	}
	// Wait's error repeats what ProcessState holds (*exec.ExitError).
	_ = p.cmd.Wait()
	if !res.TimedOut && !res.Cancelled {
		// A command that ended on its own may leave background jobs it
		// started on purpose (a dev server, Hermes's code kernel); they
		// keep its process group alive and are killed when the runtime
		// closes.
		r.groups.keepIfAlive(pgid)
	}
	// The shell has exited: its trap, if it ran, has written the record.
	rec, recorded := p.record(nonce, &r.exports)
	p.finish(r.drainTimeout)

	res.Output, res.OmittedBytes = p.out.cut()
	res.Duration = time.Since(p.started)
	res.ExitCode = exitCode(p.cmd.ProcessState)
	switch {
	case res.TimedOut:
		res.ExitCode = runtime.ExitTimedOut
	case res.Cancelled:
		res.ExitCode = runtime.ExitCancelled
	}
	if recorded {
		res.Cwd, res.Exports = rec.cwd, rec.exports
	}
	return res
}

// answerEarly answers for a shell that wrote its record and closed its
// output: the command is over and the shell is exiting
// with the status in the record. Its group is remembered as lingering
// until a goroutine has reaped it (Close kills it with the others and
// waits for that goroutine); if background jobs keep the group alive, it
// stays remembered, as after any other command.
func (r *Runtime) answerEarly(p *proc, rec record) runtime.Result {
	pgid := p.cmd.Process.Pid
	r.early.Add(1)
	r.groups.add(pgid)
	r.reapers.Add(1)
	go func() {
		defer r.reapers.Done()
		<-p.exited
		// Wait's error repeats the status, which the record already gave.
		r.groups.reap(pgid, func() { _ = p.cmd.Wait() })
	}()
	p.finish(r.drainTimeout) // the output drain is done: this stops feeding and closes
	res := runtime.Result{ExitCode: rec.status, Cwd: rec.cwd, Exports: rec.exports}
	res.Output, res.OmittedBytes = p.out.cut()
	res.Duration = time.Since(p.started)
	return res
}

// exitCode is the shell's status; a shell killed by a signal reports
// 128+signal as shells do.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		// Wait failed to reap: only possible if something else in this
		// process reaped our child. The status is unknown.
		return -1
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// validate checks what Run needs before it may start anything.
func validate(req runtime.Request) error {
	switch {
	case req.Timeout <= 0:
		return fmt.Errorf("%w: timeout %v is not positive", ErrInvalidRequest, req.Timeout)
	case req.MaxOutput < 0:
		return fmt.Errorf("%w: max output %d is negative", ErrInvalidRequest, req.MaxOutput)
	}
	return checkCwd(req.Cwd)
}

// checkCwd reports runtime.ErrCwdUnusable unless cwd is an absolute path
// to a directory this process may enter. exec would find most of this too,
// but reports a denied chdir the same way as a failed exec of the shell.
func checkCwd(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return fmt.Errorf("%w: %q is not absolute", runtime.ErrCwdUnusable, cwd)
	}
	fi, err := os.Stat(cwd)
	if err != nil {
		return fmt.Errorf("%w: %w", runtime.ErrCwdUnusable, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", runtime.ErrCwdUnusable, cwd)
	}
	if err := unix.Access(cwd, unix.X_OK); err != nil {
		return fmt.Errorf("%w: %s: %w", runtime.ErrCwdUnusable, cwd, err)
	}
	return nil
}
