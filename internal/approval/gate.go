package approval

import (
	"context"
	"time"
)

// Asker asks a person about a request.
type Asker interface {
	Ask(ctx context.Context, req Request) Answer
}

// AttachedAsker is an Asker that people attach to from elsewhere, such as
// `sidecar approve` over a Unix socket. Its Ask keeps a request pending
// until an attached person answers or ctx ends; a context.Cause that is a
// *Withdrawn tells it why the request went away.
type AttachedAsker interface {
	Asker
	// Attached reports how many approvers are attached.
	Attached() int
	// Changed returns a channel that is closed the next time an approver
	// attaches or detaches.
	Changed() <-chan struct{}
}

// GateOptions configure a Gate.
type GateOptions struct {
	Terminal Asker         // the daemon's own terminal; nil: none
	Attached AttachedAsker // attached approvers; nil: none
	Grants   *Grants       // "always" answers; nil: a is taken as y
	// Wait is how long attached approvers have to answer when the
	// terminal cannot ask. Default DefaultWait.
	Wait time.Duration
	Now  func() time.Time
}

// Gate is the approval step of the exec pipeline: it answers from a grant
// when the person said "always" to this exact command in this session
// before, and otherwise asks the terminal and the attached approvers at
// once. The first answer wins and the other question is withdrawn: the
// terminal prompt says where it was answered, and attached approvers see
// the request resolved. With no terminal that can ask and no approver
// attached, the answer is no (ApprovalNoTTY). It is safe for concurrent
// use.
type Gate struct {
	terminal Asker
	attached AttachedAsker
	grants   *Grants
	wait     time.Duration
	now      func() time.Time
}

// NewGate returns a Gate configured by opts.
func NewGate(opts GateOptions) *Gate {
	g := &Gate{terminal: opts.Terminal, attached: opts.Attached, grants: opts.Grants, wait: opts.Wait, now: opts.Now}
	if g.wait <= 0 {
		g.wait = DefaultWait
	}
	if g.now == nil {
		g.now = time.Now
	}
	return g
}

// Ask decides on req: a grant, else a person's answer, else no.
func (g *Gate) Ask(ctx context.Context, req Request) Answer {
	if req.At.IsZero() {
		req.At = g.now()
	}
	if g.grants != nil && g.grants.Has(req.Session, req.Command) {
		return Answer{Approved: true, Approval: ApprovalGrant}
	}
	a := g.ask(ctx, req)
	if a.Approved && a.Always && g.grants != nil {
		a.Granted = g.grants.Add(req.Session, req.Command)
	}
	return a
}

// nobody is the answer when no one can be asked.
func nobody() Answer {
	return Answer{Approval: ApprovalNoTTY,
		Reason: "nobody could be asked: the daemon has no terminal and no `sidecar approve` is attached"}
}

// source is where an answer came from.
type source int

const (
	fromTerminal source = iota
	fromAttached
)

type sourced struct {
	from source
	a    Answer
}

// ask puts req to the terminal and the attached approvers at once and
// returns the first decisive answer.
func (g *Gate) ask(ctx context.Context, req Request) Answer {
	if g.terminal == nil && (g.attached == nil || g.attached.Attached() == 0) {
		return nobody()
	}
	qctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	results := make(chan sourced, 2)
	running := 0
	start := func(from source, asker Asker) {
		running++
		go func() { results <- sourced{from, asker.Ask(qctx, req)} }()
	}
	if g.attached != nil {
		start(fromAttached, g.attached)
	}
	if g.terminal != nil {
		start(fromTerminal, g.terminal)
	}
	// finish withdraws the question everywhere else and waits until every
	// asker has returned, so no prompt outlives its request.
	finish := func(a Answer, why string) Answer {
		cancel(&Withdrawn{Why: why})
		for ; running > 0; running-- {
			<-results
		}
		return a
	}

	// Once the terminal cannot ask, the attached approvers decide, within
	// the wait, and only while any is attached.
	terminalOut := g.terminal == nil
	var deadline <-chan time.Time
	var changed <-chan struct{}
	leaveToAttached := func() {
		terminalOut = true
		timer := time.NewTimer(max(time.Until(req.At.Add(g.wait)), 0))
		deadline = timer.C
		changed = g.attached.Changed()
	}
	if terminalOut {
		leaveToAttached()
	}
	for {
		if terminalOut && g.attached.Attached() == 0 {
			return finish(nobody(), "nobody is attached to answer")
		}
		select {
		case r := <-results:
			running--
			switch {
			case r.a.Approval == ApprovalNoTTY && r.from == fromTerminal && g.attached != nil:
				leaveToAttached()
			case r.a.Approval == ApprovalNoTTY && r.from == fromAttached && !terminalOut:
				// The approver socket went away; the terminal still asks.
			default:
				return finish(r.a, answeredWhere(r.from, r.a))
			}
		case <-deadline:
			return finish(Answer{Approval: ApprovalTimeout,
				Reason: "nobody answered the approval request within " + formatDuration(g.wait)}, "no answer in time: denied")
		case <-changed:
			changed = g.attached.Changed()
		case <-ctx.Done():
			return finish(cancelled(ctx.Err()), "the request was cancelled: denied")
		}
	}
}

// answeredWhere is what the other side is told when an answer wins.
func answeredWhere(from source, a Answer) string {
	where := "answered at the daemon's terminal"
	if from == fromAttached {
		where = "answered in sidecar approve"
	}
	switch {
	case a.Approved:
		return where + ": approved"
	case a.Approval == ApprovalUser:
		return where + ": denied"
	}
	return where + ": " + a.Approval
}
