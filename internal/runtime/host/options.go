package host

import (
	"errors"
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
