// Package approval asks a person whether a command may run. It fails
// closed: an answer other than yes or always, no answer in time, nobody to
// ask, or any failure on the way is a denial.
//
// A Prompter shows one prompt at a time on a terminal; concurrent callers
// wait their turn in arrival order. Each prompt opens the terminal afresh,
// so a daemon started without one denies every request rather than failing
// to start. The person answers y (once), a (always: this exact command
// string, for the rest of the session), n, or d (no, with a reason typed
// for the agent).
//
// A Gate is what the daemon asks: it answers from Grants (earlier "always"
// answers), and otherwise asks the terminal and the attached approvers
// (package approver) at once; the first answer wins and the other question
// is withdrawn.
package approval

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultWait is how long a shown prompt waits for an answer unless
// Options.Wait says otherwise.
const DefaultWait = 60 * time.Second

var (
	// ErrNotForeground reports that the terminal belongs to another job
	// (the daemon runs in the background of its shell), so reading it
	// would stop the daemon.
	ErrNotForeground = errors.New("sidecar is not the terminal's foreground job")
	// ErrUnsupported reports a system on which this package shows no prompt.
	ErrUnsupported = errors.New("terminal prompts are not supported on this system")
)

// Options configure a Prompter. The zero value asks on /dev/tty and waits
// DefaultWait.
type Options struct {
	// OpenTTY opens the terminal for one prompt; the Prompter closes it
	// afterwards. Default: the process's controlling terminal, /dev/tty.
	OpenTTY func() (TTY, error)
	// Wait is how long a shown prompt waits for an answer. Default
	// DefaultWait.
	Wait time.Duration
	// Now is the clock shown on the prompt. Default time.Now. Deadlines
	// always use the real clock.
	Now func() time.Time
}

// Prompter asks for approvals on a terminal. It is safe for concurrent use;
// create it with New.
type Prompter struct {
	openTTY func() (TTY, error)
	wait    time.Duration
	now     func() time.Time
	turns   turnQueue
}

// New returns a Prompter configured by opts.
func New(opts Options) *Prompter {
	p := &Prompter{openTTY: opts.OpenTTY, wait: opts.Wait, now: opts.Now}
	if p.openTTY == nil {
		p.openTTY = openDefaultTTY
	}
	if p.wait <= 0 {
		p.wait = DefaultWait
	}
	if p.now == nil {
		p.now = time.Now
	}
	return p
}

// Ask shows req on the terminal and waits for the person's answer (see
// ParseChoice): y approves, a approves with Answer.Always set, d asks for a
// reason line and denies with it, anything else, an empty line included,
// denies. Keys typed before the prompt appeared are
// discarded. With no answer within the Prompter's wait it denies with
// ApprovalTimeout; without a usable terminal it denies with ApprovalNoTTY.
//
// Only one prompt is on the terminal at a time; other calls wait their turn
// in arrival order. If ctx ends while waiting, or while the prompt is shown,
// Ask denies with ApprovalCancelled.
func (p *Prompter) Ask(ctx context.Context, req Request) Answer {
	if err := p.turns.acquire(ctx); err != nil {
		return cancelled(err)
	}
	defer p.turns.release()
	// acquire may win a race with a context that has already ended.
	if err := ctx.Err(); err != nil {
		return cancelled(err)
	}
	tty, err := p.openTTY()
	if err != nil {
		return Answer{
			Approval: ApprovalNoTTY,
			Reason:   "no terminal to ask on (/dev/tty unavailable)",
			Err:      fmt.Errorf("open terminal: %w", err),
		}
	}
	// A close error cannot change the answer, which is final by now.
	defer func() { _ = tty.Close() }()
	return p.converse(ctx, tty, req)
}

func cancelled(err error) Answer {
	return Answer{
		Approval: ApprovalCancelled,
		Reason:   "the request was cancelled before anyone answered the approval prompt",
		Err:      err,
	}
}
