//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package approval

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var (
	approved = Answer{Approved: true, Approval: ApprovalUser}
	declined = Answer{Approval: ApprovalUser, Reason: "the person at the keyboard declined"}
)

func TestAskAnswers(t *testing.T) {
	tests := []struct {
		name  string
		typed string
		want  Answer
		shown string // the confirmation the terminal must show
	}{
		{"y", "y\n", approved, "approved"},
		{"Y", "Y\n", approved, "approved"},
		{"yes with spaces and capitals", "  YeS \n", approved, "approved"},
		{"n", "n\n", declined, "denied"},
		{"empty line is the default no", "\n", declined, "denied"},
		{"maybe", "maybe\n", declined, "denied"},
		{"yes and more", "yes please\n", declined, "denied"},
		{"a is always", "a\n", Answer{Approved: true, Approval: ApprovalUser, Always: true},
			"approved; this exact command runs without asking for the rest of the session"},
		{"always spelled out", " Always\n", Answer{Approved: true, Approval: ApprovalUser, Always: true},
			"approved; this exact command runs without asking for the rest of the session"},
		{"d with a reason", "d\nrun the tests with make check\x1b[2J\n",
			Answer{Approval: ApprovalUser, Reason: "the person declined: run the tests with make check[2J",
				PersonReason: "run the tests with make check[2J"},
			"denied; the agent is told: the person declined: run the tests with make check[2J"},
		{"d with an empty reason", "d\n\n", declined, "denied; the agent is told: the person at the keyboard declined"},
		{"y after spaces past the length limit", "y" + strings.Repeat(" ", 200) + "\n", declined, "denied"},
		{"end of input", "\x04", Answer{Approval: ApprovalUser, Reason: "the approval prompt's input ended without an answer"}, "end of input: denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := newTerminal(t)
			p := New(Options{OpenTTY: term.open, Wait: hangGuard, Now: fixedNow})

			got := ask(context.Background(), p, testRequest("r1", "rm -rf build"))
			off := term.waitFor(promptLine, 0)
			term.typeKeys(tt.typed)
			if diff := cmp.Diff(tt.want, receive(t, got), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("Ask answer (-want +got):\n%s", diff)
			}
			term.waitFor(tt.shown+"\r\n", off)
		})
	}
}

// TestAskShowsCommandEscaped checks on a real terminal that nothing in the
// command reaches it raw.
func TestAskShowsCommandEscaped(t *testing.T) {
	term := newTerminal(t)
	p := New(Options{OpenTTY: term.open, Wait: hangGuard, Now: fixedNow})

	got := ask(context.Background(), p, testRequest("r1", "echo hi\x1b[2J\u202egnp.exe\nrm -rf /"))
	term.waitFor(promptLine, 0)
	term.typeKeys("n\n")
	receive(t, got)

	shown := term.transcript()
	for _, raw := range []string{"\x1b", "\u202e"} {
		if strings.Contains(shown, raw) {
			t.Errorf("terminal got raw %q:\n%s", raw, shown)
		}
	}
	for _, want := range []string{`│ $ echo hi\x1b[2J<U+202E>gnp.exe `, `│ > rm -rf / `} {
		if !strings.Contains(shown, want) {
			t.Errorf("terminal does not show %q:\n%s", want, shown)
		}
	}
}

func TestAskTimeout(t *testing.T) {
	term := newTerminal(t)
	p := New(Options{OpenTTY: term.open, Wait: 200 * time.Millisecond, Now: fixedNow})

	got := p.Ask(context.Background(), testRequest("r1", "rm -rf build"))
	want := Answer{Approval: ApprovalTimeout, Reason: "nobody answered the approval prompt within 200ms"}
	if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("Ask answer (-want +got):\n%s", diff)
	}
	term.waitFor(promptLine+"\r\nno answer in 200ms: denied\r\n", 0)
}

// TestAskDiscardsEarlyKeystrokes types "y" before the prompt exists; it
// must not count as an answer, so the prompt times out.
func TestAskDiscardsEarlyKeystrokes(t *testing.T) {
	term := newTerminal(t)
	p := New(Options{OpenTTY: term.open, Wait: 300 * time.Millisecond, Now: fixedNow})

	term.typeKeys("y\n")
	// The echo shows the line discipline has the keys queued for reading.
	term.waitFor("y\r\n", 0)

	got := p.Ask(context.Background(), testRequest("r1", "rm -rf build"))
	want := Answer{Approval: ApprovalTimeout, Reason: "nobody answered the approval prompt within 300ms"}
	if diff := cmp.Diff(want, got, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("Ask answer (-want +got):\n%s", diff)
	}
}

func TestAskWithoutUsableTerminal(t *testing.T) {
	tests := []struct {
		name string
		open func(t *testing.T) (TTY, error)
		want Answer
	}{
		{
			name: "terminal cannot be opened",
			open: func(t *testing.T) (TTY, error) {
				return os.OpenFile(filepath.Join(t.TempDir(), "no-such-tty"), os.O_RDWR, 0)
			},
			want: Answer{
				Approval: ApprovalNoTTY,
				Reason:   "no terminal to ask on (/dev/tty unavailable)",
				Err:      fs.ErrNotExist,
			},
		},
		{
			name: "input of a socket cannot be discarded",
			open: func(t *testing.T) (TTY, error) {
				fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
				if err != nil {
					t.Fatalf("socketpair: %v", err)
				}
				peer := os.NewFile(uintptr(fds[1]), "peer")
				t.Cleanup(func() { peer.Close() })
				if err := syscall.SetNonblock(fds[0], true); err != nil {
					t.Fatalf("set nonblock: %v", err)
				}
				return os.NewFile(uintptr(fds[0]), "socket"), nil
			},
			want: Answer{
				Approval: ApprovalNoTTY,
				Reason:   "the terminal could not be used for the approval prompt",
				Err:      syscall.ENOTTY,
			},
		},
		{
			name: "regular file cannot time out",
			open: func(t *testing.T) (TTY, error) {
				return os.Create(filepath.Join(t.TempDir(), "file"))
			},
			want: Answer{
				Approval: ApprovalNoTTY,
				Reason:   "the terminal cannot time out an approval prompt",
				Err:      os.ErrNoDeadline,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(Options{OpenTTY: func() (TTY, error) { return tt.open(t) }, Wait: hangGuard, Now: fixedNow})
			got := p.Ask(context.Background(), testRequest("r1", "rm -rf build"))
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("Ask answer (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAskWithdrawn: a prompt whose request was answered elsewhere says so
// and stops asking.
func TestAskWithdrawn(t *testing.T) {
	term := newTerminal(t)
	p := New(Options{OpenTTY: term.open, Wait: hangGuard, Now: fixedNow})
	ctx, cancel := context.WithCancelCause(context.Background())
	got := ask(ctx, p, testRequest("r1", "rm -rf build"))
	off := term.waitFor(promptLine, 0)
	cancel(&Withdrawn{Why: "answered in sidecar approve: approved"})
	if a := receive(t, got); a.Approval != ApprovalCancelled || a.Approved {
		t.Errorf("answer = %+v, want cancelled", a)
	}
	term.waitFor("\r\nanswered in sidecar approve: approved\r\n", off)
}
