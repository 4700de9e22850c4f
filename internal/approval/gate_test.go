package approval

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// scriptedAsker answers after its answer channel yields, or reports the
// cause its context ended with. It stands in for a terminal or for the
// approver socket, whose real behaviour their own tests hold.
type scriptedAsker struct {
	answer chan Answer // nil: wait for the context
	asked  chan Request
	mu     sync.Mutex
	cause  error
}

func newScripted() *scriptedAsker {
	return &scriptedAsker{answer: make(chan Answer, 1), asked: make(chan Request, 8)}
}

func (s *scriptedAsker) Ask(ctx context.Context, req Request) Answer {
	s.asked <- req
	select {
	case a := <-s.answer:
		return a
	case <-ctx.Done():
		s.mu.Lock()
		s.cause = context.Cause(ctx)
		s.mu.Unlock()
		return cancelled(ctx.Err())
	}
}

func (s *scriptedAsker) withdrawnWhy() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var w *Withdrawn
	if errors.As(s.cause, &w) {
		return w.Why
	}
	return ""
}

// fakeAttached is a scriptedAsker with a count of attached approvers.
type fakeAttached struct {
	*scriptedAsker
	mu       sync.Mutex
	attached int
	changed  chan struct{}
}

func newAttached(n int) *fakeAttached {
	return &fakeAttached{scriptedAsker: newScripted(), attached: n, changed: make(chan struct{})}
}

func (f *fakeAttached) Attached() int { f.mu.Lock(); defer f.mu.Unlock(); return f.attached }

func (f *fakeAttached) Changed() <-chan struct{} { f.mu.Lock(); defer f.mu.Unlock(); return f.changed }

func (f *fakeAttached) set(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.attached = n
	close(f.changed)
	f.changed = make(chan struct{})
}

func gateAsk(g *Gate, ctx context.Context, req Request) <-chan Answer {
	ch := make(chan Answer, 1)
	go func() { ch <- g.Ask(ctx, req) }()
	return ch
}

func waitAsked(t *testing.T, s *scriptedAsker) Request {
	t.Helper()
	select {
	case r := <-s.asked:
		return r
	case <-time.After(hangGuard):
		t.Fatal("never asked")
	}
	return Request{}
}

var ignoreErr = cmpopts.IgnoreFields(Answer{}, "Err")

