package approval

import (
	"io"
	"syscall"
	"time"
)

// Request is what the person at the keyboard is asked about. Every string
// field is shown through Escape, so none of them can drive the terminal.
type Request struct {
	ID      string // request id, to match the prompt with the audit log
	Client  string // who is asking, e.g. the remote address or client name
	Session string
	Cwd     string
	Command string // the command exactly as it will be run
	// Why says why the policy asks, e.g. "not on the safe list: rm".
	Why string
	// Timeout is the command's own timeout, shown to the person.
	Timeout time.Duration
	// At is when the request arrived; the prompt shows it and how long it
	// has waited. Zero: the time the prompt is shown.
	At time.Time
}

// How an Answer was reached; the values of Answer.Approval.
const (
	ApprovalUser      = "user"      // the person answered at a prompt
	ApprovalGrant     = "grant"     // an earlier "always" answer for this exact command in this session
	ApprovalTimeout   = "timeout"   // the prompt was shown and nobody answered in time
	ApprovalNoTTY     = "no_tty"    // nobody could be asked: no usable terminal
	ApprovalCancelled = "cancelled" // the caller's context ended before an answer
)

// Answer is the outcome of one Ask. Only Approved true lets a command run.
type Answer struct {
	Approved bool
	// Approval is one of the Approval* constants.
	Approval string
	// Reason says why a command was denied, in words fit to send to the
	// agent; empty when approved.
	Reason string
	// Always reports that the person approved this exact command string
	// for the rest of the session (choice a).
	Always bool
	// Granted reports that the Gate recorded a grant for Always.
	Granted bool
	// PersonReason is the reason the person typed (choice d), cleaned.
	PersonReason string
	// Err is the local failure behind a no_tty or cancelled answer, for the
	// daemon's own log. It may name local paths: never send it to the agent.
	Err error
}

// TTY is the terminal a prompt is shown on. *os.File satisfies it.
//
// The raw descriptor is reached through SyscallConn rather than Fd because
// (*os.File).Fd switches the file to blocking mode, after which deadlines
// no longer interrupt a read and an unanswered prompt would wait forever.
type TTY interface {
	io.ReadWriteCloser
	// SetDeadline bounds both showing the prompt and reading the answer;
	// a terminal stopped with Ctrl-S can block writes too.
	SetDeadline(t time.Time) error
	SyscallConn() (syscall.RawConn, error)
}
