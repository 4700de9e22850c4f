//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package approval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestAskOneAtATime runs three Asks at once and answers each prompt as it
// appears. Each prompt must be answered (its confirmation shown) before the
// next box starts, and each caller must get the answer typed for its own
// command.
func TestAskOneAtATime(t *testing.T) {
	term := newTerminal(t)
	p := New(Options{OpenTTY: term.open, Wait: hangGuard, Now: fixedNow})

	typed := map[string]string{"cmd-0": "n\n", "cmd-1": "y\n", "cmd-2": "\n"}
	want := map[string]Answer{"cmd-0": declined, "cmd-1": approved, "cmd-2": declined}
	results := map[string]<-chan Answer{}
	for i := range 3 {
		cmd := fmt.Sprintf("cmd-%d", i)
		results[cmd] = ask(context.Background(), p, testRequest(fmt.Sprintf("r%d", i), cmd))
	}

	var order []string
	off := 0
	for range 3 {
		start := off
		off = term.waitFor(promptLine, off)
		box := term.transcript()[start:off]
		if n := strings.Count(box, promptTitle); n != 1 {
			t.Fatalf("%d prompts on the terminal at once:\n%s", n, box)
		}
		var cmd string
		for c := range typed {
			if strings.Contains(box, "$ "+c+" ") {
				cmd = c
			}
		}
		if cmd == "" {
			t.Fatalf("prompt shows none of the commands:\n%s", box)
		}
		order = append(order, cmd)
		term.typeKeys(typed[cmd])
		confirmation := "approved\r\n"
		if !want[cmd].Approved {
			confirmation = "denied\r\n"
		}
		off = term.waitFor(confirmation, off)
		// Nothing of the next prompt may have appeared before the
		// confirmation of this one.
		if n := strings.Count(term.transcript()[start:off], promptTitle); n != 1 {
			t.Fatalf("next prompt started before %s was answered:\n%s", cmd, term.transcript()[start:])
		}
	}

	for cmd, ch := range results {
		if diff := cmp.Diff(want[cmd], receive(t, ch), cmpopts.EquateErrors()); diff != "" {
			t.Errorf("answer for %s (-want +got):\n%s", cmd, diff)
		}
	}
	if len(order) != 3 || order[0] == order[1] || order[1] == order[2] || order[0] == order[2] {
		t.Errorf("prompts shown in order %v, want each command once", order)
	}
}

func TestAskCancelled(t *testing.T) {
	t.Run("while waiting for the terminal", func(t *testing.T) {
		term := newTerminal(t)
		p := New(Options{OpenTTY: term.open, Wait: hangGuard, Now: fixedNow})

		first := ask(context.Background(), p, testRequest("r1", "first"))
		off := term.waitFor(promptLine, 0)

		ctx, cancel := context.WithCancel(context.Background())
		second := ask(ctx, p, testRequest("r2", "second"))
		cancel()
		want := Answer{
			Approval: ApprovalCancelled,
			Reason:   "the request was cancelled before anyone answered the approval prompt",
			Err:      context.Canceled,
		}
		if diff := cmp.Diff(want, receive(t, second), cmpopts.EquateErrors()); diff != "" {
			t.Errorf("cancelled Ask (-want +got):\n%s", diff)
		}

		term.typeKeys("y\n")
		if diff := cmp.Diff(approved, receive(t, first), cmpopts.EquateErrors()); diff != "" {
			t.Errorf("first Ask (-want +got):\n%s", diff)
		}
		off = term.waitFor("approved\r\n", off)

		// The queue still works after a waiter left it, and the
		// cancelled request never reached the terminal.
		third := ask(context.Background(), p, testRequest("r3", "third"))
		term.waitFor(promptLine, off)
		term.typeKeys("n\n")
		if diff := cmp.Diff(declined, receive(t, third), cmpopts.EquateErrors()); diff != "" {
			t.Errorf("third Ask (-want +got):\n%s", diff)
		}
		if strings.Contains(term.transcript(), "$ second") {
			t.Errorf("cancelled request was shown:\n%s", term.transcript())
		}
	})

	t.Run("while the prompt is shown", func(t *testing.T) {
		term := newTerminal(t)
		p := New(Options{OpenTTY: term.open, Wait: hangGuard, Now: fixedNow})

		ctx, cancel := context.WithCancel(context.Background())
		got := ask(ctx, p, testRequest("r1", "rm -rf build"))
		term.waitFor(promptLine, 0)
		cancel()
		want := Answer{
			Approval: ApprovalCancelled,
			Reason:   "the request was cancelled before anyone answered the approval prompt",
			Err:      context.Canceled,
		}
		if diff := cmp.Diff(want, receive(t, got), cmpopts.EquateErrors()); diff != "" {
			t.Errorf("Ask answer (-want +got):\n%s", diff)
		}
		term.waitFor(promptLine+"\r\nrequest cancelled: denied\r\n", 0)
	})

	t.Run("before the call", func(t *testing.T) {
		opened := false
		p := New(Options{OpenTTY: func() (TTY, error) { opened = true; return nil, ErrUnsupported }})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		got := p.Ask(ctx, testRequest("r1", "rm -rf build"))
		want := Answer{
			Approval: ApprovalCancelled,
			Reason:   "the request was cancelled before anyone answered the approval prompt",
			Err:      context.Canceled,
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
			t.Errorf("Ask answer (-want +got):\n%s", diff)
		}
		if opened {
			t.Error("Ask opened the terminal for a cancelled request")
		}
	})
}
