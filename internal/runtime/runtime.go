// Package runtime defines where an allowed command runs. Every runtime (host
// today; sandbox and vm later) takes the same Request and returns the same
// Result, so the server never needs to know which one the local user chose.
package runtime

import (
	"context"
	"errors"
	"time"
)

// Exit codes with a meaning fixed by the protocol.
const (
	ExitTimedOut    = 124 // the command ran past its timeout and its process group was killed
	ExitDenied      = 125 // the policy or the person said no; the command never started
	ExitCwdUnusable = 126 // the requested working directory could not be entered
	ExitCancelled   = 130 // POST /v1/cancel (or daemon shutdown) killed the process group
)

// ErrCwdUnusable reports that the working directory of a Request could not be
// entered; callers answer with ExitCwdUnusable.
var ErrCwdUnusable = errors.New("working directory unusable")

// Request is one command to run. The runtime builds its own wrapper around
// Command; Command is exactly the string that was classified and approved.
type Request struct {
	// ID is the request id, used for cancellation and in error messages.
	ID string
	// Command is the command exactly as the agent wrote it.
	Command string
	// Cwd is an absolute, already validated directory to start in.
	Cwd string
	// Env is the complete environment (KEY=VALUE); the runtime adds nothing
	// from its own process environment.
	Env []string
	// Stdin is the command's standard input; nil means /dev/null.
	Stdin []byte
	// Timeout bounds the wall time; it must be positive.
	Timeout time.Duration
	// MaxOutput caps the bytes of merged output kept in Result.Output; the
	// rest is read and counted, never kept.
	MaxOutput int
}

// Result is the outcome of a command that was started.
type Result struct {
	// ExitCode is the command's exit status, or ExitTimedOut/ExitCancelled.
	ExitCode int
	// Output is stdout and stderr merged in order, cut at MaxOutput.
	Output []byte
	// OmittedBytes counts output bytes read after the cap.
	OmittedBytes int64
	// Cwd is the directory the command ended in, or "" when the command did
	// not report it (for example it was killed, or it removed the EXIT trap).
	Cwd string
	// Exports holds every variable exported when the command ended, nil
	// when unknown or when the command could not change them. The caller
	// decides which of them persist.
	Exports map[string]string
	// TimedOut and Cancelled say why the process group was killed.
	TimedOut  bool
	Cancelled bool
	// Duration is the wall time from start to the end of the output.
	Duration time.Duration
}

// Truncated reports whether output was cut.
func (r Result) Truncated() bool { return r.OmittedBytes > 0 }

// Runtime runs commands. Implementations are safe for concurrent use.
type Runtime interface {
	// Name is the runtime kind as shown in /v1/status: "host", "sandbox", "vm".
	Name() string
	// Run starts req and waits for it. Cancelling ctx kills the command's
	// whole process group and yields a Result with Cancelled set; an error
	// means the command could not be started at all.
	Run(ctx context.Context, req Request) (Result, error)
	// Close stops whatever the runtime still runs on behalf of finished
	// commands (background jobs, VMs). Run must not be called after it.
	Close() error
}
