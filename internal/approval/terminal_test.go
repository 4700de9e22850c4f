//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package approval

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// terminal is a real pseudo-terminal: the test plays the person at the
// keyboard on the master side while the Prompter opens the slave.
type terminal struct {
	t      *testing.T
	master *os.File
	slave  *os.File // held open for the whole test, as a terminal's shell would

	mu      sync.Mutex
	out     []byte
	changed chan struct{} // closed and replaced whenever out grows
}

func newTerminal(t *testing.T) *terminal {
	t.Helper()
	ptmx, slave, err := pty.Open()
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	master, err := pollable(ptmx)
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	term := &terminal{t: t, master: master, slave: slave, changed: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			term.mu.Lock()
			term.out = append(term.out, buf[:n]...)
			close(term.changed)
			term.changed = make(chan struct{})
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		master.Close()
		<-done
		slave.Close()
	})
	return term
}

// pollable returns a copy of f that the runtime poller manages, and closes
// f. pty.Open leaves the master in blocking mode (it calls Fd), where Close
// would not interrupt the reader goroutine.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return nil, fmt.Errorf("dup %s: %w", f.Name(), err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("make %s non-blocking: %w", f.Name(), err)
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// open is an Options.OpenTTY that opens the slave side afresh, as
// opening /dev/tty would.
func (term *terminal) open() (TTY, error) {
	return os.OpenFile(term.slave.Name(), os.O_RDWR|syscall.O_NOCTTY, 0)
}

// typeKeys writes s as if typed at the keyboard.
func (term *terminal) typeKeys(s string) {
	term.t.Helper()
	if _, err := term.master.WriteString(s); err != nil {
		term.t.Fatalf("type %q: %v", s, err)
	}
}

// waitFor waits until the terminal has shown want at or after offset from,
// and returns the offset just past it.
func (term *terminal) waitFor(want string, from int) int {
	term.t.Helper()
	deadline := time.After(hangGuard)
	for {
		term.mu.Lock()
		i := bytes.Index(term.out[from:], []byte(want))
		changed := term.changed
		term.mu.Unlock()
		if i >= 0 {
			return from + i + len(want)
		}
		select {
		case <-changed:
		case <-deadline:
			term.t.Fatalf("terminal never showed %q; it shows:\n%s", want, term.transcript())
		}
	}
}

// transcript returns everything the terminal has shown so far.
func (term *terminal) transcript() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return string(term.out)
}

// ask runs p.Ask in its own goroutine and returns where its answer arrives.
func ask(ctx context.Context, p *Prompter, req Request) <-chan Answer {
	ch := make(chan Answer, 1)
	go func() { ch <- p.Ask(ctx, req) }()
	return ch
}

// receive waits for an answer from ch.
func receive(t *testing.T, ch <-chan Answer) Answer {
	t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(hangGuard):
		t.Fatal("Ask never returned")
		return Answer{}
	}
}
