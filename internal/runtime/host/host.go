package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Defaults for the zero Options.
const (
	DefaultShell        = "/bin/bash"
	DefaultKillGrace    = 2 * time.Second
	DefaultDrainTimeout = 2 * time.Second
)

// MaxWarmShells bounds Options.WarmShells. Each idle shell is a sleeping
// bash (a few MiB, mostly shared) and four pipe ends in the daemon.
const MaxWarmShells = 16

// ErrShellUnusable reports that Options.Shell is missing or is not a bash
// this runtime can drive. There is no fallback to another shell: the
// wrapper relies on bash features (traps, builtin, declare -px).
var ErrShellUnusable = errors.New("shell unusable")

// ErrInvalidOptions reports Options New refuses, such as a negative
// duration.
var ErrInvalidOptions = errors.New("invalid options")

// ErrClosed reports a Run after Close.
var ErrClosed = errors.New("runtime closed")

// ErrInvalidRequest reports a Request this runtime refuses before starting
// anything, such as a relative Cwd or a non-positive Timeout.
var ErrInvalidRequest = errors.New("invalid request")

// minBashMajor is the oldest bash whose `declare -px` output and builtins
// the wrapper and parser were written for.
const minBashMajor = 4

// Options configures a Runtime. The zero value is usable.
type Options struct {
	// Shell is the bash to run; default DefaultShell.
	Shell string
	// KillGrace is how long a timed-out or cancelled shell gets between
	// SIGTERM and SIGKILL; default DefaultKillGrace.
	KillGrace time.Duration
	// DrainTimeout bounds how long output is still read after the shell
	// exited and its group was killed, for processes that escaped the
	// group while holding the pipe; default DefaultDrainTimeout.
	DrainTimeout time.Duration
	// WarmShells is how many shells are kept started ahead of requests,
	// so that a request does not wait for bash to start (see the package
	// doc); at most MaxWarmShells. 0 turns them off: every request then
	// starts its own shell. A Runtime with warm shells must be closed.
	WarmShells int
}

// Runtime runs commands on the host as the current user. It is safe for
// concurrent use.
type Runtime struct {
	shell        string
	killGrace    time.Duration
	drainTimeout time.Duration
	groups       *lingering
	pool         *pool // nil without warm shells
	closed       atomic.Bool
}

// New checks opts and the shell and returns a Runtime. It runs the shell
// once to confirm that it is bash. With Options.WarmShells it also starts
// the one goroutine that keeps warm shells ready; Close stops it.
func New(opts Options) (*Runtime, error) {
	r := &Runtime{shell: opts.Shell, killGrace: opts.KillGrace, drainTimeout: opts.DrainTimeout, groups: newLingering()}
	if r.shell == "" {
		r.shell = DefaultShell
	}
	if r.killGrace == 0 {
		r.killGrace = DefaultKillGrace
	}
	if r.drainTimeout == 0 {
		r.drainTimeout = DefaultDrainTimeout
	}
	if r.killGrace < 0 || r.drainTimeout < 0 {
		return nil, fmt.Errorf("%w: KillGrace %v and DrainTimeout %v must not be negative", ErrInvalidOptions, r.killGrace, r.drainTimeout)
	}
	if opts.WarmShells < 0 || opts.WarmShells > MaxWarmShells {
		return nil, fmt.Errorf("%w: WarmShells %d is not between 0 and %d", ErrInvalidOptions, opts.WarmShells, MaxWarmShells)
	}
	if err := checkShell(r.shell); err != nil {
		return nil, err
	}
	if opts.WarmShells > 0 {
		r.pool = newPool(r.shell, opts.WarmShells)
	}
	return r, nil
}

// Name reports the runtime kind, "host".
func (r *Runtime) Name() string { return "host" }

// Close kills the idle warm shells and the process groups of finished
// commands that still have background jobs running, so nothing a command
// started outlives the daemon. It does not stop commands still running;
// cancel their contexts for that. Run fails with ErrClosed after Close;
// calling Close again does nothing more.
func (r *Runtime) Close() error {
	r.closed.Store(true)
	if r.pool != nil {
		r.pool.close()
	}
	r.groups.killAll()
	return nil
}

// checkShell fails unless path is an executable bash of a supported version.
func checkShell(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrShellUnusable, path, err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%w: %s is not an executable file", ErrShellUnusable, path)
	}
	// A hang guard only; bash answers in milliseconds.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--noprofile", "--norc", "-c", `builtin printf %s "${BASH_VERSINFO[0]}"`)
	cmd.Env = []string{}
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%w: %s does not run as bash: %w", ErrShellUnusable, path, err)
	}
	major, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return fmt.Errorf("%w: %s is not bash (no BASH_VERSINFO)", ErrShellUnusable, path)
	}
	if major < minBashMajor {
		return fmt.Errorf("%w: %s is bash %d, need %d or newer", ErrShellUnusable, path, major, minBashMajor)
	}
	return nil
}