func TestGateNobodyToAsk(t *testing.T) {
	for name, g := range map[string]*Gate{
		"no terminal, no socket":       NewGate(GateOptions{}),
		"no terminal, nobody attached": NewGate(GateOptions{Attached: newAttached(0)}),
	} {
		a := g.Ask(context.Background(), testRequest("r1", "make"))
		if diff := cmp.Diff(nobody(), a); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

func TestGateTerminalWithoutTTYAndNobodyAttached(t *testing.T) {
	term := newScripted()
	term.answer <- Answer{Approval: ApprovalNoTTY, Reason: "no terminal to ask on (/dev/tty unavailable)"}
	g := NewGate(GateOptions{Terminal: term, Attached: newAttached(0)})
	a := g.Ask(context.Background(), testRequest("r1", "make"))
	if diff := cmp.Diff(nobody(), a); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestGateFirstAnswerWins: whichever of the terminal and the attached
// approver answers first decides; the other is withdrawn and told why.
func TestGateFirstAnswerWins(t *testing.T) {
	t.Run("attached-first", func(t *testing.T) {
		term, att := newScripted(), newAttached(1)
		g := NewGate(GateOptions{Terminal: term, Attached: att})
		got := gateAsk(g, context.Background(), testRequest("r1", "make"))
		waitAsked(t, term)
		waitAsked(t, att.scriptedAsker)
		att.answer <- AnswerFor(ChoiceOnce, "")
		if a := <-got; !a.Approved {
			t.Errorf("answer = %+v, want approved", a)
		}
		if why := term.withdrawnWhy(); why != "answered in sidecar approve: approved" {
			t.Errorf("terminal told %q", why)
		}
	})
	t.Run("terminal-first", func(t *testing.T) {
		term, att := newScripted(), newAttached(1)
		g := NewGate(GateOptions{Terminal: term, Attached: att})
		got := gateAsk(g, context.Background(), testRequest("r1", "make"))
		waitAsked(t, term)
		waitAsked(t, att.scriptedAsker)
		term.answer <- AnswerFor(ChoiceReason, "not now")
		want := Answer{Approval: ApprovalUser, Reason: "the person declined: not now", PersonReason: "not now"}
		if diff := cmp.Diff(want, <-got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if why := att.withdrawnWhy(); why != "answered at the daemon's terminal: denied" {
			t.Errorf("approver told %q", why)
		}
	})
}

// TestGateAttachedDecidesWithoutTerminal: a daemon without a terminal waits
// for attached approvers, as long as one is attached and up to the wait.
func TestGateAttachedDecidesWithoutTerminal(t *testing.T) {
	t.Run("answer", func(t *testing.T) {
		term, att := newScripted(), newAttached(1)
		term.answer <- Answer{Approval: ApprovalNoTTY}
		g := NewGate(GateOptions{Terminal: term, Attached: att, Wait: hangGuard})
		got := gateAsk(g, context.Background(), testRequest("r1", "make"))
		waitAsked(t, att.scriptedAsker)
		att.answer <- AnswerFor(ChoiceNo, "")
		if diff := cmp.Diff(AnswerFor(ChoiceNo, ""), <-got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("last-approver-detaches", func(t *testing.T) {
		att := newAttached(1)
		g := NewGate(GateOptions{Attached: att, Wait: hangGuard})
		got := gateAsk(g, context.Background(), testRequest("r1", "make"))
		waitAsked(t, att.scriptedAsker)
		att.set(0)
		if diff := cmp.Diff(nobody(), <-got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if why := att.withdrawnWhy(); why != "nobody is attached to answer" {
			t.Errorf("approver told %q", why)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		att := newAttached(1)
		g := NewGate(GateOptions{Attached: att, Wait: 50 * time.Millisecond})
		a := g.Ask(context.Background(), testRequest("r1", "make"))
		want := Answer{Approval: ApprovalTimeout, Reason: "nobody answered the approval request within 50ms"}
		if diff := cmp.Diff(want, a); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		att := newAttached(1)
		g := NewGate(GateOptions{Attached: att, Wait: hangGuard})
		ctx, cancel := context.WithCancel(context.Background())
		got := gateAsk(g, ctx, testRequest("r1", "make"))
		waitAsked(t, att.scriptedAsker)
		cancel()
		if diff := cmp.Diff(cancelled(context.Canceled), <-got, ignoreErr); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

// TestGateGrants: "always" records a grant for exactly that command in
// that session, and a grant answers without asking anyone.
func TestGateGrants(t *testing.T) {
	att := newAttached(1)
	grants := NewGrants(0)
	g := NewGate(GateOptions{Attached: att, Grants: grants, Wait: hangGuard})
	got := gateAsk(g, context.Background(), testRequest("r1", "make test"))
	waitAsked(t, att.scriptedAsker)
	att.answer <- AnswerFor(ChoiceAlways, "")
	want := Answer{Approved: true, Approval: ApprovalUser, Always: true, Granted: true}
	if diff := cmp.Diff(want, <-got); diff != "" {
		t.Errorf("always (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Answer{Approved: true, Approval: ApprovalGrant}, g.Ask(context.Background(), testRequest("r2", "make test"))); diff != "" {
		t.Errorf("granted (-want +got):\n%s", diff)
	}
	// Not a prefix, not another session: asked again.
	for _, req := range []Request{testRequest("r3", "make test && rm -rf ~"), testRequest("r4", "make tes")} {
		got := gateAsk(g, context.Background(), req)
		waitAsked(t, att.scriptedAsker)
		att.answer <- AnswerFor(ChoiceNo, "")
		if a := <-got; a.Approved {
			t.Errorf("%q was granted", req.Command)
		}
	}
	other := testRequest("r5", "make test")
	other.Session = "other"
	got = gateAsk(g, context.Background(), other)
	waitAsked(t, att.scriptedAsker)
	att.answer <- AnswerFor(ChoiceNo, "")
	if a := <-got; a.Approved {
		t.Error("a grant crossed sessions")
	}
	if n := grants.Len(); n != 1 {
		t.Errorf("grants = %d, want 1", n)
	}
}

func TestGrantsFull(t *testing.T) {
	g := NewGrants(1)
	if !g.Add("s", "a") || g.Add("s", "b") || !g.Add("s", "a") {
		t.Error("Add past the limit")
	}
	if !g.Has("s", "a") || g.Has("s", "b") {
		t.Error("Has after a full store")
	}
}

func TestParseChoiceAndCleanReason(t *testing.T) {
	for in, want := range map[string]Choice{"y": ChoiceOnce, " YES ": ChoiceOnce, "a": ChoiceAlways, "Always": ChoiceAlways,
		"d": ChoiceReason, "deny": ChoiceReason, "": ChoiceNo, "n": ChoiceNo, "yess": ChoiceNo, "ya": ChoiceNo} {
		if got := ParseChoice(in); got != want {
			t.Errorf("ParseChoice(%q) = %q, want %q", in, got, want)
		}
	}
	long := CleanReason(strings.Repeat("é", MaxReason))
	if len(long) > MaxReason {
		t.Errorf("CleanReason kept %d bytes", len(long))
	}
	if got := CleanReason(" use\tmake\x1b[2J check\u202e\n "); got != "use make[2J check" {
		t.Errorf("CleanReason = %q", got)
	}
}
